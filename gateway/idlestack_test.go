package gateway

import (
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"

	"fmt"
	"runtime"
	rtmetrics "runtime/metrics"
	"testing"
	"time"
)

// TestIdleWebSocketStackStaysSmall: an idle WebSocket holds one goroutine,
// its reader, parked in a read, whose stack is most of what a session costs
// beyond its heap. It starts at 4 KiB and keeps to that only while its reads
// fit in it, guard included; once a read grows it to 8 KiB, the collector
// shrinks it back only while it parks under about 1.2 KiB deep, which it
// never does. The frames it parks under (serveStreamConn, frames.Conns.Serve, read,
// the WebSocket and TLS readers) leave little room: parked about 2,850 bytes
// deep it stays at 4 KiB (moltgate bench: 17 KiB per idle session), while
// 56 bytes more in those frames (3,230) made it 8 KiB (21 KiB per session,
// over the 20 KiB target). The depth is what the collector scanned of the
// readers' stacks, read after the goroutines settle.
func TestIdleWebSocketStackStaysSmall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector deepens every frame")
	}
	r := newFaceRig(t)
	// What the last collection scanned of the goroutines' stacks: the part
	// of each stack in use, so the depth at which idle readers park.
	scanned := []rtmetrics.Sample{{Name: "/gc/scan/stack:bytes"}}
	settle := func() uint64 {
		n := -1
		for range 100 {
			runtime.GC()
			if g := runtime.NumGoroutine(); g == n {
				break
			} else {
				n = g
			}
			time.Sleep(50 * time.Millisecond)
		}
		runtime.GC()
		rtmetrics.Read(scanned)
		return scanned[0].Value.Uint64()
	}
	// The handshake's workers linger a while after each session is made.
	before := settle()
	g0 := runtime.NumGoroutine()
	const sessions = 32 // within the handshakes one address may start at once
	for i := range sessions {
		r.session(t, pipeline.FaceWS, fmt.Sprintf("idle-%d", i))
	}
	time.Sleep(frames.WorkerLinger + 500*time.Millisecond)
	after := settle()
	depth := (float64(after) - float64(before)) / sessions
	goroutines := float64(runtime.NumGoroutine()-g0) / sessions
	t.Logf("%.0f bytes of stack in use and %.2f goroutines per idle session", depth, goroutines)
	if depth > 3000 {
		t.Errorf("an idle WebSocket's reader parks %.0f bytes deep, want at most 3,000: its reads no longer fit a 4 KiB stack", depth)
	}
}
