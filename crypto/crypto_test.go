package crypto

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantCode(t *testing.T, err error, code wire.Code) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

// TestNaClBoxKAT runs every NaCl box known answer through Box.
func TestNaClBoxKAT(t *testing.T) {
	b, err := os.ReadFile("testdata/nacl/nacl_box_kat.json")
	if err != nil {
		t.Fatal(err)
	}
	var kat struct {
		Box []struct {
			ID, SenderSK, RecipientSK, Nonce, Msg, Box, PrecomputedKey string
			SenderPK, RecipientPK                                      *string
		} `json:"box"`
		LowOrder struct {
			Keys []string `json:"keys"`
		} `json:"low_order_public_keys"`
		X25519 []struct{ AliceSK, AlicePK, BobSK, BobPK, Shared string } `json:"x25519"`
	}
	// The file's keys are snake_case.
	var raw map[string]json.RawMessage
	json.Unmarshal(b, &raw)
	fix := strings.NewReplacer(`"sender_sk"`, `"SenderSK"`, `"recipient_sk"`, `"RecipientSK"`, `"sender_pk"`, `"SenderPK"`,
		`"recipient_pk"`, `"RecipientPK"`, `"precomputed_key"`, `"PrecomputedKey"`, `"alice_sk"`, `"AliceSK"`,
		`"alice_pk"`, `"AlicePK"`, `"bob_sk"`, `"BobSK"`, `"bob_pk"`, `"BobPK"`)
	if err := json.Unmarshal([]byte(fix.Replace(string(b))), &kat); err != nil {
		t.Fatal(err)
	}
	if len(kat.Box) == 0 || len(kat.LowOrder.Keys) == 0 || len(kat.X25519) == 0 {
		t.Fatal("vectors missing")
	}
	for _, v := range kat.Box {
		sender, err := keys.X25519FromBytes(unhex(t, v.SenderSK))
		if err != nil {
			t.Fatal(err)
		}
		recipient, err := keys.X25519FromBytes(unhex(t, v.RecipientSK))
		if err != nil {
			t.Fatal(err)
		}
		if v.RecipientPK != nil && recipient.Public().String() != mustKey(t, *v.RecipientPK) {
			t.Fatalf("%s: recipient public key", v.ID)
		}
		sb, rb := NewBox(sender, 0), NewBox(recipient, 0)
		if v.PrecomputedKey != "" {
			k, err := sb.SharedKey(recipient.Public())
			if err != nil || hex.EncodeToString(k[:]) != v.PrecomputedKey {
				t.Fatalf("%s: shared key %x, want %s (%v)", v.ID, k, v.PrecomputedKey, err)
			}
		}
		nonce := (*[24]byte)(unhex(t, v.Nonce))
		sealed, err := sb.SealTo(nil, unhex(t, v.Msg), nonce, recipient.Public())
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(sealed) != v.Box {
			t.Fatalf("%s: box differs", v.ID)
		}
		opened, err := rb.OpenFrom(nil, unhex(t, v.Box), nonce, sender.Public())
		if err != nil || hex.EncodeToString(opened) != v.Msg {
			t.Fatalf("%s: open: %v", v.ID, err)
		}
		bad := unhex(t, v.Box)
		bad[len(bad)-1] ^= 1
		if _, err := rb.OpenFrom(nil, bad, nonce, sender.Public()); err == nil {
			t.Fatalf("%s: opened a modified box", v.ID)
		}
	}
	for _, v := range kat.X25519 {
		a, _ := keys.X25519FromBytes(unhex(t, v.AliceSK))
		bob, _ := keys.X25519FromBytes(unhex(t, v.BobSK))
		s, err := a.ECDH(bob.Public())
		bobPub := bob.Public()
		if err != nil || hex.EncodeToString(s) != v.Shared || hex.EncodeToString(bobPub[:]) != v.BobPK {
			t.Fatalf("x25519: %v", err)
		}
	}
	// The low-order key is refused when parsed, and by Box even if a
	// caller builds the key by hand.
	own, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{5}, 32)))
	for _, k := range kat.LowOrder.Keys {
		if _, err := keys.X25519PublicFromBytes(unhex(t, k)); !errors.Is(err, keys.ErrLowOrder) {
			t.Fatalf("low-order key accepted: %v", err)
		}
		var pub keys.X25519Public
		copy(pub[:], unhex(t, k))
		if _, err := NewBox(own, 0).SharedKey(pub); err == nil {
			t.Fatal("Box derived a key with a low-order point")
		}
	}
}

func mustKey(t *testing.T, h string) string {
	var k keys.X25519Public
	copy(k[:], unhex(t, h))
	return k.String()
}

type party struct {
	id  *identity.Agent
	box *Box
	op  *Opener
}

func newParty(t testing.TB, codec *wire.Codec, agent, org string, seed byte) *party {
	t.Helper()
	id, err := identity.Generate(bytes.NewReader(bytes.Repeat([]byte{seed}, 64)), wire.Ref{Agent: agent, Org: org})
	if err != nil {
		t.Fatal(err)
	}
	p := &party{id: id, box: NewBox(id.Encryption, 0)}
	p.op = &Opener{Codec: codec, Box: p.box, Accept: AcceptRef(id.Ref)}
	return p
}

func (p *party) message(to *party, cls wire.Class, text string) *wire.Message {
	data, _ := wire.ValueOf(map[string]any{"text": text, "n": 1.5})
	return &wire.Message{
		V: wire.Version, ID: "550e8400-e29b-41d4-a716-446655440000", TS: 1800000000000, Op: wire.OpRespond,
		From: p.id.Sender(), To: to.id.Ref, Cls: cls,
		Payload: &wire.RespondPayload{Status: "success", Data: data},
	}
}

func TestSignVerify(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	signed, err := Sign(codec, a.message(b, wire.Int, "héllo 😀"), a.id.Signing)
	if err != nil {
		t.Fatal(err)
	}
	m, err := codec.Decode(signed)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
	wantCode(t, VerifyWith(m, b.id.Signing.Public()), wire.ErrSignature)

	// Whitespace and member order on the wire do not matter: the
	// signature covers the parsed message.
	var v any
	json.Unmarshal(signed, &v)
	pretty, _ := json.MarshalIndent(v, "", "   ")
	m2, err := codec.Decode(pretty)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(m2); err != nil {
		t.Fatalf("re-indented message: %v", err)
	}

	// Signing with a key that is not from.key is refused.
	wrong := a.message(b, wire.Int, "x")
	if _, err := Sign(codec, wrong, b.id.Signing); err == nil {
		t.Fatal("signed with a key other than from.key")
	}
	// An unsigned message does not verify.
	unsigned, _ := codec.Encode(a.message(b, wire.Int, "x"))
	mu, _ := codec.Decode(unsigned)
	wantCode(t, Verify(mu), wire.ErrSignature)
}

// TestAppendSign checks that AppendSign leaves dst's bytes alone and
// appends what Sign returns.
func TestAppendSign(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	m := a.message(b, wire.Int, "héllo")
	want, err := Sign(codec, m, a.id.Signing)
	if err != nil {
		t.Fatal(err)
	}
	m.Sig = keys.Signature{}
	got, err := AppendSign([]byte("prefix"), codec, m, a.id.Signing)
	if err != nil {
		t.Fatal(err)
	}
	if string(got[:6]) != "prefix" || !bytes.Equal(got[6:], want) {
		t.Fatalf("AppendSign gave %q, want prefix then %q", got, want)
	}
}

// TestVerifyPythonForm: a signature over the reference Python SDK's form is
// accepted.
func TestVerifyPythonForm(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	m := a.message(b, wire.Int, "café ☕ with a float")
	if err := codec.Check(m); err != nil {
		t.Fatal(err)
	}
	py, _ := m.AppendPythonSigningBytes(nil)
	jcs, _ := m.AppendSigningBytes(nil)
	if bytes.Equal(py, jcs) {
		t.Fatal("test message should differ between the two forms")
	}
	m.Sig = a.id.Signing.Sign(py)
	wireBytes, _ := m.AppendWire(nil)
	got, err := codec.Decode(wireBytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(got); err != nil {
		t.Fatalf("python-form signature refused: %v", err)
	}
}

// TestTamperSigned flips every bit pattern of every byte of a signed
// message: none may verify.
func TestTamperSigned(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	signed, err := Sign(codec, a.message(b, wire.Int, "transfer 100 to bob"), a.id.Signing)
	if err != nil {
		t.Fatal(err)
	}
	for i := range signed {
		for _, flip := range []byte{0x01, 0x20, 0x80} {
			bad := bytes.Clone(signed)
			bad[i] ^= flip
			m, err := codec.Decode(bad)
			if err == nil {
				err = Verify(m)
			}
			if err == nil {
				t.Fatalf("byte %d ^ %#x: tampered message verified:\n%s", i, flip, bad)
			}
		}
	}
}

// TestTamperSealed flips every byte of a sealed envelope: none may open.
func TestTamperSealed(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	env, err := SealMessage(codec, a.message(b, wire.Conf, "the merger closes friday"), a.id.Signing, a.box, b.id.Encryption.Public())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.op.Open(env); err != nil {
		t.Fatalf("untouched envelope: %v", err)
	}
	for i := range env {
		for _, flip := range []byte{0x01, 0x20, 0x80} {
			bad := bytes.Clone(env)
			bad[i] ^= flip
			if _, err := b.op.Open(bad); err == nil {
				t.Fatalf("byte %d ^ %#x: tampered envelope opened:\n%s", i, flip, bad)
			}
		}
	}
}

// TestSurreptitiousForwarding: bob re-seals alice's signed message to carol;
// carol must refuse it, because it names bob and was sealed by bob's key.
func TestSurreptitiousForwarding(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b, c := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2), newParty(t, codec, "carol", "initech", 3)
	env, err := SealMessage(codec, a.message(b, wire.Conf, "for bob only"), a.id.Signing, a.box, b.id.Encryption.Public())
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.op.Open(env)
	if err != nil {
		t.Fatal(err)
	}
	// Bob forwards the exact signed bytes, sealed with his own key.
	forwarded, err := b.box.Seal(m.Raw(), c.id.Encryption.Public(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.op.Open(forwarded)
	wantCode(t, err, wire.ErrAuthFailed)

	// Even if carol would accept mail for bob, the sealing key gives the
	// forwarding away.
	lax := &Opener{Codec: codec, Box: c.box, Accept: func(wire.Ref) bool { return true }}
	_, err = lax.Open(forwarded)
	wantCode(t, err, wire.ErrAuthFailed)

	// And a message sealed by alice to carol but addressed to bob is
	// refused by carol too.
	misaddressed, _ := SealMessage(codec, a.message(b, wire.Conf, "x"), a.id.Signing, a.box, c.id.Encryption.Public())
	_, err = c.op.Open(misaddressed)
	wantCode(t, err, wire.ErrAuthFailed)
}

func TestClearTextClassLimit(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	for _, cls := range []wire.Class{wire.Pub, wire.Int} {
		signed, _ := Sign(codec, a.message(b, cls, "x"), a.id.Signing)
		if _, err := b.op.Open(signed); err != nil {
			t.Fatalf("bare %s: %v", cls, err)
		}
		m, _ := codec.Decode(signed)
		plain, _ := wire.AppendPlain(nil, m)
		if _, err := b.op.Open(plain); err != nil {
			t.Fatalf("plain %s: %v", cls, err)
		}
	}
	for _, cls := range []wire.Class{wire.Conf, wire.Sec} {
		signed, _ := Sign(codec, a.message(b, cls, "x"), a.id.Signing)
		_, err := b.op.Open(signed)
		wantCode(t, err, wire.ErrClassification)
	}
}

func TestSealUsesOneScalarMult(t *testing.T) {
	// The shared key must equal x/crypto's Precompute (which is what peers
	// using NaCl compute), and be cached.
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	k1, _ := a.box.SharedKey(b.id.Encryption.Public())
	k2, _ := a.box.SharedKey(b.id.Encryption.Public())
	if k1 != k2 {
		t.Fatal("shared key not cached")
	}
	k3, _ := b.box.SharedKey(a.id.Encryption.Public())
	if *k1 != *k3 {
		t.Fatal("the two sides derived different keys")
	}
}

func FuzzOpen(f *testing.F) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(f, codec, "alice", "acme", 1), newParty(f, codec, "bob", "globex", 2)
	env, _ := SealMessage(codec, a.message(b, wire.Conf, "x"), a.id.Signing, a.box, b.id.Encryption.Public())
	signed, _ := Sign(codec, a.message(b, wire.Int, "y"), a.id.Signing)
	f.Add(env)
	f.Add(signed)
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := b.op.Open(in)
		if err != nil {
			return
		}
		// Whatever opens is addressed to bob and verifies.
		if m.To != b.id.Ref || Verify(m) != nil {
			t.Fatal("opened a message that is not bob's or does not verify")
		}
	})
}

// TestSignAfterCheck: a message checked once is not checked again when it is signed
// unchanged, but every change after the check is seen: signed if valid, refused if not.
func TestSignAfterCheck(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	a, b := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	m := a.message(b, wire.Int, "first")
	tree, err := codec.CheckTree(m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := codec.CheckTree(m)
	if err != nil || !again.Equal(tree) {
		t.Fatalf("a second check of the same message: %v", err)
	}
	// Changed after the check: the signature covers the change.
	m.Exp = 1800000060000
	data, _ := wire.ValueOf(map[string]any{"text": "second"})
	m.Payload = &wire.RespondPayload{Status: "success", Data: data}
	signed, err := Sign(codec, m, a.id.Signing)
	if err != nil {
		t.Fatal(err)
	}
	got, err := codec.Decode(signed)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(got); err != nil {
		t.Fatal(err)
	}
	if text, _ := got.Payload.(*wire.RespondPayload).Data.Get("text").Str(); text != "second" || got.Exp != 1800000060000 {
		t.Fatalf("signed %q with exp %d: the change after the check was lost", text, got.Exp)
	}
	// A change that makes the message invalid is refused, even after a check.
	bad := a.message(b, wire.Int, "x")
	if _, err := codec.CheckTree(bad); err != nil {
		t.Fatal(err)
	}
	bad.To.Agent = "no such agent!"
	if _, err := Sign(codec, bad, a.id.Signing); err == nil {
		t.Fatal("signed a message made invalid after its check")
	}
}
