package localbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// The tests here cover the passing of the read role: a caller without onChunk may read the
// agent's frames for every call while it waits, and the SDK runs a call on the goroutine
// that read it.

// callLeading runs core.Call without onChunk in the background: its caller may take the read
// role.
func callLeading(ctx context.Context, c *localbridge.Core, req localbridge.CallRequest) <-chan callOutcome {
	ch := make(chan callOutcome, 1)
	go func() {
		var o callOutcome
		o.res, o.err = c.Call(ctx, req, nil)
		ch <- o
	}()
	return ch
}

// expectCalls reads n core.tool.call messages and returns their payloads by correlation id.
func (r *rawAgent) expectCalls(n int) map[string]osp.ToolCall {
	r.t.Helper()
	calls := make(map[string]osp.ToolCall)
	for range n {
		e := r.expect(osp.TypeToolCall)
		var c osp.ToolCall
		if err := e.DecodePayload(&c); err != nil {
			r.t.Fatal(err)
		}
		calls[e.CorrelationID] = c
	}
	return calls
}

func (r *rawAgent) frame(typ string, payload any) []byte {
	r.t.Helper()
	r.n++
	h := osp.Header{V: 1, Type: typ, ID: fmt.Sprintf("m-%d", r.n), TS: osp.Timestamp(time.Now())}
	b, err := osp.Marshal(&h, payload)
	if err != nil {
		r.t.Fatal(err)
	}
	return osp.AppendFrame(nil, b)
}

// A waiting caller that is cancelled returns at once even while it reads for the others, and a
// frame it was cut off in the middle of reaches its call whole.
func TestCallCancelWhileReading(t *testing.T) {
	b := newBridge(t, localbridge.Config{CancelGrace: time.Hour})
	r, _ := b.connectRaw(t, "r")
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		first := callLeading(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t", CorrelationID: "first"})
		second := callLeading(context.Background(), b.core, localbridge.CallRequest{Agent: "r", Tool: "t", CorrelationID: "second"})
		calls := r.expectCalls(2)
		f := r.frame(osp.TypeToolResult, osp.ToolResult{CallID: calls["second"].CallID, Status: "succeeded", Output: json.RawMessage(`{"n":2}`)})
		if _, err := r.conn.Write(f[:len(f)/2]); err != nil {
			t.Fatal(err)
		}
		cancel()
		if o := <-first; !localbridge.IsCanceled(o.err) {
			t.Fatalf("cancelled call: %v", o.err)
		}
		var c osp.ToolCancel
		if r.expect(osp.TypeToolCancel).DecodePayload(&c); c.CallID != calls["first"].CallID {
			t.Fatalf("cancel for %q", c.CallID)
		}
		if _, err := r.conn.Write(f[len(f)/2:]); err != nil {
			t.Fatal(err)
		}
		if o := <-second; o.err != nil || string(o.res.Output) != `{"n":2}` {
			t.Fatalf("second call: %+v", o)
		}
		r.send(osp.TypeToolResult, osp.ToolResult{CallID: calls["first"].CallID, Status: "canceled", Error: &osp.Error{Code: osp.CodeToolCanceled}})
	}
	waitFor(t, "slots released", func() bool { a, _ := b.core.Agent("r"); return a.InFlight == 0 })
}

// A caller reading for the others never waits for a slow consumer of another call's chunks:
// it can still be cancelled, and every chunk arrives in order once the consumer catches up.
func TestCallSlowConsumerWhileReading(t *testing.T) {
	b := newBridge(t, localbridge.Config{CancelGrace: time.Hour})
	r, _ := b.connectRaw(t, "r")
	gate := make(chan struct{})
	streamed := make(chan callOutcome, 1)
	go func() {
		var o callOutcome
		o.res, o.err = b.core.Call(context.Background(), localbridge.CallRequest{Agent: "r", Tool: "t", CorrelationID: "stream"}, func(k localbridge.Chunk) error {
			<-gate
			o.chunks = append(o.chunks, k)
			return nil
		})
		streamed <- o
	}()
	ctx, cancel := context.WithCancel(context.Background())
	waiting := callLeading(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t", CorrelationID: "wait"})
	calls := r.expectCalls(2)
	const chunks = 40
	for i := range chunks {
		r.send(osp.TypeToolStream, osp.ToolStream{CallID: calls["stream"].CallID, Seq: int64(i + 1), Channel: "stdout", Data: osp.StreamData{Text: "x"}})
	}
	r.send(osp.TypeToolResult, osp.ToolResult{CallID: calls["wait"].CallID, Status: "succeeded"})
	cancel()
	if o := <-waiting; o.err != nil && !localbridge.IsCanceled(o.err) {
		t.Fatalf("waiting call: %v", o.err)
	}
	close(gate)
	r.send(osp.TypeToolResult, osp.ToolResult{CallID: calls["stream"].CallID, Status: "succeeded"})
	o := <-streamed
	if o.err != nil || len(o.chunks) != chunks || o.res.Chunks != chunks {
		t.Fatalf("streaming call: %v, %d chunks", o.err, len(o.chunks))
	}
	for i, k := range o.chunks {
		if k.Seq != int64(i+1) {
			t.Fatalf("chunk %d has seq %d", i, k.Seq)
		}
	}
}

// While the SDK runs a call that blocks on the goroutine that read it, other calls and the
// cancel of the blocked one still get through.
func TestCallsWhileHandlerBlocks(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		sleeping := callLeading(ctx, b.core, localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)})
		waitFor(t, "call running", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 1 })
		for i := range 20 {
			text := fmt.Sprintf(`{"text":"%d"}`, i)
			res, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(text)}, nil)
			if err != nil || string(res.Output) != text {
				t.Fatalf("echo %d: %s, %v", i, res.Output, err)
			}
		}
		cancel()
		if o := <-sleeping; !localbridge.IsCanceled(o.err) {
			t.Fatalf("sleeping call: %v", o.err)
		}
		waitFor(t, "agent finished the call", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 0 })
	}
}

// Many callers at once, mixing the ways a call can go: answered at once, streamed to a slow
// consumer, cancelled while it waits and while it reads for the others. Every call ends as it
// should and every slot comes back.
func TestReadRoleMixedLoad(t *testing.T) {
	b := newBridge(t, localbridge.Config{CancelGrace: 5 * time.Second})
	b.runAgent(t, "echo", echo.New())
	const workers, rounds = 24, 40
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			errs <- func() error {
				for i := range rounds {
					switch (w + i) % 4 {
					case 0: // answered at once; the caller may read for the others
						text := fmt.Sprintf(`{"text":"%d-%d"}`, w, i)
						res, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(text)}, nil)
						if err != nil || string(res.Output) != text {
							return fmt.Errorf("echo: %s, %v", res.Output, err)
						}
					case 1: // streamed to a consumer that takes its time
						n := 0
						res, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"s","repeat":20}`)},
							func(localbridge.Chunk) error {
								n++
								if n%5 == 0 {
									time.Sleep(time.Millisecond)
								}
								return nil
							})
						if err != nil || n != 20 || res.Chunks != 20 {
							return fmt.Errorf("stream: %d chunks, %v", n, err)
						}
					case 2: // cancelled while its caller waits (and perhaps reads for the others)
						ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%3)*time.Millisecond)
						_, err := b.core.Call(ctx, localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)}, nil)
						cancel()
						if s := localbridge.OutcomeOf(err).Status; s != localbridge.OutcomeTimeout && s != localbridge.OutcomeCancelled {
							return fmt.Errorf("sleep: %v", err)
						}
					case 3: // a short sleep that finishes
						if _, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":1}`)}, nil); err != nil {
							return fmt.Errorf("short sleep: %v", err)
						}
					}
				}
				return nil
			}()
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "slots released", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 0 })
}
