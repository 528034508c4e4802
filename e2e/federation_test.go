package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// TestCrossOrgStreaming: two gateway processes of two organisations, a tool
// call from acme's agent to globex's, over each transport the configuration
// offers ([peers] transport). The reply streams: every chunk arrives, in
// order, before the result; a second call reuses the session; and the same
// call through `moltgate call` prints the assembled stream.
func TestCrossOrgStreaming(t *testing.T) {
	needProcesses(t)
	for _, tr := range []string{"websocket", "grpc", "http"} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := pair(t, tr, nil)
			c := acme.client()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			var chunks []string
			out, err := c.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
				Input: json.RawMessage(`{"text":"chunk ","repeat":50,"meta":true}`), Class: "conf"},
				func(ev localbridge.StreamEvent) error { chunks = append(chunks, ev.Text); return nil })
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			var res struct {
				Text   string
				Caller struct{ ID string }
			}
			if err := json.Unmarshal(out, &res); err != nil || res.Text != "chunk " || res.Caller.ID != "client@acme" {
				t.Fatalf("result %s (%v)", out, err)
			}
			if len(chunks) != 50 || strings.Join(chunks, "") != strings.Repeat("chunk ", 50) {
				t.Fatalf("got %d chunks: %q", len(chunks), chunks)
			}

			// The command line, as a user would run it.
			stdout := mg(t, "call", "--dir", acme.dir, "--from", "client", "--to", "echo@globex", "--tool", "echo",
				"--input", `{"text":"ab","repeat":3}`)
			if strings.TrimSpace(stdout) != `{"status":"success","data":{"text":"ab"},"stream":{"stdout":"ababab"}}` {
				t.Fatalf("moltgate call printed %s", stdout)
			}

			// One session served all of it: globex established one.
			if n := strings.Count(globex.log.String(), `"msg":"session established"`); n != 1 {
				t.Fatalf("globex established %d sessions, want 1", n)
			}
		})
	}
}

// TestUntrustedOrgRefused: an organisation that imported globex's peer
// document, but that globex never imported, cannot get a call through;
// globex keeps serving the organisation it trusts.
func TestUntrustedOrgRefused(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	initech := newOrg(t, "initech", "intruder")
	trust(t, initech, globex, "pii")
	initech.start()
	_, stderr, err := mgRun(nil, "call", "--dir", initech.dir, "--to", "echo@globex", "--tool", "echo", "--input", `{"text":"let me in"}`)
	if err == nil || !strings.HasPrefix(stderr, "moltgate call: E_AUTH_FAILED") {
		t.Fatalf("untrusted call: %v %q", err, stderr)
	}
	if strings.Contains(globex.log.String(), "let me in") {
		t.Fatal("globex logged the refused content")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, _, err := call(ctx, acme.client(), "client", "echo@globex", "echo", `{"text":"still here"}`); err != nil {
		t.Fatalf("trusted call after the refusal: %v", err)
	}
}
