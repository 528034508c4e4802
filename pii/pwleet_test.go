package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLeetKeyWords: a password's or a secret's key spelt with look-alike digits and signs is the
// key it spells; names with digits that spell no key word say nothing.
func TestLeetKeyWords(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(7, 11))
	swap := map[byte]string{'a': "4@", 'o': "0", 'e': "3", 's': "5$", 'i': "1"}
	leet := func(w string) string {
		for {
			var b strings.Builder
			n := 0
			for i := 0; i < len(w); i++ {
				if alt, ok := swap[w[i]]; ok && r.IntN(2) == 0 {
					b.WriteByte(alt[r.IntN(len(alt))])
					n++
				} else {
					b.WriteByte(w[i])
				}
			}
			if n > 0 {
				return b.String()
			}
		}
	}
	for k := 0; k < 40; k++ {
		word := []string{"password", "passwort", "passwd", "pass", "admin_password", "db_pass"}[r.IntN(6)]
		v := fmt.Sprintf("%s%d%c%s", []string{"Harbor", "tiger", "Mango", "soleil"}[r.IntN(4)], r.IntN(9000)+10, "!#$*"[r.IntN(4)], []string{"x", "Qz", "k9"}[r.IntN(3)])
		s := fmt.Sprintf("%s%s%s", leet(word), []string{": ", " = ", "=", ":"}[r.IntN(4)], v)
		if !hasType(sc.ScanText(s), TypePassword) {
			t.Errorf("%q: no password", s)
		}
	}
	for _, s := range []string{"h264: enabled", "k8s: 1.29", "l10n: de_DE", "p2p = off", "ipv4: 10.0.0.1",
		"b64: aGVsbG8=", "mp3: 320kbps", "w3c = strict", "s3: bucket-eu-1", "x509: verify"} {
		if fs := sc.ScanText(s); len(fs) > 0 {
			t.Errorf("%q: %v, want nothing", s, fs)
		}
	}
}
