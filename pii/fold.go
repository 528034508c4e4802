package pii

import (
	"encoding/binary"
	"sort"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Look-alike characters. The detectors read ASCII: digits, '@', '.', '-', spaces and Latin
// letters. Text copied from a web page, a word processor or a chat carries the same values
// written otherwise: a phone number with no-break spaces or non-breaking hyphens, an address
// with a zero-width space in it, full-width digits from an East Asian input method. Each reads
// the same to a person, and most programs fold them back (NFKC, int("４２")), so each would be
// the value leaving under another spelling. A string that holds such a character is scanned as
// it reads: invisible format characters dropped, other spaces and dashes made ASCII, full-width
// forms, small forms, mathematical letters and digits of any script made their ASCII
// counterparts. Findings are then placed back on the string as given. Text in ASCII, or in
// other scripts with none of these characters, is scanned as it is, at no extra cost beyond
// looking for a byte above 0x7f.

// Results of foldRune besides an ASCII byte.
const (
	foldKeep = -1 // the character stays as it is
	foldDrop = -2 // the character is invisible and is left out
)

// foldRune returns what r reads as to the detectors: an ASCII byte, foldDrop or foldKeep.
func foldRune(r rune) int {
	switch {
	case r < 0x80:
		return foldKeep
	case r == 0x00a0, r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000:
		return ' '
	case r >= 0x2010 && r <= 0x2015, r == 0x2212:
		return '-'
	case r == 0x2024, r == 0x3002, r == 0xff61:
		return '.'
	case r >= 0xff01 && r <= 0xff5e:
		return int(r - 0xfee0)
	case r >= 0xfe50 && r <= 0xfe6b:
		if c := smallForms[r-0xfe50]; c != 0 {
			return int(c)
		}
		return foldKeep
	case r >= 0x1d400 && r <= 0x1d6a3:
		// Thirteen alphabets of 52 letters, A to Z then a to z.
		if k := (r - 0x1d400) % 52; k < 26 {
			return int('A' + k)
		} else {
			return int('a' + k - 26)
		}
	case ignorable(r):
		return foldDrop
	}
	if d := digitOf(r); d >= 0 {
		return '0' + d
	}
	return foldKeep
}

// smallForms are the ASCII readings of U+FE50..U+FE6B (compatibility mappings of NFKC).
var smallForms = [...]byte{',', 0, '.', 0, ';', ':', '?', '!', '-', '(', ')', '{', '}', 0, 0, '#',
	'&', '*', '+', '-', '<', '>', '=', 0, '\\', '$', '%', '@'}

// ignorable reports the default-ignorable code points of Unicode that occur in text: characters
// that show nothing (zero-width spaces and joiners, the soft hyphen, direction marks, variation
// selectors, tags, the byte order mark).
func ignorable(r rune) bool {
	switch {
	case r == 0x00ad, r == 0x034f, r == 0x061c, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5,
		r >= 0x180b && r <= 0x180f, r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2060 && r <= 0x206f, r == 0x3164, r >= 0xfe00 && r <= 0xfe0f, r == 0xfeff, r == 0xffa0,
		r >= 0x1bca0 && r <= 0x1bca3, r >= 0x1d173 && r <= 0x1d17a, r >= 0xe0000 && r <= 0xe0fff:
		return true
	}
	return false
}

// digitZeros are the code points of the zeros of every decimal digit run in Unicode other than
// ASCII's. Unicode encodes each script's decimal digits as one run of ten, 0 to 9.
var digitZeros = func() []rune {
	var zs []rune
	add := func(lo, hi rune) {
		for z := lo; z <= hi; z += 10 {
			if z >= 0x80 {
				zs = append(zs, z)
			}
		}
	}
	for _, r := range unicode.Nd.R16 {
		add(rune(r.Lo), rune(r.Hi))
	}
	for _, r := range unicode.Nd.R32 {
		add(rune(r.Lo), rune(r.Hi))
	}
	return zs
}()

// digitOf returns the value of r as a decimal digit of another script, or -1.
func digitOf(r rune) int {
	i := sort.Search(len(digitZeros), func(i int) bool { return digitZeros[i] > r }) - 1
	if i < 0 || r-digitZeros[i] >= 10 || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	return int(r - digitZeros[i])
}

// hasHigh reports whether s holds a byte above 0x7f, eight bytes at a time.
func hasHigh(s string) bool {
	// b aliases s for eight-byte loads; it is never written.
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	const hi = 0x8080808080808080
	i := 0
	for ; i+64 <= len(b); i += 64 {
		w := b[i : i+64]
		if (binary.LittleEndian.Uint64(w[0:])|binary.LittleEndian.Uint64(w[8:])|
			binary.LittleEndian.Uint64(w[16:])|binary.LittleEndian.Uint64(w[24:])|
			binary.LittleEndian.Uint64(w[32:])|binary.LittleEndian.Uint64(w[40:])|
			binary.LittleEndian.Uint64(w[48:])|binary.LittleEndian.Uint64(w[56:]))&hi != 0 {
			return true
		}
	}
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32]
		if (binary.LittleEndian.Uint64(w[0:])|binary.LittleEndian.Uint64(w[8:])|
			binary.LittleEndian.Uint64(w[16:])|binary.LittleEndian.Uint64(w[24:]))&hi != 0 {
			return true
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&hi != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// fold returns s as the detectors read it, and whether that differs from s. When it does,
// x.foldAt maps each byte offset of the folded text (and its end) to its offset in s: where the
// character it stands for starts.
func (x *scanCtx) fold(s string) (string, bool) {
	x.rtl = x.rtl[:0]
	if !hasHigh(s) {
		return s, false
	}
	var wc wordClass
	first := -1
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if foldRune(r) != foldKeep || confusableFirst[s[i]] && confusableAt(s, i, r, &wc) != foldKeep {
			first = i
			break
		}
		i += n
	}
	if first < 0 {
		return s, false
	}
	wc = wordClass{}
	rtlOpen := -1 // start of the run after a right-to-left override; -1 outside one, -2 in one left alone
	b := make([]byte, 0, len(s))
	at := x.foldAt[:0]
	b = append(b, s[:first]...)
	for i := 0; i < first; i++ {
		at = append(at, int32(i))
	}
	for i := first; i < len(s); {
		if s[i] < 0x80 {
			if s[i] == '\n' && rtlOpen != -1 {
				if rtlOpen >= 0 {
					x.rtl = append(x.rtl, int32(rtlOpen), int32(len(b)))
				}
				rtlOpen = -1
			}
			b = append(b, s[i])
			at = append(at, int32(i))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		c := foldRune(r)
		switch {
		case c == foldKeep && confusableFirst[s[i]]:
			c = confusableAt(s, i, r, &wc)
		case r == 0x202c && rtlOpen != -1:
			if rtlOpen >= 0 {
				x.rtl = append(x.rtl, int32(rtlOpen), int32(len(b)))
			}
			rtlOpen = -1
		case r == 0x202e && rtlOpen == -1:
			rtlOpen = len(b)
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			// Embeddings and isolates inside the run: not the shape of a value written to
			// show reversed, and the order they show in is the bidirectional algorithm's.
			rtlOpen = -2
		}
		switch c {
		case foldDrop:
		case foldKeep:
			b = append(b, s[i:i+n]...)
			for k := 0; k < n; k++ {
				at = append(at, int32(i+k))
			}
		default:
			b = append(b, byte(c))
			at = append(at, int32(i))
		}
		i += n
	}
	if rtlOpen >= 0 {
		x.rtl = append(x.rtl, int32(rtlOpen), int32(len(b)))
	}

	x.foldAt = append(at, int32(len(s)))
	return string(b), true
}

// unfold places findings made on the folded text back on the original: a span starts where
// its first character starts and ends where the character after it starts, so that it covers
// every byte of what it found.
func (x *scanCtx) unfold(fs []Finding) {
	for i := range fs {
		fs[i].Start = int(x.foldAt[fs[i].Start])
		fs[i].End = int(x.foldAt[fs[i].End])
	}
}
