package directory_test

import (
	"errors"
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
	attest := func(it wire.Value) wire.Value {
		rec, err := decodeRecord(it)
		if err != nil {
			t.Fatal(err)
		}
		a := directory.AttestedOf(rec)
		v, _ := wire.ValueOf(directory.Attest(&a, "acme", s.acme.gateway.Signing))
		return it.With("attestation", v)
	}
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
