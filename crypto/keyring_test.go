package crypto

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// rotatedParty is bob after a rotation of his X25519 key: his opener reads
// a keyring whose former key is the one alice may still seal to.
type rotatedParty struct {
	old, new *party
	ring     *Keyring
	now      time.Time
	op       *Opener
}

func newRotated(t *testing.T, codec *wire.Codec, until time.Time) *rotatedParty {
	t.Helper()
	old := newParty(t, codec, "bob", "globex", 2)
	enc, err := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{9}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	id := &identity.Agent{Ref: old.id.Ref, Signing: old.id.Signing, Encryption: enc}
	nw := &party{id: id, box: NewBox(enc, 0)}
	r := &rotatedParty{old: old, new: nw, ring: NewKeyring(old.box).Rotated(nw.box, until)}
	r.op = &Opener{Codec: codec, Keyring: func() *Keyring { return r.ring }, Now: func() time.Time { return r.now }, Accept: AcceptRef(id.Ref)}
	return r
}

// During the overlap an envelope sealed to either key opens, the new one
// first; after it, one sealed to the former key is refused, E_AUTH_FAILED,
// with an error that names both keys and when the former was refused from,
// while the new one still opens.
func TestKeyringOpensEitherDuringOverlap(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	until := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	alice := newParty(t, codec, "alice", "acme", 1)
	bob := newRotated(t, codec, until)
	sealTo := func(to *party, text string) []byte {
		t.Helper()
		env, err := SealMessage(codec, alice.message(to, wire.Conf, text), alice.id.Signing, alice.box, to.box.Public())
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	toOld, toNew := sealTo(bob.old, "to the old key"), sealTo(bob.new, "to the new key")

	bob.now = until.Add(-time.Millisecond)
	for _, c := range []struct {
		env  []byte
		text string
	}{{toOld, "to the old key"}, {toNew, "to the new key"}} {
		m, err := bob.op.Open(c.env)
		if err != nil {
			t.Fatalf("during the overlap, %s: %v", c.text, err)
		}
		if got, _ := m.Payload.(*wire.RespondPayload).Data.Get("text").Str(); got != c.text {
			t.Fatalf("opened %q, want %q", got, c.text)
		}
	}

	bob.now = until
	_, err := bob.op.Open(toOld)
	wantCode(t, err, wire.ErrAuthFailed)
	var we *wire.Error
	errors.As(err, &we)
	for _, want := range []string{"envelope could not be opened", bob.new.box.Public().String(), bob.old.box.Public().String(), "refused since 2026-05-02T12:00:00Z"} {
		if !strings.Contains(we.Message, want) {
			t.Fatalf("after the overlap the refusal says %q, want it to say %q", we.Message, want)
		}
	}
	if we.Field != "ciphertext" {
		t.Fatalf("refusal names %q, want ciphertext", we.Field)
	}
	if _, err := bob.op.Open(toNew); err != nil {
		t.Fatalf("after the overlap, to the new key: %v", err)
	}

	// A box sealed to neither key is refused during the overlap too.
	bob.now = until.Add(-time.Hour)
	carol := newParty(t, codec, "carol", "initech", 3)
	_, err = bob.op.Open(sealTo(carol, "to someone else"))
	wantCode(t, err, wire.ErrAuthFailed)
	if errors.As(err, &we); !strings.Contains(we.Message, "sealed neither to") {
		t.Fatalf("a box for another recipient: %q", we.Message)
	}
}

// A reply goes out of the box of the key its sender names, the former one
// included, so that the receiver's check of from.enc_key against the box's
// sender holds; a key the keyring does not hold has no box.
func TestKeyringFor(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	bob := newRotated(t, codec, time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC))
	carol := newParty(t, codec, "carol", "initech", 3)
	switch {
	case bob.ring.For(bob.new.box.Public()) != bob.new.box, bob.ring.For(keys.X25519Public{}) != bob.new.box:
		t.Fatal("the key in use has not its own box")
	case bob.ring.For(bob.old.box.Public()) != bob.old.box:
		t.Fatal("the former key has not its own box")
	case bob.ring.For(carol.box.Public()) != nil:
		t.Fatal("a key not held has a box")
	}
	// Rotating to the key in use changes nothing.
	if bob.ring.Rotated(bob.new.box, time.Time{}) != bob.ring {
		t.Fatal("a rotation to the key in use made a new keyring")
	}
}

// A second rotation before the first one's overlap ends keeps both keys
// replaced, each until its own overlap ends; Expired drops each then, and
// the refusal names the key refused.
func TestKeyringRotatedTwice(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	first := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	second := first.Add(time.Hour)
	alice := newParty(t, codec, "alice", "acme", 1)
	bob := newRotated(t, codec, first)
	carol := newParty(t, codec, "carol", "initech", 3)
	again := bob.ring.Rotated(carol.box, second)
	if again.Current != carol.box || len(again.Formers) != 2 || again.Formers[0].Box != bob.new.box || again.Formers[1].Box != bob.old.box {
		t.Fatalf("a second rotation holds %+v", again)
	}
	if again.For(bob.old.box.Public()) != bob.old.box || again.For(bob.new.box.Public()) != bob.new.box {
		t.Fatal("a key replaced has not its own box")
	}
	bob.ring = again
	toOldest, err := SealMessage(codec, alice.message(bob.old, wire.Conf, "to the oldest"), alice.id.Signing, alice.box, bob.old.box.Public())
	if err != nil {
		t.Fatal(err)
	}
	bob.now = first.Add(-time.Second)
	if _, err := bob.op.Open(toOldest); err != nil {
		t.Fatalf("two rotations on, sealed to the oldest key during its overlap: %v", err)
	}
	if k, ended := again.Expired(bob.now); k != again || ended != nil {
		t.Fatal("Expired dropped a key during its overlap")
	}
	bob.now = first
	_, err = bob.op.Open(toOldest)
	wantCode(t, err, wire.ErrAuthFailed)
	var we *wire.Error
	if errors.As(err, &we); !strings.Contains(we.Message, bob.old.box.Public().String()+", refused since 2026-05-02T12:00:00Z") || !strings.Contains(we.Message, bob.new.box.Public().String()) {
		t.Fatalf("the refusal of the oldest key says %q", we.Message)
	}
	k, ended := again.Expired(first)
	if len(ended) != 1 || ended[0].Box != bob.old.box || len(k.Formers) != 1 || k.Formers[0].Box != bob.new.box || k.For(bob.old.box.Public()) != nil {
		t.Fatalf("Expired at the first overlap's end: %+v, dropped %+v", k, ended)
	}
	if k, ended = k.Expired(second); len(ended) != 1 || len(k.Formers) != 0 || len(k.Accepting(second)) != 1 {
		t.Fatalf("Expired at the second overlap's end: %+v, dropped %+v", k, ended)
	}
	// Dropped, the keys replaced are still named in a refusal.
	bob.ring, bob.now = k, second
	_, err = bob.op.Open(toOldest)
	wantCode(t, err, wire.ErrAuthFailed)
	if errors.As(err, &we); !strings.Contains(we.Message, bob.old.box.Public().String()+", refused since 2026-05-02T12:00:00Z") ||
		!strings.Contains(we.Message, bob.new.box.Public().String()+", refused since 2026-05-02T13:00:00Z") || !strings.Contains(we.Message, "not sealed to "+carol.box.Public().String()) {
		t.Fatalf("the refusal once the keys replaced are dropped says %q", we.Message)
	}
	// A rotation back to a key replaced holds it once, as the one in use.
	back := again.Rotated(bob.old.box, second)
	if back.Current != bob.old.box || len(back.Formers) != 2 || back.Formers[0].Box != carol.box || back.Formers[1].Box != bob.new.box {
		t.Fatalf("a rotation back to a key replaced holds %+v", back)
	}
}

// Forget zeroes the shared keys a box remembers, and the box works out
// the key again if asked after all.
func TestBoxForget(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{})
	alice, bob := newParty(t, codec, "alice", "acme", 1), newParty(t, codec, "bob", "globex", 2)
	k, err := bob.box.SharedKey(alice.box.Public())
	if err != nil {
		t.Fatal(err)
	}
	want := *k
	bob.box.Forget()
	if *k != ([32]byte{}) {
		t.Fatal("Forget left a shared key in memory")
	}
	again, err := bob.box.SharedKey(alice.box.Public())
	if err != nil || *again != want {
		t.Fatal("after Forget the shared key is not worked out again")
	}
}

// A keyring of one key opens under it alone.
func TestKeyringOneKey(t *testing.T) {
	carol := newParty(t, wire.NewCodec(wire.Limits{}), "carol", "initech", 3)
	if n := len(NewKeyring(carol.box).Accepting(time.Now())); n != 1 {
		t.Fatalf("a keyring of one key accepts %d", n)
	}
}

// BenchmarkSealOpenRotated is BenchmarkSealOpen with the recipient's keys
// in a keyring during a rotation's overlap: sealed to the key in use,
// which opens at the first try, or to the key replaced, which opens after
// a failed try under the key in use.
func BenchmarkSealOpenRotated(b *testing.B) {
	codec, sk, _ := benchSigned(b)
	_, ea, eb := benchKeys()
	ec, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{4}, 32)))
	boxA, former, current := NewBox(ea, 0), NewBox(eb, 0), NewBox(ec, 0)
	ring := NewKeyring(former).Rotated(current, time.Now().Add(time.Hour))
	accept := AcceptRef(wire.Ref{Agent: "weather-bot", Org: "globex"})
	for _, c := range []struct {
		name string
		op   *Opener
		to   keys.X25519Public
	}{
		{"box", &Opener{Codec: codec, Box: current, Accept: accept}, current.Public()},
		{"keyring-current", &Opener{Codec: codec, Keyring: func() *Keyring { return ring }, Accept: accept}, current.Public()},
		{"keyring-former", &Opener{Codec: codec, Keyring: func() *Keyring { return ring }, Accept: accept}, former.Public()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				env, err := SealMessage(codec, benchMessage(sk, ea.Public()), sk, boxA, c.to)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.op.Open(env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
