package pii

import "strings"

// Separator obfuscation. People and agents write an address so that a harvester misses it:
// "jane dot doe at example dot com", "jane [at] example [dot] com", "j a n e @ e x a m p l e .
// c o m", and a card number with odd separators, "4111/1111/1111/1111" or "4 1 1 1 ...". The
// separators view writes '@' and '.' for the spelt-out or bracketed markers and closes up runs
// of single characters; only the e-mail addresses it finds count (a view that glues words
// together would otherwise make numbers and names of its own). The digit view reads a chain
// of three or more digit groups under one separator as one number, for cards only.

// sepCandidate reports whether s holds " dot ", a bracketed "at", "dot", "@" or ".", or an '@'
// with a space beside it; capDot says the scan met "DOT" or "Dot" as a word. Searching for
// " dot " as a whole costs a fraction of looking at every 'd' of the prose.
func sepCandidate(s string, capDot bool) bool {
	if capDot || strings.Contains(s, " dot ") {
		return true
	}
	for _, c := range [...]byte{'[', '(', '{', '<'} {
		for r := s; ; {
			i := strings.IndexByte(r, c)
			if i < 0 {
				break
			}
			if _, n := bracketMarker(r[i:]); n > 0 {
				return true
			}
			r = r[i+1:]
		}
	}
	for r := s; ; {
		i := strings.IndexByte(r, '@')
		if i < 0 {
			return false
		}
		if i > 0 && r[i-1] == ' ' || i+1 < len(r) && r[i+1] == ' ' {
			return true
		}
		r = r[i+1:]
	}
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

// wordMarker reads, at s[i:], spaces then "at" or "dot" as a word then spaces, and returns '@'
// or '.' and the end, or 0.
func wordMarker(s string, i int) (byte, int) {
	k := i
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k == i {
		return 0, i
	}
	var ch byte
	var w int
	switch {
	case hasFoldPrefix(s[k:], "dot"):
		ch, w = '.', 3
	case hasFoldPrefix(s[k:], "at"):
		ch, w = '@', 2
	default:
		return 0, i
	}
	e := k + w
	if e >= len(s) || s[e] != ' ' {
		return 0, i
	}
	for e < len(s) && s[e] == ' ' {
		e++
	}
	return ch, e
}

// sepView returns s with the markers written as '@' and '.', and runs of three or more single
// characters between single spaces closed up; a nil map when nothing changed.
func sepView(s string) (string, []int32) {
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
			if ch, e := wordMarker(s, i); ch != 0 {
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
	if sep == "" || n < 13 {
		return
	}
	at[n] = int32(b)
	x.scanView(string(buf[:n]), at[:n+1], 0, 0, StageSeparators, func(_ string, f Finding) bool { return f.Type == TypeCard })
}
