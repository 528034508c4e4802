package local

import (
	"bytes"
	"crypto/rand"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
	"github.com/prometheus/client_golang/prometheus"
)

// newRefusingRoom is a local room with what refusing takes: the pipeline,
// which signs refusals with globex's gateway key, and the scanner that
// masks agents' error texts.
func newRefusingRoom(t *testing.T) *Room {
	t.Helper()
	self, err := identity.Generate(rand.Reader, wire.Ref{Agent: pipeline.GatewayAgent, Org: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := pipeline.Metrics{
		Messages:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "messages_total"}, []string{"op", "face", "outcome"}),
		Latency:   prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "request_duration_seconds"}, []string{"face", "op"}),
		Sessions:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "sessions"}),
		InFlight:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "in_flight"}),
		RateLimit: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rate_limited_total"}, []string{"scope"}),
	}
	p := pipeline.New(pipeline.Config{Org: "globex", MessageBytes: 64 << 10, MaxHops: 8, Self: self, Codec: wire.NewCodec(wire.Limits{}),
		Scanner: sc, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: m, Now: time.Now, Rand: rand.Reader})
	return New(Config{Org: "globex", Signer: self, Pipe: p, Scanner: sc})
}

// TestAgentErrorsAreMasked: a local agent's failure message goes back to
// the peer as an error, which is cls pub and passes no gate; personal data
// and secrets in it are masked, and the rest of the message kept.
func TestAgentErrorsAreMasked(t *testing.T) {
	room := newRefusingRoom(t)
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpTool,
		From: wire.Sender{Agent: "caller", Org: "acme"}, To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Conf,
		Payload: &wire.ToolPayload{Action: "invoke", Tool: "lookup"}}
	leak := &localbridge.Error{Code: "tool.lookup_failed", Where: "agent",
		Message: "no account for jane.doe@example.com; tried postgres://admin:hunter2@db.internal/acct with AKIAZ3MSJV4WWNKWW5V2"}
	a := room.callFailed(&pipeline.Inbound{M: m}, Agent{ID: "echo"}, leak)
	if a.Code != wire.ErrTaskFailed || a.Body == nil {
		t.Fatalf("answer %s %q", a.Code, a.Body)
	}
	for _, secret := range []string{"jane.doe", "example.com", "hunter2", "AKIAZ3MSJV4WWNKWW5V2"} {
		if bytes.Contains(a.Body, []byte(secret)) {
			t.Errorf("the error sent to the peer holds %q: %s", secret, a.Body)
		}
	}
	for _, kept := range []string{"no account for [email]", "[secret]"} {
		if !bytes.Contains(a.Body, []byte(kept)) {
			t.Errorf("the error lost %q: %s", kept, a.Body)
		}
	}
}

// TestAgentErrorFieldMasked: the field of a failed call's error is a path
// into the caller's input, whose keys are the caller's text; personal data
// in it is masked too.
func TestAgentErrorFieldMasked(t *testing.T) {
	room := newRefusingRoom(t)
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpTool,
		From: wire.Sender{Agent: "caller", Org: "acme"}, To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Conf,
		Payload: &wire.ToolPayload{Action: "invoke", Tool: "echo"}}
	bad := &localbridge.Error{Code: "tool.invalid_input", Where: "core", Field: "jane.doe@example.com", Message: "unexpected property"}
	a := room.callFailed(&pipeline.Inbound{M: m}, Agent{ID: "echo"}, bad)
	if bytes.Contains(a.Body, []byte("jane.doe")) || !bytes.Contains(a.Body, []byte(`[email]"`)) {
		t.Fatalf("error sent: %s", a.Body)
	}
}
