package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func reverseString(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestReversedEmail: an address written backwards is found; a user at a host with no domain is not.
func TestReversedEmail(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(5, 8))
	for k := 0; k < 40; k++ {
		local := fmt.Sprintf("%s%s%d", []string{"jane", "li_wei", "o.brien", "kto", "ines"}[r.IntN(5)], []string{"", ".x", "_m"}[r.IntN(3)], r.IntN(99))
		dom := []string{"gmail.com", "web.de", "orange.fr", "yahoo.co.uk", "uol.com.br", "mail.example.org"}[r.IntN(6)]
		s := fmt.Sprintf("%s %s", []string{"reverse this:", "mail me at (backwards)", "contact"}[r.IntN(3)], reverseString(local+"@"+dom))
		if !hasType(sc.ScanText(s), TypeEmail) {
			t.Errorf("%q: no email", s)
		}
	}
	for _, s := range []string{"ssh deploy@buildhost", "git push dev@ci-runner", "root@localhost:~#", "see @mention.here",
		"ping admin@router", "node.js@latest", "npm i lodash.merge@next"} {
		if hasType(sc.ScanText(s), TypeEmail) {
			t.Errorf("%q: email, want none", s)
		}
	}
}
