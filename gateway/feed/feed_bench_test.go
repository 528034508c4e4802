package feed

import (
	"testing"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/wire"
)

// BenchmarkInbound is the hook every answered call from a peer runs: its
// call.completed event, with nobody subscribed (the usual case) and with a
// console subscribed that keeps up (the yardstick: what every call paid
// before the stream kept unwatched events unencoded).
//
//	go test -run '^$' -bench Inbound -benchmem ./gateway/feed
func BenchmarkInbound(b *testing.B) {
	m := &wire.Message{ID: "89359099-ced9-46f2-b0a9-41f8664234bc", From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Payload: &wire.ToolPayload{Action: "invoke", Tool: "echo"}}
	ans := &pipeline.Answer{}
	for _, watched := range []bool{false, true} {
		name := "unwatched"
		if watched {
			name = "watched"
		}
		b.Run(name, func(b *testing.B) {
			st := events.New(events.Config{Buffer: 1 << 20})
			if watched {
				sub, _ := st.Subscribe("")
				done := make(chan struct{})
				go func() {
					for range sub.C {
					}
					close(done)
				}()
				defer func() { st.Close(); <-done }()
			}
			f := New(Config{Stream: st, Org: "globex"})
			start := time.Now()
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				f.Inbound(m, start, ans)
			}
		})
	}
}
