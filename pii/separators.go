package pii

import "strings"

// Separator obfuscation. People and agents write an address so that a harvester misses it:
// "jane dot doe at example dot com", "jane [at] example [dot] com", "j a n e @ e x a m p l e .
// c o m", and a card number with odd separators, "4111/1111/1111/1111" or "4 1 1 1 ...". The
// separators view writes '@' and '.' for the spelt-out or bracketed markers and closes up runs
// of single characters; only the e-mail addresses it finds count (a view that glues words
// together would otherwise make numbers and names of its own). The digit view reads a chain
// of three or more digit groups under one separator as one number, for cards only.

// maxSepLangText bounds the length of a text in which every word is tried as a word for '.' of
// any language ("punkt", "point", "punto", "DOT"). An address spelt out is mostly a field or a
// short message; in a longer text the lower-case " dot " and the bracketed forms are looked
// for, and "DOT" or "Dot" the scan reports, since trying every word of a long document would
// cost more than the rest of the scan.
const maxSepLangText = 256

// sepLang is one language's words for '@' and '.' in an address spelt out. A view uses one
// language's pair at a time: "at" with "point" would read "stuck at this point in" as a mailbox.
type sepLang struct{ at, dot []string }

var sepLangs = [...]sepLang{
	{at: []string{"at"}, dot: []string{"dot"}},
	{at: []string{"\u00e4t", "bei"}, dot: []string{"punkt"}},
	{at: []string{"chez", "arobase"}, dot: []string{"point"}},
	{at: []string{"arroba"}, dot: []string{"punto", "ponto"}},
}

// sepDotFirst marks the (lower-case) first bytes of sepLangs' words for '.': most words of a
// text start with none of them and are passed over at the cost of one load.
var sepDotFirst = func() (t [256]bool) {
	for _, l := range sepLangs {
		for _, w := range l.dot {
			t[w[0]] = true
		}
	}
	return t
}()

// sepCandidate returns, as bits of sepLangs, the languages whose word for '.' s holds between
// spaces; a bracketed "at", "dot", "@" or ".", or an '@' with a space beside it, counts for the
// first ("DOT" the scan reports itself). " dot " is searched for as a whole, which costs a
// fraction of looking at every 'd' of the prose; the other words in texts of at most
// maxSepLangText bytes.
func sepCandidate(s string, mk uint16) uint8 {
	var langs uint8
	if mk&markDot != 0 && strings.Contains(s, " dot ") {
		langs |= 1
	}
	if len(s) <= maxSepLangText && mk&markSpace != 0 {
		// A short text: every word after a space is tried against every language's word for
		// '.', in one loop.
		for i := 0; i+3 < len(s); i++ {
			if s[i] != ' ' {
				continue
			}
			r := s[i+1:]
			if !sepDotFirst[r[0]|0x20] {
				continue
			}
			for l := range sepLangs {
				for _, w := range sepLangs[l].dot {
					if r[0]|0x20 == w[0] && hasFoldPrefix(r, w) && len(r) > len(w) && r[len(w)] == ' ' {
						langs |= 1 << l
					}
				}
			}
		}
	}
	if langs&1 != 0 {
		return langs
	}
	for k, c := range [...]byte{'[', '(', '{', '<'} {
		if mk&[...]uint16{markLBrack, markLParen, markLBrace, markLt}[k] == 0 {
			continue
		}
		for r := s; ; {
			i := strings.IndexByte(r, c)
			if i < 0 {
				break
			}
			if _, n := bracketMarker(r[i:]); n > 0 {
				return langs | 1
			}
			r = r[i+1:]
		}
	}
	for r := s; mk&markAt != 0; {
		i := strings.IndexByte(r, '@')
		if i < 0 {
			return langs
		}
		if i > 0 && r[i-1] == ' ' || i+1 < len(r) && r[i+1] == ' ' {
			return langs | 1
		}
		r = r[i+1:]
	}
	return langs
}

// bracketMarker reads "[at]", "(dot)", "{@}", "<.>" (any case, spaces inside allowed) at the
// start of s and returns '@' or '.' and its length, or 0 bytes.
func bracketMarker(s string) (byte, int) {
	if len(s) < 3 {
		return 0, 0
	}
	var closer byte
	switch s[0] {
	case '[':
		closer = ']'
	case '(':
		closer = ')'
	case '{':
		closer = '}'
	case '<':
		closer = '>'
	default:
		return 0, 0
	}
	i := 1
	for i < len(s) && s[i] == ' ' {
		i++
	}
	var ch byte
	switch {
	case hasFoldPrefix(s[i:], "at"):
		ch, i = '@', i+2
	case hasFoldPrefix(s[i:], "dot"):
		ch, i = '.', i+3
	case i < len(s) && (s[i] == '@' || s[i] == '.'):
		ch, i = s[i], i+1
	default:
		return 0, 0
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && s[i] == closer {
		return ch, i + 1
	}
	return 0, 0
}

// wordMarker reads, at s[i:], spaces then one of lang's words for '@' or '.' then spaces, and
// returns '@' or '.' and the end, or 0.
func wordMarker(s string, i int, lang *sepLang) (byte, int) {
	k := i
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k == i || k == len(s) {
		return 0, i
	}
	var ch byte
	w := 0
	for _, d := range lang.dot {
		if hasFoldPrefix(s[k:], d) {
			ch, w = '.', len(d)
		}
	}
	for _, a := range lang.at {
		if w == 0 && (hasFoldPrefix(s[k:], a) || a[0] >= 0x80 && strings.HasPrefix(s[k:], a)) {
			ch, w = '@', len(a)
		}
	}
	e := k + w
	if w == 0 || e >= len(s) || s[e] != ' ' {
		return 0, i
	}
	for e < len(s) && s[e] == ' ' {
		e++
	}
	return ch, e
}

// sepView returns s with the markers of lang, and the bracketed ones, written as '@' and '.',
// and runs of three or more single characters between single spaces closed up; a nil map when
// nothing changed.
func sepView(s string, lang *sepLang) (string, []int32) {
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	changed := false
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '[' || c == '(' || c == '{' || c == '<' {
			k := i
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if ch, n := bracketMarker(s[k:]); n > 0 {
				e := k + n
				for e < len(s) && s[e] == ' ' {
					e++
				}
				b = append(b, ch)
				at = append(at, int32(k))
				i, changed = e, true
				continue
			}
			if ch, e := wordMarker(s, i, lang); ch != 0 {
				b = append(b, ch)
				at = append(at, int32(i))
				i, changed = e, true
				continue
			}
			if c == ' ' && (i+1 < len(s) && s[i+1] == '@' || i > 0 && s[i-1] == '@') {
				// "jane @ example.com": the space beside '@' goes.
				i, changed = i+1, true
				continue
			}
			if c == ' ' && spacedRun(s, i) {
				i, changed = i+1, true
				continue
			}
		}
		b = append(b, c)
		at = append(at, int32(i))
		i++
	}
	if !changed {
		return "", nil
	}
	return string(b), append(at, int32(len(s)))
}

// spacedRun reports whether the space at s[i] sits between two single characters of a run of
// three or more ("j a n e"), each standing alone between spaces or markers.
func spacedRun(s string, i int) bool {
	single := func(p int) bool { // s[p] is a character standing alone
		return p >= 0 && p < len(s) && s[p] != ' ' && (p == 0 || s[p-1] == ' ') && (p+1 == len(s) || s[p+1] == ' ')
	}
	if !single(i-1) || !single(i+1) {
		return false
	}
	return single(i-3) || single(i+3)
}

// digitView scans the digit groups of s[a:b] (a chain the scan saw) as one number when one
// separator, without a comma or a colon, parts them, and keeps a card number it finds.
func (x *scanCtx) digitView(a, b int) {
	s := x.s
	var sep string
	var buf [19]byte
	var at [20]int32
	n := 0
	for i := a; i < b; {
		if isDigit(s[i]) {
			if n == len(buf) {
				return
			}
			buf[n], at[n] = s[i], int32(i)
			n++
			i++
			continue
		}
		e := i
		for e < b && !isDigit(s[e]) {
			e++
		}
		if g := s[i:e]; sep == "" {
			if strings.ContainsAny(g, ",:\n") {
				return
			}
			sep = g
		} else if g != sep {
			return
		}
		i = e
	}
	if sep == "" || n < 13 || !x.room(n) {
		return
	}
	at[n] = int32(b)
	x.scanView(string(buf[:n]), at[:n+1], 0, 0, StageSeparators, func(_ string, f Finding) bool { return f.Type == TypeCard })
}
