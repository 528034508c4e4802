package wire

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const testSession = "0123456789abcdef0123456789abcdef"

func TestSessionEnvelopeRoundTrip(t *testing.T) {
	c := NewCodec(Limits{})
	ct := bytes.Repeat([]byte{0xa5}, 40)
	b := AppendSessionSealed(nil, testSession, 42, ct)
	env, err := c.DecodeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	if !env.Encrypted || env.Algorithm != AlgSession || env.SessionID != testSession || env.Counter != 42 || !bytes.Equal(env.Ciphertext, ct) {
		t.Fatalf("decoded %+v", env)
	}
	if env.Nonce != nil || !env.SenderPublic.IsZero() || env.Message != nil {
		t.Fatal("session envelope has box fields")
	}
	// The header's canonical form is the associated data the sender used.
	if got, want := AppendCanonical(nil, env.Header), AppendSessionHeader(nil, testSession, 42); !bytes.Equal(got, want) {
		t.Fatalf("header\n got %s\nwant %s", got, want)
	}
	// The whole envelope is already canonical.
	v, err := Parse(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendCanonical(nil, v); !bytes.Equal(got, b) {
		t.Fatalf("not canonical:\n%s\n%s", got, b)
	}
}

func TestSessionEnvelopeCounterBounds(t *testing.T) {
	c := NewCodec(Limits{})
	ct := make([]byte, SessionOverhead)
	for _, n := range []uint64{0, 1, MaxSessionCounter} {
		env, err := c.DecodeEnvelope(AppendSessionSealed(nil, testSession, n, ct))
		if err != nil || env.Counter != n {
			t.Fatalf("counter %d: %v", n, err)
		}
	}
}

func TestSessionEnvelopeRefusals(t *testing.T) {
	c := NewCodec(Limits{MaxMessage: 4096})
	ok := string(AppendSessionSealed(nil, testSession, 7, make([]byte, 32)))
	for _, tc := range []struct {
		name, from, to string
		code           Code
	}{
		{"no session", `"session":"` + testSession + `"`, `"x":"y"`, ErrMissingField},
		{"short session", testSession, "abc", ErrInvalidParam},
		{"session with dots", testSession, "0123456789abcdef.0123456789", ErrInvalidParam},
		{"session not a string", `"` + testSession + `"`, `17`, ErrSchema},
		{"no counter", `"counter":7,`, ``, ErrMissingField},
		{"negative counter", `"counter":7`, `"counter":-1`, ErrInvalidParam},
		{"fraction counter", `"counter":7`, `"counter":7.5`, ErrSchema},
		{"exponent counter", `"counter":7`, `"counter":7e0`, ErrSchema},
		{"counter too large", `"counter":7`, `"counter":9007199254740992`, ErrParse}, // the parser refuses it
		{"counter a string", `"counter":7`, `"counter":"7"`, ErrSchema},
		{"no ciphertext", `"ciphertext":"`, `"cipher":"`, ErrSchema},
		{"unknown algorithm", AlgSession, "session-aes", ErrInvalidParam},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(ok, tc.from, tc.to, 1)
			if in == ok {
				t.Fatal("test case changed nothing")
			}
			_, err := c.DecodeEnvelope([]byte(in))
			var we *Error
			if !errors.As(err, &we) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if tc.code != "" && we.Code != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
	// A ciphertext of exactly the tag is accepted; one byte less is not.
	if _, err := c.DecodeEnvelope(AppendSessionSealed(nil, testSession, 0, make([]byte, SessionOverhead-1))); err == nil {
		t.Fatal("ciphertext shorter than the tag accepted")
	}
	// A ciphertext beyond the message limit is refused.
	if _, err := c.DecodeEnvelope(AppendSessionSealed(nil, testSession, 0, make([]byte, 4096+SessionOverhead+1))); err == nil {
		t.Fatal("oversize ciphertext accepted")
	}
}

// generalDecode decodes b without the canonical fast path.
func generalDecode(c *Codec, b []byte) (*Envelope, error) {
	t, err := Parse(b, c.limits.MaxDepth+1)
	if err != nil {
		return nil, err
	}
	return c.DecodeEnvelopeTree(t)
}

func sameEnvelope(t *testing.T, a, b *Envelope) {
	t.Helper()
	if a.Encrypted != b.Encrypted || a.Algorithm != b.Algorithm || a.SessionID != b.SessionID ||
		a.Counter != b.Counter || !bytes.Equal(a.Ciphertext, b.Ciphertext) || a.Bare != b.Bare || a.Message != nil || b.Message != nil ||
		!bytes.Equal(AppendCanonical(nil, a.Header), AppendCanonical(nil, b.Header)) || a.Header.String() != b.Header.String() {
		t.Fatalf("fast and general decoding differ:\n%+v\n%+v", a, b)
	}
}

func TestSessionEnvelopeFastPathMatchesGeneral(t *testing.T) {
	c := NewCodec(Limits{MaxMessage: 4096})
	for _, ctr := range []uint64{0, 7, 10, 1 << 40, MaxSessionCounter} {
		for _, n := range []int{SessionOverhead, 17, 18, 1000, 4096 + SessionOverhead} {
			ct := bytes.Repeat([]byte{byte(n)}, n)
			b := AppendSessionSealed(nil, testSession, ctr, ct)
			fast, ok := c.decodeSessionCanonical(b)
			if !ok {
				t.Fatalf("canonical envelope (counter %d, %d bytes) not taken by the fast path", ctr, n)
			}
			general, err := generalDecode(c, b)
			if err != nil {
				t.Fatal(err)
			}
			sameEnvelope(t, fast, general)
		}
	}
	// Anything else takes the general path, which decides.
	ok := string(AppendSessionSealed(nil, testSession, 7, make([]byte, 32)))
	for _, variant := range []string{
		ok + " ",
		" " + ok,
		strings.Replace(ok, `"counter":7`, `"counter":07`, 1),
		strings.Replace(ok, `"counter":7`, `"counter": 7`, 1),
		strings.Replace(ok, `"encrypted":true,`, `"encrypted":true,"x":1,`, 1),
		strings.Replace(ok, testSession, "short", 1),
		strings.Replace(ok, `"base64:`, `"base64:A`, 1),
		strings.Replace(ok, `"base64:AAAA`, "\"base64:AA\nAA", 1), // base64 decoders skip line breaks
		AlgSession,
	} {
		if _, taken := c.decodeSessionCanonical([]byte(variant)); taken {
			t.Fatalf("fast path took %q", variant)
		}
	}
	// Too large for the limit: refused either way.
	if _, err := c.DecodeEnvelope(AppendSessionSealed(nil, testSession, 0, make([]byte, 4096+SessionOverhead+1))); err == nil {
		t.Fatal("oversize accepted")
	}
}

func FuzzDecodeSessionEnvelope(f *testing.F) {
	f.Add(AppendSessionSealed(nil, testSession, 0, make([]byte, 20)))
	f.Add(AppendSessionSealed(nil, testSession, MaxSessionCounter, []byte("0123456789abcdefghij")))
	c := NewCodec(Limits{MaxMessage: 1 << 16})
	f.Fuzz(func(t *testing.T, b []byte) {
		if fast, ok := c.decodeSessionCanonical(b); ok {
			general, err := generalDecode(c, b)
			if err != nil {
				t.Fatalf("fast path accepted what the general path refuses: %v", err)
			}
			sameEnvelope(t, fast, general)
		}
		env, err := c.DecodeEnvelope(b)
		if err != nil || env.Algorithm != AlgSession {
			return
		}
		// What decodes re-encodes to an envelope that decodes the same.
		out := AppendSessionSealed(nil, env.SessionID, env.Counter, env.Ciphertext)
		again, err := c.DecodeEnvelope(out)
		if err != nil {
			t.Fatalf("re-encoded envelope refused: %v", err)
		}
		if again.SessionID != env.SessionID || again.Counter != env.Counter || !bytes.Equal(again.Ciphertext, env.Ciphertext) {
			t.Fatal("round trip changed the envelope")
		}
	})
}
