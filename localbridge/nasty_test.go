package localbridge_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// TestNastyFrames feeds a corpus of bad input to the Core's frame reader, each over a fresh
// agent connection, while another agent is called after every case: the Core answers or
// disconnects the offender and keeps serving everyone else.
func TestNastyFrames(t *testing.T) {
	const limit = 64 << 10
	b := newBridge(t, localbridge.Config{MaxFrameBytes: limit})
	b.runAgent(t, "good", echo.New())
	healthy := func(t *testing.T) {
		t.Helper()
		res, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "good", Tool: "echo", Input: json.RawMessage(`{"text":"still here"}`)}, nil)
		if err != nil || !strings.Contains(string(res.Output), "still here") {
			t.Fatalf("the good agent is no longer served: %v", err)
		}
	}
	// pendingCall starts a call to the bad agent and returns its id.
	pendingCall := func(t *testing.T, r *rawAgent) (string, <-chan callOutcome) {
		done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "bad", Tool: "t"})
		var p osp.ToolCall
		r.expect(osp.TypeToolCall).DecodePayload(&p)
		return p.CallID, done
	}
	hdr := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

	errorCases := []struct {
		name  string
		frame string
		code  string
	}{
		{"invalid utf-8", "{\"v\":1,\"type\":\"agent.heartbeat\",\"id\":\"\xc3\x28\",\"payload\":{}}", osp.CodeInvalidFrame},
		{"deep nesting", `{"v":1,"type":"x","id":"1","payload":{"a":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}`, osp.CodeInvalidFrame},
		{"nesting past the decoder's limit", strings.Repeat("[", 20000), osp.CodeInvalidFrame},
		{"not json", "\x00\x01\x02binary", osp.CodeInvalidFrame},
		{"truncated json", `{"v":1,"type":"agent.heartbeat","id":"1","payload":{"session_id":`, osp.CodeInvalidFrame},
		{"json array", `[{"v":1}]`, osp.CodeInvalidFrame},
		{"json null", `null`, osp.CodeInvalidFrame},
		{"missing type", `{"v":1,"id":"1","payload":{}}`, osp.CodeInvalidMessage},
		{"missing id", `{"v":1,"type":"agent.heartbeat","payload":{}}`, osp.CodeInvalidMessage},
		{"version 2", `{"v":2,"type":"agent.heartbeat","id":"1","payload":{}}`, osp.CodeUnsupportedVersion},
		{"payload not an object", `{"v":1,"type":"agent.heartbeat","id":"1","payload":[1,2]}`, osp.CodeInvalidMessage},
		{"payload of wrong types", `{"v":1,"type":"agent.tool.result","id":"1","payload":{"call_id":7,"status":true}}`, osp.CodeInvalidMessage},
		{"huge number", `{"v":1e400,"type":"agent.heartbeat","id":"1","payload":{}}`, osp.CodeInvalidMessage},
		{"unknown type", `{"v":1,"type":"agent.dance","id":"u1","payload":{}}`, osp.CodeUnknownType},
		{"core type from an agent", `{"v":1,"type":"core.tool.call","id":"u2","payload":{}}`, osp.CodeUnknownType},
		{"hello again", `{"v":1,"type":"agent.hello","id":"h","payload":{"session_token":"x"}}`, osp.CodeUnexpectedMessage},
		{"result for an unknown call", `{"v":1,"type":"agent.tool.result","id":"1","payload":{"call_id":"nope","status":"succeeded"}}`, osp.CodeUnknownCall},
		{"stream for an unknown call", `{"v":1,"type":"agent.tool.stream","id":"1","payload":{"call_id":"nope","seq":1,"channel":"stdout","data":{"text":"x"}}}`, osp.CodeUnknownCall},
		{"unknown channel", `{"v":1,"type":"agent.tool.stream","id":"1","payload":{"call_id":"nope","seq":1,"channel":"video","data":{}}}`, osp.CodeInvalidMessage},
		{"empty frame", "", osp.CodeInvalidFrame},
	}
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := b.connectRaw(t, "bad")
			if c.frame == "" {
				r.conn.Write(hdr(0))
			} else {
				r.sendRaw([]byte(c.frame))
			}
			e := r.expect(osp.TypeError)
			if e.Error == nil || e.Error.Code != c.code {
				t.Fatalf("got %+v, want %s", e.Error, c.code)
			}
			if strings.Contains(e.Error.Message, "\xc3") || strings.Contains(e.Error.Message, "dance") {
				t.Fatalf("error echoes the frame: %q", e.Error.Message)
			}
			// The connection survives a bad message whose framing was intact.
			healthy(t)
			r.send(osp.TypeToolsUnregister, osp.ToolsUnregister{})
			r.expect(osp.TypeToolsUnregistered)
		})
	}

	t.Run("unknown payload fields are ignored", func(t *testing.T) {
		r, w := b.connectRaw(t, "bad")
		r.sendRaw([]byte(`{"v":1,"type":"agent.heartbeat","id":"1","ts":"now","future":{"x":1},"payload":{"session_id":"` + w.SessionID + `","status":"ok","uptime_ms":5,"gpu":{"temp":70}}}`))
		waitFor(t, "heartbeat taken", func() bool { a, _ := b.core.Agent("bad"); return a.Uptime == 5*time.Millisecond })
	})

	closeCases := []struct {
		name  string
		send  func(r *rawAgent)
		audit bool
	}{
		{"oversize frame", func(r *rawAgent) {
			r.conn.Write(append(hdr(limit+1), []byte(`{"v":1,"type":"agent.heartbeat","secret-marker":"`)...))
		}, true},
		{"oversize length, no body", func(r *rawAgent) { r.conn.Write(hdr(0xFFFFFFFF)) }, true},
		{"truncated frame", func(r *rawAgent) {
			r.conn.Write(append(hdr(100), []byte(`{"v":1,"type"`)...))
			r.conn.(*net.UnixConn).CloseWrite()
		}, false},
		{"truncated header", func(r *rawAgent) {
			r.conn.Write([]byte{0, 0})
			r.conn.(*net.UnixConn).CloseWrite()
		}, false},
	}
	for _, c := range closeCases {
		t.Run(c.name, func(t *testing.T) {
			before := len(b.audit.find(localbridge.AuditFrameTooLarge))
			r, _ := b.connectRaw(t, "bad")
			_, done := pendingCall(t, r)
			c.send(r)
			got := r.expectClosed()
			if c.audit {
				if len(got) == 0 || got[len(got)-1].Type != osp.TypeGoodbye {
					t.Fatalf("no goodbye before the close: %+v", got)
				}
				ev := b.audit.find(localbridge.AuditFrameTooLarge)
				if len(ev) != before+1 || ev[len(ev)-1].Agent != "bad" || ev[len(ev)-1].Size <= limit {
					t.Fatalf("audit %+v", ev)
				}
				if strings.Contains(b.logs.String(), "secret-marker") {
					t.Fatal("the oversize frame's content reached the log")
				}
			}
			// The call in flight fails cleanly.
			if o := <-done; codeOf(o.err) != localbridge.CodeDisconnected || localbridge.MoltSpeakCode(o.err) != "E_TASK_FAILED" {
				t.Fatalf("in-flight call: %v", o.err)
			}
			waitFor(t, "bad agent offline", func() bool { a, _ := b.core.Agent("bad"); return !a.Connected })
			healthy(t)
		})
	}

	t.Run("two results for one call", func(t *testing.T) {
		r, _ := b.connectRaw(t, "bad")
		id, done := pendingCall(t, r)
		r.send(osp.TypeToolResult, osp.ToolResult{CallID: id, Status: "succeeded", Output: json.RawMessage(`{"first":true}`)})
		r.send(osp.TypeToolResult, osp.ToolResult{CallID: id, Status: "succeeded", Output: json.RawMessage(`{"second":true}`)})
		if o := <-done; o.err != nil || string(o.res.Output) != `{"first":true}` {
			t.Fatalf("%s %v", o.res.Output, o.err)
		}
		if e := r.expect(osp.TypeError); e.Error.Code != osp.CodeDuplicateResult {
			t.Fatalf("got %v", e.Error)
		}
		r.send(osp.TypeToolStream, osp.ToolStream{CallID: id, Seq: 1, Channel: "stdout"})
		if e := r.expect(osp.TypeError); e.Error.Code != osp.CodeUnexpectedMessage {
			t.Fatalf("stream after result: %v", e.Error)
		}
		healthy(t)
	})

	seqCases := []struct {
		name string
		seqs []int64
		done []bool
	}{
		{"first seq not 1", []int64{2}, nil},
		{"seq repeated", []int64{1, 2, 2}, nil},
		{"seq going back", []int64{1, 3, 2}, nil},
		{"seq zero", []int64{0}, nil},
		{"chunk after done", []int64{1, 2}, []bool{true, false}},
	}
	for _, c := range seqCases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := b.connectRaw(t, "bad")
			id, done := pendingCall(t, r)
			for i, s := range c.seqs {
				d := len(c.done) > i && c.done[i]
				r.send(osp.TypeToolStream, osp.ToolStream{CallID: id, Seq: s, Channel: "stdout", Data: osp.StreamData{Text: "x"}, Done: d})
			}
			if e := r.expect(osp.TypeError); e.Error.Code != osp.CodeInvalidSeq {
				t.Fatalf("got %v", e.Error)
			}
			o := <-done
			if codeOf(o.err) != osp.CodeInvalidSeq || localbridge.MoltSpeakCode(o.err) != "E_TASK_FAILED" {
				t.Fatalf("call: %v", o.err)
			}
			// The Core asks the agent to stop; the agent's late result frees the slot quietly.
			var cancel osp.ToolCancel
			r.expect(osp.TypeToolCancel).DecodePayload(&cancel)
			if cancel.CallID != id {
				t.Fatalf("cancel for %q", cancel.CallID)
			}
			r.send(osp.TypeToolResult, osp.ToolResult{CallID: id, Status: "succeeded"})
			waitFor(t, "slot free", func() bool { a, _ := b.core.Agent("bad"); return a.InFlight == 0 })
			healthy(t)
		})
	}

	t.Run("too many protocol errors", func(t *testing.T) {
		r, _ := b.connectRaw(t, "bad")
		for range 20 {
			r.sendLoose("agent.dance", nil)
		}
		got := r.expectClosed()
		last := got[len(got)-1]
		var bye osp.Goodbye
		last.DecodePayload(&bye)
		if last.Type != osp.TypeGoodbye || bye.Reason != osp.CodeTooManyErrors {
			t.Fatalf("last message %s %+v", last.Type, bye)
		}
		healthy(t)
	})
}

// TestPartialWrites sends every frame in pieces, one byte at a time, and several frames in one
// write.
func TestPartialWrites(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.core.AddAgent(localbridge.AgentSpec{ID: "slow"})
	tok, _ := b.core.ProvisionToken("slow", 0)
	r := dialRaw(t, b.path)
	dribble := func(typ string, payload any) {
		h := osp.Header{V: 1, Type: typ, ID: "d", TS: "t"}
		m, _ := osp.Marshal(&h, payload)
		for _, c := range osp.AppendFrame(nil, m) {
			if _, err := r.conn.Write([]byte{c}); err != nil {
				t.Fatal(err)
			}
		}
	}
	dribble(osp.TypeHello, hello(tok.Reveal(), "slow"))
	if e := r.expect(osp.TypeWelcome); e.Error != nil {
		t.Fatal(e.Error)
	}
	dribble(osp.TypeToolsRegister, osp.ToolsRegister{Tools: []osp.Tool{{ToolID: "slow/t", Name: "t", InputSchema: json.RawMessage(`{}`)}}})
	r.expect(osp.TypeToolsRegistered)
	done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "slow", Tool: "t"})
	var p osp.ToolCall
	r.expect(osp.TypeToolCall).DecodePayload(&p)

	// Two chunks and the result in one write.
	var burst []byte
	for i, m := range []any{
		osp.ToolStream{CallID: p.CallID, Seq: 1, Channel: "stdout", Data: osp.StreamData{Text: "one"}},
		osp.ToolStream{CallID: p.CallID, Seq: 2, Channel: "stdout", Data: osp.StreamData{Text: "two"}},
	} {
		h := osp.Header{V: 1, Type: osp.TypeToolStream, ID: string(rune('a' + i)), TS: "t"}
		b, _ := osp.Marshal(&h, m)
		burst = osp.AppendFrame(burst, b)
	}
	r.conn.Write(burst)
	dribble(osp.TypeToolResult, osp.ToolResult{CallID: p.CallID, Status: "succeeded", Output: json.RawMessage(`{"done":1}`)})
	o := <-done
	if o.err != nil || len(o.chunks) != 2 || o.chunks[1].Text != "two" || string(o.res.Output) != `{"done":1}` {
		t.Fatalf("%+v %v", o, o.err)
	}
}
