package trail

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func openTrail(t *testing.T, all bool) (*Trail, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.db")
	l, err := audit.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Ledger: l, Events: audit.Config{Source: "moltgate://acme"}, All: all, Log: quiet}), path
}

// events closes a and reads back what its ledger holds.
func events(t *testing.T, a *Trail, path string) []audit.Event {
	t.Helper()
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	l, err := audit.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	es, err := l.Entries(context.Background(), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]audit.Event, len(es))
	for i, e := range es {
		if err := json.Unmarshal(e.Event, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func agent(t *testing.T, seed byte, ref wire.Ref) *identity.Agent {
	t.Helper()
	a, err := identity.Generate(bytes.NewReader(bytes.Repeat([]byte{seed}, 256)), ref)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestTrailRecordsBlocksAndAllowed: a block is recorded whatever the
// setting; a message allowed only with decisions = "all"; and a nil trail
// records nothing and lets everything go.
func TestTrailRecordsBlocksAndAllowed(t *testing.T) {
	m := &wire.Message{V: wire.Version, ID: "m1", Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub}
	blocked := classify.Decision{Err: &wire.Error{Code: wire.ErrClassification}}
	for _, all := range []bool{false, true} {
		a, path := openTrail(t, all)
		if err := a.Outbound(context.Background(), m, classify.Decision{Allow: true}); err != nil {
			t.Fatal(err)
		}
		if err := a.Outbound(context.Background(), m, blocked); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, ev := range events(t, a, path) {
			types = append(types, ev.Type)
		}
		want := []string{audit.TypeBlocked}
		if all {
			want = []string{audit.TypeAllowed, audit.TypeBlocked}
		}
		// Decisions are committed in the background: in any order.
		slices.Sort(types)
		slices.Sort(want)
		if !slices.Equal(types, want) {
			t.Errorf("decisions all=%v: recorded %v, want %v", all, types, want)
		}
	}
	var none *Trail
	if err := none.Outbound(context.Background(), m, blocked); err != nil {
		t.Fatalf("a nil trail: %v", err)
	}
	none.Reply(context.Background(), m, blocked)
}

// TestSpansCountPeerCalls: a call to a peer is counted with its outcome,
// "ok" or the refusal's code, with tracing off.
func TestSpansCountPeerCalls(t *testing.T) {
	var got []string
	s := NewSpans(SpansConfig{Done: func(org, op, outcome string, took time.Duration) { got = append(got, org+" "+op+" "+outcome) }})
	m := &wire.Message{Op: wire.OpQuery, To: wire.Ref{Agent: "echo", Org: "globex"}}
	_, done := s.PeerCall(context.Background(), m)
	done(nil)
	_, done = s.PeerCall(context.Background(), m)
	done(&wire.Error{Code: wire.ErrRateLimit})
	want := []string{"globex query ok", "globex query " + string(wire.ErrRateLimit)}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("counted %q, want %q", got, want)
	}
}

// allowedCall is a message a gateway lets through: no personal data, no
// block.
func allowedCall() *wire.Message {
	return &wire.Message{V: wire.Version, ID: "9d2c1f4e-8a7b-4c3d-9e1f-0a1b2c3d4e5f", Op: wire.OpQuery,
		From: wire.Sender{Agent: "client", Org: "acme"}, To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub}
}

// With decisions = "blocked", a message allowed without personal data is
// not recorded, and settling that costs no allocation on any of the three
// ways a decision comes in.
func TestTrailNothingRecordedAllocatesNothing(t *testing.T) {
	a, _ := openTrail(t, false)
	defer a.Close(context.Background())
	ctx := context.Background()
	m := allowedCall()
	in := &pipeline.Inbound{Origin: pipeline.Origin{Face: "websocket"}, M: m, FromPeer: true, Gate: &classify.Decision{Allow: true}}
	allow := classify.Decision{Allow: true}
	if n := testing.AllocsPerRun(200, func() {
		a.Inbound(ctx, in, pipeline.Answer{})
		a.Reply(ctx, m, allow)
		if err := a.Outbound(ctx, m, allow); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per message not recorded; want 0", n)
	}
}

func BenchmarkTrailNothingRecorded(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.db")
	l, err := audit.OpenSQLite(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	a := New(Config{Ledger: l, Events: audit.Config{Source: "moltgate://acme"}, Log: quiet})
	defer a.Close(context.Background())
	ctx := context.Background()
	m := allowedCall()
	in := &pipeline.Inbound{Origin: pipeline.Origin{Face: "websocket"}, M: m, FromPeer: true, Gate: &classify.Decision{Allow: true}}
	b.ReportAllocs()
	for b.Loop() {
		a.Inbound(ctx, in, pipeline.Answer{})
	}
}
