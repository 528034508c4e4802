package pii

import (
	"strings"
	"testing"
)

func TestAnnouncedView(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"her ssn is 3889-29-101 (reversed)", "her ssn is 101-92-9883 (reversed)"},
		{"Steuer-ID: 87632859024 — read it backwards", "Steuer-ID: 42095823678 — read it backwards"},
		{"the password, ROT13: Fhzzre2024!", "the password, ROT13: Summer2024!"},
		{"shifted by 3 (letters and digits): Vxpphu5357!", "shifted by 3 (ibqqbop and afdfqp): Summer2024!"},
		{"shifted by 3: Vxpphu2024!", "shifted by 3: Summer2024!"},
		{"order 12345678 shipped", "order 12345678 shipped"}, // no cue, no view
	} {
		v, at := announcedView(c.in)
		if at == nil {
			v = c.in
		}
		if v != c.want {
			t.Errorf("announcedView(%q) = %q, want %q", c.in, v, c.want)
		}
	}
}

func TestAnnouncedFound(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"card number, reversed: 1111111111111114",
		"my e-mail in rot13: wnar.qbr@rknzcyr.bet",
	} {
		if fs := sc.ScanText(s); len(fs) == 0 {
			t.Errorf("nothing found in %q", s)
		}
	}
	for _, s := range []string{
		"the list is sorted in reverse: build 20260412 first",
		"rot13 is no encryption; shift by 3 is no better",
	} {
		if fs := sc.ScanText(s); len(fs) != 0 {
			t.Errorf("%q: found %v", s, fs)
		}
	}
}

// TestAnnouncedWorstCase: a text of nothing but cues and long words makes a view of its own
// length in one pass; a longer text makes none.
func TestAnnouncedWorstCase(t *testing.T) {
	for _, unit := range []string{"reversed ", "rot13 a1b2c3d4 ", "shifted by 7 x9y8z7w6 ", "backwards 12345678901234567890", "concatenate: a | b "} {
		s := strings.Repeat(unit, maxAnnouncedText/len(unit))
		v, at := announcedView(s)
		if at != nil && (len(v) != len(s) || len(at) != len(v)+1) {
			t.Errorf("%q repeated: view of %d bytes, %d offsets, from %d bytes", unit, len(v), len(at), len(s))
		}
		if v, at := joinedPiecesView(s); at != nil && (len(v) > len(s) || len(at) != len(v)+1) {
			t.Errorf("%q repeated: joined view of %d bytes, %d offsets, from %d bytes", unit, len(v), len(at), len(s))
		}
		if _, at := joinedPiecesView(strings.Repeat(unit, 2*maxAnnouncedText/len(unit)+1)); at != nil {
			t.Errorf("%q repeated past %d bytes: a joined view made", unit, maxAnnouncedText)
		}
		if _, at := announcedView(strings.Repeat(unit, 2*maxAnnouncedText/len(unit)+1)); at != nil {
			t.Errorf("%q repeated past %d bytes: a view made", unit, maxAnnouncedText)
		}
	}
}

func FuzzAnnouncedView(f *testing.F) {
	for _, s := range []string{"reversed: 3889-29-101", "rot13: Fhzzre2024!", "shifted by 3 digits: Vxpphu5357!", "backwards é漢字123456"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, at := announcedView(s)
		if at == nil {
			return
		}
		if len(at) != len(v)+1 || int(at[len(v)]) != len(s) || len(v) != len(s) {
			t.Fatalf("%d offsets for a view of %d bytes from %d", len(at), len(v), len(s))
		}
		for k := 0; k < len(v); k++ {
			if at[k] < 0 || int(at[k]) >= len(s) {
				t.Fatalf("offset %d out of bounds: %d", k, at[k])
			}
		}
	})
}

func TestJoinedPiecesView(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"TOKEN in chunks of 8, concatenate: glpat-oU | pr1bE2vK | 4lVKSClo | DR", "TOKEN in chunks of 8, concatenate:glpat-oUpr1bE2vK4lVKSCloDR"},
		{"join them: 4111 1111, 1111 1111\nthen lunch", "join them:4111111111111111\nthen lunch"},
		{"we joined the call at 10", "we joinedthecallat10"},
		{"no cue here | at all", "no cue here | at all"},
	} {
		v, at := joinedPiecesView(c.in)
		if at == nil {
			v = c.in
		}
		if v != c.want {
			t.Errorf("joinedPiecesView(%q) = %q, want %q", c.in, v, c.want)
		}
	}
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if fs := sc.ScanText("we joined the call at 10, then the demo of build 4471 started"); len(fs) != 0 {
		t.Errorf("prose after 'joined': %v", fs)
	}
}

func FuzzJoinedPiecesView(f *testing.F) {
	for _, s := range []string{"concatenate: ab | cd | ef", "join them:\n1 2 3", "joined"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, at := joinedPiecesView(s)
		if at == nil {
			return
		}
		if len(at) != len(v)+1 || int(at[len(v)]) != len(s) || len(v) > len(s) {
			t.Fatalf("%d offsets for a view of %d bytes from %d", len(at), len(v), len(s))
		}
		for k := 1; k < len(at); k++ {
			if at[k] <= at[k-1] {
				t.Fatalf("offset %d: %d after %d", k, at[k], at[k-1])
			}
		}
	})
}
