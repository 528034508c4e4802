package pii

import (
	"math/rand/v2"
	"testing"
)

// TestLeetShortcutHolds holds assignKey's shortcut to leetIdent: where the name read back over
// keyByte holds no look-alike and neither '@' nor '$' stands before it, leetIdent finds no name.
// Generated names of letters, digits, look-alikes, '_', '.', '-', '@', '$' and other bytes, of
// every length up to 90.
func TestLeetShortcutHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := "pasword_PASWORD.-4@013$57x9 \"'=:"
	for n := 0; n < 300000; n++ {
		b := make([]byte, 1+r.IntN(90))
		for k := range b {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		ie := r.IntN(len(s) + 1)
		k := ie
		var leet byte
		for k > 0 && keyByte[s[k-1]] {
			leet |= leetLetter[s[k-1]]
			k--
		}
		mayLeet := leet != 0 || k > 0 && (s[k-1] == '@' || s[k-1] == '$')
		var lb [40]byte
		if _, _, ok := leetIdent(lb[:0], s, ie); ok && !mayLeet {
			t.Fatalf("%q, name ending at %d: leetIdent finds a name the shortcut passes over", s, ie)
		}
	}
}
