package receipt

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/merkle"
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

var keyOfBoth = func(acme, globex keys.Ed25519Private) KeyOf {
	return func(org string) (keys.Ed25519Public, bool) {
		switch org {
		case "acme":
			return acme.Public(), true
		case "globex":
			return globex.Public(), true
		}
		return keys.Ed25519Public{}, false
	}
}

// batch is three receipts of one callee, chained, each with its own reply.
func batch(t *testing.T) []*Receipt {
	t.Helper()
	var out []*Receipt
	prev := ""
	for i, id := range []string{"7c1f9b8f-2d3e-4f40-9bac-1d2e3f4a5b6c", "8d2a0c90-3e4f-4051-8cbd-2e3f4a5b6c7d", "9e3b1da1-4f50-4162-9dce-3f4a5b6c7d8e"} {
		r := sample(t)
		r.Type, r.ReplyID, r.TS, r.Prev = Type, id, r.TS+int64(i), prev
		h, err := r.Hash()
		if err != nil {
			t.Fatal(err)
		}
		prev = h
		out = append(out, r)
	}
	return out
}

// sign signs rs as one batch of org in role, setting each one's proof.
func sign(t *testing.T, key keys.Ed25519Private, org, role string, rs ...*Receipt) {
	t.Helper()
	var leaves []merkle.Hash
	for _, r := range rs {
		l, err := r.Leaf()
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, l)
	}
	ps, err := SignBatch(key, org, role, 1800000000009, leaves)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		p := ps[i]
		if role == RoleCallee {
			r.CalleeProof = &p
		} else {
			r.CallerProof = &p
		}
	}
}

// signed is the second receipt of a batch of three globex signed as
// callee, which acme countersigned in a batch of two with the third.
func signed(t *testing.T) (*Receipt, KeyOf) {
	t.Helper()
	acme, globex := orgKey(t, 1), orgKey(t, 2)
	rs := batch(t)
	sign(t, globex, "globex", RoleCallee, rs...)
	sign(t, acme, "acme", RoleCaller, rs[2], rs[1])
	return rs[1], keyOfBoth(acme, globex)
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
// turn, each in several ways: no altered receipt both parses and verifies
// unless it is, read back and written again, the receipt itself.
func TestReceiptEveryByte(t *testing.T) {
	r, keyOf := signed(t)
	b, _ := r.Marshal()
	for i := range b {
		for _, flip := range []byte{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80} {
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

func TestReceiptAltered(t *testing.T) {
	other := merkle.LeafHash([]byte("another receipt"))
	for _, tc := range []struct {
		name  string
		alter func(r *Receipt)
		field string
	}{
		{"callee signature", func(r *Receipt) { r.CalleeProof.Root.Sig[10] ^= 1 }, "callee_proof.root.sig"},
		{"caller signature", func(r *Receipt) { r.CallerProof.Root.Sig[10] ^= 1 }, "caller_proof.root.sig"},
		{"callee root", func(r *Receipt) { r.CalleeProof.Root.Hash[0] ^= 1 }, "callee_proof"},
		{"caller root size", func(r *Receipt) { r.CallerProof.Root.Size = 3 }, "caller_proof"},
		{"callee root time", func(r *Receipt) { r.CalleeProof.Root.TS++ }, "callee_proof.root.sig"},
		{"callee path", func(r *Receipt) { r.CalleeProof.Path[0] = other }, "callee_proof"},
		{"caller index", func(r *Receipt) { r.CallerProof.Index = 0 }, "caller_proof"},
		{"no countersignature", func(r *Receipt) { r.CallerProof = nil }, "caller_proof"},
		{"no signature", func(r *Receipt) { r.CalleeProof = nil }, "callee_proof"},
		{"caller's root as callee's", func(r *Receipt) { p := *r.CallerProof; r.CalleeProof = &p }, "callee_proof.root"},
		{"callee's root as caller's", func(r *Receipt) { p := *r.CalleeProof; r.CallerProof = &p }, "caller_proof.root"},
		{"outcome", func(r *Receipt) { r.Outcome, r.Code = OutcomeError, "E_TIMEOUT" }, "callee_proof"},
		{"reply digest", func(r *Receipt) { r.ReplyDigest = r.RequestDigest }, "callee_proof"},
		{"prev", func(r *Receipt) { r.Prev = "" }, "callee_proof"},
		{"caller", func(r *Receipt) { r.Caller = "mallory@acme" }, "callee_proof"},
		{"callee org", func(r *Receipt) { r.Callee = "echo@acme" }, "callee_proof.root"},
		{"unknown org", func(r *Receipt) { r.Callee, r.CalleeProof.Root.Org = "echo@initech", "initech" }, "callee_proof"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, keyOf := signed(t)
			c := *r
			cp, kp := *r.CalleeProof, *r.CallerProof
			cp.Path, kp.Path = append([]merkle.Hash(nil), cp.Path...), append([]merkle.Hash(nil), kp.Path...)
			c.CalleeProof, c.CallerProof = &cp, &kp
			tc.alter(&c)
			err := c.Verify(keyOf)
			var e *Error
			if !errors.As(err, &e) || e.Field != tc.field {
				t.Fatalf("Verify = %v; want a receipt error on %s", err, tc.field)
			}
		})
	}
}

// A proof moved to another receipt of the same batch does not hold there.
func TestProofBound(t *testing.T) {
	acme, globex := orgKey(t, 1), orgKey(t, 2)
	rs := batch(t)
	sign(t, globex, "globex", RoleCallee, rs...)
	sign(t, acme, "acme", RoleCaller, rs...)
	keyOf := keyOfBoth(acme, globex)
	for _, r := range rs {
		if err := r.Verify(keyOf); err != nil {
			t.Fatal(err)
		}
	}
	rs[0].CallerProof = rs[1].CallerProof
	if err := rs[0].Verify(keyOf); err == nil {
		t.Fatal("a countersignature's proof moved to another receipt verifies")
	}
}

// The chain of a callee's receipts names each one's leaf, known before
// either side signs, and signing does not change it.
func TestReceiptChain(t *testing.T) {
	rs := batch(t)
	h, err := rs[0].Hash()
	if err != nil || rs[1].Prev != h || rs[0].Prev != "" {
		t.Fatalf("chain: %v %q %q", err, rs[1].Prev, h)
	}
	sign(t, orgKey(t, 2), "globex", RoleCallee, rs...)
	sign(t, orgKey(t, 1), "acme", RoleCaller, rs[0])
	if h2, _ := rs[0].Hash(); h2 != h {
		t.Fatal("signing changed the receipt's hash")
	}
}

func TestLeafRefusesBadMembers(t *testing.T) {
	for _, tc := range []struct {
		field string
		alter func(r *Receipt)
	}{
		{"type", func(r *Receipt) { r.Type = "moltgate.receipt.v1" }},
		{"outcome", func(r *Receipt) { r.Outcome = "maybe" }},
		{"code", func(r *Receipt) { r.Outcome = OutcomeError }},
		{"caller", func(r *Receipt) { r.Caller = "acme" }},
		{"request_digest", func(r *Receipt) { r.RequestDigest = "md5:00" }},
		{"prev", func(r *Receipt) { r.Prev = "sha256:zz" }},
		{"ts", func(r *Receipt) { r.TS = 0 }},
	} {
		r := sample(t)
		r.Type = Type
		tc.alter(r)
		_, err := r.Leaf()
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field {
			t.Errorf("%s: Leaf = %v; want an error naming %s", tc.field, err, tc.field)
		}
	}
}

func TestParseRefusesBadProofs(t *testing.T) {
	r, _ := signed(t)
	for _, tc := range []struct {
		field string
		alter func(p *Proof)
	}{
		{"callee_proof.root.role", func(p *Proof) { p.Root.Role = "witness" }},
		{"callee_proof.root.org", func(p *Proof) { p.Root.Org = "" }},
		{"callee_proof.root.size", func(p *Proof) { p.Root.Size = 0 }},
		{"callee_proof.index", func(p *Proof) { p.Index = p.Root.Size }},
		{"callee_proof.path", func(p *Proof) { p.Path = make([]merkle.Hash, maxPath+1) }},
		{"callee_proof.root.ts", func(p *Proof) { p.Root.TS = 0 }},
	} {
		c := *r
		p := *r.CalleeProof
		tc.alter(&p)
		c.CalleeProof = &p
		b, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse(b)
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field {
			t.Errorf("%s: Parse = %v; want an error naming it", tc.field, err)
		}
	}
}

// The receipts of one batch cost one signature check between them: a root
// checked is kept, a root that does not hold is not, and the kept root is
// of the key it was checked under.
func TestRootsKept(t *testing.T) {
	acme, globex := orgKey(t, 1), orgKey(t, 2)
	rs := batch(t)
	sign(t, globex, "globex", RoleCallee, rs...)
	keyOf := keyOfBoth(acme, globex)
	roots := NewRoots(keys.NewVerifier(0), 8)
	for _, r := range rs {
		if err := r.VerifyCallee(keyOf, roots); err != nil {
			t.Fatal(err)
		}
	}
	if roots.seen.Len() != 1 {
		t.Fatalf("%d roots kept for one batch", roots.seen.Len())
	}
	if err := rs[0].VerifyCallee(func(string) (keys.Ed25519Public, bool) { return acme.Public(), true }, roots); err == nil {
		t.Fatal("a root kept under globex's key verifies under acme's")
	}
	bad := *rs[1]
	p := *rs[1].CalleeProof
	p.Root.Sig[5] ^= 1
	bad.CalleeProof = &p
	for range 2 {
		if err := bad.VerifyCallee(keyOf, roots); err == nil {
			t.Fatal("an altered root verifies")
		}
	}
	if roots.seen.Len() != 1 {
		t.Fatal("a root that does not hold was kept")
	}
}
