package crypto

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// benchMessage builds a realistic query of about 1 KiB.
func benchMessage(tb testing.TB, sk keys.Ed25519Private, enc keys.X25519Public) *wire.Message {
	tb.Helper()
	params, err := wire.ValueOf(map[string]any{
		"location":  "Tokyo",
		"timeframe": "+1d",
		"units":     "metric",
		"notes":     strings.Repeat("Forecast detail requested for the afternoon window. ", 14),
		"fields":    []string{"high_c", "low_c", "conditions", "wind", "humidity"},
		"limit":     10,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return &wire.Message{
		V:       wire.Version,
		ID:      "550e8400-e29b-41d4-a716-446655440000",
		TS:      1703280000000,
		Op:      wire.OpQuery,
		From:    wire.Sender{Agent: "weather-client", Org: "acme", Key: sk.Public(), EncKey: enc},
		To:      wire.Ref{Agent: "weather-bot", Org: "globex"},
		Cls:     wire.Int,
		Payload: &wire.QueryPayload{Domain: "weather", Intent: "forecast", Params: params},
	}
}

func benchKeys(tb testing.TB) (keys.Ed25519Private, keys.X25519Private, keys.X25519Private) {
	sk, _ := keys.GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	a, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{2}, 32)))
	b, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{3}, 32)))
	return sk, a, b
}

func BenchmarkRawEd25519SignVerify(b *testing.B) {
	sk, _, _ := benchKeys(b)
	codec := wire.NewCodec(wire.Limits{})
	m := benchMessage(b, sk, keys.X25519Public{})
	wb, _ := Sign(codec, m, sk)
	pub := sk.Public()
	b.SetBytes(int64(len(wb)))
	b.ReportAllocs()
	for b.Loop() {
		sig := ed25519.Sign(sk.Std(), wb)
		if !ed25519.Verify(pub[:], wb, sig) {
			b.Fatal("verify")
		}
	}
}

func BenchmarkMessageSignVerify(b *testing.B) {
	sk, _, _ := benchKeys(b)
	codec := wire.NewCodec(wire.Limits{})
	m := benchMessage(b, sk, keys.X25519Public{})
	wb, _ := Sign(codec, m, sk)
	b.SetBytes(int64(len(wb)))
	b.ReportAllocs()
	for b.Loop() {
		m := benchMessage(b, sk, keys.X25519Public{})
		out, err := Sign(codec, m, sk)
		if err != nil {
			b.Fatal(err)
		}
		got, err := codec.Decode(out)
		if err != nil {
			b.Fatal(err)
		}
		if err := Verify(got); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSealOpen(b *testing.B) {
	sk, ea, eb := benchKeys(b)
	codec := wire.NewCodec(wire.Limits{})
	boxA, boxB := NewBox(ea, 0), NewBox(eb, 0)
	op := &Opener{Codec: codec, Box: boxB, Accept: AcceptRef(wire.Ref{Agent: "weather-bot", Org: "globex"})}
	m := benchMessage(b, sk, ea.Public())
	wb, _ := Sign(codec, m, sk)
	b.SetBytes(int64(len(wb)))
	b.ReportAllocs()
	for b.Loop() {
		m := benchMessage(b, sk, ea.Public())
		env, err := SealMessage(codec, m, sk, boxA, eb.Public())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := op.Open(env); err != nil {
			b.Fatal(err)
		}
	}
}
