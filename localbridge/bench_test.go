package localbridge_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// The benchmarks measure a tool call's round trip through the bridge (Core, socket, SDK echo
// agent, and back) next to a raw echo of frames of the same size over a Unix socket, in one
// run. Both report cpu-ns/op, the process's CPU time (user and system, every thread) per
// round trip; the difference is what the bridge adds beyond the socket I/O.

// benchFrameBytes approximates the frames of an echo call: core.tool.call out, result back.
const benchFrameBytes = 330

var benchInput = json.RawMessage(`{"text":"hello"}`)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureCPU reports CPU time per op for what runs between its call and the returned func's.
func measureCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

// rawEchoServer echoes frames back, flushing when it has no more input waiting.
func rawEchoServer(b *testing.B) string {
	path := filepath.Join(shortDir(b), "echo.sock")
	l, err := localbridge.ListenUnix(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReaderSize(c, 32<<10)
				r := osp.NewReader(br, 0)
				w := bufio.NewWriterSize(c, 32<<10)
				for {
					f, err := r.ReadFrame()
					if err != nil {
						return
					}
					w.Write(osp.AppendFrame(nil, f))
					if br.Buffered() == 0 {
						if w.Flush() != nil {
							return
						}
					}
				}
			}()
		}
	}()
	return path
}

func BenchmarkRawEcho(b *testing.B) {
	frame := make([]byte, benchFrameBytes)
	for i := range frame {
		frame[i] = 'x'
	}
	b.Run("sequential", func(b *testing.B) {
		c, err := net.Dial("unix", rawEchoServer(b))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		r := osp.NewReader(c, 0)
		msg := osp.AppendFrame(nil, frame)
		b.ReportAllocs()
		done := measureCPU(b)
		for b.Loop() {
			if _, err := c.Write(msg); err != nil {
				b.Fatal(err)
			}
			if _, err := r.ReadFrame(); err != nil {
				b.Fatal(err)
			}
		}
		done()
	})
	b.Run("inflight256", func(b *testing.B) {
		c, err := net.Dial("unix", rawEchoServer(b))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		slots := make(chan struct{}, 256)
		msg := osp.AppendFrame(nil, frame)
		b.ReportAllocs()
		done := measureCPU(b)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := osp.NewReader(c, 0)
			for range b.N {
				if _, err := r.ReadFrame(); err != nil {
					b.Error(err)
					return
				}
				<-slots
			}
		}()
		w := bufio.NewWriterSize(c, 32<<10)
		for range b.N {
			select {
			case slots <- struct{}{}:
			default:
				w.Flush()
				slots <- struct{}{}
			}
			w.Write(msg)
		}
		w.Flush()
		wg.Wait()
		done()
	})
}

func benchBridge(b *testing.B) *localbridge.Core {
	br := newBridge(b, localbridge.Config{})
	br.runAgent(b, "echo", echo.New())
	return br.core
}

func BenchmarkBridgeCall(b *testing.B) {
	req := localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: benchInput, CorrelationID: "bench"}
	ctx := context.Background()
	b.Run("sequential", func(b *testing.B) {
		core := benchBridge(b)
		b.ReportAllocs()
		done := measureCPU(b)
		for b.Loop() {
			if _, err := core.Call(ctx, req, nil); err != nil {
				b.Fatal(err)
			}
		}
		done()
	})
	b.Run("inflight256", func(b *testing.B) {
		core := benchBridge(b)
		b.ReportAllocs()
		// RunParallel starts GOMAXPROCS × parallelism goroutines: 256 calls in flight.
		b.SetParallelism(max(256/runtimeProcs(), 1))
		done := measureCPU(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := core.Call(ctx, req, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
		done()
	})
}

// BenchmarkFrames isolates the encoding work of one round trip: the Core's call frame and the
// agent's result frame, each encoded and decoded once.
func BenchmarkFrames(b *testing.B) {
	call := osp.ToolCall{CallID: "9b1a2c3d-4e5f-6789-abcd-ef0123456789", ToolID: "echo/echo", Input: benchInput}
	result := osp.ToolResult{CallID: call.CallID, Status: "succeeded", Output: json.RawMessage(`{"text":"hello"}`), StartedAt: osp.Timestamp(time.Now()), FinishedAt: osp.Timestamp(time.Now())}
	h := osp.Header{V: 1, Type: osp.TypeToolCall, ID: "4c3c0c7b-4c9a-4a6b-9d2a-4e4a9f0e2a1b", TS: osp.Timestamp(time.Now()), RequestID: "8d0f8a5a-2f0a-4b76-9a9c-4c2b7b9a0c1d", CorrelationID: "bench"}
	var hdr [4]byte
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range []any{call, result} {
			m, err := osp.Marshal(&h, p)
			if err != nil {
				b.Fatal(err)
			}
			binary.BigEndian.PutUint32(hdr[:], uint32(len(m)))
			e, err := osp.Decode(m)
			if err != nil {
				b.Fatal(err)
			}
			var out osp.ToolResult
			e.DecodePayload(&out)
		}
	}
	_ = io.Discard
}
