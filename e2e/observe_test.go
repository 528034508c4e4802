package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/localbridge"
)

// observed turns on, in o's configuration, spans to a file, every
// decision in the ledger and receipts.
func observed(o *org) string {
	o.set(`exporter = "none"`, `exporter = "file"`)
	o.set(`# path = "data/spans.jsonl"`, `path = "data/spans.jsonl"`)
	o.set(`decisions = "blocked"`, `decisions = "all"`)
	o.set(`receipts = false`, `receipts = true`)
	return filepath.Join(o.dir, "data", "spans.jsonl")
}

// TestObservedAcrossProcesses: two gateway processes and an agent share
// one trace for a call that a local caller began with its own trace
// context; no span holds the call's text; both ledgers verify and hold the
// same doubly signed receipt, which moltgate receipt verify accepts with
// the two peer documents and refuses with a signature altered; every line
// of both logs is one JSON object.
func TestObservedAcrossProcesses(t *testing.T) {
	needProcesses(t)
	var acmeSpans, globexSpans string
	acme, globex := pair(t, "websocket", func(acme, globex *org) {
		acmeSpans, globexSpans = observed(acme), observed(globex)
	})
	c := acme.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	const text = "minutes of the board meeting"
	if _, err := c.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Class: "conf",
		Input: json.RawMessage(`{"text":"` + text + `"}`), TraceParent: "00-" + traceID + "-00f067aa0ba902b7-01"}, nil); err != nil {
		t.Fatalf("call: %v", err)
	}
	// The countersigned receipt goes back in the background: wait for it
	// in globex's ledger before stopping the gateways.
	// With every decision recorded, each side keeps the exchange whole:
	// its decisions and its receipt in one event (exchanges holds its
	// lines).
	exchanges := map[*org][]string{}
	receipts := func(o *org) []string {
		var out []string
		exchanges[o] = nil
		for _, line := range strings.Split(strings.TrimSpace(mg(t, "audit", "show", "--dir", o.dir, "--json")), "\n") {
			var ev audit.Event
			if json.Unmarshal([]byte(line), &ev) != nil {
				continue
			}
			if rc, err := audit.ReceiptOf(&ev); err == nil && rc != nil {
				out = append(out, string(rc))
			}
			if ev.Type == audit.TypeExchange {
				exchanges[o] = append(exchanges[o], line)
			}
		}
		return out
	}
	for deadline := time.Now().Add(15 * time.Second); len(receipts(globex)) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("globex keeps no receipt\n%s", globex.log.String())
		}
	}
	for _, o := range []*org{acme, globex} {
		o.signal(syscall.SIGTERM)
		if err := o.wait(30 * time.Second); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
	}

	for _, f := range []string{acmeSpans, globexSpans} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"trace_id":"`+traceID+`"`)) {
			t.Fatalf("%s has no span of the caller's trace", f)
		}
		if bytes.Contains(b, []byte("board meeting")) {
			t.Fatalf("%s holds the call's text", f)
		}
	}

	ar, gr := receipts(acme), receipts(globex)
	if len(ar) != 1 || len(gr) != 1 || ar[0] != gr[0] {
		t.Fatalf("receipts: acme %v, globex %v", ar, gr)
	}
	if len(exchanges[acme]) != 1 || len(exchanges[globex]) != 1 {
		t.Fatalf("exchanges kept whole: acme %v, globex %v", exchanges[acme], exchanges[globex])
	}
	for _, o := range []*org{acme, globex} {
		mg(t, "audit", "verify", "--dir", o.dir)
	}
	dir := t.TempDir()
	var docs []string
	for _, o := range []*org{acme, globex} {
		path := filepath.Join(dir, o.name+".json")
		if err := os.WriteFile(path, []byte(mg(t, "peer", "export", "--dir", o.dir)), 0o600); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, "--peer-doc", path)
	}
	args := append([]string{"receipt", "verify"}, docs...)
	// The receipt alone, and the line of the exchange as audit show
	// --json prints it.
	for _, in := range []string{ar[0], exchanges[acme][0]} {
		if out, errOut, err := mgRun([]byte(in), args...); err != nil || !strings.HasPrefix(out, "receipt verified: client@acme called echo@globex") {
			t.Fatalf("receipt verify: %v %s %s", err, out, errOut)
		}
	}
	for _, proof := range []string{"callee_proof", "caller_proof"} {
		var altered map[string]any
		json.Unmarshal([]byte(ar[0]), &altered)
		root := altered[proof].(map[string]any)["root"].(map[string]any)
		s := root["sig"].(string)
		// A different signature of the right form: one base64 character
		// changed in its middle.
		i := len("ed25519:") + 20
		ch := byte('A')
		if s[i] == 'A' {
			ch = 'B'
		}
		root["sig"] = s[:i] + string(ch) + s[i+1:]
		b, _ := json.Marshal(altered)
		if _, _, err := mgRun(b, args...); err == nil {
			t.Fatalf("a receipt with its %s's signature altered verified", proof)
		}
	}

	for _, o := range []*org{acme, globex} {
		sc := bufio.NewScanner(strings.NewReader(o.log.String()))
		sc.Buffer(make([]byte, 1<<16), 1<<22)
		for n := 1; sc.Scan(); n++ {
			var rec map[string]any
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			if err := dec.Decode(&rec); err != nil || dec.More() {
				t.Fatalf("%s's log line %d is not one JSON object: %s", o.name, n, sc.Text())
			}
			if bytes.Count(sc.Bytes(), []byte(`"level":`)) != 1 {
				t.Fatalf("%s's log line %d has %d levels: %s", o.name, n, bytes.Count(sc.Bytes(), []byte(`"level":`)), sc.Text())
			}
		}
	}
}
