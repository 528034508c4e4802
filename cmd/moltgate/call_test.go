package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// A gateway that ends the connection while a call waits (it crashed, or
// was killed) is unavailable, not an internal error of the command line.
// What streamed before stays printed, its line ended.
func TestCallGatewayGone(t *testing.T) {
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		if r.Method == localbridge.MethodQuery {
			c.answer(r, `{"query_id":"q-1","status":"processing"}`)
			c.notify(localbridge.NotifyToken, `{"query_id":"q-1","token":"par","index":0}`)
			c.nc.Close()
		}
	})
	code, stdout, stderr := runCLI(t, context.Background(), "", "call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", `{"text":"hi"}`)
	if want := "moltgate call: E_PEER_UNAVAILABLE: the gateway ended the connection during the call\n"; code != 1 || stdout != "par\n" || stderr != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
	}
}

// --input is held to what the gateway takes before anything is sent, as
// text, from a file (@FILE) or from standard input (-): a mistake is one
// line and exit status 2. Such an input once went to the gateway, which
// refused it under an id the command was not waiting for, and the command
// hung.
func TestCallInputChecked(t *testing.T) {
	sent := make(chan string, 10)
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		sent <- r.Method
		c.fail(r, jsonrpc.Errorf(jsonrpc.CodeInternalError, "not expected"))
	})
	deep := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	cases := []struct{ name, input, want string }{
		{"invalid utf-8", "{\"text\":\"\xff\"}", "text: invalid UTF-8 in string at byte 9"},
		{"too deep", deep(63), "nesting deeper than 62 at byte 310"},
		{"duplicate key", `{"text":"a","text":"b"}`, "text: duplicate key at byte 18"},
		{"lone surrogate", `{"text":"\ud800"}`, "text: lone surrogate in string at byte 15"},
		{"trailing data", `{"text":"a"} {}`, "unexpected data after the JSON value at byte 13"},
		{"not json", `not json`, "invalid literal at byte 0"},
	}
	file := filepath.Join(t.TempDir(), "input.json")
	for _, c := range cases {
		if err := os.WriteFile(file, []byte(c.input), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, how := range []struct{ arg, stdin string }{{c.input, ""}, {"@" + file, ""}, {"-", c.input}} {
			code, stdout, stderr := runCLI(t, context.Background(), how.stdin, "call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", how.arg)
			want := "moltgate call: E_INVALID_PARAM: --input must be a JSON object: " + c.want + "\n"
			if code != 2 || stdout != "" || stderr != want {
				t.Errorf("%s (--input %.10q): exit %d, stdout %q, stderr %q; want exit 2 and %q", c.name, how.arg, code, stdout, stderr, want)
			}
		}
	}
	code, _, stderr := runCLI(t, context.Background(), "", "call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", `[1]`)
	if code != 2 || stderr != "moltgate call: E_INVALID_PARAM: --input must be a JSON object\n" {
		t.Errorf("an array: exit %d, stderr %q", code, stderr)
	}
	select {
	case m := <-sent:
		t.Fatalf("%s was sent to the gateway", m)
	default:
	}
}

// A big input, beyond what one command-line argument holds, goes from a
// file or standard input, unchanged.
func TestCallInputFromFile(t *testing.T) {
	inputs := make(chan string, 2)
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		var q localbridge.QueryRequest
		if err := json.Unmarshal(r.Params, &q); err != nil {
			t.Error(err)
		}
		inputs <- string(q.Input)
		c.answer(r, `{"query_id":"q-1","status":"processing"}`)
		c.notify(localbridge.NotifyComplete, `{"query_id":"q-1","status":"success","result":{"ok":true}}`)
	})
	big := `{"text":"` + strings.Repeat("x", 200<<10) + `"}`
	file := filepath.Join(t.TempDir(), "input.json")
	if err := os.WriteFile(file, []byte(big+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, how := range []struct{ arg, stdin string }{{"@" + file, ""}, {"-", big + "\n"}} {
		code, stdout, stderr := runCLI(t, context.Background(), how.stdin, "call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", how.arg)
		if code != 0 || stdout != `{"status":"success","data":{"ok":true}}`+"\n" || stderr != "" {
			t.Fatalf("--input %s: exit %d, stdout %q, stderr %q", how.arg[:1], code, stdout, stderr)
		}
		if got := <-inputs; got != big {
			t.Fatalf("--input %s: the gateway got %d bytes, want %d", how.arg[:1], len(got), len(big))
		}
	}
}

// The command waits for a call no longer than the gateway's deadline and a
// margin, with or without --timeout: an answer that never comes does not
// hold it forever.
func TestCallWaitBounded(t *testing.T) {
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		switch r.Method {
		case localbridge.MethodQuery:
			c.answer(r, `{"query_id":"q-1","status":"processing"}`) // and nothing more
		case localbridge.MethodCancel:
			c.answer(r, `{"cancelled":true}`)
		}
	})
	cfg, err := os.ReadFile(d.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	short := strings.Replace(string(cfg), `request_timeout = "30s"`, `request_timeout = "1s"`, 1)
	if short == string(cfg) {
		t.Fatal("no request_timeout in the configuration")
	}
	if err := os.WriteFile(d.ConfigPath(), []byte(short), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--timeout", "500ms"}} {
		began := time.Now()
		args := append([]string{"call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", `{}`}, extra...)
		code, _, stderr := runCLI(t, context.Background(), "", args...)
		if took := time.Since(began); code != 1 || stderr != "moltgate call: E_TIMEOUT: no answer before the deadline\n" || took > 10*time.Second {
			t.Fatalf("%v: exit %d, stderr %q after %v", extra, code, stderr, took)
		}
	}
}

// A refusal the gateway could not address to the call (under a null id)
// still ends it.
func TestCallNullIDRefusal(t *testing.T) {
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		c.send(jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: json.RawMessage("null"), Error: jsonrpc.Errorf(jsonrpc.CodeParseError, "the message is not valid UTF-8")})
	})
	code, _, stderr := runCLI(t, context.Background(), "", "call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", `{}`)
	if code != 1 || stderr != "moltgate call: E_PARSE: the message is not valid UTF-8\n" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// A call interrupted by SIGINT or SIGTERM says it was cancelled, is
// cancelled at the gateway, and exits as the shell reports the signal.
func TestCallInterrupted(t *testing.T) {
	queried := make(chan struct{}, 1)
	cancelled := make(chan string, 1)
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		switch r.Method {
		case localbridge.MethodQuery:
			c.answer(r, `{"query_id":"q-1","status":"processing"}`)
			queried <- struct{}{}
		case localbridge.MethodCancel:
			cancelled <- string(r.Params)
			c.answer(r, `{"cancelled":true,"query_id":"q-1"}`)
		}
	})
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		says string
	}{{syscall.SIGINT, 130, "interrupted (SIGINT)"}, {syscall.SIGTERM, 143, "terminated (SIGTERM)"}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			<-queried
			// Time for the client to take the query's id, so that it
			// cancels the query by name (without it, closing the
			// connection cancels it at the gateway).
			time.Sleep(200 * time.Millisecond)
			cancel(&interruptedError{sig: c.sig})
		}()
		code, stdout, stderr := runCLI(t, ctx, "", "call", "--dir", string(d), "--to", "echo@globex", "--tool", "sleep", "--input", `{"ms":60000}`)
		want := "moltgate call: E_TASK_FAILED: the call was cancelled, " + c.says + "; the gateway was told to stop it\n"
		if code != c.code || stdout != "" || stderr != want {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.sig, code, stdout, stderr, c.code, want)
		}
		select {
		case p := <-cancelled:
			if p != `{"query_id":"q-1"}` {
				t.Fatalf("agent.cancel %s", p)
			}
		default:
			t.Fatal("the call was not cancelled at the gateway")
		}
	}
}

// What call needs on its command line is checked before anything is sent,
// and each mistake says which flag fixes it: one line, exit status 2.
func TestCallArguments(t *testing.T) {
	froms := make(chan string, 10)
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		var q localbridge.QueryRequest
		json.Unmarshal(r.Params, &q)
		froms <- q.From
		c.answer(r, `{"query_id":"q-1","status":"processing"}`)
		c.notify(localbridge.NotifyComplete, `{"query_id":"q-1","status":"success","result":{}}`)
	})
	call := func(args ...string) (int, string) {
		t.Helper()
		code, _, stderr := runCLI(t, context.Background(), "", append([]string{"call", "--dir", string(d), "--to", "echo@globex"}, args...)...)
		return code, stderr
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--tool is required (or --message TEXT, for a query to the agent's query tool)"},
		{[]string{"--input", `{"text":"x"}`}, "--tool is required (or --message TEXT, for a query to the agent's query tool)"},
		{[]string{"--tool", "", "--input", `{}`}, "--tool must name a tool"},
		{[]string{"--tool", "echo", "--message", "hi"}, "--message is the text of a query and does not go with --tool; give the tool's input with --input"},
		{[]string{"--tool", "echo", "--cls", "bogus"}, "--cls must be pub, int, conf, pii or sec"},
		{[]string{"--tool", "echo", "--cls", "pii"}, "--cls pii needs --consent TOKEN, a consent for the personal data (make one with moltgate consent issue)"},
		{[]string{"--tool", "echo", "--from", "client@globex"}, "--from names a local agent of acme; client@globex is not one"},
	} {
		code, stderr := call(c.args...)
		if want := "moltgate call: E_INVALID_PARAM: " + c.want + "\n"; code != 2 || stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, want)
		}
	}
	select {
	case <-froms:
		t.Fatal("a call with a mistake was sent")
	default:
	}

	// This organisation's own agent may be named with its organisation.
	if code, stderr := call("--tool", "echo", "--from", "client@acme"); code != 0 || <-froms != "client" {
		t.Fatalf("--from client@acme: exit %d, stderr %q", code, stderr)
	}
	// A query needs no tool.
	if code, stderr := call("--message", "hi"); code != 0 || <-froms != "" {
		t.Fatalf("--message: exit %d, stderr %q", code, stderr)
	}
	// With several local agents, --from must say which, and is told the choice.
	for _, id := range []string{"client", "helper"} {
		if _, err := gateway.AddAgent(d, gateway.AddAgentOptions{ID: id, Exec: "echoagent"}); err != nil {
			t.Fatal(err)
		}
	}
	if code, stderr := call("--tool", "echo"); code != 2 || stderr != "moltgate call: E_INVALID_PARAM: name the agent to call as with --from: this gateway has client, helper\n" {
		t.Fatalf("several agents, no --from: exit %d, stderr %q", code, stderr)
	}
}

// Personal data refused for want of a consent points to --consent and to
// the command that makes one.
func TestCallConsentHint(t *testing.T) {
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		c.fail(r, &jsonrpc.Error{Code: jsonrpc.CodePermissionDenied, Message: "personal data needs cls pii with a consent in pii_meta",
			Data: json.RawMessage(`{"moltspeak_code":"E_CONSENT","field":"cls","suggestion":{"action":"request_consent","data_types":["email"]}}`)})
	})
	code, _, stderr := runCLI(t, context.Background(), "", "call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", `{"text":"jane@example.com"}`)
	want := "moltgate call: E_CONSENT: cls: personal data needs cls pii with a consent in pii_meta (suggestion: request_consent for email); give --consent TOKEN (make one with moltgate consent issue --types email)\n"
	if code != 1 || stderr != want {
		t.Fatalf("exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// ping prints the pong and exits 0 for an agent that takes calls, a
// degraded one included, and 1 for one that does not.
func TestPingStatus(t *testing.T) {
	status := make(chan string, 1)
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		c.answer(r, `{"status":"`+<-status+`","load":0.5}`)
	})
	for _, c := range []struct {
		status string
		code   int
	}{{"alive", 0}, {"healthy", 0}, {"degraded", 0}, {"busy", 1}, {"unhealthy", 1}, {"offline", 1}} {
		status <- c.status
		code, stdout, stderr := runCLI(t, context.Background(), "", "ping", "--dir", string(d), "echo@globex")
		if code != c.code || stdout != `{"status":"`+c.status+`","load":0.5}`+"\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d", c.status, code, stdout, stderr, c.code)
		}
		if want := "moltgate ping: E_PEER_UNAVAILABLE: agent echo@globex is " + c.status + "\n"; c.code != 0 && stderr != want {
			t.Errorf("%s: stderr %q, want %q", c.status, stderr, want)
		}
	}
}
