package directory_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// What the tests try to publish. None of it may come back in an error.
const (
	leakEmail = "jane.doe@example.com"
	leakPhone = "+1 415 555 0132"
	leakKey   = "AKIAZ3MSJV4WWNKWW5V2"
)

var leaks = []string{"jane.doe", "example.com", "555 0132", "AKIAZ3"}

// wantContentRefusal checks a refusal of personal data (E_INVALID_PROFILE)
// or a secret (E_CLASSIFICATION) at field: it names the field, says what to
// do, and echoes nothing of what it refused.
func wantContentRefusal(t *testing.T, err error, c wire.Code, field string) {
	t.Helper()
	wantCode(t, err, c, field)
	we := err.(*wire.Error)
	if we.Suggestion == nil || !strings.Contains(we.Suggestion.Fix, "remove") {
		t.Errorf("suggestion %+v: want one that says to remove it", we.Suggestion)
	}
	text := err.Error() + " " + we.Suggestion.String()
	for _, l := range leaks {
		if strings.Contains(text, l) {
			t.Errorf("refusal %q echoes %q", text, l)
		}
	}
}

func metadata(k string, v wire.Value) wire.Value {
	return wire.ObjectValue(wire.Member{Key: "region", Value: wire.StringValue("eu")}, wire.Member{Key: k, Value: v})
}

// A registration that carries personal data or a secret, in any member,
// is refused naming the member, and nothing of it is stored; one free of
// them is accepted.
func TestRegisterRefusesPersonalDataAndSecrets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*wire.Profile)
		code  wire.Code
		field string
	}{
		{"email in description", func(p *wire.Profile) { p.Description = "Mail " + leakEmail + " for access." },
			wire.ErrInvalidProfile, "p.profile.description"},
		{"phone in description", func(p *wire.Profile) { p.Description = "Call " + leakPhone + " for access." },
			wire.ErrInvalidProfile, "p.profile.description"},
		{"cloud key in description", func(p *wire.Profile) { p.Description = "Deployed with " + leakKey + "." },
			wire.ErrClassification, "p.profile.description"},
		{"email in tags", func(p *wire.Profile) { p.Tags = []string{"calendar", leakEmail} },
			wire.ErrInvalidProfile, "p.profile.tags[1]"},
		{"phone in tags", func(p *wire.Profile) { p.Tags = []string{leakPhone} },
			wire.ErrInvalidProfile, "p.profile.tags[0]"},
		{"cloud key in tags", func(p *wire.Profile) { p.Tags = []string{"calendar", leakKey} },
			wire.ErrClassification, "p.profile.tags[1]"},
		{"email in metadata", func(p *wire.Profile) { p.Metadata = metadata("contact", wire.StringValue(leakEmail)) },
			wire.ErrInvalidProfile, "p.profile.metadata.contact"},
		{"phone in metadata", func(p *wire.Profile) {
			p.Metadata = metadata("owner", wire.ObjectValue(wire.Member{Key: "phone", Value: wire.StringValue(leakPhone)}))
		}, wire.ErrInvalidProfile, "p.profile.metadata.owner.phone"},
		{"cloud key in metadata", func(p *wire.Profile) { p.Metadata = metadata("deploy", wire.StringValue(leakKey)) },
			wire.ErrClassification, "p.profile.metadata.deploy"},
		{"secret before personal data", func(p *wire.Profile) {
			p.Description = "Mail " + leakEmail
			p.Tags = []string{leakKey}
		}, wire.ErrClassification, "p.profile.tags[0]"},
		// The member's name is context, as the gate reads it: a value
		// under "name" that looks like a person's is one.
		{"person's name", func(p *wire.Profile) { p.Name = "Jane Doe" }, wire.ErrInvalidProfile, "p.profile.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newRegistryEnv(t, false)
			bot := e.acme.agent(t, "bot")
			pr := profile("calendar.schedule")
			tc.edit(pr)
			// Signed by the agent, and by its organisation for it.
			_, err := e.register(bot, e.create(e.acme, bot, pr))
			wantContentRefusal(t, err, tc.code, tc.field)
			pr.AgentID, pr.PublicKey = "bot", bot.Signing.Public()
			_, err = e.register(e.acme.gateway, e.create(e.acme, bot, pr))
			wantContentRefusal(t, err, tc.code, tc.field)
			if _, err := e.store.Get(t.Context(), directory.ID{Agent: "bot", Org: "acme"}, directory.Viewer{Local: true}); !errors.Is(err, directory.ErrNotFound) {
				t.Fatalf("refused registration stored: %v", err)
			}
		})
	}
	// A description, tags and metadata free of them are published as
	// registered.
	e := newRegistryEnv(t, false)
	bot := e.acme.agent(t, "bot")
	pr := profile("calendar.schedule", "calendar.check")
	pr.Name, pr.Description = "Meeting planner", "Schedules meetings for the sales team, in any time zone. Version 2.3.1."
	pr.Tags = []string{"calendar", "eu-west", "v2"}
	pr.Metadata = wire.ObjectValue(
		wire.Member{Key: "languages", Value: wire.ArrayValue(wire.StringValue("en"), wire.StringValue("de"))},
		wire.Member{Key: "max_attendees", Value: wire.IntValue(100)},
		wire.Member{Key: "docs", Value: wire.StringValue("https://docs.example/calendar")})
	rc := e.mustRegister(bot, e.create(e.acme, bot, pr))
	if rc.Entry.Description != pr.Description || len(rc.Entry.Tags) != 3 || !strings.Contains(string(rc.Entry.Metadata), "max_attendees") {
		t.Fatalf("entry %+v", rc.Entry)
	}
}

// What goes along with the profile is published too, in registry sync.
func TestRegisterRefusesPersonalDataOutsideTheProfile(t *testing.T) {
	e := newRegistryEnv(t, false)
	bot := e.acme.agent(t, "bot")
	e.mustRegister(bot, e.create(e.acme, bot, profile("calendar.schedule")))
	e.clock.Advance(time.Second)
	// A removal is kept, and synced, with its reason.
	_, err := e.register(bot, &wire.RegisterPayload{Action: "delete", Reason: "write to " + leakEmail})
	wantContentRefusal(t, err, wire.ErrInvalidProfile, "p.reason")
	if _, err := e.store.Get(t.Context(), directory.ID{Agent: "bot", Org: "acme"}, directory.Viewer{Local: true}); err != nil {
		t.Fatalf("a refused removal removed the entry: %v", err)
	}
	// A renew is not kept: its reason is nobody's business.
	if _, err := e.register(bot, &wire.RegisterPayload{Action: "renew", Reason: "write to " + leakEmail}); err != nil {
		t.Fatalf("renew: %v", err)
	}
	// So is an extension, which travels in the signed registration.
	m := &wire.Message{V: wire.Version, ID: newUUID(), TS: e.clock.Now().UnixMilli(), Op: wire.OpRegister,
		From: bot.Sender(), To: wire.Ref{Agent: "registry", Org: "acme"}, Cls: wire.Pub,
		Payload: e.create(e.acme, bot, profile("calendar.schedule")),
		Ext:     wire.ObjectValue(wire.Member{Key: "acme.support", Value: wire.ObjectValue(wire.Member{Key: "contact", Value: wire.StringValue(leakEmail)})})}
	d, err := cryptoSign(e, m, bot)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.reg.Register(t.Context(), d)
	wantContentRefusal(t, err, wire.ErrInvalidProfile, "ext{0}.contact")
}

// signedTree is register message p from signer as it travels in a sync
// item: its tree with the signature.
func (s *syncEnv) signedTree(signer *identity.Agent, p *wire.RegisterPayload) wire.Value {
	s.t.Helper()
	m := s.message(signer, p)
	t, err := m.Tree()
	if err != nil {
		s.t.Fatal(err)
	}
	return t.With("sig", wire.StringValue(m.Sig.String()))
}

// An entry pulled from a peer is published again to this registry's own
// peers: one that carries personal data or a secret is refused, as it
// would be if it were registered here, and the rest of the page applied.
func TestSyncRefusesPersonalDataAndSecrets(t *testing.T) {
	s := newSyncEnv(t)
	bot := s.acme.agent(t, "bot")
	s.mustRegister(bot, s.create(s.acme, bot, profile("echo.text")))
	items := s.export(s.clock.Now().Add(-time.Minute), false)
	if len(items) != 1 {
		t.Fatalf("%d items", len(items))
	}
	good := items[0]
	// acme's registry attests what it is given: an older one, or one whose
	// store was written to directly, would.
	attest := func(it wire.Value) wire.Value { return s.attest(t, it) }
	s.clock.Advance(time.Second)
	tainted := func(edit func(*wire.Profile)) wire.Value {
		pr := profile("echo.text")
		edit(pr)
		return attest(good.With("registration", s.signedTree(bot, s.create(s.acme, bot, pr))))
	}
	cases := []struct {
		name  string
		item  wire.Value
		code  wire.Code
		field string
	}{
		{"email in description", tainted(func(p *wire.Profile) { p.Description = "Mail " + leakEmail }),
			wire.ErrInvalidProfile, "registration.p.profile.description"},
		{"phone in tags", tainted(func(p *wire.Profile) { p.Tags = []string{leakPhone} }),
			wire.ErrInvalidProfile, "registration.p.profile.tags[0]"},
		{"cloud key in metadata", tainted(func(p *wire.Profile) { p.Metadata = metadata("deploy", wire.StringValue(leakKey)) }),
			wire.ErrClassification, "registration.p.profile.metadata.deploy"},
		{"email in a removal's reason", attest(good.With("registration",
			s.signedTree(bot, &wire.RegisterPayload{Action: "delete", Reason: "write to " + leakEmail})).With("removed", wire.BoolValue(true))),
			wire.ErrInvalidProfile, "registration.p.reason"},
	}
	for _, tc := range cases {
		res := s.imp(tc.item)
		if res.Applied != 0 || len(res.Refused) != 1 {
			t.Fatalf("%s: %+v", tc.name, res)
		}
		wantContentRefusal(t, res.Refused[0].Err, tc.code, tc.field)
		if got := s.globexSees(); got != "" {
			t.Fatalf("%s: globex holds %s", tc.name, got)
		}
	}
	// The genuine entry beside a refused one is applied.
	if res := s.imp(cases[0].item, good); res.Applied != 1 || len(res.Refused) != 1 {
		t.Fatalf("mixed page: %+v", res)
	}
	if got := s.globexSees(); got != "bot@acme" {
		t.Fatalf("globex holds %q", got)
	}
}

// putStraight writes the entry that register message p from signer
// describes straight into the store, as a registry that did not scan
// registrations, or another replica of a shared store, would have.
func (e *registryEnv) putStraight(signer *identity.Agent, p *wire.RegisterPayload) {
	e.t.Helper()
	m := e.message(signer, p)
	reg, err := m.AppendWire(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	pr := p.Profile
	now := e.clock.Now()
	ent := &directory.Entry{AgentID: signer.Ref.Agent, Org: signer.Ref.Org, Name: pr.Name, Description: pr.Description,
		Endpoint: directory.Endpoint{URL: pr.Endpoint.URL}, PublicKey: signer.Signing.Public().String(),
		Capabilities: pr.Capabilities, Tags: pr.Tags, Visibility: directory.Public, Verified: true,
		ExpiresAt: now.Add(time.Hour), SignedAt: now, Registration: reg}
	if !pr.Metadata.IsAbsent() {
		ent.Metadata = wire.AppendCanonical(nil, pr.Metadata)
	}
	if _, err := e.store.Put(e.t.Context(), ent, directory.PutOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// An entry that holds personal data or a secret anyway reaches no other
// organisation: not in discovery, not by lookup, not in a sync page. Local
// callers still see it, and the operator is told which agent it is.
func TestStoredPersonalDataIsWithheld(t *testing.T) {
	s := newSyncEnv(t)
	ctx := t.Context()
	t0 := s.clock.Now().Add(-time.Minute)
	reg := func(id string, edit func(*wire.Profile)) *identity.Agent {
		a := s.acme.agent(t, id)
		pr := profile("calendar.schedule")
		edit(pr)
		s.putStraight(a, s.create(s.acme, a, pr))
		s.clock.Advance(time.Second)
		return a
	}
	reg("clean", func(p *wire.Profile) { p.Description = "Schedules meetings." })
	reg("mail", func(p *wire.Profile) { p.Description = "Mail " + leakEmail + " for access." })
	reg("phone", func(p *wire.Profile) { p.Tags = []string{"calendar", leakPhone} })
	reg("key", func(p *wire.Profile) { p.Metadata = metadata("deploy", wire.StringValue(leakKey)) })
	// A record shows nothing of this one; the registration a sync page
	// carries does.
	quiet := s.acme.agent(t, "quiet")
	m := &wire.Message{V: wire.Version, ID: newUUID(), TS: s.clock.Now().UnixMilli(), Op: wire.OpRegister,
		From: quiet.Sender(), To: wire.Ref{Agent: "registry", Org: "acme"}, Cls: wire.Pub,
		Payload: s.create(s.acme, quiet, profile("calendar.schedule")),
		Ext:     wire.ObjectValue(wire.Member{Key: "acme.support", Value: wire.ObjectValue(wire.Member{Key: "contact", Value: wire.StringValue(leakEmail)})})}
	d, err := cryptoSign(s.registryEnv, m, quiet)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := d.AppendWire(nil)
	if _, err := s.store.Put(ctx, &directory.Entry{AgentID: "quiet", Org: "acme", PublicKey: quiet.Signing.Public().String(),
		Endpoint: directory.Endpoint{URL: "https://gw.example/moltspeak/v0.1/message"}, Capabilities: []string{"calendar.schedule"},
		Visibility: directory.Public, Verified: true, ExpiresAt: s.clock.Now().Add(time.Hour), SignedAt: s.clock.Now(), Registration: raw},
		directory.PutOptions{}); err != nil {
		t.Fatal(err)
	}

	search := &wire.DiscoverPayload{Capability: "calendar.schedule"}
	for _, v := range []directory.Viewer{{Org: "globex"}, {}} {
		for range 2 {
			ans, err := s.reg.Discover(ctx, search, v, false)
			if err != nil {
				t.Fatal(err)
			}
			got := names(ans)
			slices.Sort(got)
			if joined(got) != "clean@acme,quiet@acme" || ans.Total != 2 {
				t.Fatalf("%+v finds %s (total %d)", v, got, ans.Total)
			}
		}
		for _, id := range []string{"mail", "phone", "key"} {
			_, err := s.reg.Lookup(ctx, directory.ID{Agent: id, Org: "acme"}, v)
			wantCode(t, err, wire.ErrAgentNotFound, "")
			_, err = s.reg.Discover(ctx, &wire.DiscoverPayload{AgentID: id}, v, false)
			wantCode(t, err, wire.ErrAgentNotFound, "p.agent_id")
		}
	}
	ans, err := s.reg.Discover(ctx, search, directory.Viewer{Local: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := joined(names(ans)); len(ans.Results) != 5 {
		t.Fatalf("a local caller finds %s", got)
	}
	var synced []string
	for _, it := range s.export(t0, true) {
		id, _ := it.Get("agent_id").Str()
		synced = append(synced, id)
	}
	if got := joined(synced); got != "clean" {
		t.Fatalf("sync page holds %s", got)
	}
	// Each is logged by its id and where, once however often it is asked
	// for; never what it holds.
	logs := s.logs.String()
	for _, want := range []string{"agent=mail@acme", "field=description", "agent=phone@acme", "field=tags[1]",
		"agent=key@acme", "field=metadata.deploy", "agent=quiet@acme"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if n := strings.Count(logs, "agent=mail@acme"); n != 2 {
		t.Errorf("mail@acme logged %d times, want once for records and once for its registration:\n%s", n, logs)
	}
	for _, l := range leaks {
		if strings.Contains(logs, l) {
			t.Errorf("log echoes %q:\n%s", l, logs)
		}
	}
}
