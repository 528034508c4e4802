package handshake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/wire"
)

// exchange plays an HTTP face: the request body goes to the acceptor and
// its reply (or the error it answers with) is the response body.
func exchange(t testing.TB, a *Acceptor, cfg *Config) func(context.Context, []byte) ([]byte, error) {
	return func(ctx context.Context, req []byte) ([]byte, error) {
		reply, _, err := a.Handle(ctx, req)
		var we *wire.Error
		if errors.As(err, &we) {
			// The face answers a refusal with a signed error message.
			m, _ := cfg.newMessage(self{id: cfg.Identity}, wire.OpError, wire.Ref{Agent: "alice", Org: "acme"}, "", we.Payload())
			return cfg.sign(self{id: cfg.Identity}, m)
		}
		return reply, err
	}
}

func TestAcceptorOverRoundTrip(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	cr := c.config(c.gw, clk, nil)
	store := NewStore(StoreConfig{Now: clk.Now})
	acc := NewAcceptor(cr, store)
	si, err := NewInitiator(c.config(c.alice, clk, nil), peerOf(c.gw)).Run(context.Background(), RoundTrip(exchange(t, acc, cr)))
	if err != nil {
		t.Fatal(err)
	}
	sr, err := store.Get(si.ID())
	if err != nil {
		t.Fatal(err)
	}
	if sr.Peer() != c.alice.agent.Public() || acc.Pending() != 0 {
		t.Fatal("session or pending state")
	}
	// The face routes session envelopes to the store.
	env := sealN(t, c, si, 1, t0)[0]
	if acc.Handles(env) {
		t.Fatal("acceptor claims an envelope of an established session")
	}
	m, s, err := store.Open(env)
	if err != nil || s != sr || m.Op != wire.OpQuery {
		t.Fatal(m, err)
	}
}

func TestAcceptorRefusesStrayMessages(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	ci, cr := fixedPair(c)
	msgs, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, cr = fixedPair(c)
	acc := NewAcceptor(cr, nil)
	for _, k := range []int{2, 3} { // verify without a hello; a verify_response
		if acc.Handles(mustEnv(t, msgs[k])) {
			t.Fatalf("message %d claimed", k)
		}
		_, _, err := acc.Handle(ctx, msgs[k])
		wantCode(t, err, wire.ErrAuthFailed)
	}
	_, _, err = acc.Handle(ctx, msgs[4]) // a session_established of no handshake
	wantExpired(t, err)
	q, _ := cr.sign(self{id: cr.Identity}, query(c.gw, c.alice, uuid(1), clk.Now(), wire.Pub))
	_, _, err = acc.Handle(ctx, q)
	wantCode(t, err, wire.ErrAuthFailed)
	_, _, err = acc.Handle(ctx, []byte("{"))
	wantCode(t, err, wire.ErrParse)
}

// TestAcceptorAdvancesOnce delivers each message twice, as a retrying
// client or an attacker might: the copy finds nothing to advance.
func TestAcceptorAdvancesOnce(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	acc := NewAcceptor(cr, NewStore(StoreConfig{Now: clk.Now}))
	in := NewInitiator(ci, peerOf(c.gw))
	hello, _ := in.writeHello()
	ack, _, err := acc.Handle(ctx, hello)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = acc.Handle(ctx, hello)
	wantCode(t, err, wire.ErrReplay)
	verify, err := in.readHelloAck(ctx, ack)
	if err != nil {
		t.Fatal(err)
	}
	if !acc.Handles(mustEnv(t, verify)) {
		t.Fatal("verify of a pending handshake not claimed")
	}
	vr, _, err := acc.Handle(ctx, verify)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = acc.Handle(ctx, verify)
	wantCode(t, err, wire.ErrAuthFailed)
	est, si, err := in.readVerifyResponse(ctx, vr)
	if err != nil {
		t.Fatal(err)
	}
	_, sr, err := acc.Handle(ctx, est)
	if err != nil || sr.ID() != si.ID() {
		t.Fatal(err)
	}
	_, _, err = acc.Handle(ctx, est)
	wantExpired(t, err)
}

func TestAcceptorBoundsPending(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	cr := c.config(c.gw, clk, nil)
	cr.MaxPending = 2
	acc := NewAcceptor(cr, nil)
	var ins []*Initiator
	var acks [][]byte
	for range 3 {
		in := NewInitiator(c.config(c.alice, clk, nil), peerOf(c.gw))
		hello, _ := in.writeHello()
		ack, _, err := acc.Handle(ctx, hello)
		if err != nil {
			t.Fatal(err)
		}
		ins, acks = append(ins, in), append(acks, ack)
	}
	if acc.Pending() != 2 {
		t.Fatalf("%d pending", acc.Pending())
	}
	verify, _ := ins[0].readHelloAck(ctx, acks[0])
	_, _, err := acc.Handle(ctx, verify)
	wantCode(t, err, wire.ErrAuthFailed) // the oldest was dropped
	verify, _ = ins[2].readHelloAck(ctx, acks[2])
	if _, _, err := acc.Handle(ctx, verify); err != nil {
		t.Fatal(err)
	}
	// Handshakes past their deadline are dropped as new ones arrive, and
	// refused if their next message comes anyway.
	verify, _ = ins[1].readHelloAck(ctx, acks[1])
	clk.Add(DefaultTimeout + time.Second)
	_, _, err = acc.Handle(ctx, verify)
	wantCode(t, err, wire.ErrTimeout)
	in := NewInitiator(c.config(c.alice, clk, nil), peerOf(c.gw))
	hello, _ := in.writeHello()
	if _, _, err := acc.Handle(ctx, hello); err != nil {
		t.Fatal(err)
	}
	if acc.Pending() != 1 {
		t.Fatalf("%d pending after the deadline passed", acc.Pending())
	}
}

func TestAcceptorPeerAbort(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	cr := c.config(c.gw, clk, nil)
	acc := NewAcceptor(cr, nil)
	// alice expects another key for the gateway: she refuses its hello_ack
	// and tells it so, which ends the pending handshake.
	peer := peerOf(c.gw)
	peer.Key = c.carol.agent.Signing.Public()
	_, err := NewInitiator(c.config(c.alice, clk, nil), peer).Run(ctx, RoundTrip(exchange(t, acc, cr)))
	wantCode(t, err, wire.ErrAuthFailed)
	if acc.Pending() != 0 {
		t.Fatal("aborted handshake still pending")
	}
}

// TestConcurrentHandshakes runs many handshakes at once against one
// Acceptor, Store and replay window, and over pipes with Run, then uses
// every session from several goroutines. Run it with -race.
func TestConcurrentHandshakes(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0) // the certificates' time; the randomness is real
	window := replay.New(replay.Config{Now: clk.Now})
	cr := &Config{Identity: c.gw.agent, Cert: c.gw.cert, Trust: c.trust, Replay: window, Now: clk.Now}
	ci := &Config{Identity: c.alice.agent, Cert: c.alice.cert, Trust: c.trust, Now: clk.Now}
	store := NewStore(StoreConfig{Now: clk.Now})
	acc := NewAcceptor(cr, store)
	const n = 24
	var wg sync.WaitGroup
	sessions := make(chan *Session, 2*n)
	errs := make(chan error, 4*n)
	for range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			s, err := NewInitiator(ci, peerOf(c.gw)).Run(ctx, RoundTrip(exchange(t, acc, cr)))
			if err != nil {
				errs <- err
				return
			}
			sessions <- s
		}()
		go func() {
			defer wg.Done()
			a, b := Pipe()
			done := make(chan *Session, 1)
			go func() {
				s, err := NewResponder(cr).Run(ctx, b)
				if err != nil {
					errs <- err
				}
				if s != nil {
					store.Add(s)
				}
				done <- s
			}()
			s, err := NewInitiator(ci, peerOf(c.gw)).Run(ctx, a)
			if <-done == nil || err != nil {
				errs <- fmt.Errorf("pipe handshake: %v", err)
				return
			}
			sessions <- s
		}()
	}
	wg.Wait()
	close(sessions)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var all []*Session
	for s := range sessions {
		all = append(all, s)
	}
	if len(all) != 2*n || store.Len() != 2*n {
		t.Fatalf("%d sessions, %d stored", len(all), store.Len())
	}
	// Every session carries messages, from several goroutines at once.
	codec := wire.NewCodec(wire.Limits{})
	var mu sync.Mutex
	seen := map[string]bool{}
	for i, s := range all {
		for g := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := uuid(10*i + g)
				b, err := s.SignAndSeal(query(c.alice, c.gw, id, clk.Now(), wire.Int), c.alice.agent.Signing)
				if err != nil {
					t.Error(err)
					return
				}
				env, err := codec.DecodeEnvelope(b)
				if err != nil {
					t.Error(err)
					return
				}
				m, _, err := store.Open(env)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[m.ID] = true
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	if len(seen) != 3*len(all) {
		t.Fatalf("%d of %d messages opened", len(seen), 3*len(all))
	}
}
