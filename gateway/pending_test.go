package gateway

import (
	"context"
	"crypto/rand"
	"strconv"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

func reply(re string, n int) delivered {
	return delivered{m: &wire.Message{ID: "r" + strconv.Itoa(n), Re: re}}
}

// Replies reach their call in order; one for no waiting call, or for a call
// that has ended, is refused.
func TestPendingCallsOrder(t *testing.T) {
	p := newPendingCalls()
	pc, done := p.wait("q1")
	if _, ok := pc.next(); ok {
		t.Fatal("a reply before any was delivered")
	}
	for i := range 3 {
		if !p.deliverTo(reply("q1", i)) {
			t.Fatalf("reply %d not delivered", i)
		}
	}
	if p.deliverTo(reply("q2", 0)) {
		t.Fatal("a reply for no call was delivered")
	}
	select {
	case <-pc.ready:
	default:
		t.Fatal("delivery did not signal the call")
	}
	for i := range 3 {
		d, ok := pc.next()
		if !ok || d.m.ID != "r"+strconv.Itoa(i) {
			t.Fatalf("reply %d: got %v, %v", i, d.m, ok)
		}
	}
	if _, ok := pc.next(); ok {
		t.Fatal("more replies than were delivered")
	}
	done()
	if p.deliverTo(reply("q1", 3)) {
		t.Fatal("a reply for an ended call was delivered")
	}
}

// A call with replyBuffer replies untaken holds up the next delivery until it
// takes one; nothing is dropped.
func TestPendingCallsBackpressure(t *testing.T) {
	p := newPendingCalls()
	pc, done := p.wait("q1")
	defer done()
	for i := range replyBuffer {
		if !p.deliverTo(reply("q1", i)) {
			t.Fatalf("reply %d not delivered", i)
		}
	}
	delivered := make(chan bool, 1)
	go func() { delivered <- p.deliverTo(reply("q1", replyBuffer)) }()
	select {
	case <-delivered:
		t.Fatal("a delivery past replyBuffer did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	if d, ok := pc.next(); !ok || d.m.ID != "r0" {
		t.Fatalf("first reply: %v, %v", d.m, ok)
	}
	if !<-delivered {
		t.Fatal("the waiting delivery failed once there was room")
	}
	for i := 1; i <= replyBuffer; i++ {
		if d, ok := pc.next(); !ok || d.m.ID != "r"+strconv.Itoa(i) {
			t.Fatalf("reply %d: %v, %v", i, d.m, ok)
		}
	}
}

// A delivery waiting for a call that has ended gives up at once.
func TestPendingCallsEndWhileFull(t *testing.T) {
	p := newPendingCalls()
	_, done := p.wait("q1")
	for i := range replyBuffer {
		p.deliverTo(reply("q1", i))
	}
	delivered := make(chan bool, 1)
	go func() { delivered <- p.deliverTo(reply("q1", replyBuffer)) }()
	time.Sleep(20 * time.Millisecond)
	done()
	select {
	case ok := <-delivered:
		if ok {
			t.Fatal("delivered to an ended call")
		}
	case <-time.After(stallLimit / 2):
		t.Fatal("the delivery still waits for an ended call")
	}
}

// TestRepliesFromTheCalledOrgOnly: replies that arrive as messages of
// their own are matched to calls by re; one from an organisation other than
// the one called is dropped, and the call goes on waiting for its own.
func TestRepliesFromTheCalledOrgOnly(t *testing.T) {
	acme, _ := twoGateways(t, TransportHTTP)
	ps := acme.s.peer("globex")
	pc, done := acme.s.pending.wait("00000000-0000-4000-8000-000000000001")
	defer done()
	answer := func(org, text string) delivered {
		data, _ := wire.ValueOf(map[string]string{"text": text})
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpRespond,
			From: wire.Sender{Agent: "echo", Org: org}, To: wire.Ref{Agent: "client", Org: "acme"}, Cls: wire.Pub,
			Re: "00000000-0000-4000-8000-000000000001", Payload: &wire.RespondPayload{Status: "success", Data: data}}
		if err := acme.s.codec.Check(m); err != nil {
			t.Fatal(err)
		}
		return delivered{m: m, sealed: true}
	}
	if !acme.s.pending.deliverTo(answer("initech", "forged")) || !acme.s.pending.deliverTo(answer("globex", "genuine")) {
		t.Fatal("not delivered")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []string
	req := &wire.Message{ID: "00000000-0000-4000-8000-000000000001", From: acme.s.agent("client").id.Sender()}
	err := acme.s.awaitStream(ctx, ps, req, pc, nil, func(r *wire.Message) (bool, error) {
		txt, _ := r.Payload.(*wire.RespondPayload).Data.Get("text").Str()
		got = append(got, txt)
		return true, nil
	})
	if err != nil || len(got) != 1 || got[0] != "genuine" {
		t.Fatalf("the call took %v (%v), want only globex's answer", got, err)
	}
}
