package receipt

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/receipt.json")

// Fixed seeds, so that the signed receipt is a known answer.
func orgKey(t *testing.T, b byte) keys.Ed25519Private {
	t.Helper()
	k, err := keys.Ed25519FromSeed(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func sample(t *testing.T) *Receipt {
	t.Helper()
	req, err := wire.Parse([]byte(`{"v":"0.1","id":"6b0f8a7e-1c2d-4e3f-8a9b-0c1d2e3f4a5b","op":"tool","p":{"tool":"echo"},"sig":"x"}`), 8)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := wire.Parse([]byte(`{"v":"0.1","id":"7c1f9b8f-2d3e-4f40-9bac-1d2e3f4a5b6c","op":"respond","p":{"ok":true},"sig":"y"}`), 8)
	if err != nil {
		t.Fatal(err)
	}
	return &Receipt{Caller: "assistant@acme", Callee: "echo@globex",
		RequestID: "6b0f8a7e-1c2d-4e3f-8a9b-0c1d2e3f4a5b", ReplyID: "7c1f9b8f-2d3e-4f40-9bac-1d2e3f4a5b6c",
		RequestDigest: Digest(req), ReplyDigest: Digest(rep), Outcome: OutcomeSuccess, ConsentID: "c-17",
		TS: 1800000000000, Prev: "sha256:" + string(bytes.Repeat([]byte("ab"), 32))}
}

func signed(t *testing.T) (*Receipt, KeyOf) {
	t.Helper()
	acme, globex := orgKey(t, 1), orgKey(t, 2)
	r := sample(t)
	if err := r.Sign(globex); err != nil {
		t.Fatal(err)
	}
	if err := r.Countersign(acme); err != nil {
		t.Fatal(err)
	}
	return r, func(org string) (keys.Ed25519Public, bool) {
		switch org {
		case "acme":
			return acme.Public(), true
		case "globex":
			return globex.Public(), true
		}
		return keys.Ed25519Public{}, false
	}
}

func TestReceiptKnownAnswer(t *testing.T) {
	r, keyOf := signed(t)
	if err := r.Verify(keyOf); err != nil {
		t.Fatal(err)
	}
	got, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "receipt.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Fatalf("receipt differs from %s (run with -update if the format changed on purpose):\n got %s\nwant %s", golden, got, want)
	}
	back, err := Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(keyOf); err != nil {
		t.Fatalf("the known answer does not verify: %v", err)
	}
	again, _ := back.Marshal()
	if !bytes.Equal(again, got) {
		t.Fatal("Parse then Marshal does not round-trip")
	}
}

// TestReceiptEveryByte alters each byte of a doubly signed receipt in
// turn: no altered receipt both parses and verifies.
func TestReceiptEveryByte(t *testing.T) {
	r, keyOf := signed(t)
	b, _ := r.Marshal()
	for i := range b {
		for _, flip := range []byte{0x01, 0x20} {
			c := bytes.Clone(b)
			c[i] ^= flip
			got, err := Parse(c)
			if err != nil {
				continue
			}
			if err := got.Verify(keyOf); err == nil {
				m, _ := got.Marshal()
				if !bytes.Equal(m, b) {
					t.Fatalf("byte %d ^ %#x: altered receipt verifies: %s", i, flip, c)
				}
			}
		}
	}
}

func TestReceiptAlteredSignatures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alter func(r *Receipt)
		field string
	}{
		{"callee signature", func(r *Receipt) { r.CalleeSig[10] ^= 1 }, "callee_sig"},
		{"caller signature", func(r *Receipt) { r.CallerSig[10] ^= 1 }, "caller_sig"},
		{"no countersignature", func(r *Receipt) { r.CallerSig = keys.Signature{} }, "caller_sig"},
		{"outcome", func(r *Receipt) { r.Outcome, r.Code = OutcomeError, "E_TIMEOUT" }, "callee_sig"},
		{"reply digest", func(r *Receipt) { r.ReplyDigest = r.RequestDigest }, "callee_sig"},
		{"caller", func(r *Receipt) { r.Caller = "mallory@acme" }, "callee_sig"},
		{"callee org", func(r *Receipt) { r.Callee = "echo@acme" }, "callee_sig"},
		{"unknown org", func(r *Receipt) { r.Callee = "echo@initech" }, "callee"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, keyOf := signed(t)
			tc.alter(r)
			err := r.Verify(keyOf)
			var e *Error
			if !errors.As(err, &e) || e.Field != tc.field {
				t.Fatalf("Verify = %v; want a receipt error on %s", err, tc.field)
			}
		})
	}
}

// TestCountersignatureBound moves a countersignature to another receipt
// signed by the same callee: it does not verify there.
func TestCountersignatureBound(t *testing.T) {
	r1, keyOf := signed(t)
	r2 := sample(t)
	r2.ReplyID = "8d2a0c90-3e4f-4051-8cbd-2e3f4a5b6c7d"
	if err := r2.Sign(orgKey(t, 2)); err != nil {
		t.Fatal(err)
	}
	r2.CallerSig = r1.CallerSig
	if err := r2.Verify(keyOf); err == nil {
		t.Fatal("a countersignature moved to another receipt verifies")
	}
}

func TestReceiptChain(t *testing.T) {
	globex := orgKey(t, 2)
	first := sample(t)
	first.Prev = ""
	if err := first.Sign(globex); err != nil {
		t.Fatal(err)
	}
	h, err := first.Hash()
	if err != nil {
		t.Fatal(err)
	}
	second := sample(t)
	second.Prev = h
	if err := second.Sign(globex); err != nil {
		t.Fatal(err)
	}
	// The countersignature does not change the hash the next receipt names.
	if err := first.Countersign(orgKey(t, 1)); err != nil {
		t.Fatal(err)
	}
	if h2, _ := first.Hash(); h2 != h {
		t.Fatal("countersigning changed the receipt's hash")
	}
}

func TestSignRefusesBadMembers(t *testing.T) {
	k := orgKey(t, 2)
	for _, tc := range []struct {
		field string
		alter func(r *Receipt)
	}{
		{"outcome", func(r *Receipt) { r.Outcome = "maybe" }},
		{"code", func(r *Receipt) { r.Outcome = OutcomeError }},
		{"caller", func(r *Receipt) { r.Caller = "acme" }},
		{"request_digest", func(r *Receipt) { r.RequestDigest = "md5:00" }},
		{"prev", func(r *Receipt) { r.Prev = "sha256:zz" }},
		{"ts", func(r *Receipt) { r.TS = 0 }},
	} {
		r := sample(t)
		tc.alter(r)
		err := r.Sign(k)
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field {
			t.Errorf("%s: Sign = %v; want an error naming %s", tc.field, err, tc.field)
		}
	}
}

// TestVerifyCaller checks the countersignature alone: it holds on the
// receipt as the caller countersigned it, and not once the countersignature
// or anything it covers (the callee's signature included) is altered.
func TestVerifyCaller(t *testing.T) {
	r, keyOf := signed(t)
	if err := r.VerifyCaller(keyOf); err != nil {
		t.Fatal(err)
	}
	for name, alter := range map[string]func(r *Receipt){
		"caller signature": func(r *Receipt) { r.CallerSig[3] ^= 1 },
		"callee signature": func(r *Receipt) { r.CalleeSig[3] ^= 1 },
		"reply id":         func(r *Receipt) { r.ReplyID = "8d2a0c90-3e4f-4051-8cbd-2e3f4a5b6c7d" },
		"none":             func(r *Receipt) { r.CallerSig = keys.Signature{} },
	} {
		c := *r
		alter(&c)
		var e *Error
		if err := c.VerifyCaller(keyOf); !errors.As(err, &e) || e.Field != "caller_sig" {
			t.Errorf("%s: VerifyCaller = %v; want a receipt error on caller_sig", name, err)
		}
	}
}
