package identity

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

var t0 = time.UnixMilli(1_800_000_000_000)

func seeded(b byte) *bytes.Reader { return bytes.NewReader(bytes.Repeat([]byte{b}, 64)) }

func testOrg(t *testing.T, name string, seed byte) *Org {
	t.Helper()
	sk, err := keys.GenerateEd25519(seeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	return &Org{Name: name, Signing: sk}
}

func wantCode(t *testing.T, err error, code wire.Code) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func TestIdentityCert(t *testing.T) {
	org := testOrg(t, "acme", 1)
	alice, err := Generate(seeded(2), wire.Ref{Agent: "alice", Org: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := org.IssueIdentity(alice.Public(), t0, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	trust := NewTrustStore()
	wantCode(t, trust.VerifyIdentity(cert, t0.Add(time.Hour)), wire.ErrAuthFailed) // org not trusted yet
	trust.Add("acme", org.Signing.Public())

	// Round trip through JSON, as it travels in a hello.
	parsed, err := ParseCert(cert.Value())
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.VerifyIdentity(parsed, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if parsed.Public() != alice.Public() {
		t.Fatal("certified identity changed")
	}
	wantCode(t, trust.VerifyIdentity(parsed, t0.Add(25*time.Hour)), wire.ErrAuthFailed) // expired
	wantCode(t, trust.VerifyIdentity(parsed, t0.Add(-time.Hour)), wire.ErrAuthFailed)   // not yet valid

	// Any change to a signed member breaks the certificate, and so does an
	// added member: the signature covers the object as received.
	other, _ := Generate(seeded(3), wire.Ref{Agent: "mallory", Org: "acme"})
	for name, v := range map[string]wire.Value{
		"agent":   cert.Value().With("agent", wire.StringValue("mallory")),
		"key":     cert.Value().With("key", wire.StringValue(other.Signing.Public().String())),
		"enc_key": cert.Value().With("enc_key", wire.StringValue(other.Encryption.Public().String())),
		"expires": cert.Value().With("expires", wire.IntValue(t0.Add(1000*time.Hour).UnixMilli())),
		"extra":   cert.Value().With("admin", wire.BoolValue(true)),
	} {
		c, err := ParseCert(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantCode(t, trust.VerifyIdentity(c, t0.Add(time.Hour)), wire.ErrAuthFailed)
	}

	// Another org's key cannot certify acme's agents.
	evil := testOrg(t, "evil", 9)
	trust.Add("evil", evil.Signing.Public())
	if _, err := evil.IssueIdentity(alice.Public(), t0, t0.Add(time.Hour)); err == nil {
		t.Fatal("evil issued a cert for an acme agent")
	}
	forged := *cert
	forged.raw = wire.Value{}
	forged.Issuer = evil.Signing.Public()
	msg, _ := forged.signingBytes()
	forged.Sig = evil.Signing.Sign(msg)
	wantCode(t, trust.VerifyIdentity(&forged, t0.Add(time.Hour)), wire.ErrAuthFailed)
}

func TestCapabilityCert(t *testing.T) {
	org := testOrg(t, "acme", 1)
	alice, _ := Generate(seeded(2), wire.Ref{Agent: "alice", Org: "acme"})
	cc, err := org.IssueCapability(alice.Ref, alice.Signing.Public(), "code.execute", t0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	trust := NewTrustStore()
	trust.Add("acme", org.Signing.Public())
	parsed, err := ParseCapabilityCert(cc.Value())
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Minute)
	if err := trust.VerifyCapability(parsed, alice.Ref, alice.Signing.Public(), "code.execute", now); err != nil {
		t.Fatal(err)
	}
	wantCode(t, trust.VerifyCapability(parsed, alice.Ref, alice.Signing.Public(), "tool.invoke", now), wire.ErrCapability)
	wantCode(t, trust.VerifyCapability(parsed, wire.Ref{Agent: "bob", Org: "acme"}, alice.Signing.Public(), "code.execute", now), wire.ErrCapability)
	wantCode(t, trust.VerifyCapability(parsed, alice.Ref, alice.Signing.Public(), "code.execute", t0.Add(2*time.Hour)), wire.ErrCapability)
	tampered, _ := ParseCapabilityCert(cc.Value().With("capability", wire.StringValue("code.executf")))
	wantCode(t, trust.VerifyCapability(tampered, alice.Ref, alice.Signing.Public(), "code.executf", now), wire.ErrCapability)
}

func TestAgentFile(t *testing.T) {
	a, _ := Generate(seeded(4), wire.Ref{Agent: "alice", Org: "acme"})
	path := filepath.Join(t.TempDir(), "alice.json")
	if err := a.Save(path, keys.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Public() != a.Public() {
		t.Fatal("identity changed on disk")
	}
	if _, err := Generate(seeded(4), wire.Ref{Agent: "bad name", Org: "acme"}); err == nil {
		t.Fatal("accepted an invalid agent name")
	}
}

func TestRequired(t *testing.T) {
	cases := []struct {
		op    wire.Op
		cls   wire.Class
		caps  []string
		level Level
		cons  bool
		att   bool
	}{
		{wire.OpError, wire.Pub, nil, Untrusted, false, false},
		{wire.OpHello, wire.Int, nil, Untrusted, false, false},
		{wire.OpQuery, wire.Pub, nil, Identified, false, false},
		{wire.OpQuery, wire.Int, nil, Authenticated, false, false},
		{wire.OpTask, wire.Pub, nil, Authenticated, false, false},
		{wire.OpTool, wire.Int, nil, Authorized, false, false},
		{wire.OpQuery, wire.PII, nil, Authorized, true, false},
		{wire.OpTool, wire.Int, []string{"code.execute.python"}, Authorized, false, true},
		{wire.OpPing, wire.Pub, nil, Identified, false, false},
		{wire.OpPing, wire.Conf, nil, Authenticated, false, false},
		{wire.OpRespond, wire.Sec, nil, Authorized, false, false},
	}
	for _, c := range cases {
		r := Required(c.op, c.cls, c.caps)
		if r.Level != c.level || r.Consent != c.cons || r.Attestation != c.att {
			t.Errorf("%s/%s/%v: got %+v", c.op, c.cls, c.caps, r)
		}
	}
}
