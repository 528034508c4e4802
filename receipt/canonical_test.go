package receipt

import (
	"bytes"
	"testing"

	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/wire"
)

// genericJSON is the receipt's RFC 8785 form by the generic encoder, with
// or without its signatures: what the hand-written encoder must match.
func genericJSON(t *testing.T, r *Receipt, sigs bool) []byte {
	t.Helper()
	v, err := wire.ValueOf(r)
	if err != nil {
		// No RFC 8785 form: the receipt's encoder refuses it too.
		if _, berr := r.body(); berr == nil {
			t.Fatalf("the generic encoder refuses (%v); body does not", err)
		}
		if _, merr := r.Marshal(); merr == nil {
			t.Fatalf("the generic encoder refuses (%v); Marshal does not", err)
		}
		return nil
	}
	if !sigs || r.CalleeProof == nil {
		v = v.Without("callee_proof")
	}
	if !sigs || r.CallerProof == nil {
		v = v.Without("caller_proof")
	}
	return wire.AppendCanonical(nil, v)
}

// FuzzCanonicalForm: what is signed, hashed and stored of a receipt is, byte
// for byte, the RFC 8785 form the generic encoder makes of it, whatever its
// members hold.
func FuzzCanonicalForm(f *testing.F) {
	f.Add("echo@globex", "assistant@acme", "E_CONSENT", "c-17\u2028<&>\"\\\x01é", "r-1", int64(1800000000000), byte(7))
	f.Add("", "", "", "", "", int64(-1), byte(0))
	f.Fuzz(func(t *testing.T, callee, caller, code, consent, id string, ts int64, sb byte) {
		r := &Receipt{Type: Type, Caller: caller, Callee: callee, RequestID: id, ReplyID: consent, RequestDigest: code,
			ReplyDigest: callee, Outcome: OutcomeError, Code: code, ConsentID: consent, TS: ts, Prev: caller}
		var h merkle.Hash
		h[0] = sb
		root := Root{Org: caller, Role: code, Size: ts, Hash: h, TS: -ts}
		root.Sig[63] = sb + 1
		r.CalleeProof = &Proof{Index: int64(sb), Path: []merkle.Hash{h, {}}, Root: root}
		if sb%2 == 0 {
			r.CallerProof = &Proof{Index: ts, Path: []merkle.Hash{}, Root: root}
		}
		for _, sigs := range []bool{false, true} {
			want := genericJSON(t, r, sigs)
			if want == nil {
				return
			}
			if got := r.appendJSON(nil, sigs); !bytes.Equal(got, want) {
				t.Fatalf("sigs %v:\n got %s\nwant %s", sigs, got, want)
			}
		}
	})
}

func TestCanonicalFormSigned(t *testing.T) {
	r, _ := signed(t)
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := genericJSON(t, r, true); !bytes.Equal(b, want) {
		t.Fatalf("got %s\nwant %s", b, want)
	}
	body, err := r.body()
	if err != nil {
		t.Fatal(err)
	}
	// The leaf is of the body after the domain, whatever buffer held it.
	for range 3 {
		if leaf, err := r.Leaf(); err != nil || leaf != merkle.LeafHash(append([]byte(leafDomain), body...)) {
			t.Fatalf("leaf %v, %v; want the leaf hash of the domain and the body", leaf, err)
		}
	}
	if got, err := r.AppendMarshal([]byte("x")); err != nil || !bytes.Equal(got, append([]byte("x"), b...)) {
		t.Fatalf("AppendMarshal: %s, %v", got, err)
	}
	r.CallerProof = nil
	if b, _ := r.Marshal(); !bytes.Equal(b, genericJSON(t, r, true)) {
		t.Fatalf("without a countersignature: %s", b)
	}
}
