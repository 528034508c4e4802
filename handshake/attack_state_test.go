package handshake

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/wire"
)

func TestHandshakeDeadline(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	hello, _ := in.writeHello()
	ack, err := re.readHello(ctx, mustEnv(t, hello))
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(DefaultTimeout + time.Millisecond)
	_, err = in.readHelloAck(ctx, ack)
	wantCode(t, err, wire.ErrTimeout)

	// Over a transport that never answers, Run gives up at the deadline.
	ci.Timeout = 50 * time.Millisecond
	a, _ := Pipe()
	_, err = NewInitiator(ci, peerOf(c.gw)).Run(ctx, a)
	wantCode(t, err, wire.ErrTimeout)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("cause not kept")
	}
}

func TestOutOfOrderFailsClosed(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	ci, cr := fixedPair(c)
	msgs, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every message but hello offered to a fresh responder as its first.
	for _, k := range []int{1, 2, 3} {
		_, cr := fixedPair(c)
		_, err := NewResponder(cr).readHello(ctx, mustEnv(t, msgs[k]))
		wantCode(t, err, wire.ErrAuthFailed)
	}
	// A sealed message where hello belongs.
	_, cr = fixedPair(c)
	_, err = NewResponder(cr).readHello(ctx, mustEnv(t, msgs[4]))
	wantCode(t, err, wire.ErrAuthFailed)
	// hello_ack where verify_response belongs, and the reverse.
	ci, cr = fixedPair(c)
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	h, _ := in.writeHello()
	ack, _ := re.readHello(ctx, mustEnv(t, h))
	if _, err := in.readHelloAck(ctx, ack); err != nil {
		t.Fatal(err)
	}
	_, _, err = in.readVerifyResponse(ctx, ack)
	wantCode(t, err, wire.ErrAuthFailed)
	// A failed side cannot be used again.
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("reuse after failure did not panic")
			}
		}()
		in.readVerifyResponse(ctx, ack)
	}()
}

func TestReusePanics(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	ctx := context.Background()
	a, b := Pipe()
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	done := make(chan error, 1)
	go func() { _, err := re.Run(ctx, b); done <- err }()
	if _, err := in.Run(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"initiator": func() { in.Run(ctx, a) },
		"responder": func() { re.Run(ctx, b) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s reused without panic", name)
				}
			}()
			f()
		}()
	}
}

// TestSharedReplayWindow checks that one window serves both handshakes and
// other traffic: the hello's id, once seen, is refused elsewhere.
func TestSharedReplayWindow(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	w := replay.New(replay.Config{Now: clk.Now})
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	cr.Replay = w
	msgs, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, w.Check(context.Background(), mustDecode(t, msgs[0])), wire.ErrReplay)
}
