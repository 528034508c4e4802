package pii

import "testing"

func TestSmoke(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, txt := range []string{
		"Contact me at john.doe@example.com or +1 (415) 555-2671 please.",
		"My card 4111 1111 1111 1111 expires soon, SSN: 078-05-1123",
		"IBAN GB82 WEST 1234 5698 7654 32 and NHS number 401 023 2137",
		"My name is Siiri and I live at 221 Baker Street, London NW1 6XE",
		"token: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 and AKIALALEMEL33243OLIB",
		"password=Tr0ub4dor&3xyz",
		"She was born on 2/8/1935. Her maiden name is Clark",
		"released version 1.2.3 on 2024-01-05 at 10:30, build 20240105",
	} {
		t.Logf("%q", txt)
		for _, f := range s.ScanText(txt) {
			t.Logf("   %v  %q", f, txt[f.Start:f.End])
		}
	}
}
