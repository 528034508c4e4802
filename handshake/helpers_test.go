package handshake

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

var t0 = time.UnixMilli(1_800_000_000_000)

// clock is a settable test clock, safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock { c := new(clock); c.ns.Store(t.UnixNano()); return c }

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

func seeded(b byte) *bytes.Reader { return bytes.NewReader(bytes.Repeat([]byte{b}, 64)) }

// det is a deterministic random source for one side of a handshake.
func det(seed byte) *rand.ChaCha8 {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

// party is an agent with its org and certificate.
type party struct {
	org   *identity.Org
	agent *identity.Agent
	cert  *identity.Cert
}

func newOrg(t testing.TB, name string, seed byte) *identity.Org {
	t.Helper()
	sk, err := keys.GenerateEd25519(seeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	return &identity.Org{Name: name, Signing: sk}
}

func newParty(t testing.TB, org *identity.Org, agent string, seed byte) party {
	t.Helper()
	a, err := identity.Generate(seeded(seed), wire.Ref{Agent: agent, Org: org.Name})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := org.IssueIdentity(a.Public(), t0.Add(-24*time.Hour), t0.Add(365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return party{org: org, agent: a, cert: cert}
}

// cast is the set of parties the tests use: alice of acme initiates, the
// gateway of globex responds, carol of initech is a third party, and
// mallory of acme is an insider with a valid certificate.
type cast struct {
	alice, gw, carol, mallory party
	trust                     *identity.TrustStore
}

func newCast(t testing.TB) *cast {
	acme, globex, initech := newOrg(t, "acme", 1), newOrg(t, "globex", 2), newOrg(t, "initech", 3)
	c := &cast{
		alice:   newParty(t, acme, "alice", 10),
		gw:      newParty(t, globex, "gw", 11),
		carol:   newParty(t, initech, "carol", 12),
		mallory: newParty(t, acme, "mallory", 13),
		trust:   identity.NewTrustStore(),
	}
	for _, o := range []*identity.Org{acme, globex, initech} {
		c.trust.Add(o.Name, o.Signing.Public())
	}
	return c
}

// config makes a Config for p with its own replay window, trusting the
// cast's orgs. rnd nil means crypto/rand.
func (c *cast) config(p party, clk *clock, rnd *rand.ChaCha8) *Config {
	cfg := &Config{
		Identity:     p.agent,
		Cert:         p.cert,
		Trust:        c.trust,
		Capabilities: []string{"query", "task", "stream"},
		Extensions:   []string{"acme.memory", "tool-use"},
		Now:          clk.Now,
	}
	if rnd != nil {
		cfg.Rand = rnd
	}
	cfg.Replay = replay.New(replay.Config{Now: clk.Now, Rand: cfg.Rand})
	return cfg
}

func peerOf(p party) Peer { return Peer{Ref: p.agent.Ref} }

// pair runs a whole handshake between two configs over a Pipe.
func pair(t testing.TB, ci, cr *Config, peer Peer) (si, sr *Session, errI, errR error) {
	t.Helper()
	ctx := context.Background()
	a, b := Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sr, errR = NewResponder(cr).Run(ctx, b)
	}()
	si, errI = NewInitiator(ci, peer).Run(ctx, a)
	<-done
	return
}

// steps drives both sides by hand, message by message, so that a test can
// change any message in transit. tamper gets the index (0 hello … 4
// session_established) and bytes of each message and returns what to
// deliver. It returns the messages as sent and the first error.
func steps(ci, cr *Config, peer Peer, tamper func(i int, b []byte) []byte) (msgs [][]byte, si, sr *Session, err error) {
	ctx := context.Background()
	if tamper == nil {
		tamper = func(_ int, b []byte) []byte { return b }
	}
	in, re := NewInitiator(ci, peer), NewResponder(cr)
	deliver := func(b []byte) []byte {
		msgs = append(msgs, b)
		return tamper(len(msgs)-1, append([]byte(nil), b...))
	}
	env := func(b []byte) (*wire.Envelope, error) { return cr.codec().DecodeEnvelope(b) }

	b, err := in.writeHello()
	if err != nil {
		return
	}
	e, err := env(deliver(b))
	if err != nil {
		return
	}
	if b, err = re.readHello(ctx, e); err != nil {
		return
	}
	if b, err = in.readHelloAck(ctx, deliver(b)); err != nil {
		return
	}
	if e, err = env(deliver(b)); err != nil {
		return
	}
	if b, err = re.readVerify(ctx, e); err != nil {
		return
	}
	if b, si, err = in.readVerifyResponse(ctx, deliver(b)); err != nil {
		return
	}
	if e, err = env(deliver(b)); err != nil {
		return
	}
	sr, err = re.readEstablished(ctx, e)
	return
}

func wantCode(t testing.TB, err error, code wire.Code) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func wantFail(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("handshake succeeded; want it refused")
	}
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("got %v (%T), want a *wire.Error", err, err)
	}
}

// query builds an in-session message from one party to another.
func query(from, to party, id string, ts time.Time, cls wire.Class) *wire.Message {
	return &wire.Message{
		V: wire.Version, ID: id, TS: ts.UnixMilli(), Op: wire.OpQuery,
		From: from.agent.Sender(), To: to.agent.Ref, Cls: cls,
		Payload: &wire.QueryPayload{Domain: "weather", Intent: "forecast"},
	}
}

func uuid(n int) string {
	const hex = "0123456789abcdef"
	b := []byte("00000000-0000-4000-8000-000000000000")
	for i := len(b) - 1; n > 0 && i > 24; i-- {
		b[i] = hex[n%16]
		n /= 16
	}
	return string(b)
}

func keysFromBytes(b []byte) (keys.X25519Private, error) { return keys.X25519FromBytes(b) }
