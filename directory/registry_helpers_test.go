package directory_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/directory/storetest"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// An org of the tests: its gateway identity (whose key is the org key) and
// its issuer of certificates.
type testOrg struct {
	name    string
	gateway *identity.Agent
	issuer  *identity.Org
}

func newOrg(t testing.TB, name string) *testOrg {
	t.Helper()
	gw, err := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: name})
	if err != nil {
		t.Fatal(err)
	}
	return &testOrg{name: name, gateway: gw, issuer: &identity.Org{Name: name, Signing: gw.Signing}}
}

// agent makes an identity for one of the org's agents.
func (o *testOrg) agent(t testing.TB, id string) *identity.Agent {
	t.Helper()
	a, err := identity.Generate(rand.Reader, wire.Ref{Agent: id, Org: o.name})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// cert certifies a for a month from now.
func (o *testOrg) cert(t testing.TB, a *identity.Agent, now time.Time) wire.Value {
	t.Helper()
	c, err := o.issuer.IssueIdentity(a.Public(), now.Add(-time.Minute), now.Add(30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return c.Value()
}

// registryEnv is a registry of org acme on SQLite with an injected clock,
// trusting acme and globex; initech is a stranger.
type registryEnv struct {
	t                     testing.TB
	clock                 *storetest.Clock
	codec                 *wire.Codec
	store                 directory.Store
	reg                   *directory.Registry
	trust                 *identity.TrustStore
	acme, globex, initech *testOrg
	logs                  bytes.Buffer // what the registries log
}

func newRegistryEnv(t testing.TB, open bool) *registryEnv {
	t.Helper()
	e := &registryEnv{t: t, clock: storetest.NewClock(), codec: wire.NewCodec(wire.DefaultLimits())}
	e.acme, e.globex, e.initech = newOrg(t, "acme"), newOrg(t, "globex"), newOrg(t, "initech")
	e.trust = identity.NewTrustStore()
	e.trust.Add("acme", e.acme.gateway.Signing.Public())
	e.trust.Add("globex", e.globex.gateway.Signing.Public())
	e.store, e.reg = e.newRegistry(t, e.acme, open)
	return e
}

// newRegistry opens a fresh store and a registry for org o over it, with
// the env's clock and trust.
func (e *registryEnv) newRegistry(t testing.TB, o *testOrg, open bool) (directory.Store, *directory.Registry) {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "dir.db"), directory.Options{Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg, err := directory.NewRegistry(directory.RegistryConfig{Store: st, Org: o.name, Key: o.gateway.Signing,
		Trust: e.trust, Open: open, Codec: e.codec, Now: e.clock.Now, Logger: slog.New(slog.NewTextHandler(&e.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return st, reg
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// message signs a register message from signer, stamped with the env's
// clock, and decodes it as a registry receives it.
func (e *registryEnv) message(signer *identity.Agent, p *wire.RegisterPayload) *wire.Message {
	e.t.Helper()
	m := &wire.Message{V: wire.Version, ID: newUUID(), TS: e.clock.Now().UnixMilli(), Op: wire.OpRegister,
		From: signer.Sender(), To: wire.Ref{Agent: "registry", Org: "acme"}, Cls: wire.Pub, Payload: p}
	b, err := crypto.Sign(e.codec, m, signer.Signing)
	if err != nil {
		e.t.Fatalf("sign: %v", err)
	}
	d, err := e.codec.Decode(b)
	if err != nil {
		e.t.Fatalf("decode: %v", err)
	}
	return d
}

func (e *registryEnv) register(signer *identity.Agent, p *wire.RegisterPayload) (directory.Receipt, error) {
	e.t.Helper()
	return e.reg.Register(e.t.Context(), e.message(signer, p))
}

func (e *registryEnv) mustRegister(signer *identity.Agent, p *wire.RegisterPayload) directory.Receipt {
	e.t.Helper()
	rc, err := e.register(signer, p)
	if err != nil {
		e.t.Fatalf("register %s: %v", p.Action, err)
	}
	return rc
}

// profile is a valid public profile offering caps.
func profile(caps ...string) *wire.Profile {
	return &wire.Profile{Endpoint: &wire.Endpoint{URL: "https://gw.example/moltspeak/v0.1/message", Transport: "https"},
		Capabilities: caps, Visibility: "public"}
}

// create is a self-signed create with the agent's certificate.
func (e *registryEnv) create(o *testOrg, a *identity.Agent, pr *wire.Profile) *wire.RegisterPayload {
	return &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: o.cert(e.t, a, e.clock.Now())}
}

func wantCode(t testing.TB, err error, c wire.Code, field string) {
	t.Helper()
	we, ok := err.(*wire.Error)
	if !ok {
		t.Fatalf("got %v (%T), want %s", err, err, c)
	}
	if we.Code != c {
		t.Fatalf("got %s (%v), want %s", we.Code, we, c)
	}
	if field != "" && we.Field != field {
		t.Fatalf("%s on field %q (%v), want field %q", we.Code, we.Field, we, field)
	}
}

// recordValue renders a record as a client receives it.
func recordValue(t testing.TB, r directory.Record) wire.Value {
	t.Helper()
	v, err := wire.ValueOf(r)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func orgKey(o *testOrg) keys.Ed25519Public { return o.gateway.Signing.Public() }

func names(a *directory.Answer) []string {
	var out []string
	for _, r := range a.Results {
		out = append(out, r.AgentID+"@"+r.Org)
	}
	return out
}

func joined(s []string) string { return strings.Join(s, ",") }

// cryptoSign signs a message built by hand and decodes it.
func cryptoSign(e *registryEnv, m *wire.Message, signer *identity.Agent) (*wire.Message, error) {
	b, err := crypto.Sign(e.codec, m, signer.Signing)
	if err != nil {
		return nil, err
	}
	return e.codec.Decode(b)
}
