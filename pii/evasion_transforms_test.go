package pii

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/moltgate/moltgate/wire"
)

// The rewritings an agent that means to get a value past the gate would apply: each takes a
// row's tree and a random stream (seeded per row and rewriting) and rewrites the values, the
// words around them, the whole text or the structure. It reports false when it does not apply
// to the row (no '@' or '.' to spell out) or changes nothing.
type evTransform struct {
	name  string
	what  string // for the document
	apply func(r *rand.Rand, n *enode) bool
	// pairable rewritings are drawn for the pairs; structural ones come last in a pair.
	pairable, structural bool
}

func onValues(f func(r *rand.Rand, v string) string) func(r *rand.Rand, n *enode) bool {
	return func(r *rand.Rand, n *enode) bool { return n.mapValues(r, f) }
}

func onStrings(f func(r *rand.Rand, v string) string) func(r *rand.Rand, n *enode) bool {
	return func(r *rand.Rand, n *enode) bool { return n.mapStrings(r, f) }
}

// sprinkle inserts one of ins between the characters of v, each gap with probability p, at
// least once.
func sprinkle(r *rand.Rand, v string, p float64, ins ...string) string {
	cs := runes(v)
	if len(cs) < 2 {
		return v
	}
	var b strings.Builder
	must := 1 + r.IntN(len(cs)-1)
	for i, c := range cs {
		if i > 0 && (i == must || r.Float64() < p) {
			b.WriteString(ins[r.IntN(len(ins))])
		}
		b.WriteString(c)
	}
	return b.String()
}

// perChar rewrites each character of v with f, with probability p (at least one character f
// changes, when there is one).
func perChar(r *rand.Rand, v string, p float64, f func(r *rand.Rand, c string) string) string {
	cs := runes(v)
	var cand []int
	for i, c := range cs {
		if f(r, c) != c {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return v
	}
	must := cand[r.IntN(len(cand))]
	for i, c := range cs {
		if i == must || r.Float64() < p {
			cs[i] = f(r, c)
		}
	}
	return strings.Join(cs, "")
}

var zeroWidth = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"}

var bidiControls = []string{"\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"}

// lookAlikes are Cyrillic and Greek letters drawn like Latin ones.
var lookAlikes = map[byte][]string{
	'a': {"а", "α"}, 'c': {"с", "ϲ"}, 'e': {"е", "ε"}, 'i': {"і", "ι"}, 'j': {"ј"}, 'o': {"о", "ο"},
	'p': {"р", "ρ"}, 's': {"ѕ"}, 'x': {"х", "χ"}, 'y': {"у", "γ"}, 'h': {"һ"}, 'k': {"κ"}, 'v': {"ν"},
	'A': {"А", "Α"}, 'B': {"В", "Β"}, 'C': {"С"}, 'E': {"Е", "Ε"}, 'H': {"Н", "Η"}, 'I': {"І", "Ι"},
	'J': {"Ј"}, 'K': {"К", "Κ"}, 'M': {"М", "Μ"}, 'N': {"Ν"}, 'O': {"О", "Ο"}, 'P': {"Р", "Ρ"},
	'S': {"Ѕ"}, 'T': {"Т", "Τ"}, 'X': {"Х", "Χ"}, 'Y': {"Υ", "Ү"}, 'Z': {"Ζ"}, '0': {"О", "ο"},
	'1': {"l", "I", "ӏ"}, '3': {"З"}, '@': {"＠", "﹫"}, '.': {"․", "。"}, '-': {"‐", "−", "–"},
}

func homoglyph(r *rand.Rand, c string) string {
	if len(c) == 1 {
		if alts := lookAlikes[c[0]]; alts != nil {
			return alts[r.IntN(len(alts))]
		}
	}
	return c
}

func fullwidth(_ *rand.Rand, c string) string {
	if len(c) == 1 && c[0] > ' ' && c[0] < 0x7f {
		return string(rune(c[0]) + 0xfee0)
	}
	return c
}

// mathAlphabets are the mathematical alphanumeric alphabets without holes (bold, bold italic,
// sans-serif, sans-serif bold, monospace) with their digits (or bold digits).
var mathAlphabets = [][2]rune{{0x1d400, 0x1d7ce}, {0x1d468, 0x1d7ce}, {0x1d5a0, 0x1d7e2}, {0x1d5d4, 0x1d7ec}, {0x1d670, 0x1d7f6}}

func mathAlpha(alpha [2]rune) func(r *rand.Rand, c string) string {
	return func(_ *rand.Rand, c string) string {
		if len(c) != 1 {
			return c
		}
		switch b := rune(c[0]); {
		case b >= 'A' && b <= 'Z':
			return string(alpha[0] + b - 'A')
		case b >= 'a' && b <= 'z':
			return string(alpha[0] + 26 + b - 'a')
		case b >= '0' && b <= '9':
			return string(alpha[1] + b - '0')
		}
		return c
	}
}

// sepWords are the ways to spell '@' and '.' out, in several languages and brackets.
var sepWords = [][2]string{
	{" at ", " dot "}, {" AT ", " DOT "}, {" (at) ", " (dot) "}, {" [at] ", " [dot] "}, {"{at}", "{dot}"},
	{"(at)", "(dot)"}, {" arroba ", " punto "}, {" chez ", " point "}, {" arobase ", " point "},
	{" bei ", " punkt "}, {" at ", " [.] "}, {" <at> ", " <dot> "}, {" At ", " Dot "},
}

func reverse(v string) string {
	cs := runes(v)
	for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
		cs[i], cs[j] = cs[j], cs[i]
	}
	return strings.Join(cs, "")
}

var leetMap = map[byte]string{'a': "4", 'e': "3", 'i': "1", 'o': "0", 's': "5", 't': "7", 'A': "4", 'E': "3", 'I': "1", 'O': "0", 'S': "$", 'T': "7", 'l': "1", 'g': "9"}

func rot13(_ *rand.Rand, w string) string {
	b := []byte(w)
	for i, c := range b {
		switch {
		case isLower(c):
			b[i] = 'a' + (c-'a'+13)%26
		case isUpper(c):
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

func encodeBytes(v string, p float64, r *rand.Rand, enc func(c byte) string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if p >= 1 || r.Float64() < p || v[i] >= 0x80 {
			b.WriteString(enc(v[i]))
		} else {
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

func b64(r *rand.Rand, v string) string {
	encs := []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding}
	return encs[r.IntN(len(encs))].EncodeToString([]byte(v))
}

func b32(r *rand.Rand, v string) string {
	if r.IntN(2) == 0 {
		return base32.StdEncoding.EncodeToString([]byte(v))
	}
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(v))
}

func hexOf(r *rand.Rand, v string) string {
	h := hex.EncodeToString([]byte(v))
	switch r.IntN(3) {
	case 1:
		return strings.ToUpper(h)
	case 2:
		return "0x" + h
	}
	return h
}

func pct(r *rand.Rand, v string) string {
	p := 1.0
	if r.IntN(2) == 0 {
		p = 0.5
	}
	return encodeBytes(v, p, r, func(c byte) string { return fmt.Sprintf("%%%02X", c) })
}

func htmlEnt(r *rand.Rand, v string) string {
	hexForm := r.IntN(2) == 0
	return perChar(r, v, 0.7, func(_ *rand.Rand, c string) string {
		x, _ := utf8.DecodeRuneInString(c)
		if hexForm {
			return fmt.Sprintf("&#x%x;", x)
		}
		return fmt.Sprintf("&#%d;", x)
	})
}

func uEscape(r *rand.Rand, v string) string {
	return perChar(r, v, 0.7, func(_ *rand.Rand, c string) string {
		x, _ := utf8.DecodeRuneInString(c)
		if x > 0xffff {
			return c
		}
		return fmt.Sprintf(`\u%04x`, x)
	})
}

func quotedPrintable(r *rand.Rand, v string) string {
	return encodeBytes(v, 0.8, r, func(c byte) string { return fmt.Sprintf("=%02X", c) })
}

// wrappers put a value in markup.
var wrappers = [][2]string{
	{"**", "**"}, {"`", "`"}, {"```\n", "\n```"}, {"<b>", "</b>"}, {"<span class=\"v\">", "</span>"},
	{"<code>", "</code>"}, {"_", "_"}, {"<td>", "</td>"}, {"~~", "~~"}, {"<em>", "</em>"}, {"> ", "\n"},
	{"<![CDATA[", "]]>"}, {"<p>", "</p>"},
}

// innerTags are what a writer may put inside a value to break it without changing how it shows.
var innerTags = []string{"<b></b>", "</span><span>", "<!-- -->", "<wbr>", "<span></span>", "**", "<i></i>"}

// splitValues cuts every value in one to three places and puts the pieces in sibling members
// (or, asArray, in the items of an array that takes the string's place); the text before and
// after a value goes with its first and last piece.
func splitValues(r *rand.Rand, n *enode, asArray bool) bool {
	style := r.IntN(3)
	pieces := func(s *enode) []string {
		var cuts []int
		for _, x := range s.spans {
			cs := runes(s.s[x[0]:x[1]])
			if len(cs) < 2 {
				continue
			}
			k := 1 + r.IntN(min(3, len(cs)-1))
			seen := map[int]bool{}
			for len(seen) < k {
				seen[1+r.IntN(len(cs)-1)] = true
			}
			off := x[0]
			for i, c := range cs {
				if seen[i] {
					cuts = append(cuts, off)
				}
				off += len(c)
			}
		}
		if len(cuts) == 0 {
			return nil
		}
		var out []string
		last := 0
		for _, c := range sortedInts(cuts) {
			out = append(out, s.s[last:c])
			last = c
		}
		return append(out, s.s[last:])
	}
	done := false
	var walk func(n *enode)
	walk = func(n *enode) {
		var keys []string
		var kids []*enode
		for i, k := range n.kids {
			if k.kind != wire.String || len(k.spans) == 0 {
				walk(k)
				kids = append(kids, k)
				if n.kind == wire.Object {
					keys = append(keys, n.keys[i])
				}
				continue
			}
			ps := pieces(k)
			if ps == nil {
				kids = append(kids, k)
				if n.kind == wire.Object {
					keys = append(keys, n.keys[i])
				}
				continue
			}
			done = true
			var parts []*enode
			for _, p := range ps {
				parts = append(parts, &enode{kind: wire.String, s: p, spans: [][2]int{{0, len(p)}}})
			}
			switch {
			case asArray:
				kids = append(kids, &enode{kind: wire.Array, kids: parts})
				if n.kind == wire.Object {
					keys = append(keys, n.keys[i])
				}
			case n.kind == wire.Array:
				kids = append(kids, parts...)
			default:
				for j, p := range parts {
					kids = append(kids, p)
					switch {
					case style == 0 && j == 0:
						keys = append(keys, n.keys[i])
					case style == 0:
						keys = append(keys, n.keys[i]+"_"+itoa(j+1))
					case style == 1:
						keys = append(keys, n.keys[i]+"_"+string(rune('a'+j)))
					default:
						keys = append(keys, "part"+itoa(j+1))
					}
				}
			}
		}
		n.kids = kids
		if n.kind == wire.Object {
			n.keys = keys
		}
	}
	walk(n)
	return done
}

func sortedInts(a []int) []int {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	return a
}

// nestJSON puts the payload, as JSON text, in a string member of a new payload, depth times.
func nestJSON(r *rand.Rand, n *enode, depth int) bool {
	keys := []string{"data", "payload", "body", "result", "args", "content"}
	for d := 0; d < depth; d++ {
		inner := *n
		s := string(inner.appendJSON(nil))
		*n = enode{kind: wire.Object, keys: []string{keys[r.IntN(len(keys))]},
			kids: []*enode{{kind: wire.String, s: s, spans: [][2]int{{0, len(s)}}}}}
	}
	return true
}

var evTransforms = []evTransform{
	{name: "zero_width", what: "zero-width characters (U+200B/200C/200D/2060/FEFF) between the characters of each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { return sprinkle(r, v, 0.4, zeroWidth...) })},
	{name: "soft_hyphen", what: "soft hyphens (U+00AD) between the characters of each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { return sprinkle(r, v, 0.4, "\u00ad") })},
	{name: "bidi_marks", what: "direction marks, embeddings, overrides and isolates inside each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { return sprinkle(r, v, 0.3, bidiControls...) })},
	{name: "rlo_reversed", what: "each value stored reversed after a right-to-left override (U+202E … U+202C), so that it shows as written",
		apply: onValues(func(_ *rand.Rand, v string) string { return "\u202e" + reverse(v) + "\u202c" })},
	{name: "homoglyph", what: "Cyrillic and Greek look-alikes for the letters (and some digits and signs) of each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { return perChar(r, v, 0.6, homoglyph) })},
	{name: "homoglyph_text", what: "Cyrillic and Greek look-alikes for letters of the words around the values", pairable: true,
		apply: func(r *rand.Rand, n *enode) bool {
			return n.mapWords(r, false, func(r *rand.Rand, w string) string { return perChar(r, w, 0.3, homoglyph) })
		}},
	{name: "fullwidth", what: "full-width forms (U+FF01…) for most characters of each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { return perChar(r, v, 0.8, fullwidth) })},
	{name: "math_alnum", what: "mathematical alphanumeric letters and digits (bold, sans-serif, monospace…) for each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string {
			return perChar(r, v, 0.9, mathAlpha(mathAlphabets[r.IntN(len(mathAlphabets))]))
		})},
	{name: "spaced", what: "a space between every two characters of each value (\"j o h n @ …\")", pairable: true,
		apply: onValues(func(_ *rand.Rand, v string) string { return strings.Join(runes(v), " ") })},
	{name: "dotted", what: "one of - . _ / , between every two characters of each value (\"4-1-1-1…\")", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string {
			return strings.Join(runes(v), []string{"-", ".", "_", "/", ","}[r.IntN(5)])
		})},
	{name: "sep_words", what: "'@' and '.' of each value spelt out: at/dot, (at), [dot], {at}, arroba/punto, chez/point, bei/punkt…", pairable: true,
		apply: func(r *rand.Rand, n *enode) bool {
			w := sepWords[r.IntN(len(sepWords))]
			return n.mapValues(r, func(_ *rand.Rand, v string) string {
				return strings.ReplaceAll(strings.ReplaceAll(v, "@", w[0]), ".", w[1])
			})
		}},
	{name: "case_alternating", what: "the whole text in aLtErNaTiNg case", pairable: true,
		apply: func(r *rand.Rand, n *enode) bool {
			up := r.IntN(2) == 0
			return n.mapStrings(r, func(_ *rand.Rand, s string) string {
				s, up = alternateCase(s, up) // the alternation runs on from string to string
				return s
			})
		}},
	{name: "case_upper", what: "the whole text in capitals", pairable: true,
		apply: onStrings(func(_ *rand.Rand, s string) string { return strings.ToUpper(s) })},
	{name: "leet_context", what: "leetspeak (4 3 1 0 5 7 $ 9) on the words around the values", pairable: true,
		apply: func(r *rand.Rand, n *enode) bool {
			return n.mapWords(r, false, func(r *rand.Rand, w string) string {
				return perChar(r, w, 0.7, func(_ *rand.Rand, c string) string {
					if l, ok := leetMap[c[0]]; ok {
						return l
					}
					return c
				})
			})
		}},
	{name: "rot13_context", what: "ROT13 of the words around the values and of member names", pairable: true,
		apply: func(r *rand.Rand, n *enode) bool { return n.mapWords(r, true, rot13) }},
	{name: "reversed", what: "each value written backwards", pairable: true,
		apply: onValues(func(_ *rand.Rand, v string) string { return reverse(v) })},
	{name: "split_fields", what: "each value cut in 2-4 pieces held by adjacent members or array items", structural: true,
		apply: func(r *rand.Rand, n *enode) bool { return splitValues(r, n, false) }},
	{name: "split_array", what: "each value cut in 2-4 pieces, the string replaced by an array of them", structural: true,
		apply: func(r *rand.Rand, n *enode) bool { return splitValues(r, n, true) }},
	{name: "base64_value", what: "each value in base64 (standard or URL alphabet, padded or not)", pairable: true, apply: onValues(b64)},
	{name: "base32_value", what: "each value in base32", pairable: true, apply: onValues(b32)},
	{name: "hex_value", what: "each value in hex (lower, upper or 0x…)", pairable: true, apply: onValues(hexOf)},
	{name: "percent_value", what: "each value percent-encoded (every byte, or half of them)", pairable: true, apply: onValues(pct)},
	{name: "html_entities", what: "most characters of each value as decimal or hex character references", pairable: true, apply: onValues(htmlEnt)},
	{name: "unicode_escapes", what: "most characters of each value as \\uXXXX escapes in the text", pairable: true, apply: onValues(uEscape)},
	{name: "quoted_printable", what: "most bytes of each value as quoted-printable =XX", pairable: true, apply: onValues(quotedPrintable)},
	{name: "base64_text", what: "the whole string holding a value in base64", pairable: true, apply: onStrings(b64)},
	{name: "hex_text", what: "the whole string holding a value in hex", apply: onStrings(hexOf)},
	{name: "percent_text", what: "the whole string holding a value percent-encoded", pairable: true, apply: onStrings(pct)},
	{name: "html_text", what: "the whole string holding a value as character references", apply: onStrings(htmlEnt)},
	{name: "unicode_escapes_text", what: "the whole string holding a value as \\uXXXX escapes", apply: onStrings(uEscape)},
	{name: "quoted_printable_text", what: "the whole string holding a value quoted-printable", apply: onStrings(quotedPrintable)},
	{name: "json_in_string", what: "the payload as JSON text in a string member of a new payload", structural: true,
		apply: func(r *rand.Rand, n *enode) bool { return nestJSON(r, n, 1) }},
	{name: "json_in_string2", what: "the same, nested twice", structural: true,
		apply: func(r *rand.Rand, n *enode) bool { return nestJSON(r, n, 2) }},
	{name: "markup_wrap", what: "each value wrapped in Markdown, a code fence or an HTML element", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { w := wrappers[r.IntN(len(wrappers))]; return w[0] + v + w[1] })},
	{name: "markup_inside", what: "empty tags, comments or ** inside each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { return sprinkle(r, v, 0.1, innerTags[r.IntN(len(innerTags))]) })},
	{name: "line_breaks", what: "line breaks (\\n, \\r\\n, \\n plus indent) inside each value", pairable: true,
		apply: onValues(func(r *rand.Rand, v string) string { return sprinkle(r, v, 0.08, "\n", "\r\n", "\n  ") })},
	{name: "pair", what: "two of the rewritings above, drawn at random, one after the other (a structural one last)"},
}

// applyPair applies two rewritings drawn from r; it returns their names.
func applyPair(r *rand.Rand, n *enode) (string, bool) {
	var pool, structural []evTransform
	for _, t := range evTransforms {
		switch {
		case t.pairable:
			pool = append(pool, t)
		case t.structural:
			structural = append(structural, t)
		}
	}
	a := pool[r.IntN(len(pool))]
	var b evTransform
	if r.IntN(4) == 0 {
		b = structural[r.IntN(len(structural))]
	} else {
		for b.name == "" || b.name == a.name {
			b = pool[r.IntN(len(pool))]
		}
	}
	okA := a.apply(r, n)
	okB := b.apply(r, n)
	return a.name + "+" + b.name, okA && okB
}

// rewrite applies t to the row's tree with spans; it returns the payload, the rewriting's name
// (a pair's two), and false when t does not apply.
func rewrite(t evTransform, r *rand.Rand, base *enode) (wire.Value, string, bool) {
	n := base.clone()
	name, ok := t.name, false
	if t.name == "pair" {
		name, ok = applyPair(r, n)
	} else {
		ok = t.apply(r, n)
	}
	if !ok {
		return wire.Value{}, name, false
	}
	v, err := n.value()
	if err != nil {
		return wire.Value{}, name, false
	}
	return v, name, true
}

// alternateCase is s with its ASCII letters in alternating case, the
// first in capitals if up, and whether the letter after its last would be.
func alternateCase(s string, up bool) (string, bool) {
	b := []byte(s)
	for i, c := range b {
		if isUpper(c) || isLower(c) {
			if up {
				b[i] = c &^ 0x20
			} else {
				b[i] = c | 0x20
			}
			up = !up
		}
	}
	return string(b), up
}
