package osp

import (
	"encoding/json"
	"testing"
	"time"
)

// BenchmarkMarshal encodes the two messages of every agent call: the call
// the gateway sends and the result it gets back, with ids, a timestamp and
// a few hundred bytes of text as an agent's answer has.
func BenchmarkMarshal(b *testing.B) {
	ts := Timestamp(time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC))
	call := &Header{V: 1, Type: TypeToolCall, ID: "9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d", TS: ts,
		CorrelationID: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	callP := ToolCall{CallID: "c-1f2e3d4c5b6a", ToolID: "echo", Input: json.RawMessage(`{"text":"the quarterly figures, as agreed"}`),
		TimeoutMS: 30000, Caller: &Caller{Type: "peer", ID: "client@acme"}}
	res := &Header{V: 1, Type: TypeToolResult, ID: "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", TS: ts, InReplyTo: call.ID}
	out, _ := json.Marshal(map[string]string{"text": "Revenue rose 4% over the quarter, on higher volumes in the north and steady prices; " +
		"costs fell as the new line came up to speed. The board meets on the 3rd to approve the accounts, and the figures " +
		"go out the day after, with the notes <as drafted> & checked."})
	resP := ToolResult{CallID: callP.CallID, Status: StatusSucceeded, Output: out, StartedAt: ts, FinishedAt: ts}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var err error
		if buf, err = AppendMarshal(buf[:0], call, callP); err != nil {
			b.Fatal(err)
		}
		if buf, err = AppendMarshal(buf[:0], res, resP); err != nil {
			b.Fatal(err)
		}
	}
}
