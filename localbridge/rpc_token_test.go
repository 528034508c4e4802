package localbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// TestTokenNotificationMatchesEncodingJSON: the hand-written encoding of
// stream.token says what json.Marshal of the same notification says.
func TestTokenNotificationMatchesEncodingJSON(t *testing.T) {
	for i, text := range []string{"", "hello", "quote \" backslash \\ tab \t nl \n", "é 😀 \u2028 <&>", "\x01\x1f\x7f"} {
		got := tokenNotification("q-1", text, i, "stdout")
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%q: not JSON: %v\n%s", text, err, got)
		}
		want := notification(NotifyToken, map[string]any{"query_id": "q-1", "token": text, "index": i,
			"metadata": map[string]string{"type": "text", "channel": "stdout"}})
		json.Unmarshal(want, &b)
		ga, _ := json.Marshal(a)
		gb, _ := json.Marshal(b)
		if string(ga) != string(gb) {
			t.Fatalf("%q:\n%s\n%s", text, got, want)
		}
		if reqs, errs, _ := jsonrpc.Parse(got); len(reqs) != 1 || len(errs) != 0 || reqs[0].Method != NotifyToken {
			t.Fatalf("%q: the face's own reader refuses it", text)
		}
		if !utf8.Valid(got) {
			t.Fatal("not UTF-8")
		}
	}
}

// TestCompleteNotificationMatchesEncodingJSON: the same for a successful
// query's stream.complete, on results of every JSON shape.
func TestCompleteNotificationMatchesEncodingJSON(t *testing.T) {
	meta := queryMeta{DurationMS: 12, Tokens: 3, Blocks: 1}
	for _, res := range []string{`{}`, `{"text":"hi \u003c there","n":[1,2.5,null,true]}`, `"a string"`, `null`, `[{"a":{"b":[]}}]`} {
		got := completeNotification("q-\"7\"", json.RawMessage(res), meta)
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", res, err, got)
		}
		want := notification(NotifyComplete, map[string]any{"query_id": "q-\"7\"", "status": OutcomeSuccess,
			"result": json.RawMessage(res), "metadata": meta})
		json.Unmarshal(want, &b)
		ga, _ := json.Marshal(a)
		gb, _ := json.Marshal(b)
		if string(ga) != string(gb) {
			t.Fatalf("%s:\n%s\n%s", res, got, want)
		}
		if got[len(got)-1] != '\n' || bytes.Count(got, []byte("\n")) != 1 {
			t.Fatalf("%s: not one line: %q", res, got)
		}
		if reqs, errs, _ := jsonrpc.Parse(got); len(reqs) != 1 || len(errs) != 0 || reqs[0].Method != NotifyComplete {
			t.Fatalf("%s: the face's own reader refuses it", res)
		}
	}
}

// TestBlockNotificationMatchesEncodingJSON: the same for stream.block.
func TestBlockNotificationMatchesEncodingJSON(t *testing.T) {
	for i, content := range []string{`{"sent_us":17,"text":"x"}`, `[1,"\u003c"]`, `"s"`, `3.5`} {
		got := blockNotification("q-9", i+1, json.RawMessage(content), "stderr")
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", content, err, got)
		}
		want := notification(NotifyBlock, map[string]any{
			"query_id": "q-9",
			"block_id": fmt.Sprintf("q-9-b%d", i+1),
			"block":    map[string]any{"type": "tool_output", "format": "json", "content": json.RawMessage(content), "metadata": map[string]string{"channel": "stderr"}},
		})
		json.Unmarshal(want, &b)
		ga, _ := json.Marshal(a)
		gb, _ := json.Marshal(b)
		if string(ga) != string(gb) {
			t.Fatalf("%s:\n%s\n%s", content, got, want)
		}
		if reqs, errs, _ := jsonrpc.Parse(got); len(reqs) != 1 || len(errs) != 0 || reqs[0].Method != NotifyBlock {
			t.Fatalf("%s: the face's own reader refuses it", content)
		}
	}
}
