package classify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

var (
	t0     = time.UnixMilli(1_767_222_000_000)
	alice  = wire.Ref{Agent: "alice", Org: "acme"} // local agent
	bob    = wire.Ref{Agent: "bob", Org: "globex"} // peer agent
	codec  = wire.NewCodec(wire.Limits{})
	allCls = []wire.Class{wire.Pub, wire.Int, wire.Conf, wire.PII, wire.Sec}
)

func seedKey(t testing.TB, b byte) keys.Ed25519Private {
	k, err := keys.Ed25519FromSeed(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type fixture struct {
	gate   *Gate
	policy *Policy
	counts *Counts
	store  *consent.FileStore
	acme   keys.Ed25519Private // our org key
	globex keys.Ed25519Private // the peer's org key
	seq    int
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{acme: seedKey(t, 1), globex: seedKey(t, 2), counts: &Counts{}}
	trust := identity.NewTrustStore()
	trust.Add("acme", f.acme.Public())
	trust.Add("globex", f.globex.Public())
	var err error
	f.store, err = consent.OpenFile(filepath.Join(t.TempDir(), "revoked.jsonl"), &consent.FileOptions{Refresh: -1})
	if err != nil {
		t.Fatal(err)
	}
	f.policy, err = NewPolicy(Config{Peers: map[string]wire.Class{"globex": wire.Sec}, Agents: map[string]wire.Class{"alice": wire.Sec}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return t0.Add(time.Minute) }
	f.gate, err = NewGate(GateConfig{Scanner: sc, Policy: f.policy, Counter: f.counts, Now: now,
		Consents: &consent.Verifier{Trust: trust, Revocations: f.store, Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) id() string {
	f.seq++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", f.seq)
}

// msg builds a checked (decoded-equivalent) message.
func (f *fixture) msg(t testing.TB, from, to wire.Ref, cls wire.Class, text string, meta *wire.PIIMeta) *wire.Message {
	t.Helper()
	params, _ := wire.ValueOf(map[string]any{"text": text})
	m := &wire.Message{V: wire.Version, ID: f.id(), TS: t0.UnixMilli(), Op: wire.OpQuery,
		From: wire.Sender{Agent: from.Agent, Org: from.Org}, To: to, Cls: cls,
		Payload: &wire.QueryPayload{Domain: "crm", Params: params}, PIIMeta: meta}
	return decoded(t, m)
}

// decoded returns m as the gateway holds it: encoded, then decoded.
func decoded(t testing.TB, m *wire.Message) *wire.Message {
	t.Helper()
	b, err := codec.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := codec.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) token(t testing.TB, key keys.Ed25519Private, grantee wire.Ref, purpose string, types ...string) string {
	t.Helper()
	id, _ := consent.NewID(bytes.NewReader(bytes.Repeat([]byte{byte(f.seq + 7)}, 16)))
	f.seq++
	tok, err := consent.Issue(key, consent.Claims{ID: id, GrantedBy: "user:jane", Grantee: grantee.String(), Purpose: purpose,
		DataTypes: types, IssuedAt: t0.UnixMilli(), Expires: t0.Add(time.Hour).UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func meta(tok, purpose string, types ...string) *wire.PIIMeta {
	return &wire.PIIMeta{Types: types, Consent: &wire.Consent{GrantedBy: "user:jane", Purpose: purpose, Proof: tok}}
}

var sealed = &Session{Sealed: true}

func expectBlock(t *testing.T, d Decision, code wire.Code, r Reason, missing string) {
	t.Helper()
	if d.Allow {
		t.Fatalf("allowed, want %s %s", code, r)
	}
	if d.Err == nil || d.Err.Code != code || d.Reason != r {
		t.Fatalf("got %v (%s), want %s %s", d.Err, d.Reason, code, r)
	}
	if missing != "" && (d.Err.Suggestion == nil || d.Err.Suggestion.Action != wire.ActionRequestConsent || strings.Join(d.Err.Suggestion.DataTypes, ",") != missing) {
		t.Fatalf("suggestion %+v, want request_consent %s", d.Err.Suggestion, missing)
	}
}

const email = "Please add ann.lee@example.org to the invite."

func TestGateCleanMessagesPass(t *testing.T) {
	f := newFixture(t)
	for _, c := range allCls {
		if c == wire.PII {
			continue
		}
		d := f.gate.Check(context.Background(), f.msg(t, alice, bob, c, "Summarise the Q3 plan in 200 words.", nil), Outbound, "globex", nil)
		if !d.Allow || d.Err != nil {
			t.Errorf("%s: blocked: %v", c, d.Err)
		}
		if d.Handling != Rules(c) {
			t.Errorf("%s: handling %+v", c, d.Handling)
		}
	}
}

func TestGatePIIWithoutConsent(t *testing.T) {
	f := newFixture(t)
	for _, c := range []wire.Class{wire.Pub, wire.Int, wire.Conf, wire.Sec} {
		d := f.gate.Check(context.Background(), f.msg(t, alice, bob, c, email, nil), Outbound, "globex", nil)
		expectBlock(t, d, wire.ErrConsent, ReasonNoConsent, "email")
		if len(d.Findings) != 1 || d.Findings[0].Path != "p.params.text" || d.Findings[0].Type != pii.TypeEmail {
			t.Errorf("%s: findings %v", c, d.Findings)
		}
		if strings.Contains(fmt.Sprint(d), "ann.lee") {
			t.Errorf("decision shows the value: %v", d)
		}
	}
	// Inbound too.
	d := f.gate.Check(context.Background(), f.msg(t, bob, alice, wire.Conf, email, nil), Inbound, "globex", sealed)
	expectBlock(t, d, wire.ErrConsent, ReasonNoConsent, "email")
	if f.counts.Get(ReasonNoConsent, Outbound) != 4 || f.counts.Get(ReasonNoConsent, Inbound) != 1 {
		t.Errorf("counts %d %d", f.counts.Get(ReasonNoConsent, Outbound), f.counts.Get(ReasonNoConsent, Inbound))
	}
}

func TestGatePIIWithConsent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tok := f.token(t, f.acme, bob, "crm-sync", "email", "phone")
	d := f.gate.Check(ctx, f.msg(t, alice, bob, wire.PII, email, meta(tok, "crm-sync", "email")), Outbound, "globex", nil)
	if !d.Allow {
		t.Fatalf("consented message blocked: %v", d.Err)
	}
	if strings.Join(d.Types, ",") != "email" || !d.Handling.Encrypt || d.Handling.Log != LogMasked {
		t.Errorf("decision %+v", d)
	}
	// Inbound, consent issued by the sender's organisation to the recipient.
	in := f.token(t, f.globex, alice, "crm-sync", "email")
	d = f.gate.Check(ctx, f.msg(t, bob, alice, wire.PII, email, meta(in, "crm-sync", "email")), Inbound, "globex", sealed)
	if !d.Allow {
		t.Fatalf("inbound consented message blocked: %v", d.Err)
	}

	phone := "Call Ann on +44 20 7946 0958 or write to ann.lee@example.org."
	cases := []struct {
		name   string
		m      *wire.Message
		dir    Direction
		code   wire.Code
		reason Reason
		miss   string
	}{
		{"type not covered", f.msg(t, alice, bob, wire.PII, "Patient: John Carter was diagnosed with diabetes.",
			meta(tok, "crm-sync", "name", "health")), Outbound, wire.ErrConsent, ReasonConsentTypes, "health,name"},
		{"type not declared", f.msg(t, alice, bob, wire.PII, phone, meta(tok, "crm-sync", "email")), Outbound, wire.ErrConsent, ReasonConsentTypes, "phone"},
		{"wrong purpose", f.msg(t, alice, bob, wire.PII, email, meta(tok, "marketing", "email")), Outbound, wire.ErrConsent, ReasonConsentInvalid, "email"},
		{"wrong grantee", f.msg(t, alice, wire.Ref{Agent: "carol", Org: "globex"}, wire.PII, email, meta(tok, "crm-sync", "email")), Outbound, wire.ErrConsent, ReasonConsentInvalid, "email"},
		{"issuer is not the sender's org", f.msg(t, alice, bob, wire.PII, email, meta(f.token(t, f.globex, bob, "crm-sync", "email"), "crm-sync", "email")), Outbound, wire.ErrConsent, ReasonConsentInvalid, "email"},
		{"untrusted issuer", f.msg(t, alice, bob, wire.PII, email, meta(f.token(t, seedKey(t, 9), bob, "crm-sync", "email"), "crm-sync", "email")), Outbound, wire.ErrConsent, ReasonConsentInvalid, "email"},
		{"forged", f.msg(t, alice, bob, wire.PII, email, meta(tok[:len(tok)-3]+"AAA", "crm-sync", "email")), Outbound, wire.ErrConsent, ReasonConsentInvalid, "email"},
		{"pii class without anything found still needs consent", f.msg(t, alice, bob, wire.PII, "see attached", meta("consent-token:abc123", "crm-sync", "name")), Outbound, wire.ErrConsent, ReasonConsentInvalid, "name"},
	}
	for _, c := range cases {
		sess := (*Session)(nil)
		if c.dir == Inbound {
			sess = sealed
		}
		expectBlock(t, f.gate.Check(ctx, c.m, c.dir, "globex", sess), c.code, c.reason, c.miss)
	}

	// granted_by must be the consent's own.
	m := meta(tok, "crm-sync", "email")
	m.Consent.GrantedBy = "user:someone-else"
	expectBlock(t, f.gate.Check(ctx, f.msg(t, alice, bob, wire.PII, email, m), Outbound, "globex", nil), wire.ErrConsent, ReasonConsentInvalid, "email")

	// Revocation applies at once, even to a token the gate has cached.
	p, _ := consent.Parse(tok)
	if err := f.store.Revoke(ctx, p.ID, time.UnixMilli(p.Expires)); err != nil {
		t.Fatal(err)
	}
	d = f.gate.Check(ctx, f.msg(t, alice, bob, wire.PII, email, meta(tok, "crm-sync", "email")), Outbound, "globex", nil)
	expectBlock(t, d, wire.ErrConsent, ReasonConsentInvalid, "email")
	if !errors.Is(d.Err, consent.ErrRevoked) {
		t.Errorf("not reported as revoked: %v", d.Err)
	}
}

func TestGateSecrets(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	secret := "deploy with GITHUB_TOKEN=ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi"
	for _, c := range []wire.Class{wire.Pub, wire.Int, wire.Conf} {
		d := f.gate.Check(ctx, f.msg(t, alice, bob, c, secret, nil), Outbound, "globex", nil)
		expectBlock(t, d, wire.ErrClassification, ReasonSecret, "")
		if len(d.Findings) != 1 || d.Findings[0].Type.Class() != pii.ClassSecret {
			t.Errorf("findings %v", d.Findings)
		}
	}
	tok := f.token(t, f.acme, bob, "crm-sync", "email")
	expectBlock(t, f.gate.Check(ctx, f.msg(t, alice, bob, wire.PII, secret+" "+email, meta(tok, "crm-sync", "email")), Outbound, "globex", nil),
		wire.ErrClassification, ReasonSecret, "")
	if d := f.gate.Check(ctx, f.msg(t, alice, bob, wire.Sec, secret, nil), Outbound, "globex", nil); !d.Allow {
		t.Errorf("secret in sec blocked: %v", d.Err)
	}
	// A secret hidden in an extension or an unknown member is found as well.
	m := f.msg(t, alice, bob, wire.Int, "hello", nil)
	m2 := &wire.Message{V: m.V, ID: f.id(), TS: m.TS, Op: m.Op, From: m.From, To: m.To, Cls: m.Cls, Payload: m.Payload,
		Extra: []wire.Member{{Key: "x-debug", Value: wire.StringValue("password=Xk9#mP2$vL7q")}}}
	if err := codec.Check(m2); err != nil {
		t.Fatal(err)
	}
	expectBlock(t, f.gate.Check(ctx, m2, Outbound, "globex", nil), wire.ErrClassification, ReasonSecret, "")
}

func TestGateCeilingsAndHello(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.policy.SetPeer("initech", 0) // imported with the default: int
	f.policy.SetAgent("dave", 0)   // configured with the default: conf
	dave := wire.Ref{Agent: "dave", Org: "acme"}
	carol := wire.Ref{Agent: "carol", Org: "initech"}
	mallory := wire.Ref{Agent: "m", Org: "unknown"}
	cases := []struct {
		name   string
		m      *wire.Message
		dir    Direction
		peer   string
		s      *Session
		reason Reason
	}{
		{"peer ceiling", f.msg(t, alice, carol, wire.Conf, "q", nil), Outbound, "initech", nil, ReasonPeerCeiling},
		{"peer ceiling inbound", f.msg(t, carol, alice, wire.Conf, "q", nil), Inbound, "initech", sealed, ReasonPeerCeiling},
		{"agent ceiling", f.msg(t, dave, bob, wire.Sec, "q", nil), Outbound, "globex", nil, ReasonAgentCeiling},
		{"agent ceiling inbound", f.msg(t, bob, dave, wire.Sec, "q", nil), Inbound, "globex", sealed, ReasonAgentCeiling},
		{"unknown peer gets pub only", f.msg(t, alice, mallory, wire.Int, "q", nil), Outbound, "unknown", nil, ReasonPeerCeiling},
		{"unknown agent gets pub only", f.msg(t, wire.Ref{Agent: "eve", Org: "acme"}, bob, wire.Int, "q", nil), Outbound, "globex", nil, ReasonAgentCeiling},
		{"peer's hello lacks the class", f.msg(t, alice, bob, wire.Conf, "q", nil), Outbound, "globex", &Session{PeerSupported: []wire.Class{wire.Pub, wire.Int}}, ReasonUnsupported},
		{"our hello lacks the class", f.msg(t, bob, alice, wire.Conf, "q", nil), Inbound, "globex", &Session{LocalSupported: []wire.Class{wire.Pub}, Sealed: true}, ReasonUnsupported},
		{"conf must arrive sealed", f.msg(t, bob, alice, wire.Conf, "q", nil), Inbound, "globex", &Session{}, ReasonNotSealed},
	}
	for _, c := range cases {
		d := f.gate.Check(ctx, c.m, c.dir, c.peer, c.s)
		if d.Allow || d.Reason != c.reason || d.Err.Code != wire.ErrClassification {
			t.Errorf("%s: got allow=%v %s %v", c.name, d.Allow, d.Reason, d.Err)
		}
	}
	// A local caller is told which ceiling refused and how to raise it; a
	// peer is told the rule only.
	explained := []struct {
		m         *wire.Message
		dir       Direction
		peer      string
		msg, hint string
	}{
		{f.msg(t, alice, carol, wire.Conf, "q", nil), Outbound, "initech",
			"conf is above the ceiling of peer organisation initech (int)", "send at most int, or, if initech may have conf, import its peer document again with --max-cls conf"},
		{f.msg(t, dave, bob, wire.Sec, "q", nil), Outbound, "globex",
			"sec is above the ceiling of local agent dave (conf)", "send at most conf, or, if dave may handle sec, raise max_cls in agents/dave.json (a running gateway takes it up within seconds)"},
		{f.msg(t, carol, alice, wire.Conf, "q", nil), Inbound, "initech", "conf is above the ceiling set for the peer organisation", ""},
		{f.msg(t, bob, dave, wire.Sec, "q", nil), Inbound, "globex", "sec is above the ceiling set for the local agent", ""},
	}
	for _, c := range explained {
		d := f.gate.Check(ctx, c.m, c.dir, c.peer, sealed)
		hint := ""
		if d.Err != nil && d.Err.Suggestion != nil {
			hint = d.Err.Suggestion.Fix
		}
		if d.Err == nil || d.Err.Message != c.msg || hint != c.hint {
			t.Errorf("%s to %s: got %v (fix %q), want %q (fix %q)", c.dir, c.peer, d.Err, hint, c.msg, c.hint)
		}
	}
	for _, ok := range []struct {
		m    *wire.Message
		dir  Direction
		peer string
		s    *Session
	}{
		{f.msg(t, alice, carol, wire.Int, "q", nil), Outbound, "initech", nil},
		{f.msg(t, dave, bob, wire.Conf, "q", nil), Outbound, "globex", &Session{PeerSupported: allCls}},
		{f.msg(t, bob, alice, wire.Int, "q", nil), Inbound, "globex", &Session{}}, // int may arrive bare
	} {
		if d := f.gate.Check(ctx, ok.m, ok.dir, ok.peer, ok.s); !d.Allow {
			t.Errorf("blocked: %v", d.Err)
		}
	}
}

func TestGateReplyCarriesBackConsentedTypes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// bob (globex) asks alice about a customer, under globex's consent for email.
	tok := f.token(t, f.globex, alice, "support", "email")
	req := f.msg(t, bob, alice, wire.PII, "Which plan is ann.lee@example.org on?", meta(tok, "support", "email"))
	if d := f.gate.Check(ctx, req, Inbound, "globex", sealed); !d.Allow {
		t.Fatalf("request blocked: %v", d.Err)
	}
	reply := func(from, to wire.Ref, text string) *wire.Message {
		params, _ := wire.ValueOf(map[string]any{"text": text})
		m := &wire.Message{V: wire.Version, ID: f.id(), TS: t0.UnixMilli(), Op: wire.OpRespond, Re: req.ID,
			From: wire.Sender{Agent: from.Agent, Org: from.Org}, To: to, Cls: wire.Conf,
			Payload: &wire.RespondPayload{Status: "success", Data: params}}
		if err := codec.Check(m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// The reply may carry the e-mail address back...
	if d := f.gate.Check(ctx, reply(alice, bob, "ann.lee@example.org is on the team plan."), Outbound, "globex", nil); !d.Allow {
		t.Fatalf("reply with the request's own type blocked: %v", d.Err)
	}
	// wire's Reply copies the request's pii_meta onto a reply to a pii message: it passes too.
	data, _ := wire.ValueOf(map[string]any{"text": "ann.lee@example.org is on the team plan."})
	r := req.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: data})
	r.ID, r.TS, r.From = f.id(), t0.UnixMilli(), wire.Sender{Agent: alice.Agent, Org: alice.Org}
	if d := f.gate.Check(ctx, decoded(t, r), Outbound, "globex", nil); !d.Allow || r.PIIMeta == nil {
		t.Fatalf("reply made with Reply blocked: %v", d.Err)
	}
	// ...but not a phone number, nor to anyone else.
	expectBlock(t, f.gate.Check(ctx, reply(alice, bob, "ann.lee@example.org, +44 20 7946 0958"), Outbound, "globex", nil), wire.ErrConsent, ReasonNoConsent, "phone")
	expectBlock(t, f.gate.Check(ctx, reply(alice, wire.Ref{Agent: "carol", Org: "globex"}, "ann.lee@example.org"), Outbound, "globex", nil), wire.ErrConsent, ReasonNoConsent, "email")
}

func TestGateCleanAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	f := newFixture(t)
	m := f.msg(t, alice, bob, wire.Conf, benchText, nil)
	ctx := context.Background()
	if n := testing.AllocsPerRun(20, func() { f.gate.Check(ctx, m, Outbound, "globex", nil) }); n != 0 {
		t.Errorf("%v allocations for a clean message", n)
	}
}

// TestGateCheckTreeAgrees: given the message's own tree, the gate decides as it does when
// it builds the tree itself, for a message built by hand and checked.
func TestGateCheckTreeAgrees(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, text := range []string{"Summarise the Q3 plan.", email, "deploy with GITHUB_TOKEN=ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi"} {
		params, _ := wire.ValueOf(map[string]any{"text": text})
		m := &wire.Message{V: wire.Version, ID: f.id(), TS: t0.UnixMilli(), Op: wire.OpQuery,
			From: wire.Sender{Agent: alice.Agent, Org: alice.Org}, To: bob, Cls: wire.Int,
			Payload: &wire.QueryPayload{Domain: "crm", Params: params}}
		tree, err := codec.CheckTree(m)
		if err != nil {
			t.Fatal(err)
		}
		want := f.gate.Check(ctx, m, Outbound, "globex", nil)
		got := f.gate.CheckTree(ctx, m, tree, Outbound, "globex", nil)
		if got.Allow != want.Allow || got.Reason != want.Reason || fmt.Sprint(got.Findings) != fmt.Sprint(want.Findings) {
			t.Errorf("%.20q: CheckTree decided %+v, Check %+v", text, got, want)
		}
	}
}

// TestGateConsentProof: a consent message's proof, a signed token whose
// base64 would read as secret material, passes when it is a consent token
// that verifies; what its claims say is scanned as text; anything else in
// that field is scanned as it is.
func TestGateConsentProof(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	grant := func(proof, human string) *wire.Message {
		return decoded(t, &wire.Message{V: wire.Version, ID: f.id(), TS: t0.UnixMilli(), Op: wire.OpConsent,
			From: wire.Sender{Agent: alice.Agent, Org: alice.Org}, To: bob, Cls: wire.Int,
			Payload: &wire.ConsentPayload{Action: "grant", DataTypes: []string{"email"}, Purpose: "support", Human: human, Proof: proof}})
	}
	tok := f.token(t, f.acme, bob, "support", "email")
	if d := f.gate.Check(ctx, grant(tok, "user:4711"), Outbound, "globex", nil); !d.Allow {
		t.Fatalf("a consent grant with its token: %v", d.Err)
	}
	// The same bytes where no consent token is expected are a secret.
	expectBlock(t, f.gate.Check(ctx, f.msg(t, alice, bob, wire.Int, tok, nil), Outbound, "globex", nil),
		wire.ErrClassification, ReasonSecret, "")
	// A proof that is no consent token is scanned as it is.
	expectBlock(t, f.gate.Check(ctx, grant("ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi", "user:4711"), Outbound, "globex", nil),
		wire.ErrClassification, ReasonSecret, "")
	// A token whose claims hold personal data is personal data.
	id, _ := consent.NewID(bytes.NewReader(bytes.Repeat([]byte{9}, 16)))
	leaky, err := consent.Issue(f.acme, consent.Claims{ID: id, GrantedBy: "ann.lee@example.org", Grantee: bob.String(), Purpose: "support",
		DataTypes: []string{"email"}, IssuedAt: t0.UnixMilli(), Expires: t0.Add(time.Hour).UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	expectBlock(t, f.gate.Check(ctx, grant(leaky, "user:4711"), Outbound, "globex", nil), wire.ErrConsent, ReasonNoConsent, "email")
}
