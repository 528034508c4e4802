package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/internal/benchcpu"
)

// The fan-out benchmarks are read as ratios against BenchmarkChanSend, a
// plain channel send of the same number of values to the same number of
// receivers, measured in the same run (docs/benchmarks.md, "Event
// stream").

// benchPayload is a call.completed event's payload, the event a gateway
// emits most.
var benchPayload = map[string]any{"id": "89359099-ced9-46f2-b0a9-41f8664234bc", "direction": "inbound", "from": "client@acme",
	"to": "greeter@globex", "tool": "greet", "status": "success", "duration_ms": 3}

var fanOuts = []int{1, 16, 256}

// batch is how many events are emitted before the benchmark waits for
// every subscriber to have taken them: fewer than a subscriber's buffer,
// so that none falls behind (Emit drops one that does, where a channel
// send would wait), and enough that the wait is a small share.
const batch = 128

// emitBatches calls emit b.N times, in batches after each of which it
// waits until got has been told of every event by each of n receivers.
func emitBatches(b *testing.B, n int, got *sync.WaitGroup, emit func()) {
	for i := 0; i < b.N; {
		k := min(batch, b.N-i)
		got.Add(k * n)
		for range k {
			emit()
		}
		got.Wait()
		i += k
	}
}

// BenchmarkChanSend is the yardstick: one value sent on each of n buffered
// channels, each drained by a goroutine of its own, as Emit hands an event
// to n subscribers, in the same batches.
func BenchmarkChanSend(b *testing.B) {
	for _, n := range fanOuts {
		b.Run(fmt.Sprintf("subs=%d", n), func(b *testing.B) {
			chans := make([]chan Event, n)
			var wg, got sync.WaitGroup
			for i := range chans {
				chans[i] = make(chan Event, 256)
				wg.Add(1)
				go func(c chan Event) {
					defer wg.Done()
					for range c {
						got.Done()
					}
				}(chans[i])
			}
			e := Event{ID: "1", SessionID: "s", Type: CallCompleted, Payload: []byte(`{}`)}
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			b.ResetTimer()
			emitBatches(b, n, &got, func() {
				for _, c := range chans {
					c <- e
				}
			})
			b.StopTimer()
			stop()
			for _, c := range chans {
				close(c)
			}
			wg.Wait()
		})
	}
}

// BenchmarkFanOut is one Emit with n subscribers that keep up: the
// payload encoded once, numbered, kept, and handed to each. Each
// subscriber is drained by a goroutine of its own, so that the cost of
// waking them is in the figure as it is in the yardstick's.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range fanOuts {
		b.Run(fmt.Sprintf("subs=%d", n), func(b *testing.B) {
			s := New(Config{})
			var wg, got sync.WaitGroup
			for range n {
				sub, err := s.Subscribe("")
				if err != nil {
					b.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range sub.C {
						got.Done()
					}
					if sub.Err() == ErrBehind {
						b.Error("a subscriber fell behind")
					}
				}()
			}
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			b.ResetTimer()
			emitBatches(b, n, &got, func() { s.Emit(CallCompleted, benchPayload) })
			b.StopTimer()
			stop()
			s.Close()
			wg.Wait()
		})
	}
}

// benchFace measures events through one face to one client, from Emit to
// the client's having read the event, in batches as BenchmarkFanOut's:
// read is the client, which tells got of each event it reads and tells
// ready once its subscription is in place.
func benchFace(b *testing.B, serve func(*Stream, http.ResponseWriter, *http.Request), read func(b *testing.B, url string, got *sync.WaitGroup, ready chan<- struct{})) {
	s := New(Config{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(s, w, r) }))
	defer srv.Close()
	var got sync.WaitGroup
	ready, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); read(b, srv.URL, &got, ready) }()
	<-ready
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	b.ResetTimer()
	emitBatches(b, 1, &got, func() { s.Emit(CallCompleted, benchPayload) })
	b.StopTimer()
	stop()
	s.Close()
	<-done
}

// BenchmarkSSE is an event through the Server-Sent Events face to a
// client reading the stream over loopback HTTP.
func BenchmarkSSE(b *testing.B) {
	benchFace(b, (*Stream).ServeSSE, func(b *testing.B, url string, got *sync.WaitGroup, ready chan<- struct{}) {
		resp, err := http.Get(url)
		if err != nil {
			b.Error(err)
			close(ready)
			return
		}
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		// The first line, a comment, comes once the subscription is in place.
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Error(err)
		}
		close(ready)
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return // the stream closed
			}
			if bytes.HasPrefix(line, []byte("data: ")) {
				got.Done()
			}
		}
	})
}

// BenchmarkWebSocket is an event through the WebSocket face to a client
// over loopback.
func BenchmarkWebSocket(b *testing.B) {
	benchFace(b, (*Stream).ServeWebSocket, func(b *testing.B, url string, got *sync.WaitGroup, ready chan<- struct{}) {
		c, _, err := websocket.DefaultDialer.Dial(strings.Replace(url, "http", "ws", 1), nil)
		if err != nil {
			b.Error(err)
			close(ready)
			return
		}
		defer c.Close()
		// The upgrade is answered after the subscription is made.
		close(ready)
		for {
			if _, _, err := c.NextReader(); err != nil {
				return // the stream closed
			}
			got.Done()
		}
	})
}

// BenchmarkMarshalPayload is the part of an Emit that encoding/json does:
// the payload encoded once, whatever the number of subscribers.
func BenchmarkMarshalPayload(b *testing.B) {
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if _, err := json.Marshal(benchPayload); err != nil {
			b.Fatal(err)
		}
	}
}
