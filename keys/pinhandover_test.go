package keys

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func handoverKeys(t *testing.T, seeds ...byte) []Ed25519Public {
	t.Helper()
	var out []Ed25519Public
	for _, s := range seeds {
		k, err := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{s}, 32)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.Public())
	}
	return out
}

// clock is a settable clock for the store.
type clock struct{ ms atomic.Int64 }

func (c *clock) now() time.Time      { return time.UnixMilli(c.ms.Load()) }
func (c *clock) add(d time.Duration) { c.ms.Add(d.Milliseconds()) }
func newClock(t time.Time) *clock    { c := &clock{}; c.ms.Store(t.UnixMilli()); return c }
func openAt(t *testing.T, path string, c *clock) *PinStore {
	t.Helper()
	s, err := OpenPinStore(path, c.now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A handover keeps the old key until the new one is seen in use; from then
// both verify until the overlap ends, and after it only the new one.
func TestPinHandoverSeenInUse(t *testing.T) {
	ks := handoverKeys(t, 1, 2, 3)
	old, next, other := ks[0], ks[1], ks[2]
	c := newClock(time.Unix(1800000000, 0))
	path := filepath.Join(t.TempDir(), "pins.json")
	s := openAt(t, path, c)
	if err := s.Pin("globex", old, X25519Public{}); err != nil {
		t.Fatal(err)
	}
	until := c.now().Add(time.Minute)
	if took, err := s.Handover("globex", old, next, X25519Public{}, c.now(), until); err != nil || !took {
		t.Fatalf("handover: %v %v", took, err)
	}
	if took, err := s.Handover("globex", old, next, X25519Public{}, c.now(), until); err != nil || took {
		t.Fatalf("the same handover again: %v %v", took, err)
	}
	if p, _ := s.Lookup("globex"); !p.Key.Equal(old) || p.Next == nil || !p.Next.Key.Equal(next) {
		t.Fatalf("before the new key is seen: %+v", p)
	}
	if got := s.Accepted("globex"); len(got) != 2 {
		t.Fatalf("accepted during the overlap: %v", got)
	}
	if err := s.Check("globex", old); err != nil {
		t.Fatalf("old key during the overlap: %v", err)
	}
	var mm *MismatchError
	if err := s.Check("globex", other); !errors.As(err, &mm) {
		t.Fatalf("a key nobody handed over to: %v", err)
	}
	if err := s.Check("globex", next); err != nil {
		t.Fatalf("new key: %v", err)
	}
	p, _ := s.Lookup("globex")
	if !p.Key.Equal(next) || p.Previous == nil || !p.Previous.Key.Equal(old) || p.Next != nil {
		t.Fatalf("after the new key was seen: %+v", p)
	}
	// What was taken is on disk: another store reads the same.
	if q, _ := openAt(t, path, c).Lookup("globex"); !q.Equal(p) {
		t.Fatalf("reopened: %+v, want %+v", q, p)
	}
	if err := s.Check("globex", old); err != nil {
		t.Fatalf("old key still in the overlap: %v", err)
	}
	c.add(time.Minute)
	if err := s.Check("globex", old); !errors.As(err, &mm) {
		t.Fatalf("old key after the overlap: %v", err)
	}
	ended, err := s.Expire()
	if err != nil || len(ended) != 1 || ended[0].Name != "globex" || !ended[0].Key.Equal(old) {
		t.Fatalf("expire: %v %v", ended, err)
	}
	if p, _ := s.Lookup("globex"); p.Previous != nil || p.Next != nil || !p.Until.IsZero() || !p.Key.Equal(next) {
		t.Fatalf("settled: %+v", p)
	}
	if err := s.Check("globex", next); err != nil {
		t.Fatal(err)
	}
}

// A peer that never presents its new key loses its old one all the same
// when the overlap ends.
func TestPinHandoverOverlapEndsUnseen(t *testing.T) {
	ks := handoverKeys(t, 1, 2)
	old, next := ks[0], ks[1]
	c := newClock(time.Unix(1800000000, 0))
	s := openAt(t, filepath.Join(t.TempDir(), "pins.json"), c)
	if err := s.Pin("globex", old, X25519Public{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Handover("globex", old, next, X25519Public{}, c.now(), c.now().Add(3*time.Second)); err != nil {
		t.Fatal(err)
	}
	c.add(3 * time.Second)
	ended, err := s.Expire()
	if err != nil || len(ended) != 1 || !ended[0].Key.Equal(old) {
		t.Fatalf("expire: %v %v", ended, err)
	}
	var mm *MismatchError
	if err := s.Check("globex", old); !errors.As(err, &mm) {
		t.Fatalf("old key after the overlap: %v", err)
	}
	if err := s.Check("globex", next); err != nil {
		t.Fatal(err)
	}
	if ended, _ := s.Expire(); len(ended) != 0 {
		t.Fatalf("expired twice: %v", ended)
	}
}

// A handover from a key that is not pinned is refused and changes
// nothing; one whose overlap ended while this side was away is taken
// straight to the new key; two in a row chain.
func TestPinHandoverFromOtherKeyRefused(t *testing.T) {
	ks := handoverKeys(t, 1, 2, 3, 4)
	old, next, third, forger := ks[0], ks[1], ks[2], ks[3]
	c := newClock(time.Unix(1800000000, 0))
	s := openAt(t, filepath.Join(t.TempDir(), "pins.json"), c)
	if err := s.Pin("globex", old, X25519Public{}); err != nil {
		t.Fatal(err)
	}
	var mm *MismatchError
	if _, err := s.Handover("globex", forger, next, X25519Public{}, c.now(), c.now().Add(time.Hour)); !errors.As(err, &mm) {
		t.Fatalf("handover from a key not pinned: %v", err)
	}
	if p, _ := s.Lookup("globex"); p.Next != nil {
		t.Fatalf("refused handover changed the pin: %+v", p)
	}
	if _, err := s.Handover("nobody", old, next, X25519Public{}, c.now(), c.now()); !errors.Is(err, ErrNotPinned) {
		t.Fatalf("handover for a name not pinned: %v", err)
	}
	if _, err := s.Handover("globex", old, next, X25519Public{}, c.now(), c.now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Handover("globex", next, third, X25519Public{}, c.now(), c.now().Add(time.Hour)); err != nil {
		t.Fatalf("chained handover: %v", err)
	}
	if got := s.Accepted("globex"); len(got) != 2 || !got[0].Equal(next) || !got[1].Equal(third) {
		t.Fatalf("after two handovers: %v", got)
	}
	if err := s.Check("globex", old); !errors.As(err, &mm) {
		t.Fatalf("key two handovers back: %v", err)
	}
	c.add(2 * time.Hour)
	s2 := openAt(t, filepath.Join(t.TempDir(), "pins.json"), c)
	if err := s2.Pin("globex", old, X25519Public{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Handover("globex", old, next, X25519Public{}, c.now().Add(-2*time.Hour), c.now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if p, _ := s2.Lookup("globex"); !p.Key.Equal(next) || p.Next != nil || p.Previous != nil {
		t.Fatalf("handover over before it arrived: %+v", p)
	}
}

// The handover members of a pin file are read as strictly as the rest.
func TestPinFileHandoverFields(t *testing.T) {
	k := handoverKeys(t, 1)[0].String()
	path := filepath.Join(t.TempDir(), "pins.json")
	for content, field := range map[string]string{
		`{"pins":[{"name":"a","key":"` + k + `","next":{"key":"x"},"until":"2030-01-01T00:00:00Z"}]}`:                            "pins[0].next.key",
		`{"pins":[{"name":"a","key":"` + k + `","previous":{"key":"` + k + `","enc_key":"y"},"until":"2030-01-01T00:00:00Z"}]}`:  "pins[0].previous.enc_key",
		`{"pins":[{"name":"a","key":"` + k + `","next":{"key":"` + k + `","effective":"soon"},"until":"2030-01-01T00:00:00Z"}]}`: "pins[0].next.effective",
		`{"pins":[{"name":"a","key":"` + k + `","next":{"key":"` + k + `"}}]}`:                                                   "pins[0].until",
		`{"pins":[{"name":"a","key":"` + k + `","until":"later"}]}`:                                                              "pins[0].until",
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := OpenPinStore(path, nil)
		var pe *PinFileError
		if !errors.As(err, &pe) || pe.Field != field || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: got %v, want field %s", content, err, field)
		}
	}
}
