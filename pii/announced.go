package pii

import (
	"strings"
	"unicode/utf8"
)

// Values turned as the text says. An agent that hides a value from a gate and still means a
// person to get it says how to turn it back: "the SSN, reversed: 3889-29-101", "Steuer-ID:
// 87632859024 — read it backwards", "the password in ROT13: Fhzzre2024!", "shifted by 3 (letters
// and digits)". The announced view turns back, in a text that names such a turning, the words
// it applies to: reversal the words holding a digit (what a number, a key or a password holds;
// the words around them, "SSN:" or "backwards", stay as written), ROT13 and a shift the words
// after the cue on its line. A shift turns letters, and digits too where the text says digits
// or numbers are shifted.
//
// It runs on texts of at most maxAnnouncedText bytes, where such a message is, and only after
// a cue word is found in them.

const (
	maxAnnouncedText = 512
	// minTurnedWord is the shortest word turned: shorter ones are no value worth the view.
	minTurnedWord = 6
)

// reverseCues and shiftCues say that a value is written backwards or shifted, in lower case.
var (
	reverseCues = []string{"reversed", "backwards", "backward", "in reverse", "right to left", "rückwärts",
		"umgekehrt", "à l'envers", "inversé", "al revés", "invertido", "invertida", "al contrario", "al rovescio", "invertito"}
	rot13Cues = []string{"rot13", "rot-13", "rot 13"}
	shiftCues = []string{"shifted by", "shift of", "shift by", "caesar", "verschoben um", "décalé de", "desplazado"}
	joinCues  = []string{"concatenate", "join them", "join the", "joined", "put together", "zusammenfügen", "zusammensetzen",
		"concaténer", "concatenar", "concatenare", "juntar", "unire"}
)

// turnHeads holds the first three bytes (fold3) of every cue of the announced views, by the
// first byte folded.
var turnHeads = func() (t [256][]uint32) {
	for _, cues := range [][]string{reverseCues, rot13Cues, shiftCues, joinCues} {
		for _, c := range cues {
			t[c[0]|0x20] = append(t[c[0]|0x20], fold3(c, 0))
		}
	}
	return t
}()

// mayAnnounce reports whether some word of s opens as a cue of announcedView or
// joinedPiecesView does. It is one pass without allocation, so that the views, which lower the
// text and search it for each cue, run only on the few texts that may name a turning or a join.
func mayAnnounce(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		heads := turnHeads[s[i]|0x20]
		if len(heads) == 0 || i > 0 && isAlpha(s[i-1]) {
			continue
		}
		k := fold3(s, i)
		for _, h := range heads {
			if h == k {
				return true
			}
		}
	}
	return false
}

// joinedPiecesView returns s with the separators between the pieces after a cue that says to
// join them ("in chunks of 8, concatenate: glpat-oU | pr1bE2vK | …") taken out, to the end of the
// cue's line; a nil map when s holds no such cue. Only secrets and numbers count of what it
// finds (acceptJoinedPieces): words of prose glued together make no value.
func joinedPiecesView(s string) (string, []int32) {
	if len(s) > maxAnnouncedText || len(s) < minTurnedWord {
		return "", nil
	}
	c := indexAny(asciiLower(s), joinCues)
	if c < 0 {
		return "", nil
	}
	// The pieces start after the cue's colon, or after the cue itself.
	from := c
	for from < len(s) && s[from] != ':' && s[from] != '\n' && from < c+24 {
		from++
	}
	if from == len(s) || s[from] != ':' {
		from = c
	}
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	changed := false
	line := true
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\n' {
			line = false
		}
		if line && i > from && (ch == ' ' || ch == '|' || ch == ',' || ch == '+' || ch == '/') && i > 0 && i+1 < len(s) {
			changed = true
			continue
		}
		b = append(b, ch)
		at = append(at, int32(i))
	}
	if !changed {
		return "", nil
	}
	return string(b), append(at, int32(len(s)))
}

// acceptJoinedPieces keeps, of what the joined-pieces view finds, secrets and numbers.
func acceptJoinedPieces(_ string, f Finding) bool {
	return f.Type.Class() == ClassSecret || f.Type == TypeCard || f.Type == TypeIBAN || f.Type == TypeEmail
}

// announcedView returns s with the words its cues name turned back; a nil map when s names
// no turning or nothing is turned.
func announcedView(s string) (string, []int32) {
	if len(s) > maxAnnouncedText || len(s) < minTurnedWord {
		return "", nil
	}
	low := asciiLower(s)
	rev := indexAny(low, reverseCues) >= 0
	r13 := indexAny(low, rot13Cues)
	sh, shiftAt := shiftOf(low)
	if !rev && r13 < 0 && sh == 0 {
		return "", nil
	}
	shiftDigits := sh != 0 && (strings.Contains(low, "digit") || strings.Contains(low, "number") || strings.Contains(low, "ziffer") || strings.Contains(low, "chiffre"))
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	changed := false
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\n' || s[i] == '\t' {
			b = append(b, s[i])
			at = append(at, int32(i))
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' {
			j++
		}
		w := s[i:j]
		switch {
		case j-i < minTurnedWord:
		case r13 >= 0 && i > r13 && sameLine(s, r13, i):
			for k := i; k < j; k++ {
				b = append(b, caesarBack(s[k], 13, false))
				at = append(at, int32(k))
			}
			i, changed = j, true
			continue
		case sh != 0 && i > shiftAt && sameLine(s, shiftAt, i):
			for k := i; k < j; k++ {
				b = append(b, caesarBack(s[k], sh, shiftDigits))
				at = append(at, int32(k))
			}
			i, changed = j, true
			continue
		case rev && hasDigitByte(w):
			// Characters in reverse order; each keeps its offset, so a finding's span is the
			// lowest and highest offset of its bytes (spanOfReversed).
			for k := j; k > i; {
				_, n := utf8.DecodeLastRuneInString(s[i:k])
				b = append(b, s[k-n:k]...)
				for m := 0; m < n; m++ {
					at = append(at, int32(k-n+m))
				}
				k -= n
			}
			i, changed = j, true
			continue
		}
		b = append(b, w...)
		for k := i; k < j; k++ {
			at = append(at, int32(k))
		}
		i = j
	}
	if !changed {
		return "", nil
	}
	return string(b), append(at, int32(len(s)))
}

// indexAny returns where the first of cues is in s, or -1.
func indexAny(s string, cues []string) int {
	at := -1
	for _, c := range cues {
		if i := strings.Index(s, c); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	return at
}

// shiftOf returns the shift a cue in s names ("shifted by 3", "caesar +5") and where the number
// ends; 0 when none does.
func shiftOf(s string) (int, int) {
	i := indexAny(s, shiftCues)
	if i < 0 {
		return 0, 0
	}
	k := i
	for k < len(s) && k < i+24 && !isDigit(s[k]) {
		k++
	}
	n, e := 0, k
	for e < len(s) && e < k+2 && isDigit(s[e]) {
		n = n*10 + int(s[e]-'0')
		e++
	}
	if e == k || n%26 == 0 {
		return 0, 0
	}
	return n % 26, e
}

func sameLine(s string, a, b int) bool { return strings.IndexByte(s[a:b], '\n') < 0 }

// caesarBack shifts an ASCII letter k places back in its alphabet, and a digit k places back
// among the digits when digits is set.
func caesarBack(c byte, k int, digits bool) byte {
	switch {
	case c >= 'a' && c <= 'z':
		return 'a' + byte((int(c-'a')+26-k%26)%26)
	case c >= 'A' && c <= 'Z':
		return 'A' + byte((int(c-'A')+26-k%26)%26)
	case digits && c >= '0' && c <= '9':
		return '0' + byte((int(c-'0')+10-k%10)%10)
	}
	return c
}

func hasDigitByte(w string) bool {
	for i := 0; i < len(w); i++ {
		if isDigit(w[i]) {
			return true
		}
	}
	return false
}

// asciiLower is s with its ASCII capitals in lower case, byte for byte.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c | 0x20
		}
	}
	return string(b)
}
