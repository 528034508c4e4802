package pipeline

import (
	"bytes"
	"crypto/rand"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// newTestPipeline is a pipeline with what the steps before authentication
// use: a codec, a key to sign refusals and the metrics. The steps after
// them are never reached by what the tests send.
func newTestPipeline(t *testing.T) (*Pipeline, *identity.Agent) {
	t.Helper()
	self, err := identity.Generate(rand.Reader, wire.Ref{Agent: GatewayAgent, Org: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := Metrics{
		Messages:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "messages_total"}, []string{"op", "face", "outcome"}),
		Latency:   prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "request_duration_seconds"}, []string{"face", "op"}),
		Sessions:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "sessions"}),
		InFlight:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "in_flight"}),
		RateLimit: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rate_limited_total"}, []string{"scope"}),
	}
	p := New(Config{Org: "globex", MessageBytes: 64 << 10, MaxHops: 8, Self: self, Codec: wire.NewCodec(wire.Limits{}),
		Scanner: sc, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: m, Now: time.Now, Rand: rand.Reader})
	return p, self
}

func counted(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// refusal opens an answer as the peer would: a signed error message.
func refusal(t *testing.T, p *Pipeline, self *identity.Agent, a Answer) *wire.ErrorPayload {
	t.Helper()
	env, err := p.Codec.DecodeEnvelope(a.Body)
	if err != nil {
		t.Fatalf("the refusal is no envelope: %v: %s", err, a.Body)
	}
	if err := crypto.VerifyWith(env.Message, self.Signing.Public()); err != nil {
		t.Fatalf("the refusal is not signed by the gateway: %v", err)
	}
	e, ok := env.Message.Payload.(*wire.ErrorPayload)
	if !ok || env.Message.Op != wire.OpError {
		t.Fatalf("the refusal is a %s message", env.Message.Op)
	}
	return e
}

func TestOversizeEnvelopeRefusedUnread(t *testing.T) {
	p, self := newTestPipeline(t)
	body := bytes.Repeat([]byte("x"), p.EnvelopeLimit()+1)
	a := p.Handle(t.Context(), Origin{Face: FaceHTTP, Remote: "192.0.2.1:1234"}, body, nil)
	if a.Code != wire.ErrTooLarge || a.Status != wire.ErrTooLarge.HTTPStatus() || a.Op != "" || a.Peer != "" {
		t.Fatalf("answer %+v, want E_TOO_LARGE naming no operation or peer", a)
	}
	if e := refusal(t, p, self, a); e.Code != wire.ErrTooLarge {
		t.Fatalf("the refusal says %s", e.Code)
	}
	if n := counted(t, p.Metrics.Messages.WithLabelValues("none", FaceHTTP, string(wire.ErrTooLarge))); n != 1 {
		t.Fatalf("counted %v messages of no operation refused E_TOO_LARGE, want 1", n)
	}
}

// A connection sending junk gets a refusal of its own for the first few,
// then one signed refusal per code, shared and not the face's to recycle.
func TestUnreadRefusalsShared(t *testing.T) {
	p, self := newTestPipeline(t)
	o := Origin{Face: FaceWS, Unread: &UnreadRefusals{}}
	var shared []byte
	for i := range UnreadDetailed + 3 {
		a := p.Handle(t.Context(), o, []byte("not an envelope"), nil)
		if a.Code == "" || a.Body == nil {
			t.Fatalf("junk %d: answer %+v", i, a)
		}
		refusal(t, p, self, a)
		switch {
		case i < UnreadDetailed && a.Shared:
			t.Fatalf("junk %d of the first %d got a shared refusal", i, UnreadDetailed)
		case i >= UnreadDetailed && !a.Shared:
			t.Fatalf("junk %d got a refusal of its own, signed again", i)
		case i == UnreadDetailed:
			shared = a.Body
		case i > UnreadDetailed && &a.Body[0] != &shared[0]:
			t.Fatalf("junk %d: another shared refusal for the same code", i)
		}
	}
}

// Every step is named, once, and the route comes last.
func TestStepsNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	steps := Steps()
	for _, st := range steps {
		if st.Name == "" || st.Run == nil || seen[st.Name] {
			t.Fatalf("step %q: unnamed, empty or listed twice", st.Name)
		}
		seen[st.Name] = true
	}
	if steps[len(steps)-1].Name != "route" {
		t.Fatalf("the last step is %s, not route", steps[len(steps)-1].Name)
	}
}
