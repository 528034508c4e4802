package localbridge_test

import (
	"bufio"
	"context"
	"encoding/json"
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

func usage() syscall.Rusage {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru
}

// measureCPU reports, per op, the CPU time (cpu-ns/op: user and system, every thread) and
// the threads' context switches (ctxsw/op) between its call and the returned func's.
func measureCPU(b *testing.B) func() {
	start := usage()
	return func() {
		end := usage()
		cpu := end.Utime.Nano() + end.Stime.Nano() - start.Utime.Nano() - start.Stime.Nano()
		sys := end.Stime.Nano() - start.Stime.Nano()
		sw := end.Nvcsw + end.Nivcsw - start.Nvcsw - start.Nivcsw
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(sys)/float64(b.N), "sys-ns/op")
		b.ReportMetric(float64(sw)/float64(b.N), "ctxsw/op")
	}
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
// agent's result frame, each encoded and decoded once. It is CPU-bound work, so its cpu-ns/op
// against its instruction count tells what an instruction costs on the machine at the time.
func BenchmarkFrames(b *testing.B) {
	call := osp.ToolCall{CallID: "9b1a2c3d-4e5f-6789-abcd-ef0123456789", ToolID: "echo/echo", Input: benchInput}
	result := osp.ToolResult{CallID: call.CallID, Status: "succeeded", Output: json.RawMessage(`{"text":"hello"}`), StartedAt: osp.Timestamp(time.Now()), FinishedAt: osp.Timestamp(time.Now())}
	hc := osp.Header{V: 1, Type: osp.TypeToolCall, ID: "4c3c0c7b-4c9a-4a6b-9d2a-4e4a9f0e2a1b", TS: osp.Timestamp(time.Now()), RequestID: "8d0f8a5a-2f0a-4b76-9a9c-4c2b7b9a0c1d", CorrelationID: "bench"}
	hr := hc
	hr.Type = osp.TypeToolResult
	b.ReportAllocs()
	done := measureCPU(b)
	defer done()
	for b.Loop() {
		m, err := osp.Marshal(&hc, call)
		if err != nil {
			b.Fatal(err)
		}
		e, err := osp.Decode(m)
		if err != nil {
			b.Fatal(err)
		}
		var c osp.ToolCall
		if err := e.DecodePayload(&c); err != nil {
			b.Fatal(err)
		}
		m, err = osp.Marshal(&hr, result)
		if err != nil {
			b.Fatal(err)
		}
		if e, err = osp.Decode(m); err != nil {
			b.Fatal(err)
		}
		var r osp.ToolResult
		if err := e.DecodePayload(&r); err != nil {
			b.Fatal(err)
		}
	}
}
