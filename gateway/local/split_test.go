package local

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitText(t *testing.T) {
	cases := []struct {
		s    string
		max  int
		want []string
	}{
		{"", 4, []string{""}},
		{"abcd", 4, []string{"abcd"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"aéé", 2, []string{"a", "é", "é"}},                                   // é is two bytes: no cut inside it
		{"🙂🙂", 5, []string{"🙂", "🙂"}},                                         // four bytes each
		{"ab🙂", 4, []string{"ab", "🙂"}},                                       // the cut moves back to the character's start
		{"\xff\xff\xff\xff\xff", 2, []string{"\xff\xff", "\xff\xff", "\xff"}}, // not UTF-8: cut at the limit
	}
	for _, c := range cases {
		got := splitText(c.s, c.max)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("splitText(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
		for _, p := range got {
			if len(p) > c.max {
				t.Errorf("piece %q longer than %d", p, c.max)
			}
			if utf8.ValidString(c.s) && !utf8.ValidString(p) {
				t.Errorf("piece %q of valid text is not valid UTF-8", p)
			}
		}
	}
}
