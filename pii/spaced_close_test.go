package pii

import (
	"strings"
	"testing"
)

// TestSpacedRunBeforeClosingSign: a spaced-out value that ends right before a closing sign
// ("(J-a-n-e-…-o-r-g)", "…o r g, thanks", "\"J_a_n_e_…\"") keeps its last character, so that
// what the run holds is read whole (without it, ".or" ends no address).
func TestSpacedRunBeforeClosingSign(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	values := []struct {
		v string
		t Type
	}{
		{"JaneDoe77@example.org", TypeEmail}, {"M.Kowalski42@corp.example.org", TypeEmail},
		{"Lee.Minho9@mail.example.org", TypeEmail}, {"Ana.Souza5@example.org", TypeEmail},
	}
	frames := []string{"write to (%s)", "the value was %s, thanks", "lookup(\"%s\")", "[%s]", "value=%s;"}
	n := 0
	for i, x := range values {
		for j, sep := range []string{" ", "-", "_", "/", ","} {
			if sep == "," && strings.Contains(frames[(i+j)%len(frames)], "%s,") {
				continue
			}
			spaced := strings.Join(strings.Split(x.v, ""), sep)
			s := strings.Replace(frames[(i+j)%len(frames)], "%s", spaced, 1)
			n++
			found := false
			for _, f := range sc.ScanText(s) {
				found = found || f.Type == x.t
			}
			if !found {
				t.Errorf("%q: no %s found", s, x.t)
			}
		}
	}
	if n < 18 {
		t.Fatalf("only %d variants", n)
	}
}
