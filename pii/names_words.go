package pii

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Words known as a given name or a surname somewhere, beyond the gazetteer's lists: the
// npm package humannames 1.0.5 (MIT, LICENSE.humannames; names gathered from public census
// lists and social media), less every word of the gazetteer's lists and every word the Debian
// wamerican dictionary holds in any case, so that no common word, and no place or brand the
// dictionary spells, is among them. names/README.md says how the list is made
// (pii/internal/namesgen). Alone such a word is not a name ("Liwia" could be anything); it is
// evidence that tips a capitalised pair with a cue into one ("Liwia Ligenza called again").

//go:embed names/namewords.txt.gz
var nameWordsGz []byte

// nameWordList is the sorted list, kept as one string with the offsets of its words so that
// the 140,000 words cost one allocation rather than a map's.
type nameWordList struct {
	text string
	offs []uint32
}

var nameWords = sync.OnceValue(func() *nameWordList {
	l := &nameWordList{}
	b, err := gunzip(nameWordsGz)
	if err != nil {
		return l
	}
	l.text = string(b)
	l.offs = append(l.offs, 0)
	for i := 0; i < len(l.text); i++ {
		if l.text[i] == '\n' {
			l.offs = append(l.offs, uint32(i+1))
		}
	}
	return l
})

func (l *nameWordList) word(i int) string {
	end := len(l.text)
	if i+1 < len(l.offs) {
		end = int(l.offs[i+1]) - 1
	}
	return l.text[l.offs[i]:end]
}

func (l *nameWordList) has(lw string) bool {
	i, ok := slices.BinarySearchFunc(l.offs, lw, func(off uint32, t string) int {
		end := strings.IndexByte(l.text[off:], '\n')
		if end < 0 {
			return strings.Compare(l.text[off:], t)
		}
		return strings.Compare(l.text[off:int(off)+end], t)
	})
	return ok && l.word(i) == lw
}

// isNameWord reports whether w, a capitalised word (a possessive "'s" dropped), is known as a
// given name or a surname in any of the lists.
func isNameWord(w string) bool {
	w = strings.TrimSuffix(w, "'s")
	if len(w) < 2 || len(w) > 32 {
		return false
	}
	if isGivenName(w) || inNameList(ambiguousGiven(), w) || inNameList(surnames(), w) {
		return true
	}
	// The list is in ASCII: "Sörös", "Kónya" and "Szczepańska" are looked up as "soros",
	// "konya" and "szczepanska".
	var buf [96]byte
	return nameWords().has(string(latinLower(buf[:0], w)))
}

// latinLower appends w to b in lower case with the diacritics of latinFold spelt in ASCII.
func latinLower(b []byte, w string) []byte {
	for i := 0; i < len(w); {
		if c := w[i]; c < 0x80 {
			b = append(b, lower(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(w[i:])
		r = unicode.ToLower(r)
		if f, ok := latinFold[r]; ok {
			b = append(b, f...)
		} else {
			b = utf8.AppendRune(b, r)
		}
		i += n
	}
	return b
}

// latinFold spells the lower-case letters with diacritics of the Latin alphabets of Europe
// and Turkey in ASCII, as the names of humannames are spelt.
var latinFold = func() map[rune]string {
	m := map[rune]string{}
	for _, p := range strings.Fields(`àa áa âa ãa äa åa ąa ăa āa æae çc ćc čc ďd đd ðd èe ée êe ëe ęe ěe ēe ėe ğg ģg
		ìi íi îi ïi ıi īi įi ķk ĺl ľl łl ļl ñn ńn ňn ņn òo óo ôo õo öo øo őo ōo œoe ŕr řr śs šs şs șs ßss ťt ţt țt
		þth ùu úu ûu üu ůu űu ūu ųu ýy ÿy źz żz žz`) {
		r, n := utf8.DecodeRuneInString(p)
		m[r] = p[n:]
	}
	return m
}()

// gunzip decompresses an embedded list.
func gunzip(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
