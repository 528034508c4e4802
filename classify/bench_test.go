package classify

import (
	"context"
	"crypto/ed25519"
	"path/filepath"
	"testing"

	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// benchText is ordinary agent traffic: prose with numbers, dates, versions and tool output.
const benchText = `The quarterly planning summary covers the migration of the billing service to the new
cluster. Latency at the 99th percentile dropped from 420 ms to 180 ms after the cache change in
release 2.14.3, and error rates stayed below 0.2% for the whole of week 37. The team recommends
moving the remaining three workers on 2024-10-14, once the load test with 12,000 requests per second
has passed twice. Open questions: should the retry budget stay at 3 attempts, and who owns the
dashboard after the hand-over? The search agent found 27 matching documents; the top five discuss
rate limiting, connection pooling and the schema change to the orders table. Please summarise them
in under 200 words and flag anything that contradicts the design note from March. Tool output:
status=ok, duration=1.8s, rows=1532, cache_hit=true, region=eu-west-1, version=v3.2.0.`

// benchMessage is a 1 KiB tool call as the gateway holds it after decoding.
func benchMessage(b *testing.B, f *fixture, cls wire.Class, text string, meta *wire.PIIMeta) *wire.Message {
	m := f.msg(b, alice, bob, cls, text, meta)
	wb, _ := m.AppendWire(nil)
	if len(wb) < 900 || len(wb) > 1300 {
		b.Fatalf("message is %d bytes", len(wb))
	}
	dm, err := codec.Decode(wb)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(wb)))
	return dm
}

func benchGate(b *testing.B, cls wire.Class, text string, pii bool) {
	f := newFixture(b)
	// The gateway's revocation list: checked for changes by other processes once a second.
	store, err := consent.OpenFile(filepath.Join(b.TempDir(), "revoked.jsonl"), nil)
	if err != nil {
		b.Fatal(err)
	}
	f.gate.consents.Revocations = store
	var meta_ *wire.PIIMeta
	if pii {
		meta_ = meta(f.token(b, f.acme, bob, "crm-sync", "email", "phone"), "crm-sync", "email", "phone")
	}
	m := benchMessage(b, f, cls, text, meta_)
	ctx := context.Background()
	if d := f.gate.Check(ctx, m, Outbound, "globex", nil); !d.Allow {
		b.Fatal(d.Err)
	}
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		f.gate.Check(ctx, m, Outbound, "globex", nil)
	}
}

// BenchmarkGate1KiBClean: a conf tool call with no personal data.
func BenchmarkGate1KiBClean(b *testing.B) { benchGate(b, wire.Conf, benchText, false) }

// BenchmarkGate1KiBConsented: a pii message with an e-mail address and a phone number under a
// valid consent (the token's signature is checked once, then cached).
func BenchmarkGate1KiBConsented(b *testing.B) {
	benchGate(b, wire.PII, benchText[:300]+" Contact ops.lead@example.org or +44 20 7946 0958.", true)
}

// BenchmarkEd25519SignVerify1KiB is the yardstick: one signature and one verification of 1 KiB.
func BenchmarkEd25519SignVerify1KiB(b *testing.B) {
	_, priv, _ := ed25519.GenerateKey(nil)
	pub := priv.Public().(ed25519.PublicKey)
	msg := []byte((benchText + benchText)[:1024])
	b.SetBytes(int64(len(msg)))
	defer benchcpu.Start(b)()
	for b.Loop() {
		sig := ed25519.Sign(priv, msg)
		if !ed25519.Verify(pub, msg, sig) {
			b.Fatal("verify")
		}
	}
}
