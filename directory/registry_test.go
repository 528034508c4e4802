package directory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// bigObject is a metadata object of about n bytes.
func bigObject(n int) wire.Value {
	return wire.ObjectValue(wire.Member{Key: "blob", Value: wire.StringValue(strings.Repeat("x", n))})
}

func TestRegisterCreate(t *testing.T) {
	e := newRegistryEnv(t, false)
	bot := e.acme.agent(t, "bot")
	p := e.create(e.acme, bot, profile("calendar.schedule", "calendar.check"))
	p.TTL = (10 * time.Minute).Milliseconds()
	rc := e.mustRegister(bot, p)
	now := e.clock.Now()
	if rc.Record == nil || rc.Record.ExpiresAt != now.Add(10*time.Minute).UnixMilli() {
		t.Fatalf("receipt %+v", rc)
	}
	if !rc.Entry.Verified || rc.Entry.PublicKey != bot.Signing.Public().String() || rc.Entry.EncryptionKey != bot.Encryption.Public().String() {
		t.Fatalf("entry %+v", rc.Entry)
	}
	// The receipt's record is attested by acme's registry.
	data := rc.Data()
	if ms, _ := data.Get("expires_at").Int(); ms != now.Add(10*time.Minute).UnixMilli() {
		t.Fatalf("receipt data %s", data)
	}
	a, err := directory.VerifyAttestation(data.Get("registry_attestation"), "acme", orgKey(e.acme), now)
	if err != nil || a.AgentID != "bot" || a.Org != "acme" {
		t.Fatalf("attestation: %+v, %v", a, err)
	}
	// Registering the same agent again with the same key replaces it.
	p2 := e.create(e.acme, bot, profile("calendar.schedule"))
	e.clock.Advance(time.Second)
	rc2 := e.mustRegister(bot, p2)
	if len(rc2.Entry.Capabilities) != 1 || !rc2.Entry.RegisteredAt.Equal(rc.Entry.RegisteredAt) {
		t.Fatalf("re-registration: %+v", rc2.Entry)
	}
	// A ttl of 0 is the maximum.
	if rc2.Record.ExpiresAt != e.clock.Now().Add(directory.DefaultMaxTTL).UnixMilli() {
		t.Fatalf("default ttl: expires %d", rc2.Record.ExpiresAt)
	}
}

func TestRegisterByOrg(t *testing.T) {
	e := newRegistryEnv(t, false)
	bot := e.globex.agent(t, "bot")
	pr := profile("echo.text")
	pr.AgentID, pr.PublicKey = "bot", bot.Signing.Public()
	// globex's gateway registers its agent with a certificate for it.
	rc := e.mustRegister(e.globex.gateway, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: e.globex.cert(t, bot, e.clock.Now())})
	if rc.ID != (directory.ID{Agent: "bot", Org: "globex"}) || !rc.Entry.Verified || rc.Entry.PublicKey != bot.Signing.Public().String() {
		t.Fatalf("org registration: %+v", rc.Entry)
	}
	// Without the certificate the key is not vouched for.
	other := e.globex.agent(t, "other")
	pr2 := profile("echo.text")
	pr2.AgentID, pr2.PublicKey = "other", other.Signing.Public()
	_, err := e.register(e.globex.gateway, &wire.RegisterPayload{Action: "create", Profile: pr2})
	wantCode(t, err, wire.ErrAuthFailed, "p.identity_cert")
	// The org gateway registers itself with its own key, no certificate.
	self := profile("gateway.relay")
	if rc := e.mustRegister(e.globex.gateway, &wire.RegisterPayload{Action: "create", Profile: self}); !rc.Entry.Verified {
		t.Fatalf("gateway self-registration unverified: %+v", rc.Entry)
	}
}

func TestRegisterAuthority(t *testing.T) {
	e := newRegistryEnv(t, false)
	now := e.clock.Now()
	bot := e.globex.agent(t, "bot")
	// A trusted org's agent without a certificate.
	_, err := e.register(bot, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text")})
	wantCode(t, err, wire.ErrAuthFailed, "p.identity_cert")
	// A certificate signed by someone else than globex.
	forger := &identity.Org{Name: "globex", Signing: e.initech.gateway.Signing}
	forged, err := forger.IssueIdentity(bot.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.register(bot, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text"), IdentityCert: forged.Value()})
	wantCode(t, err, wire.ErrAuthFailed, "")
	// A certificate for another key: a new entry is registered by its
	// own key.
	_, err = e.register(bot, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text"), IdentityCert: e.globex.cert(t, e.globex.agent(t, "bot"), now)})
	wantCode(t, err, wire.ErrAuthFailed, "p.profile.public_key")
	// A certificate for another agent.
	_, err = e.register(bot, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text"), IdentityCert: e.globex.cert(t, e.globex.agent(t, "x"), now)})
	wantCode(t, err, wire.ErrAuthFailed, "p.identity_cert")
	// An agent registering another agent.
	pr := profile("echo.text")
	pr.AgentID = "someone-else"
	_, err = e.register(bot, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: e.globex.cert(t, bot, now)})
	wantCode(t, err, wire.ErrAuthFailed, "p.profile.agent_id")
	// A peer org may register only its own agents: globex's key cannot
	// certify an agent of acme.
	intruder := e.acme.agent(t, "bot")
	asAcme := &identity.Org{Name: "acme", Signing: e.globex.gateway.Signing}
	ic, err := asAcme.IssueIdentity(intruder.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.register(intruder, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text"), IdentityCert: ic.Value()})
	wantCode(t, err, wire.ErrAuthFailed, "")
	// Nor sign for acme with its own key.
	gx := *e.globex.gateway
	gx.Ref.Org = "acme"
	pr = profile("echo.text")
	pr.AgentID, pr.PublicKey = "bot", intruder.Signing.Public()
	_, err = e.register(&gx, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: ic.Value()})
	wantCode(t, err, wire.ErrAuthFailed, "")
	// An organisation the registry does not trust.
	stranger := e.initech.agent(t, "bot")
	_, err = e.register(stranger, e.create(e.initech, stranger, profile("echo.text")))
	wantCode(t, err, wire.ErrAuthFailed, "from.org")
	// An expired certificate.
	c, _ := e.globex.issuer.IssueIdentity(bot.Public(), now.Add(-48*time.Hour), now.Add(-time.Hour))
	_, err = e.register(bot, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text"), IdentityCert: c.Value()})
	wantCode(t, err, wire.ErrAuthFailed, "")
	// None of it was stored.
	if ans, err := e.reg.Discover(t.Context(), &wire.DiscoverPayload{}, directory.Viewer{Local: true}, true); err != nil || ans.Total != 0 {
		t.Fatalf("refused registrations stored: %v, %v", names(ans), err)
	}
	// The certificate may also come in the moltgate.identity extension.
	m := &wire.Message{V: wire.Version, ID: newUUID(), TS: now.UnixMilli(), Op: wire.OpRegister, From: bot.Sender(),
		To: wire.Ref{Agent: "registry", Org: "acme"}, Cls: wire.Pub, Payload: &wire.RegisterPayload{Action: "create", Profile: profile("echo.text")},
		Ext: wire.ObjectValue(wire.Member{Key: directory.ExtIdentity, Value: wire.ObjectValue(wire.Member{Key: "cert", Value: e.globex.cert(t, bot, now)})})}
	b, err := cryptoSign(e, m, bot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.reg.Register(t.Context(), b); err != nil {
		t.Fatalf("certificate in the extension: %v", err)
	}
}

func TestRegisterOpen(t *testing.T) {
	e := newRegistryEnv(t, true)
	stranger := e.initech.agent(t, "bot")
	rc := e.mustRegister(stranger, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text")})
	if rc.Entry.Verified {
		t.Fatal("an unknown org's agent is listed as verified")
	}
	// Bound to its first key.
	squatter := e.initech.agent(t, "bot")
	_, err := e.register(squatter, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text")})
	wantCode(t, err, wire.ErrRegistrationConflict, "")
	// The verified filter leaves it out.
	yes := true
	ans, err := e.reg.Discover(t.Context(), &wire.DiscoverPayload{Capability: "echo.text", Filters: &wire.DiscoverFilters{Verified: &yes}}, directory.Viewer{}, false)
	if err != nil || ans.Total != 0 {
		t.Fatalf("verified filter: %v, %v", names(ans), err)
	}
	// Trusted orgs still need their certificates in an open registry.
	bot := e.globex.agent(t, "bot")
	_, err = e.register(bot, &wire.RegisterPayload{Action: "create", Profile: profile("echo.text")})
	wantCode(t, err, wire.ErrAuthFailed, "p.identity_cert")
}

func TestRegisterInvalidProfile(t *testing.T) {
	e := newRegistryEnv(t, false)
	bot := e.acme.agent(t, "bot")
	cases := []struct {
		name  string
		edit  func(p *wire.RegisterPayload)
		field string
	}{
		{"no endpoint", func(p *wire.RegisterPayload) { p.Profile.Endpoint = nil }, "p.profile.endpoint.url"},
		{"endpoint scheme", func(p *wire.RegisterPayload) { p.Profile.Endpoint.URL = "ftp://gw.example/x" }, "p.profile.endpoint.url"},
		{"endpoint credentials", func(p *wire.RegisterPayload) { p.Profile.Endpoint.URL = "https://u:pw@gw.example/x" }, "p.profile.endpoint.url"},
		{"websocket scheme", func(p *wire.RegisterPayload) { p.Profile.Endpoint.WebSocket = "https://gw.example/s" }, "p.profile.endpoint.websocket"},
		{"no capabilities", func(p *wire.RegisterPayload) { p.Profile.Capabilities = nil }, "p.profile.capabilities"},
		{"reserved capability", func(p *wire.RegisterPayload) { p.Profile.Capabilities = []string{"echo.text", "registry.sync"} }, "p.profile.capabilities[1]"},
		{"duplicate capability", func(p *wire.RegisterPayload) { p.Profile.Capabilities = []string{"a.b", "a.b"} }, "p.profile.capabilities[1]"},
		{"metadata too large", func(p *wire.RegisterPayload) { p.Profile.Metadata = bigObject(20000) }, "p.profile.metadata"},
		{"control character", func(p *wire.RegisterPayload) { p.Profile.Name = "bad\x07name" }, "p.profile.name"},
		{"metadata not an object", func(p *wire.RegisterPayload) { p.Profile.Metadata = wire.ArrayValue() }, "p.profile.metadata"},
		{"duplicate allowed org", func(p *wire.RegisterPayload) { p.Profile.AllowedOrgs = []string{"globex", "globex"} }, "p.profile.allowed_orgs[1]"},
		{"profile too large", func(p *wire.RegisterPayload) { p.Profile.Metadata = bigObject(70000) }, "p.profile"},
		{"ttl below minimum", func(p *wire.RegisterPayload) { p.TTL = 1000 }, "p.ttl"},
		{"ttl above maximum", func(p *wire.RegisterPayload) { p.TTL = (25 * time.Hour).Milliseconds() }, "p.ttl"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := e.create(e.acme, bot, profile("echo.text"))
			c.edit(p)
			_, err := e.register(bot, p)
			wantCode(t, err, wire.ErrInvalidProfile, c.field)
		})
	}
}

func TestProfileError(t *testing.T) {
	for field, want := range map[string]wire.Code{
		"p.profile.capabilities[2]": wire.ErrInvalidProfile,
		"p.profile.public_key":      wire.ErrInvalidProfile,
		"p.profile":                 wire.ErrInvalidProfile,
		"p.profiles":                wire.ErrInvalidParam,
		"p.ttl":                     wire.ErrInvalidParam,
		"":                          wire.ErrInvalidParam,
	} {
		got := directory.ProfileError(wire.Errorf(wire.ErrInvalidParam, field, "bad"))
		if got.Code != want || got.Field != field {
			t.Errorf("%q: %s %q, want %s", field, got.Code, got.Field, want)
		}
	}
	if got := directory.ProfileError(wire.Errorf(wire.ErrSignature, "p.profile", "x")); got.Code != wire.ErrSignature {
		t.Errorf("a signature failure became %s", got.Code)
	}
}

func TestRegisterExpiryAndRenew(t *testing.T) {
	e := newRegistryEnv(t, false)
	ctx := t.Context()
	bot := e.acme.agent(t, "bot")
	p := e.create(e.acme, bot, profile("echo.text"))
	p.TTL = time.Minute.Milliseconds()
	e.mustRegister(bot, p)
	id := directory.ID{Agent: "bot", Org: "acme"}
	// Renewed before it expires: a new expiry from now.
	e.clock.Advance(50 * time.Second)
	rc := e.mustRegister(bot, &wire.RegisterPayload{Action: "renew", TTL: (2 * time.Minute).Milliseconds()})
	if rc.Record.ExpiresAt != e.clock.Now().Add(2*time.Minute).UnixMilli() {
		t.Fatalf("renew: expires %d", rc.Record.ExpiresAt)
	}
	// Renew by another key than the entry's.
	_, err := e.register(e.acme.agent(t, "bot"), &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrRegistrationConflict, "")
	// The org may renew any of its agents.
	e.mustRegister(e.acme.gateway, &wire.RegisterPayload{Action: "renew", TTL: (2 * time.Minute).Milliseconds(), Profile: &wire.Profile{AgentID: "bot"}})
	// Expired: gone from every answer.
	e.clock.Advance(3 * time.Minute)
	if _, err := e.reg.Lookup(ctx, id, directory.Viewer{Local: true}); err == nil {
		t.Fatal("an expired entry is still found")
	} else {
		wantCode(t, err, wire.ErrAgentNotFound, "")
	}
	ans, err := e.reg.Discover(ctx, &wire.DiscoverPayload{Capability: "echo.text"}, directory.Viewer{Local: true}, true)
	if err != nil || ans.Total != 0 {
		t.Fatalf("expired entry in search: %v %v", names(ans), err)
	}
	// A renew or an update after expiry is refused.
	_, err = e.register(bot, &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrRegistrationExpired, "")
	up := e.create(e.acme, bot, profile("echo.text"))
	up.Action = "update"
	_, err = e.register(bot, up)
	wantCode(t, err, wire.ErrRegistrationExpired, "")
	// Renew or update of an agent never registered.
	ghost := e.acme.agent(t, "ghost")
	_, err = e.register(ghost, &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrAgentNotFound, "")
	up = e.create(e.acme, ghost, profile("echo.text"))
	up.Action = "update"
	_, err = e.register(ghost, up)
	wantCode(t, err, wire.ErrAgentNotFound, "")
	// Swept after the retention; a create brings the agent back.
	e.clock.Advance(directory.DefaultExpiredRetention + time.Hour)
	if sw, err := e.store.Sweep(ctx); err != nil || sw.Expired != 1 {
		t.Fatalf("sweep: %+v, %v", sw, err)
	}
	_, err = e.register(bot, &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrAgentNotFound, "")
	e.mustRegister(bot, e.create(e.acme, bot, profile("echo.text")))
	if _, err := e.reg.Lookup(ctx, id, directory.Viewer{}); err != nil {
		t.Fatalf("registered again: %v", err)
	}
}

func TestRegisterConflictAndRotation(t *testing.T) {
	e := newRegistryEnv(t, false)
	ctx := t.Context()
	id := directory.ID{Agent: "bot", Org: "globex"}
	k1 := e.globex.agent(t, "bot")
	e.mustRegister(k1, e.create(e.globex, k1, profile("echo.text")))
	// Another key of the same agent id, even certified: a conflict.
	k2 := e.globex.agent(t, "bot")
	e.clock.Advance(time.Second)
	_, err := e.register(k2, e.create(e.globex, k2, profile("echo.text")))
	wantCode(t, err, wire.ErrRegistrationConflict, "from.key")
	// Nor may another key rewrite the entry while naming the held key
	// and carrying its (public) certificate: the endpoint would be
	// hijacked.
	hijack := profile("echo.text")
	hijack.Endpoint.URL = "https://attacker.example/x"
	hijack.PublicKey = k1.Signing.Public()
	_, err = e.register(k2, &wire.RegisterPayload{Action: "update", Profile: hijack, IdentityCert: e.globex.cert(t, k1, e.clock.Now())})
	wantCode(t, err, wire.ErrRegistrationConflict, "from.key")
	// Rotation signed by the old key, carrying the new key's certificate.
	pr := profile("echo.text")
	pr.PublicKey = k2.Signing.Public()
	e.mustRegister(k1, &wire.RegisterPayload{Action: "update", Profile: pr, IdentityCert: e.globex.cert(t, k2, e.clock.Now())})
	if got, err := e.reg.Lookup(ctx, id, directory.Viewer{}); err != nil || got.PublicKey != k2.Signing.Public().String() {
		t.Fatalf("after rotation by the old key: %+v, %v", got, err)
	}
	// The old key no longer acts for the agent.
	e.clock.Advance(time.Second)
	_, err = e.register(k1, &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrRegistrationConflict, "")
	// Rotation by the organisation.
	k3 := e.globex.agent(t, "bot")
	pr = profile("echo.text")
	pr.AgentID, pr.PublicKey = "bot", k3.Signing.Public()
	e.mustRegister(e.globex.gateway, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: e.globex.cert(t, k3, e.clock.Now())})
	if got, err := e.reg.Lookup(ctx, id, directory.Viewer{}); err != nil || got.PublicKey != k3.Signing.Public().String() {
		t.Fatalf("after rotation by the org: %+v, %v", got, err)
	}
	// A registration older than the one held loses.
	stale := e.message(k3, e.create(e.globex, k3, profile("echo.text")))
	e.clock.Advance(time.Second)
	e.mustRegister(k3, e.create(e.globex, k3, profile("echo.text", "echo.more")))
	_, err = e.reg.Register(ctx, stale)
	wantCode(t, err, wire.ErrRegistrationConflict, "ts")
}

func TestRegisterDelete(t *testing.T) {
	e := newRegistryEnv(t, false)
	ctx := t.Context()
	bot := e.acme.agent(t, "bot")
	e.mustRegister(bot, e.create(e.acme, bot, profile("echo.text")))
	e.clock.Advance(time.Second)
	_, err := e.register(e.acme.agent(t, "bot"), &wire.RegisterPayload{Action: "delete", Reason: "shutdown"})
	wantCode(t, err, wire.ErrRegistrationConflict, "")
	e.mustRegister(bot, &wire.RegisterPayload{Action: "delete", Reason: "shutdown"})
	_, err = e.reg.Lookup(ctx, directory.ID{Agent: "bot", Org: "acme"}, directory.Viewer{Local: true})
	wantCode(t, err, wire.ErrAgentNotFound, "")
	e.clock.Advance(time.Second)
	_, err = e.register(bot, &wire.RegisterPayload{Action: "delete"})
	wantCode(t, err, wire.ErrAgentNotFound, "")
	// The org removes any of its agents.
	other := e.acme.agent(t, "other")
	e.mustRegister(other, e.create(e.acme, other, profile("echo.text")))
	e.clock.Advance(time.Second)
	e.mustRegister(e.acme.gateway, &wire.RegisterPayload{Action: "delete", Profile: &wire.Profile{AgentID: "other"}})
	if ans, _ := e.reg.Discover(ctx, &wire.DiscoverPayload{}, directory.Viewer{Local: true}, true); ans.Total != 0 {
		t.Fatalf("after deletes: %v", names(ans))
	}
}

func TestRegisterSignatureChecked(t *testing.T) {
	e := newRegistryEnv(t, false)
	bot := e.acme.agent(t, "bot")
	m := e.message(bot, e.create(e.acme, bot, profile("echo.text")))
	// The same message claiming another key.
	tree, _ := m.Tree()
	tampered := tree.With("from", tree.Get("from").With("key", wire.StringValue(e.acme.agent(t, "x").Signing.Public().String())))
	tm, err := e.codec.Decode(wire.AppendCanonical(nil, tampered.With("sig", wire.StringValue(m.Sig.String()))))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.reg.Register(t.Context(), tm)
	wantCode(t, err, wire.ErrSignature, "")
}

// A write signed by a key that is not the entry's tells the signer, who is
// not known to belong to the organisation, no more than a lookup would:
// that a private, restricted or expired entry exists is answered as if it
// did not.
func TestRegisterConflictRevealsNoHiddenEntry(t *testing.T) {
	e := newRegistryEnv(t, false)
	reg := func(id, vis string, allowed ...string) *identity.Agent {
		a := e.acme.agent(t, id)
		pr := profile("echo.text")
		pr.Visibility, pr.AllowedOrgs = vis, allowed
		e.mustRegister(a, e.create(e.acme, a, pr))
		return a
	}
	open := reg("open", "public")
	reg("unlisted", "unlisted")
	reg("private", "private")
	reg("partners", "public", "globex")
	lapsed := reg("lapsed", "public")
	// lapsed expires; the others are renewed past that.
	e.clock.Advance(23 * time.Hour)
	for _, id := range []string{"open", "unlisted", "private", "partners"} {
		e.mustRegister(e.acme.gateway, &wire.RegisterPayload{Action: "renew", Profile: &wire.Profile{AgentID: id}})
	}
	e.clock.Advance(2 * time.Hour)
	answers := func(id string) (del, renew, update wire.Code) {
		t.Helper()
		stranger := e.acme.agent(t, id) // names the agent, signs with a key of its own
		_, err := e.register(stranger, &wire.RegisterPayload{Action: "delete"})
		del = code(t, err)
		_, err = e.register(stranger, &wire.RegisterPayload{Action: "renew"})
		renew = code(t, err)
		// An agent's certificate is public: it travels with its messages.
		held := e.acme.agent(t, id)
		pr := profile("echo.text")
		pr.PublicKey = held.Signing.Public()
		_, err = e.register(stranger, &wire.RegisterPayload{Action: "update", Profile: pr, IdentityCert: e.acme.cert(t, held, e.clock.Now())})
		update = code(t, err)
		return
	}
	nd, nr, nu := answers("nobody")
	if nd != wire.ErrAgentNotFound || nr != wire.ErrAgentNotFound || nu != wire.ErrAuthFailed {
		t.Fatalf("no such agent: %s %s %s", nd, nr, nu)
	}
	for _, id := range []string{"private", "partners", "lapsed"} {
		if d, r, u := answers(id); d != nd || r != nr || u != nu {
			t.Errorf("%s: delete %s, renew %s, update %s; an unknown agent gets %s %s %s", id, d, r, u, nd, nr, nu)
		}
	}
	// What anyone may look up is no secret: the conflict is said.
	for _, id := range []string{"open", "unlisted"} {
		if d, r, _ := answers(id); d != wire.ErrRegistrationConflict || r != wire.ErrRegistrationConflict {
			t.Errorf("%s: delete %s, renew %s, want E_REGISTRATION_CONFLICT", id, d, r)
		}
	}
	// The entry's own key still learns that its registration expired.
	_, err := e.register(lapsed, &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrRegistrationExpired, "")
	e.mustRegister(open, &wire.RegisterPayload{Action: "delete"})
}

func code(t *testing.T, err error) wire.Code {
	t.Helper()
	we, ok := err.(*wire.Error)
	if !ok {
		t.Fatalf("got %v (%T), want a *wire.Error", err, err)
	}
	return we.Code
}

// padded signs a register message from signer that carries n bytes of an
// extension besides p, as any sender may add.
func (e *registryEnv) padded(signer *identity.Agent, p *wire.RegisterPayload, n int) *wire.Message {
	e.t.Helper()
	m := &wire.Message{V: wire.Version, ID: newUUID(), TS: e.clock.Now().UnixMilli(), Op: wire.OpRegister,
		From: signer.Sender(), To: wire.Ref{Agent: "registry", Org: "acme"}, Cls: wire.Pub, Payload: p,
		Ext: wire.ObjectValue(wire.Member{Key: "example.pad", Value: wire.ObjectValue(
			wire.Member{Key: "pad", Value: wire.StringValue(strings.Repeat("ab", n/2))})})}
	d, err := cryptoSign(e, m, signer)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// A registration is kept and published as it was signed, in every sync
// page that carries it: the whole message is bounded, not the profile
// alone, well under the message size limit.
func TestRegisterMessageBounded(t *testing.T) {
	e := newRegistryEnv(t, false)
	ctx := t.Context()
	bot := e.acme.agent(t, "bot")
	const within, beyond = 64 << 10, 256 << 10
	if _, err := e.reg.Register(ctx, e.padded(bot, e.create(e.acme, bot, profile("echo.text")), within)); err != nil {
		t.Fatalf("a registration within the bound: %v", err)
	}
	e.clock.Advance(time.Second)
	_, err := e.reg.Register(ctx, e.padded(bot, e.create(e.acme, bot, profile("echo.text")), beyond))
	wantCode(t, err, wire.ErrTooLarge, "")
	e.clock.Advance(time.Second)
	_, err = e.reg.Register(ctx, e.padded(bot, &wire.RegisterPayload{Action: "delete"}, beyond))
	wantCode(t, err, wire.ErrTooLarge, "")
	// A renewal is not kept.
	e.clock.Advance(time.Second)
	if _, err := e.reg.Register(ctx, e.padded(bot, &wire.RegisterPayload{Action: "renew"}, beyond)); err != nil {
		t.Fatalf("renew: %v", err)
	}
}

// TestSelfRegistrationEndsWithItsCertificate: an agent that registers or
// renews itself keeps its entry verified only while the identity
// certificate it registered with is valid; past it, a renew is refused and
// the agent registers again with a fresh certificate. Its organisation,
// which could issue one, may still renew it.
func TestSelfRegistrationEndsWithItsCertificate(t *testing.T) {
	e := newRegistryEnv(t, false)
	bot := e.acme.agent(t, "bot")
	now := e.clock.Now()
	c, err := e.acme.issuer.IssueIdentity(bot.Public(), now.Add(-time.Minute), now.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	p := &wire.RegisterPayload{Action: "create", Profile: profile("echo.text"), IdentityCert: c.Value()}
	rc := e.mustRegister(bot, p) // a ttl of a day, the default
	if want := c.Expires; rc.Record.ExpiresAt != want {
		t.Fatalf("created to expire at %d, want the certificate's %d", rc.Record.ExpiresAt, want)
	}
	// An hour on, a renew for a day ends with the certificate too.
	e.clock.Advance(time.Hour)
	rc = e.mustRegister(bot, &wire.RegisterPayload{Action: "renew"})
	if rc.Record.ExpiresAt != c.Expires {
		t.Fatalf("renewed to expire at %d, want the certificate's %d", rc.Record.ExpiresAt, c.Expires)
	}
	// The organisation renews it past the certificate, and then the agent's
	// own renew is refused, naming the certificate.
	e.mustRegister(e.acme.gateway, &wire.RegisterPayload{Action: "renew", Profile: &wire.Profile{AgentID: "bot"}})
	e.clock.Advance(90 * time.Minute)
	_, err = e.register(bot, &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrAuthFailed, "p.identity_cert")
	// A fresh certificate brings it back for the default ttl.
	up := e.create(e.acme, bot, profile("echo.text"))
	up.Action = "update"
	rc = e.mustRegister(bot, up)
	if rc.Record.ExpiresAt != e.clock.Now().Add(directory.DefaultMaxTTL).UnixMilli() {
		t.Fatalf("updated to expire at %d", rc.Record.ExpiresAt)
	}
	// A stranger's renew learns nothing of the certificate.
	_, err = e.register(e.acme.agent(t, "bot"), &wire.RegisterPayload{Action: "renew"})
	wantCode(t, err, wire.ErrRegistrationConflict, "")
}
