package peers

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// allowGate lets everything through, as the gateway's gate does what a
// test sends here: public replies addressed to their caller.
type allowGate struct{}

func (allowGate) Outbound(context.Context, *wire.Message, wire.Value, string, *handshake.Session) error {
	return nil
}

func (allowGate) Inbound(context.Context, *wire.Message, string, *handshake.Session, bool) error {
	return nil
}

// side is one organisation's gateway as far as its handshakes go: its
// identity and certificate, and the sessions it holds.
type side struct {
	org      *identity.Org
	gw       *identity.Agent
	cfg      *handshake.Config
	sessions *handshake.Store
}

func newSide(t *testing.T, name string, trust *identity.TrustStore) *side {
	t.Helper()
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	o := &identity.Org{Name: name, Signing: sk}
	gw, err := identity.Generate(rand.Reader, wire.Ref{Agent: pipeline.GatewayAgent, Org: name})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	cert, err := o.IssueIdentity(gw.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	trust.Add(name, sk.Public())
	return &side{org: o, gw: gw, sessions: handshake.NewStore(handshake.StoreConfig{}),
		cfg: &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Capabilities: []string{"query", "tool.invoke"}}}
}

// pair makes acme's table of peers, with globex in it, and a session
// between the two, held on both sides.
func pair(t *testing.T) (tab *Table, ps *Remote, acme, globex *side) {
	t.Helper()
	trust := identity.NewTrustStore()
	acme, globex = newSide(t, "acme", trust), newSide(t, "globex", trust)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := handshake.Pipe()
	done := make(chan error, 1)
	go func() {
		sess, err := handshake.NewResponder(globex.cfg).Run(ctx, b)
		if err == nil {
			globex.sessions.Add(sess)
		}
		done <- err
	}()
	sess, err := handshake.NewInitiator(acme.cfg, handshake.Peer{Ref: globex.gw.Ref}).Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	acme.sessions.Add(sess)
	tab = New(Config{Handshake: acme.cfg, Sessions: acme.sessions, Codec: wire.NewCodec(wire.Limits{}), Verifier: keys.NewVerifier(0),
		Gate: allowGate{}, Self: acme.gw, EnvelopeLimit: func() int { return 1 << 20 }, Log: slog.New(slog.DiscardHandler), Rand: rand.Reader})
	if err := tab.Add(&Peer{Org: "globex", OrgKey: globex.org.Signing.Public(), EncKey: globex.gw.Encryption.Public(),
		Endpoint: "http://127.0.0.1:1", GRPC: "127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	return tab, tab.Get("globex"), acme, globex
}

// TestRepliesFromTheCalledOrgOnly: replies that arrive as messages of
// their own are matched to calls by re; one from an organisation other than
// the one called is dropped, and the call goes on waiting for its own.
func TestRepliesFromTheCalledOrgOnly(t *testing.T) {
	tab, ps, acme, _ := pair(t)
	const id = "00000000-0000-4000-8000-000000000001"
	pc, done := tab.pending.wait(id, time.Time{})
	defer done()
	answer := func(org, text string) delivered {
		data, _ := wire.ValueOf(map[string]string{"text": text})
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpRespond,
			From: wire.Sender{Agent: "echo", Org: org}, To: wire.Ref{Agent: "client", Org: "acme"}, Cls: wire.Pub,
			Re: id, Payload: &wire.RespondPayload{Status: "success", Data: data}}
		if err := tab.cfg.Codec.Check(m); err != nil {
			t.Fatal(err)
		}
		return delivered{m: m, sealed: true}
	}
	if !tab.pending.deliverTo(answer("initech", "forged")) || !tab.pending.deliverTo(answer("globex", "genuine")) {
		t.Fatal("not delivered")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []string
	req := &wire.Message{ID: id, From: wire.Sender{Agent: "client", Org: acme.org.Name}}
	err := tab.awaitStream(ctx, ps, req, pc, nil, func(r *wire.Message) (bool, error) {
		txt, _ := r.Payload.(*wire.RespondPayload).Data.Get("text").Str()
		got = append(got, txt)
		return true, nil
	})
	if err != nil || len(got) != 1 || got[0] != "genuine" {
		t.Fatalf("the call took %v (%v), want only globex's answer", got, err)
	}
}

// TestRefusedReplyFailsItsCall: a reply that opens in its session but
// cannot be taken (here, its exp had passed) fails the call it answers at
// once, with the reason, rather than leaving the caller to its deadline.
func TestRefusedReplyFailsItsCall(t *testing.T) {
	tab, ps, acme, globex := pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := globex.sessions.Peer(acme.gw.Ref)
	if err != nil {
		t.Fatal(err)
	}
	req := &wire.Message{ID: pipeline.NewMessageID(rand.Reader), Op: wire.OpTool}
	now := time.Now()
	late := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: now.Add(-2 * time.Second).UnixMilli(),
		Exp: now.Add(-time.Second).UnixMilli(), Op: wire.OpRespond, Re: req.ID, From: globex.gw.Sender(),
		To: wire.Ref{Agent: "client", Org: "acme"}, Cls: wire.Pub, Payload: &wire.RespondPayload{Status: "success"}}
	b, err := sess.SignAndSeal(late, globex.gw.Signing)
	if err != nil {
		t.Fatal(err)
	}
	pc, done := tab.pending.wait(req.ID, time.Time{})
	defer done()
	frames := [][]byte{b}
	mine, err := acme.sessions.Peer(globex.gw.Ref)
	if err != nil {
		t.Fatal(err)
	}
	go tab.readReplies(ps, newPooled(mine, func() {}), func() ([]byte, error) {
		if len(frames) == 0 {
			return nil, io.EOF
		}
		f := frames[0]
		frames = frames[1:]
		return f, nil
	})
	err = tab.awaitStream(ctx, ps, req, pc, nil, func(*wire.Message) (bool, error) { return true, nil })
	if pipeline.Code(err) != wire.ErrExpired || ctx.Err() != nil {
		t.Fatalf("the call of a refused reply: %v, want E_EXPIRED at once", err)
	}
}
