package pii

import "unicode/utf8"

// Arrays of characters. A value written one character an item, ["j","a","n","e","@",…] or
// ["4","1","1","1"," ",…], is the string its items spell, and one too long for the joined view's
// maxJoinParts parts: an array whose items are all single characters is read whole up to
// maxCharParts of them, as one joined view whose every part is a character.

// maxCharParts bounds the items of an array of characters read as one joined view: a long key
// or an IBAN spelt out fits, and the view stays as short as maxJoinLen.
const maxCharParts = maxJoinLen / 4

// oneChar reports whether s is a single character.
func oneChar(s string) bool {
	if s == "" {
		return false
	}
	_, n := utf8.DecodeRuneInString(s)
	return n == len(s)
}

// charParts reports whether parts, the items of an array, are all single characters.
func charParts(parts []jpart) bool {
	for _, p := range parts {
		if p.key != "" || p.kids != nil || p.row || !oneChar(p.s) {
			return false
		}
	}
	return true
}

// partRoom reports whether a container whose parts so far are parts has room for one more, s
// under key: maxJoinParts and one (the view declines more than maxJoinParts), or maxCharParts
// while every part, s among them, is a single character of an array.
func partRoom(parts []jpart, s, key string) bool {
	if len(parts) <= maxJoinParts {
		return true
	}
	return len(parts) < maxCharParts && key == "" && oneChar(s) && charParts(parts)
}

// joinChars reads the characters of an array longer than maxJoinParts as the one text they
// spell, with every detector, as a text cut in pieces is read (joined_text.go), and returns what
// it finds per character taken.
func (x *scanCtx) joinChars(parts []jpart, key keyKind) []jhit {
	offs := make([]int, len(parts)+1)
	b := make([]byte, 0, len(parts)*2)
	for i, p := range parts {
		offs[i] = len(b)
		b = append(b, p.s...)
	}
	offs[len(parts)] = len(b)
	v := string(b)
	var hits []jhit
	for _, h := range x.joinScanAll(nil, v, []jpart{{s: v}}, []int{0, len(v)}, key, true) {
		if h.cue {
			continue
		}
		for i := range parts {
			if h.f.Start < offs[i+1] && offs[i] < h.f.End {
				g := h.f
				g.Start, g.End = 0, len(parts[i].s)
				hits = append(hits, jhit{part: i, f: g})
			}
		}
	}
	return hits
}
