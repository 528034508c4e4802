package crypto

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// The benchmarks below run in one process so their figures read as ratios:
// message sign+verify against raw Ed25519 sign+verify of the same bytes,
// seal+open against sign+verify. docs/benchmarks.md records them.

var benchParams = func() wire.Value {
	v, err := wire.ValueOf(map[string]any{
		"location":  "Tokyo",
		"timeframe": "+1d",
		"units":     "metric",
		"notes":     strings.Repeat("Forecast detail requested for the afternoon window. ", 14),
		"fields":    []string{"high_c", "low_c", "conditions", "wind", "humidity"},
		"limit":     10,
	})
	if err != nil {
		panic(err)
	}
	return v
}()

// benchMessage builds a realistic query of about 1 KiB.
func benchMessage(sk keys.Ed25519Private, enc keys.X25519Public) *wire.Message {
	return &wire.Message{
		V:       wire.Version,
		ID:      "550e8400-e29b-41d4-a716-446655440000",
		TS:      1703280000000,
		Op:      wire.OpQuery,
		From:    wire.Sender{Agent: "weather-client", Org: "acme", Key: sk.Public(), EncKey: enc},
		To:      wire.Ref{Agent: "weather-bot", Org: "globex"},
		Cls:     wire.Conf,
		Payload: &wire.QueryPayload{Domain: "weather", Intent: "forecast", Params: benchParams},
	}
}

func benchKeys() (keys.Ed25519Private, keys.X25519Private, keys.X25519Private) {
	sk, _ := keys.GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	a, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{2}, 32)))
	b, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{3}, 32)))
	return sk, a, b
}

func benchSigned(b *testing.B) (*wire.Codec, keys.Ed25519Private, []byte) {
	sk, ea, _ := benchKeys()
	codec := wire.NewCodec(wire.Limits{})
	signed, err := Sign(codec, benchMessage(sk, ea.Public()), sk)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(signed)))
	b.ReportAllocs()
	return codec, sk, signed
}

// The Raw benchmarks are the Ed25519 primitives moltgate signs and verifies
// with (keys: curve25519-voi's arithmetic under crypto/ed25519's rules), so
// MessageSignVerify against RawEd25519SignVerify is what moltgate's own code
// adds. RawStdlibEd25519SignVerify is crypto/ed25519 on the same bytes, the
// yardstick moltgate bench measures the machine with.

func BenchmarkRawEd25519Sign(b *testing.B) {
	_, sk, signed := benchSigned(b)
	defer benchcpu.Start(b)()
	for b.Loop() {
		sk.Sign(signed)
	}
}

func BenchmarkRawEd25519Verify(b *testing.B) {
	_, sk, signed := benchSigned(b)
	sig := sk.Sign(signed)
	pub := sk.Public()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if !pub.Verify(signed, sig) {
			b.Fatal("verify")
		}
	}
}

func BenchmarkRawEd25519SignVerify(b *testing.B) {
	_, sk, signed := benchSigned(b)
	pub := sk.Public()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if !pub.Verify(signed, sk.Sign(signed)) {
			b.Fatal("verify")
		}
	}
}

func BenchmarkRawStdlibEd25519SignVerify(b *testing.B) {
	_, sk, signed := benchSigned(b)
	pub := sk.Public()
	defer benchcpu.Start(b)()
	for b.Loop() {
		sig := ed25519.Sign(sk.Std(), signed)
		if !ed25519.Verify(pub[:], signed, sig) {
			b.Fatal("verify")
		}
	}
}

// BenchmarkCanonicalize: parse received bytes and produce the signing bytes.
func BenchmarkCanonicalize(b *testing.B) {
	_, _, signed := benchSigned(b)
	var buf []byte
	defer benchcpu.Start(b)()
	for b.Loop() {
		v, err := wire.Parse(signed, 0)
		if err != nil {
			b.Fatal(err)
		}
		buf = wire.AppendCanonical(buf[:0], v)
	}
}

// BenchmarkDecode: the full strict decode with typed, validated payload.
func BenchmarkDecode(b *testing.B) {
	codec, _, signed := benchSigned(b)
	defer benchcpu.Start(b)()
	for b.Loop() {
		if _, err := codec.Decode(signed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessageSign: check, canonicalise and sign a message built in
// memory, producing its wire bytes.
func BenchmarkMessageSign(b *testing.B) {
	codec, sk, _ := benchSigned(b)
	_, ea, _ := benchKeys()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if _, err := Sign(codec, benchMessage(sk, ea.Public()), sk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessageVerify: decode received bytes and verify the signature.
func BenchmarkMessageVerify(b *testing.B) {
	codec, _, signed := benchSigned(b)
	defer benchcpu.Start(b)()
	for b.Loop() {
		m, err := codec.Decode(signed)
		if err != nil {
			b.Fatal(err)
		}
		if err := Verify(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessageSignVerify(b *testing.B) {
	codec, sk, _ := benchSigned(b)
	_, ea, _ := benchKeys()
	defer benchcpu.Start(b)()
	for b.Loop() {
		out, err := Sign(codec, benchMessage(sk, ea.Public()), sk)
		if err != nil {
			b.Fatal(err)
		}
		m, err := codec.Decode(out)
		if err != nil {
			b.Fatal(err)
		}
		if err := Verify(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealOpen: sign + seal, then open (decrypt, decode, checks,
// verify), with the peer's shared key cached, as on a busy link.
func BenchmarkSealOpen(b *testing.B) {
	codec, sk, _ := benchSigned(b)
	_, ea, eb := benchKeys()
	boxA, boxB := NewBox(ea, 0), NewBox(eb, 0)
	op := &Opener{Codec: codec, Box: boxB, Accept: AcceptRef(wire.Ref{Agent: "weather-bot", Org: "globex"})}
	defer benchcpu.Start(b)()
	for b.Loop() {
		env, err := SealMessage(codec, benchMessage(sk, ea.Public()), sk, boxA, eb.Public())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := op.Open(env); err != nil {
			b.Fatal(err)
		}
	}
}
