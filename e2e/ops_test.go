package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/wire"
)

// metric returns the value of the sample of name whose labels include all
// of labels ("k=v"), from a Prometheus text exposition; ok is false if there
// is none.
func metric(exposition, name string, labels ...string) (float64, bool) {
	for _, line := range strings.Split(exposition, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		head := line[:sp]
		match := true
		for _, l := range labels {
			k, v, _ := strings.Cut(l, "=")
			if !strings.Contains(head, k+`="`+v+`"`) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		f, err := strconv.ParseFloat(line[sp+1:], 64)
		return f, err == nil
	}
	return 0, false
}

// TestHealthAndMetrics: /healthz, /readyz and /metrics answer on a running
// gateway, and after some traffic the metrics show messages by operation,
// face and outcome, latency histograms, blocks by reason, sessions, calls in
// flight and the state of each peer's circuit.
func TestHealthAndMetrics(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	hc := globex.https()

	code, body := globex.get(hc, "/healthz")
	var health struct{ Status, Org, Version string }
	if code != http.StatusOK || json.Unmarshal([]byte(body), &health) != nil || health.Status != "ok" || health.Org != "globex" {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	if code, body := globex.get(hc, "/readyz"); code != http.StatusOK || !strings.Contains(body, `"ready"`) {
		t.Fatalf("/readyz: %d %s", code, body)
	}

	// Traffic: calls across, a call that fails, a block at each end, a
	// message on the HTTP face.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := acme.client()
	for range 3 {
		if _, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"count me","repeat":2}`); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := call(ctx, c, "client", "echo@globex", "fail", `{"code":"tool.broken"}`); codeOf(err) != "E_TASK_FAILED" {
		t.Fatalf("failing call: %v", err)
	}
	if _, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"mail jane.doe@example.com"}`); codeOf(err) != "E_CONSENT" {
		t.Fatalf("personal data: %v", err)
	}
	p := newRawPeer(t, acme, globex, "raw")
	if a := p.post(p.ping()); a.status != http.StatusOK {
		t.Fatalf("ping: %d %v", a.status, a.reply)
	}
	// Personal data arriving at globex without consent (a raw sender;
	// acme's own gateway would not have let it out).
	m := &wire.Message{V: wire.Version, ID: newID(t), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: p.agent.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "call me on +44 20 7946 0958"}, Ext: p.ext}
	env, err := crypto.SealMessage(p.codec, m, p.agent.Signing, crypto.NewBox(p.agent.Encryption, 0), globex.doc.EncKey)
	if err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, "personal data inbound", p.post(env), wire.ErrConsent)

	_, gm := globex.get(hc, "/metrics")
	_, am := acme.get(acme.https(), "/metrics")
	checks := []struct {
		exposition, what, name string
		labels                 []string
		atLeast                float64
	}{
		{gm, "tool calls served over the WebSocket", "moltgate_messages_total", []string{"op=tool", "face=websocket", "outcome=ok"}, 3},
		{gm, "a failed tool call", "moltgate_messages_total", []string{"op=tool", "face=websocket", "outcome=E_TASK_FAILED"}, 1},
		{gm, "a ping on the HTTP face", "moltgate_messages_total", []string{"op=ping", "face=http", "outcome=ok"}, 1},
		{gm, "a refusal on the HTTP face", "moltgate_messages_total", []string{"op=ping", "face=http", "outcome=E_CONSENT"}, 1},
		{gm, "the latency histogram", "moltgate_request_duration_seconds_count", []string{"face=websocket", "op=tool"}, 4},
		{gm, "a latency bucket", "moltgate_request_duration_seconds_bucket", []string{"face=websocket", "op=tool", "le=+Inf"}, 4},
		{gm, "an inbound block", "moltgate_blocked_total", []string{"reason=pii_without_consent", "direction=inbound"}, 1},
		{am, "an outbound block", "moltgate_blocked_total", []string{"reason=pii_without_consent", "direction=outbound"}, 1},
		{gm, "sessions", "moltgate_sessions", nil, 1},
		{am, "the session acme opened", "moltgate_sessions", nil, 1},
		{am, "acme's circuit to globex", "moltgate_peer_circuit_state", []string{"peer=globex", "state=closed"}, 1},
	}
	for _, c := range checks {
		v, ok := metric(c.exposition, c.name, c.labels...)
		if !ok || v < c.atLeast {
			t.Errorf("%s: %s%v = %v (present %v), want at least %v", c.what, c.name, c.labels, v, ok, c.atLeast)
		}
	}
	// Nothing stays in flight once the calls are answered. The gateways'
	// own calls to each other in the background (registry sync, the pulls
	// of revocation lists and handovers) are calls in flight too while
	// they last, so a scrape may meet one: the gauge must come back to 0.
	for _, g := range []struct {
		o *org
		c *http.Client
	}{{globex, hc}, {acme, acme.https()}} {
		waitFor(t, 10*time.Second, g.o.name+": moltgate_in_flight is not 0 with nothing in flight", func() bool {
			_, m := g.o.get(g.c, "/metrics")
			v, ok := metric(m, "moltgate_in_flight")
			return ok && v == 0
		})
	}
	if v, _ := metric(am, "moltgate_peer_circuit_state", "peer=globex", "state=open"); v != 0 {
		t.Error("acme's circuit to globex is open")
	}
	// Metrics carry codes and counts, never content. The phone number is
	// looked for whole, in the forms it could take: four of its digits
	// alone also occur in the figures of a latency sum.
	if strings.Contains(gm, "jane.doe") || strings.Contains(gm, "7946 0958") || strings.Contains(gm, "79460958") || strings.Contains(am, "jane.doe") {
		t.Error("content in the metrics")
	}
}
