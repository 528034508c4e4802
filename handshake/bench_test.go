package handshake

import (
	"context"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// benchConfigs makes the two sides for benchmarks: real randomness and
// clock, certificates valid now, and replay windows roomy enough for any
// run.
func benchConfigs(tb testing.TB) (c *cast, ci, cr *Config) {
	c = newCast(tb)
	now := time.Now()
	for _, p := range []*party{&c.alice, &c.gw} {
		cert, err := p.org.IssueIdentity(p.agent.Public(), now.Add(-time.Hour), now.Add(24*time.Hour))
		if err != nil {
			tb.Fatal(err)
		}
		p.cert = cert
	}
	window := func() *replay.Window {
		return replay.New(replay.Config{Storage: replay.NewMemory(replay.MemoryConfig{MaxEntries: 1 << 24, MaxPerNamespace: 1 << 24})})
	}
	ci = &Config{Identity: c.alice.agent, Cert: c.alice.cert, Trust: c.trust, Capabilities: []string{"query", "task"}, Replay: window()}
	cr = &Config{Identity: c.gw.agent, Cert: c.gw.cert, Trust: c.trust, Capabilities: []string{"query", "stream"}, Replay: window()}
	return c, ci, cr
}

// BenchmarkHandshake runs whole handshakes, both sides in this process: the
// initiator through RoundTrip, the responder through an Acceptor, as an
// HTTP face would.
func BenchmarkHandshake(b *testing.B) {
	handshake := handshakeOnce(b)
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		handshake()
	}
}

// BenchmarkHandshakeRawCrypto performs the public-key work and key
// derivation of one handshake and nothing else: the 7 signatures and 9
// verifications (5 message signatures, 2 proofs, 2 identity certificates)
// over inputs of the real sizes, 2 X25519 key generations and 2 X25519
// agreements, and 2 HKDF derivations of two keys each.
func BenchmarkHandshakeRawCrypto(b *testing.B) {
	raw := rawHandshakeCrypto(b)
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		raw()
	}
}

// BenchmarkHandshakeVsRawCrypto alternates one handshake and its raw
// crypto in the same loop and reports the ratio of the process CPU time
// each took (see internal/benchcpu), so that other load on the machine does
// not skew it.
func BenchmarkHandshakeVsRawCrypto(b *testing.B) {
	handshake := handshakeOnce(b)
	raw := rawHandshakeCrypto(b)
	alternate(b, 1, handshake, raw, "handshake", "raw")
}

// alternate runs a and then base, k times each, per iteration, and reports
// their CPU time per call and the ratio.
func alternate(b *testing.B, k int, a, base func(), aName, baseName string) {
	var ta, tb time.Duration
	for b.Loop() {
		t0 := benchcpu.Now()
		for range k {
			a()
		}
		t1 := benchcpu.Now()
		for range k {
			base()
		}
		tb += benchcpu.Now() - t1
		ta += t1 - t0
	}
	n := float64(b.N * k)
	b.ReportMetric(float64(ta)/n, "cpu-ns/"+aName)
	b.ReportMetric(float64(tb)/n, "cpu-ns/"+baseName)
	b.ReportMetric(float64(ta)/float64(tb), "ratio")
}

// handshakeOnce returns a function that runs one whole handshake.
func handshakeOnce(b *testing.B) func() {
	c, ci, cr := benchConfigs(b)
	store := NewStore(StoreConfig{MaxSessions: 1024})
	acc := NewAcceptor(cr, store)
	t := RoundTrip(func(ctx context.Context, req []byte) ([]byte, error) {
		reply, _, err := acc.Handle(ctx, req)
		return reply, err
	})
	ctx := context.Background()
	return func() {
		if _, err := NewInitiator(ci, peerOf(c.gw)).Run(ctx, t); err != nil {
			b.Fatal(err)
		}
	}
}

func rawHandshakeCrypto(b *testing.B) func() {
	c, ci, cr := benchConfigs(b)
	msgs, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil {
		b.Fatal(err)
	}
	codec := wire.NewCodec(wire.Limits{})
	var inputs [][]byte // what is signed, each once
	for i, raw := range msgs {
		if i == 4 {
			env := mustEnv(b, raw)
			raw = make([]byte, len(env.Ciphertext)-wire.SessionOverhead)
		} else {
			m, err := codec.Decode(raw)
			if err != nil {
				b.Fatal(err)
			}
			raw, _ = m.AppendSigningBytes(nil)
		}
		inputs = append(inputs, raw)
	}
	stmt := statement(initiatorProof, [32]byte{}, wire.Bytes32{}, c.alice.agent.Sender(), c.gw.agent.Sender())
	inputs = append(inputs, stmt, stmt) // the two proofs
	certBytes := []byte(c.alice.cert.Value().String())
	// The same Ed25519 primitives as the handshake's (package keys).
	iSK, rSK := c.alice.agent.Signing, c.gw.agent.Signing
	iPK, rPK := iSK.Public(), rSK.Public()
	signers := []keys.Ed25519Private{iSK, rSK, iSK, rSK, iSK, iSK, rSK}
	pubs := []keys.Ed25519Public{iPK, rPK, iPK, rPK, iPK, iPK, rPK}
	certSig := iSK.Sign(certBytes)
	salt := make([]byte, 32)
	return func() {
		for i, in := range inputs {
			if !pubs[i].Verify(in, signers[i].Sign(in)) {
				b.Fatal("verify")
			}
		}
		for range 2 {
			if !iPK.Verify(certBytes, certSig) {
				b.Fatal("verify cert")
			}
		}
		ka, _ := ecdh.X25519().GenerateKey(rand.Reader)
		kb, _ := ecdh.X25519().GenerateKey(rand.Reader)
		s1, _ := ka.ECDH(kb.PublicKey())
		s2, _ := kb.ECDH(ka.PublicKey())
		for _, s := range [][]byte{s1, s2} {
			prk, _ := hkdf.Extract(sha256.New, s, salt)
			hkdf.Expand(sha256.New, prk, keyI2R, 32)
			hkdf.Expand(sha256.New, prk, keyR2I, 32)
		}
	}
}

// benchQuery is a query of about 1 KiB on the wire.
func benchQuery(c *cast, n int) *wire.Message {
	params := wire.ObjectValue(
		wire.Member{Key: "location", Value: wire.StringValue("Tokyo")},
		wire.Member{Key: "notes", Value: wire.StringValue(strings.Repeat("Forecast detail requested for the afternoon window. ", 13))},
	)
	return &wire.Message{
		V: wire.Version, ID: uuid(n), TS: time.Now().UnixMilli(), Op: wire.OpQuery,
		From: c.alice.agent.Sender(), To: c.gw.agent.Ref, Cls: wire.Conf,
		Payload: &wire.QueryPayload{Domain: "weather", Intent: "forecast", Params: params},
	}
}

// BenchmarkSessionSealOpen1KiB signs and seals a 1 KiB message in a session
// and opens and verifies it on the other side.
func BenchmarkSessionSealOpen1KiB(b *testing.B) {
	sealOpen, size := sessionSealOpen(b)
	b.SetBytes(size)
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		sealOpen()
	}
}

// BenchmarkSignVerify1KiB is the same message signed and verified alone,
// without a session: what Seal and Open add is the difference.
func BenchmarkSignVerify1KiB(b *testing.B) {
	signVerify, size := messageSignVerify(b)
	b.SetBytes(size)
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		signVerify()
	}
}

// BenchmarkSessionVsSignVerify1KiB alternates the two above in one loop and
// reports the ratio of the process CPU time each took.
func BenchmarkSessionVsSignVerify1KiB(b *testing.B) {
	sealOpen, _ := sessionSealOpen(b)
	signVerify, _ := messageSignVerify(b)
	alternate(b, 16, sealOpen, signVerify, "session", "signverify")
}

// BenchmarkSessionVsRawSignVerify1KiB compares the session path with bare
// Ed25519 over the message's signing bytes: the machine's floor.
func BenchmarkSessionVsRawSignVerify1KiB(b *testing.B) {
	sealOpen, _ := sessionSealOpen(b)
	c := newCast(b)
	m := benchQuery(c, 0)
	crypto.Sign(wire.NewCodec(wire.Limits{}), m, c.alice.agent.Signing)
	msg, _ := m.AppendSigningBytes(nil)
	sk := c.alice.agent.Signing
	pk := sk.Public()
	alternate(b, 16, sealOpen, func() {
		if !pk.Verify(msg, sk.Sign(msg)) {
			b.Fatal("verify")
		}
	}, "session", "ed25519")
}

func sessionSealOpen(b *testing.B) (func(), int64) {
	c, ci, cr := benchConfigs(b)
	ci.MaxSessionBytes, cr.MaxSessionBytes = 1<<62, 1<<62
	si, sr, errI, errR := pair(b, ci, cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		b.Fatal(errI, errR)
	}
	codec := wire.NewCodec(wire.Limits{})
	signed, _ := crypto.Sign(codec, benchQuery(c, 0), c.alice.agent.Signing)
	sk := c.alice.agent.Signing
	n := 0
	return func() {
		n++
		sealed, err := si.SignAndSeal(benchQuery(c, n), sk)
		if err != nil {
			b.Fatal(err)
		}
		env, err := codec.DecodeEnvelope(sealed)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sr.Open(env); err != nil {
			b.Fatal(err)
		}
	}, int64(len(signed))
}

func messageSignVerify(b *testing.B) (func(), int64) {
	c := newCast(b)
	codec := wire.NewCodec(wire.Limits{})
	signed, _ := crypto.Sign(codec, benchQuery(c, 0), c.alice.agent.Signing)
	sk := c.alice.agent.Signing
	n := 0
	return func() {
		n++
		out, err := crypto.Sign(codec, benchQuery(c, n), sk)
		if err != nil {
			b.Fatal(err)
		}
		m, err := codec.Decode(out)
		if err != nil {
			b.Fatal(err)
		}
		if err := crypto.Verify(m); err != nil {
			b.Fatal(err)
		}
	}, int64(len(signed))
}

// BenchmarkRawSignVerify1KiB is bare Ed25519 over the same message's
// signing bytes, with the primitives moltgate uses (package keys): the
// floor of what the session path can cost.
func BenchmarkRawSignVerify1KiB(b *testing.B) {
	c := newCast(b)
	codec := wire.NewCodec(wire.Limits{})
	m := benchQuery(c, 0)
	crypto.Sign(codec, m, c.alice.agent.Signing)
	msg, _ := m.AppendSigningBytes(nil)
	sk := c.alice.agent.Signing
	pk := sk.Public()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if !pk.Verify(msg, sk.Sign(msg)) {
			b.Fatal("verify")
		}
	}
}

// TestIdleSessionMemory measures the heap an established, idle session
// holds, store entry included, and keeps it under the 10 KiB target.
func TestIdleSessionMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs many handshakes; the race detector distorts the heap")
	}
	c, ci, cr := benchConfigs(t)
	const n = 500
	stores := []*Store{NewStore(StoreConfig{}), NewStore(StoreConfig{})}
	for range n {
		si, sr, errI, errR := pair(t, ci, cr, peerOf(c.gw))
		if errI != nil || errR != nil {
			t.Fatal(errI, errR)
		}
		stores[0].Add(si)
		stores[1].Add(sr)
	}
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	if stores[0].Len()+stores[1].Len() != 2*n {
		t.Fatal("sessions lost")
	}
	stores = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	per := float64(int64(with.HeapAlloc)-int64(without.HeapAlloc)) / (2 * n)
	t.Logf("%.0f bytes per idle session (store entry included)", per)
	if per > 10<<10 {
		t.Fatalf("%.0f bytes per idle session; the target is 10 KiB", per)
	}
	runtime.KeepAlive(ci)
	runtime.KeepAlive(cr)
}
