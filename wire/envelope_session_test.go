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
		{"counter too large", `"counter":7`, `"counter":9007199254740992`, ErrInvalidParam},
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

func FuzzDecodeSessionEnvelope(f *testing.F) {
	f.Add(AppendSessionSealed(nil, testSession, 0, make([]byte, 20)))
	f.Add(AppendSessionSealed(nil, testSession, MaxSessionCounter, []byte("0123456789abcdefghij")))
	c := NewCodec(Limits{MaxMessage: 1 << 16})
	f.Fuzz(func(t *testing.T, b []byte) {
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
