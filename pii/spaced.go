package pii

import "unicode/utf8"

// Spaced-out values. "J o h n  S m i t h", "4-1-1-1-…", "j.a.n.e.@.e.x.a.m.p.l.e…": every
// character of a value stands alone between the same separator, which no detector reads across.
// The scan tells noteWord of each one-character word it stops at (capitals, digits); one that a
// separator, a character and the same separator follow marks the text, and the spaced view
// closes up each run of at least minSpacedRun characters so spaced (a space inside the value is
// a character of the run: "n   S"). What the view finds on a run is reported, whatever its
// type: text is not spaced out so by chance. The view is normalised in turn like any other, so
// that a blob spaced out ("e y J l b W F p …", "payload=3-6-3-5-…") is decoded once closed up.

// minSpacedRun is the shortest run closed up: shorter ones are initials ("J. R. R.") and
// abbreviations ("U.S.A.").
const minSpacedRun = 6

// spacedSep marks the bytes that may separate the characters of a spaced-out value.
var spacedSep = [256]bool{' ': true, '-': true, '.': true, '_': true, '/': true, ',': true, '|': true, '*': true}

// spacedAt reports whether the one-character word at s[j-1] starts what looks like a spaced run:
// three characters more, each after the same separator ("4-1-1-1", "J o h n"), which versions
// ("2.0.1") and initials ("J. R.") are not.
func spacedAt(s string, j int) bool {
	if j+5 >= len(s) || !spacedSep[s[j]] {
		return false
	}
	c := s[j]
	return s[j+2] == c && s[j+4] == c && s[j+1] != c && s[j+3] != c && s[j+5] != c
}

// spacedView returns s with its spaced runs closed up, the map of its bytes, and the runs, as
// pairs of offsets in the view; a nil map when there is no run.
func spacedView(s string, from int) (string, []int32, []int) {
	var b []byte
	var at []int32
	var runs []int
	last := 0
	for i := from; i < len(s); {
		if s[i] < 0x80 && (i+1 >= len(s) || !spacedSep[s[i+1]]) {
			// Not a character a separator follows: no run starts here.
			i++
			continue
		}
		if i > 0 && !spacedSep[s[i-1]] && s[i-1] != '\n' && s[i-1] != '\t' && s[i-1] != '(' && s[i-1] != ':' && s[i-1] != '"' && s[i-1] != '=' {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		chars, e := spacedRunAt(s, i)
		if k := e - 1; chars > minSpacedRun && spacedSep[s[k]] && k > i && s[k-1] == s[i+utf8RuneLen(s, i)] {
			// A sign alone at the end of a run ("… Y 2 9 t - is that") ends the sentence's
			// clause, not the value.
			chars, e = chars-1, k-1
		}
		if chars < minSpacedRun {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
			at = make([]int32, 0, len(s)+1)
		}
		for k := last; k < i; k++ {
			b = append(b, s[k])
			at = append(at, int32(k))
		}
		start := len(b)
		sep := s[i+utf8RuneLen(s, i)]
		for k := i; k < e; {
			n := utf8RuneLen(s, k)
			b = append(b, s[k:k+n]...)
			for m := 0; m < n; m++ {
				at = append(at, int32(k))
			}
			k += n
			if k < e && s[k] == sep {
				k++
			}
		}
		runs = append(runs, start, len(b))
		i, last = e, e
	}
	if runs == nil {
		return "", nil, nil
	}
	for k := last; k < len(s); k++ {
		b = append(b, s[k])
		at = append(at, int32(k))
	}
	return string(b), append(at, int32(len(s))), runs
}

// underscored reports whether the word w spaces its characters out with '_' ("_j_a_n_e", "4_1_1").
func underscored(w string) bool {
	if w[0] == '_' {
		w = w[1:]
	}
	return len(w) >= 4 && w[1] == '_' && w[3] == '_'
}

func utf8RuneLen(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

// spacedRunAt reads a run at s[i:]: characters standing alone between one separator. It returns
// how many characters it holds and where it ends.
func spacedRunAt(s string, i int) (int, int) {
	if i >= len(s) || spacedSep[s[i]] || s[i] == '\n' {
		return 0, i
	}
	n := utf8RuneLen(s, i)
	if i+n >= len(s) || !spacedSep[s[i+n]] {
		return 0, i
	}
	sep := s[i+n]
	chars, k := 1, i+n // k: at a separator
	for k+1 < len(s) && s[k] == sep {
		c := k + 1
		if s[c] == '\n' || s[c] == sep && sep != ' ' {
			break
		}
		m := utf8RuneLen(s, c)
		// The character stands alone: the separator, a space, a closing sign or the text's
		// end follows it.
		if c+m < len(s) && s[c+m] != sep && s[c+m] != '\n' && !(c+m+1 >= len(s) || isSpaceByte(s[c+m]) || oneOf(s[c+m], ",;)\"'>]")) {
			break
		}
		if s[c] == ' ' && (c+m >= len(s) || s[c+m] != sep) {
			break
		}
		chars++
		k = c + m
		if k >= len(s) || s[k] != sep {
			return chars, k
		}
	}
	return chars, k
}
