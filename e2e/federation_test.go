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
			if stdout != "ababab\n"+`{"status":"success","data":{"text":"ab"}}`+"\n" {
				t.Fatalf("moltgate call printed %s", stdout)
			}

			// No call made a handshake of its own: each side accepted at
			// most one session. Which side's serves the calls depends on
			// who dialled first: acme for its first call, or globex for
			// the catch-up sync of acme's registry, whose session acme's
			// calls then take (on a loaded machine globex's can come
			// first, and acme then accepts one and globex none).
			nGlobex, nAcme := accepted(globex.log.String()), accepted(acme.log.String())
			if nGlobex > 1 || nAcme > 1 || nGlobex+nAcme == 0 {
				t.Fatalf("globex accepted %d sessions and acme %d; want at most one each, and one in all at least", nGlobex, nAcme)
			}
		})
	}
}

// accepted counts the sessions a gateway's log says it accepted: those
// it dialled itself are logged with face "client".
func accepted(log string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `"msg":"session established"`) && !strings.Contains(line, `"face":"client"`) {
			n++
		}
	}
	return n
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

// TestLateReplyDelivered: over the HTTP transport, a reply not ready within
// the peer's reply_wait is answered 202, and the peer gateway delivers it
// later, as a message of its own, to the caller's gateway, which hands it to
// the waiting call. The call here waits for a human's approval at globex.
func TestLateReplyDelivered(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "http", func(_, g *org) {
		g.set(`reply_wait = "10s"`, `reply_wait = "200ms"`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// acme's directory sync asks globex's registry at start, and on a busy
	// machine globex's answer too may come late, as a reply of its own:
	// what is counted below is what came after it.
	waitFor(t, 30*time.Second, "acme's directory sync with globex", func() bool {
		return strings.Contains(acme.log.String(), `"msg":"registry synced","peer":"globex"`)
	})
	lateReplies := func() float64 {
		_, m := acme.get(acme.https(), "/metrics")
		v, _ := metric(m, "moltgate_messages_total", "op=respond", "face=http", "outcome=ok")
		return v
	}
	before := lateReplies()
	type result struct {
		out json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, _, err := call(ctx, acme.client(), "client", "echo@globex", "count", `{"by":7}`)
		done <- result{out, err}
	}()
	approver := globex.client()
	var id string
	for id == "" {
		pending, err := approver.Approvals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) > 0 {
			id = pending[0].ExecutionID
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Past the reply wait, globex has answered 202; now the reply comes.
	time.Sleep(500 * time.Millisecond)
	if err := approver.Approve(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || !strings.Contains(string(r.out), `"count":7`) {
		t.Fatalf("late reply: %s %v", r.out, r.err)
	}
	// It reached acme as a message on acme's own HTTP face.
	if v := lateReplies() - before; v != 1 {
		t.Fatalf("acme received %v late replies on its HTTP face during the call, want 1", v)
	}
}
