package handshake

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// goldenMessages returns the golden file's values by name, to seed the
// fuzzers with real messages.
func goldenMessages(f *testing.F) map[string][]byte {
	fh, err := os.Open(goldenPath)
	if err != nil {
		f.Fatal(err)
	}
	defer fh.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" && l[0] != '#' {
			k, v, _ := strings.Cut(l, " ")
			out[k] = []byte(v)
		}
	}
	return out
}

// reencodes checks that a message a decoder accepted re-encodes to bytes
// that decode to the same canonical form.
func reencodes(t *testing.T, codec *wire.Codec, m *wire.Message) {
	b, err := m.AppendWire(nil)
	if err != nil {
		t.Fatalf("accepted message does not re-encode: %v", err)
	}
	again, err := codec.Decode(b)
	if err != nil {
		t.Fatalf("re-encoded message refused: %v", err)
	}
	b2, _ := again.AppendWire(nil)
	if !bytes.Equal(b, b2) {
		t.Fatalf("round trip changed the message:\n%s\n%s", b, b2)
	}
}

func fuzzCodec() *wire.Codec { return wire.NewCodec(wire.Limits{MaxMessage: 1 << 16}) }

func FuzzDecodeHello(f *testing.F) {
	g := goldenMessages(f)
	f.Add(g["hello"])
	f.Add(g["hello_ack"])
	codec := fuzzCodec()
	f.Fuzz(func(t *testing.T, b []byte) {
		m, p, err := decodeHello(codec, b)
		if err != nil {
			return
		}
		if m.Op != wire.OpHello || m.From.Key.IsZero() || !p.Challenge.IsZero() || p.Nonce.IsZero() || p.EphemeralKey.IsZero() {
			t.Fatal("accepted a hello that breaks its rules")
		}
		reencodes(t, codec, m)
	})
}

func FuzzDecodeHelloAck(f *testing.F) {
	g := goldenMessages(f)
	f.Add(g["hello_ack"])
	f.Add(g["hello"])
	codec := fuzzCodec()
	f.Fuzz(func(t *testing.T, b []byte) {
		m, p, err := decodeHelloAck(codec, b)
		if err != nil {
			return
		}
		if m.Op != wire.OpHelloAck || m.Re == "" || p.Challenge.IsZero() {
			t.Fatal("accepted a hello_ack that breaks its rules")
		}
		reencodes(t, codec, m)
	})
}

func FuzzDecodeVerify(f *testing.F) {
	g := goldenMessages(f)
	f.Add(g["verify"])
	codec := fuzzCodec()
	f.Fuzz(func(t *testing.T, b []byte) {
		m, p, err := decodeVerify(codec, b)
		if err != nil {
			return
		}
		if m.Op != wire.OpVerify || p.Challenge.IsZero() || p.Proof.IsZero() {
			t.Fatal("accepted a verify that breaks its rules")
		}
		reencodes(t, codec, m)
	})
}

func FuzzDecodeVerifyResponse(f *testing.F) {
	g := goldenMessages(f)
	f.Add(g["verify_response"])
	codec := fuzzCodec()
	f.Fuzz(func(t *testing.T, b []byte) {
		m, p, err := decodeVerifyResponse(codec, b)
		if err != nil {
			return
		}
		if m.Op != wire.OpVerifyResponse || !validSessionID(p.SessionID) || p.Expires <= 0 {
			t.Fatal("accepted a verify_response that breaks its rules")
		}
		reencodes(t, codec, m)
	})
}

// FuzzDecodeSessionEstablished fuzzes both layers of session_established:
// the envelope, and the message inside once opened.
func FuzzDecodeSessionEstablished(f *testing.F) {
	g := goldenMessages(f)
	f.Add(g["session_established"], g["session_established_plaintext"])
	codec := fuzzCodec()
	f.Fuzz(func(t *testing.T, envelope, plaintext []byte) {
		if env, err := codec.DecodeEnvelope(envelope); err == nil && env.Algorithm == wire.AlgSession {
			if !validSessionID(env.SessionID) || env.Counter > wire.MaxSessionCounter || len(env.Ciphertext) < wire.SessionOverhead {
				t.Fatal("accepted a session envelope that breaks its rules")
			}
		}
		m, p, err := decodeEstablished(codec, plaintext)
		if err != nil {
			return
		}
		if m.Op != wire.OpSessionEstablished || p.Expires <= 0 {
			t.Fatal("accepted a session_established that breaks its rules")
		}
		reencodes(t, codec, m)
	})
}

// FuzzAcceptor feeds arbitrary requests to an Acceptor: it must refuse
// them without panicking, and never complete a session.
func FuzzAcceptor(f *testing.F) {
	g := goldenMessages(f)
	for _, k := range msgNames {
		f.Add(g[k])
	}
	c := newCast(f)
	// Real randomness: with the golden file's fixed source, the acceptor
	// would issue the golden challenge again and the recorded handshake
	// would rightly complete.
	acc := NewAcceptor(c.config(c.gw, newClock(t0), nil), nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, sess, _ := acc.Handle(context.Background(), b)
		if sess != nil {
			t.Fatal("a session from fuzzed input")
		}
	})
}
