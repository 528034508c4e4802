package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// clock is a gateway's clock that a test moves on.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// stranger pings registry@org outside a session, sealed to an X25519
// key of the gateway's, and opens the answer.
type stranger struct {
	t     *testing.T
	s     *Server
	clk   *clock
	id    *identity.Agent
	codec *wire.Codec
}

// ping seals a ping to the gateway's X25519 key to and returns the
// answer, opened: a pong sealed back, or a refusal in the clear.
func (st *stranger) ping(to keys.X25519Public) *wire.Message {
	st.t.Helper()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: st.clk.now().UnixMilli(), Op: wire.OpPing,
		From: st.id.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: st.s.cfg.Org}, Cls: wire.Pub, Payload: &wire.PingPayload{Nonce: "n"}}
	env, err := crypto.SealMessage(st.codec, m, st.id.Signing, crypto.NewBox(st.id.Encryption, 0), to)
	if err != nil {
		st.t.Fatal(err)
	}
	a := st.s.pipe.Handle(context.Background(), pipeline.Origin{Face: "http", Remote: "127.0.0.1:1"}, env, nil)
	got, err := st.codec.DecodeEnvelope(bytes.TrimSpace(a.Body))
	if err != nil {
		st.t.Fatalf("answer %d is not an envelope: %v", a.Status, err)
	}
	if !got.Encrypted {
		return got.Message
	}
	op := &crypto.Opener{Codec: st.codec, Box: crypto.NewBox(st.id.Encryption, 0), Accept: crypto.AcceptRef(st.id.Ref)}
	r, err := op.OpenEnvelope(got)
	if err != nil {
		st.t.Fatalf("open the sealed answer: %v", err)
	}
	return r
}

// The gateway's X25519 key turns over with its org key while it serves:
// once switched, an envelope sealed to the old key opens until the
// overlap ends and is answered from the new one; after the overlap it is
// refused, E_AUTH_FAILED, naming both keys; one sealed to the new key
// opens throughout. The local agent takes the new key with its new
// certificate.
func TestEncKeySwitchedWhileServing(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9757")
	if _, err := AddAgent(d, AddAgentOptions{ID: "echo", MaxCls: "int"}); err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now()}
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	s.held.release() // as Serve does
	ctx := context.Background()
	id, err := identity.Generate(rand.Reader, wire.Ref{Agent: "client", Org: "initech"})
	if err != nil {
		t.Fatal(err)
	}
	st := &stranger{t: t, s: s, clk: clk, id: id, codec: wire.NewCodec(wire.Limits{})}
	before := s.self()
	const overlap = time.Hour
	r, err := RotateOrgKey(d, RotateOptions{Overlap: overlap, Now: clk.now()})
	if err != nil {
		t.Fatal(err)
	}
	after, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	oldEnc, newEnc := before.Encryption.Public(), after.Encryption.Public()

	// Before the switch, only the key in use opens.
	if m := st.ping(oldEnc); m.Op != wire.OpPong || !m.From.EncKey.Equal(oldEnc) {
		t.Fatalf("before the switch, sealed to the key in use: %s from %s", m.Op, m.From.EncKey)
	}
	s.rotation.PushChanged(ctx)
	if err := s.ReloadKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.self().Encryption.Public().Equal(newEnc) {
		t.Fatal("the gateway did not take the new X25519 key up")
	}
	if a := s.roster.Agent("echo"); !a.Identity.Encryption.Public().Equal(newEnc) || !a.Cert.EncKey.Equal(newEnc) {
		t.Fatal("the local agent did not take the gateway's new X25519 key with its new certificate")
	}

	// During the overlap, either key opens; the answer comes from the new.
	for _, to := range []keys.X25519Public{oldEnc, newEnc} {
		if m := st.ping(to); m.Op != wire.OpPong || !m.From.EncKey.Equal(newEnc) {
			t.Fatalf("during the overlap, sealed to %s: %s from %s", to, m.Op, m.From.EncKey)
		}
	}

	// After it, the old key is refused, and the refusal says which keys.
	clk.set(r.Until)
	m := st.ping(oldEnc)
	if m.Op != wire.OpError {
		t.Fatalf("after the overlap, sealed to the old key: %s, want a refusal", m.Op)
	}
	e := m.Payload.(*wire.ErrorPayload)
	if e.Code != wire.ErrAuthFailed || !strings.Contains(e.Message, "could not be opened") || !strings.Contains(e.Message, oldEnc.String()) ||
		!strings.Contains(e.Message, newEnc.String()) || !strings.Contains(e.Message, "refused since") {
		t.Fatalf("after the overlap, sealed to the old key: %s %q", e.Code, e.Message)
	}
	if m := st.ping(newEnc); m.Op != wire.OpPong {
		t.Fatalf("after the overlap, sealed to the new key: %s", m.Op)
	}
}
