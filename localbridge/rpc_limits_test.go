package localbridge_test

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/localbridge"
)

// testClock is a clock that moves only when the test moves it.
type testClock struct{ ns atomic.Int64 }

func newTestClock() *testClock {
	c := &testClock{}
	c.ns.Store(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *testClock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *testClock) Add(d time.Duration) { c.ns.Add(int64(d)) }

// silentFor reports whether nothing comes from the face for d.
func (r *rawRPC) silentFor(d time.Duration) bool {
	r.t.Helper()
	r.conn.SetReadDeadline(time.Now().Add(d))
	b, err := r.r.ReadLine()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	r.t.Fatalf("while the face should be silent: %s %v", b, err)
	return false
}

// A connection sends at most RequestsPerSecond requests a second, as the IPC protocol's rate
// limit says: a second's worth goes at once, and then the face reads no more until the clock
// has moved on by 1/rate for each request (a batch counting each of its requests). Nothing
// is refused or lost: every request is answered once its time has come.
func TestRPCRateLimit(t *testing.T) {
	clock := newTestClock()
	f := newFace(t, func(c *localbridge.RPCConfig) { c.RequestsPerSecond = 4; c.Now = clock.Now })
	r := f.raw(t, true) // initialize: one of the four
	for i := 1; i <= 6; i++ {
		r.line(`{"jsonrpc":"2.0","id":` + jsonInt(i) + `,"method":"approvals.list"}`)
	}
	// Requests on separate lines run side by side, so their answers may come in any order.
	answered := func(from, to int) {
		t.Helper()
		want := map[string]bool{}
		for i := from; i <= to; i++ {
			want[jsonInt(i)] = true
		}
		for range to - from + 1 {
			m := r.msg()
			if m.Error != nil || !want[string(m.ID)] || string(m.Result) != `{"pending":[]}` {
				t.Fatalf("requests %d to %d: answered %s %s %+v", from, to, m.ID, m.Result, m.Error)
			}
			delete(want, string(m.ID))
		}
	}
	answered(1, 3)
	if !r.silentFor(300 * time.Millisecond) {
		t.Fatal("a fifth request in the second answered")
	}
	clock.Add(time.Second) // four more
	answered(4, 6)
	// One left in the bucket: a batch of two waits for a quarter of a second more.
	r.line(`[{"jsonrpc":"2.0","id":7,"method":"approvals.list"},{"jsonrpc":"2.0","id":8,"method":"approvals.list"}]`)
	if !r.silentFor(300 * time.Millisecond) {
		t.Fatal("a batch of two answered with one request left in the second")
	}
	clock.Add(250 * time.Millisecond)
	b, err := r.readLine()
	if err != nil || !strings.Contains(string(b), `"id":7`) || !strings.Contains(string(b), `"id":8`) {
		t.Fatalf("the batch: %s %v", b, err)
	}

	// Negative: no limit, whatever the clock says.
	f = newFace(t, func(c *localbridge.RPCConfig) { c.RequestsPerSecond = -1; c.Now = clock.Now })
	r = f.raw(t, true)
	for i := 1; i <= 50; i++ {
		r.line(`{"jsonrpc":"2.0","id":` + jsonInt(i) + `,"method":"approvals.list"}`)
	}
	seen := map[string]bool{}
	for range 50 {
		m := r.msg()
		if m.Error != nil {
			t.Fatalf("without a limit: %+v", m.Error)
		}
		seen[string(m.ID)] = true
	}
	if len(seen) != 50 {
		t.Fatalf("without a limit: %d distinct answers to 50 requests", len(seen))
	}
}

// A subscriber that reads too slowly is dropped rather than holding the gateway back: it was
// given every event up to the drop, in order, then one "event" notification of type
// stream.dropped, outside the numbering, and nothing of the stream after; the connection
// still answers, and may subscribe again after the last id it saw.
func TestRPCEventsDropped(t *testing.T) {
	stream := events.New(events.Config{Buffer: 4, Keep: 4096})
	f := newFace(t, func(c *localbridge.RPCConfig) { c.Events = stream })
	r := f.raw(t, true)
	r.line(`{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}`)
	if m := r.msg(); m.Error != nil {
		t.Fatalf("events.subscribe: %+v", m.Error)
	}
	// Six megabytes that the client does not read: more than the socket and the face's
	// queue hold, so the face's writes wait and its four places fill.
	note := strings.Repeat("x", 2048)
	const n = 3000
	for range n {
		stream.Emit(events.AgentUpdated, map[string]string{"id": "a", "status": "ok", "note": note})
	}
	last := 0
	for {
		b, err := r.readLine()
		if err != nil {
			t.Fatalf("after event %d: %v", last, err)
		}
		var m struct {
			Method string
			Params events.Event
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Method != localbridge.NotifyEvent {
			t.Fatalf("after event %d: %.200s", last, b)
		}
		if m.Params.Type == "stream.dropped" {
			if m.Params.ID != "" || string(m.Params.Payload) != `{"reason":"behind"}` {
				t.Fatalf("stream.dropped: %s", b)
			}
			break
		}
		if m.Params.ID != jsonInt(last+1) {
			t.Fatalf("event %s after %d", m.Params.ID, last)
		}
		last++
	}
	if last == n {
		t.Fatal("every event was read: the subscriber did not fall behind")
	}
	stream.Emit(events.AgentUpdated, map[string]string{"id": "a", "status": "degraded"})
	r.line(`{"jsonrpc":"2.0","id":2,"method":"approvals.list"}`)
	if m := r.msg(); m.Method != "" || string(m.ID) != "2" {
		t.Fatalf("after the drop: %+v", m)
	}
	// Resumed after the last id seen: the next one, and so on.
	r.line(`{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{"after":"` + jsonInt(last) + `"}}`)
	if m := r.msg(); m.Error != nil || strings.Contains(string(m.Result), "missed") {
		t.Fatalf("resubscribe: %s %+v", m.Result, m.Error)
	}
	b, err := r.readLine()
	if err != nil || !strings.Contains(string(b), `"id":"`+jsonInt(last+1)+`"`) {
		t.Fatalf("resumed with %.200s %v, want event %d", b, err, last+1)
	}
}
