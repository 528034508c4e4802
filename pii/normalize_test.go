package pii

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// genValues makes n personal values of the kinds an encoding hides most: e-mail addresses and
// card numbers (with a valid Luhn digit), from a seeded generator.
func genValues(r *rand.Rand, n int) []struct {
	typ Type
	v   string
} {
	locals := []string{"jane.doe", "m.rossi", "li_wei", "o.brien", "anna-maria", "kto", "s.nakamura", "pjotr.k", "ines", "d.okafor"}
	domains := []string{"example.com", "mail.example.org", "corp.example.net", "uni.example.ac.uk", "example.de"}
	out := make([]struct {
		typ Type
		v   string
	}, 0, n)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			v := fmt.Sprintf("%s%d@%s", locals[r.IntN(len(locals))], r.IntN(100), domains[r.IntN(len(domains))])
			out = append(out, struct {
				typ Type
				v   string
			}{TypeEmail, v})
			continue
		}
		prefix := []string{"4", "51", "52", "37", "6011"}[r.IntN(5)]
		l := 16
		if prefix == "37" {
			l = 15
		}
		d := []byte(prefix)
		for len(d) < l-1 {
			d = append(d, byte('0'+r.IntN(10)))
		}
		d = append(d, cardCheckDigit(d))
		out = append(out, struct {
			typ Type
			v   string
		}{TypeCard, string(d)})
	}
	return out
}

// cardCheckDigit returns the check digit that makes the digits d followed by it pass Luhn.
func cardCheckDigit(d []byte) byte {
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if (len(d)-1-i)%2 == 0 {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return byte('0' + (10-sum%10)%10)
}

func htmlEntities(r *rand.Rand, v string) string {
	var b strings.Builder
	for i, c := range []byte(v) {
		switch {
		case c == '@' || c == '.' || r.IntN(3) == 0:
			switch r.IntN(3) {
			case 0:
				fmt.Fprintf(&b, "&#%d;", c)
			case 1:
				fmt.Fprintf(&b, "&#x%x;", c)
			default:
				if n, ok := map[byte]string{'@': "&commat;", '.': "&period;", '_': "&lowbar;", '-': "&hyphen;"}[c]; ok {
					b.WriteString(n)
				} else if i == len(v)-1 {
					fmt.Fprintf(&b, "&#X%X", c) // browsers forgive a missing ';' at the end
				} else {
					fmt.Fprintf(&b, "&#X%X;", c)
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pctEncode percent-encodes '@', '.' and some other bytes of v (at least one), each escape
// introduced by pct ("%", or "%25" for a double encoding).
func pctEncode(r *rand.Rand, v, pct string) string {
	var b strings.Builder
	k := r.IntN(len(v))
	for i, c := range []byte(v) {
		if c == '@' || c == '.' || i == k || r.IntN(4) == 0 {
			fmt.Fprintf(&b, "%s%02X", pct, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// grouped writes a card number in groups of four; an address is left as it is.
func grouped(v string) string {
	if strings.Contains(v, "@") {
		return v
	}
	var g []string
	for k := 0; k < len(v); k += 4 {
		g = append(g, v[k:min(k+4, len(v))])
	}
	return strings.Join(g, " ")
}

// encodings are the ways a value is hidden, each with the Via its finding must carry.
var encodings = []struct {
	name string
	via  string
	enc  func(r *rand.Rand, v string) string
}{
	{"percent", "percent", func(r *rand.Rand, v string) string {
		return "https://example.net/signup?next=%2Fhome&who=" + pctEncode(r, v, "%") + "&x=1"
	}},
	{"percent-query-escape", "percent|separators", func(r *rand.Rand, v string) string {
		return "q=" + url.QueryEscape("send it to "+grouped(v)+" please")
	}},
	{"percent-all", "percent", func(r *rand.Rand, v string) string {
		var b strings.Builder
		for _, c := range []byte(v) {
			fmt.Fprintf(&b, "%%%02X", c)
		}
		return "value: " + b.String()
	}},
	{"percent-double", "percent → percent", func(r *rand.Rand, v string) string {
		return "redirect=" + pctEncode(r, v, "%25")
	}},
	{"html-entities", "html", func(r *rand.Rand, v string) string { return "<p>Contact: " + htmlEntities(r, v) + "</p>" }},
	{"html-split", "html", func(r *rand.Rand, v string) string {
		k := 1 + r.IntN(len(v)-2)
		return "Reach " + v[:k] + "<span class=\"x\"></span>" + v[k:] + " today"
	}},
	{"mailto", "html", func(r *rand.Rand, v string) string {
		return `<a class="btn" href="mailto:` + v + `?subject=Hi">write to us</a>`
	}},
	{"attr", "html", func(r *rand.Rand, v string) string { return `<input type="hidden" value="` + v + `"/>` }},
	{"base64", "base64", func(r *rand.Rand, v string) string {
		return "payload " + base64.StdEncoding.EncodeToString([]byte("user="+v+";role=admin")) + " end"
	}},
	{"base64-raw", "base64", func(r *rand.Rand, v string) string {
		return "b64:" + base64.RawStdEncoding.EncodeToString([]byte(v))
	}},
	{"base64-url", "base64 → json", func(r *rand.Rand, v string) string {
		return "ref=" + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"`+v+`","n":`+fmt.Sprint(r.IntN(999))+`}`))
	}},
	{"base32", "base32", func(r *rand.Rand, v string) string {
		return "id " + base32.StdEncoding.EncodeToString([]byte(v))
	}},
	{"hex", "hex", func(r *rand.Rand, v string) string { return "blob " + hex.EncodeToString([]byte(v)) }},
	{"hex-0x-upper", "hex", func(r *rand.Rand, v string) string {
		return "data 0x" + strings.ToUpper(hex.EncodeToString([]byte(v)))
	}},
	{"base64-of-percent", "base64 → percent", func(r *rand.Rand, v string) string {
		return base64.StdEncoding.EncodeToString([]byte("to=" + pctEncode(r, v, "%")))
	}},
	{"percent-of-html", "percent → html", func(r *rand.Rand, v string) string {
		return "m=" + url.QueryEscape(strings.ReplaceAll(v, "@", "&#64;"))
	}},
	{"unicode-escapes", "escapes", func(r *rand.Rand, v string) string {
		return "value: " + perChar(r, v, 0.5, func(r *rand.Rand, c string) string {
			return [...]string{`\u00`, `\U000000`, `\x`}[r.IntN(3)] + fmt.Sprintf("%02x", c[0])
		})
	}},
	{"unicode-escapes-braced", "escapes", func(r *rand.Rand, v string) string {
		return "s = \"" + strings.ReplaceAll(strings.ReplaceAll(v, "@", `\u{40}`), ".", `\u{2e}`) + "\"\n"
	}},
	{"quoted-printable", "quoted-printable", func(r *rand.Rand, v string) string {
		return "Content-Transfer-Encoding: quoted-printable\n\n" + quotedPrintable(r, v)
	}},
	{"quoted-printable-at", "quoted-printable", func(r *rand.Rand, v string) string {
		var b strings.Builder
		for _, c := range []byte(v) {
			switch {
			case c == '@' || c == '.' || isDigit(c):
				fmt.Fprintf(&b, "=%02X", c)
			default:
				b.WriteByte(c)
			}
		}
		return "reply to " + b.String()
	}},
	{"right-to-left-override", "bidi|", func(r *rand.Rand, v string) string {
		return "paid with \u202e" + reverse(v) + "\u202c, thanks"
	}},
	{"spaced-out", "separators", func(r *rand.Rand, v string) string {
		return "Send it to " + strings.Join(runes(v), []string{" ", "-", "_", "/"}[r.IntN(4)]) + " today"
	}},
	{"look-alikes", "", func(r *rand.Rand, v string) string {
		// Cyrillic and Greek ones: "l" for "1" is ASCII, and ASCII is read as it is.
		return "write to " + perChar(r, v, 0.5, func(r *rand.Rand, c string) string {
			if h := homoglyph(r, c); len(h) > 1 {
				return h
			}
			return c
		})
	}},
}

// TestEncodedValues: every generated value, under every encoding, is found with its Via and a
// span on the encoded text; the value itself is not in the finding's String.
func TestEncodedValues(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(20, 2))
	for _, e := range encodings {
		n := 0
		for _, val := range genValues(r, 24) {
			text := e.enc(r, val.v)

			n++
			var got *Finding
			fs := sc.ScanText(text)
			for i := range fs {
				if fs[i].Type == val.typ {
					got = &fs[i]
				}
			}
			if got == nil {
				t.Errorf("%s: %s not found in %q: %v", e.name, val.typ, text, fs)
				continue
			}
			// A value the text shows as it is may be found as it is; one it hides must be
			// found through one of the decodings named.
			if via := got.Via.String(); !(via == "" && strings.Contains(text, val.v)) && !slices.Contains(strings.Split(e.via, "|"), via) {
				t.Errorf("%s: %q found via %q, want %q", e.name, text, via, e.via)
			}
			if got.Start < 0 || got.End > len(text) || got.Start >= got.End {
				t.Errorf("%s: span %d:%d of %d bytes", e.name, got.Start, got.End, len(text))
			}
			if strings.Contains(got.String(), val.v) {
				t.Errorf("%s: finding shows the value: %s", e.name, got)
			}
			if masked := sc.MaskString(text); strings.Contains(masked, val.v) || masked == text {
				t.Errorf("%s: MaskString(%q) = %q", e.name, text, masked)
			}
		}
		if n < 20 {
			t.Errorf("%s: only %d variants", e.name, n)
		}
	}
}

// TestSeparatorObfuscation: addresses spelt out or bracketed, spaced letters, and card numbers
// under odd separators, generated.
func TestSeparatorObfuscation(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(8, 3))
	atMarks := []string{" at ", " AT ", " [at] ", "[at]", " (at) ", "(at)", " {at} ", " <at> ", " [@] ", " @ "}
	dotMarks := []string{" dot ", " DOT ", " Dot ", " [dot] ", "[dot]", " (dot) ", "(dot)", " {dot} ", " [.] "}
	n := 0
	for _, val := range genValues(r, 60) {
		if val.typ != TypeEmail {
			continue
		}
		at, dot := atMarks[r.IntN(len(atMarks))], dotMarks[r.IntN(len(dotMarks))]
		if r.IntN(3) == 0 {
			// The words of another language, in pairs.
			p := [][2]string{{" ät ", " punkt "}, {" bei ", " Punkt "}, {" chez ", " point "}, {" arobase ", " point "},
				{" arroba ", " punto "}, {" arroba ", " ponto "}}[r.IntN(6)]
			at, dot = p[0], p[1]
		}
		text := "reach me: " + strings.ReplaceAll(strings.Replace(val.v, "@", at, 1), ".", dot) + " thanks"
		if r.IntN(4) == 0 {
			text = "mail " + strings.Join(strings.Split(val.v, ""), " ")
		}
		n++
		fs := sc.ScanText(text)
		if len(fs) != 1 || fs[0].Type != TypeEmail || fs[0].Via != Via(StageSeparators) {
			t.Errorf("%q: %v", text, fs)
		}
	}
	seps := []string{"/", ".", "_", "|", " - ", " • ", "  ", "*", "~"}
	for _, val := range genValues(r, 50) {
		if val.typ != TypeCard {
			continue
		}
		sep := seps[r.IntN(len(seps))]
		var groups []string
		for k := 0; k < len(val.v); k += 4 {
			groups = append(groups, val.v[k:min(k+4, len(val.v))])
		}
		if r.IntN(4) == 0 {
			groups, sep = strings.Split(val.v, ""), " "
		}
		text := "card on file: " + strings.Join(groups, sep)
		n++
		fs := sc.ScanText(text)
		if len(fs) != 1 || fs[0].Type != TypeCard {
			t.Errorf("%q: %v", text, fs)
		}
	}
	if n < 40 {
		t.Errorf("only %d variants", n)
	}
}

// TestNormalizeHardNegatives: what decodes to nothing personal, and prose that only looks like
// an obfuscation, gives no finding from a view.
func TestNormalizeHardNegatives(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(5, 5))
	var texts []string
	for i := 0; i < 24; i++ {
		raw := make([]byte, 16+r.IntN(48))
		for k := range raw {
			raw[k] = byte(r.Uint32())
		}
		texts = append(texts,
			"sha256 "+hex.EncodeToString(raw),
			"nonce="+base64.StdEncoding.EncodeToString(raw),
			"etag "+base64.RawURLEncoding.EncodeToString(raw),
			"b64 "+base64.StdEncoding.EncodeToString([]byte(benchProse[i*20:i*20+60])),
			fmt.Sprintf("Find us at example%d dot com, or visit the site at shop dot example dot org", i),
			fmt.Sprintf("We were stuck at this point in time, %d days in; rendez-vous chez Anna, point final", i),
			fmt.Sprintf("The build took %d%% CPU and 50%%ile latency; a &b; x<y and list<String>", i),
			fmt.Sprintf("values %d, %d, %d, %d, %d, %d, %d", r.IntN(9999), r.IntN(9999), r.IntN(9999), r.IntN(9999), r.IntN(9999), r.IntN(9999), r.IntN(9999)),
			fmt.Sprintf("released 2024-%02d-%02d 12:%02d:00 build %d", 1+r.IntN(12), 1+r.IntN(28), r.IntN(60), r.IntN(1e6)),
		)
	}
	for _, text := range texts {
		for _, f := range sc.ScanText(text) {
			if f.Via != 0 {
				t.Errorf("%q: %s", text, f)
			}
		}
	}
}

// TestNormalizeBounded: hostile nesting and size stop at the bounds and still find what the
// bounds allow.
func TestNormalizeBounded(t *testing.T) {
	sc := mustScanner(t)
	v := "user=jane.doe@example.com"
	for i := 0; i < 12; i++ {
		v = base64.StdEncoding.EncodeToString([]byte(v))
	}
	if fs := sc.ScanText(v); len(fs) != 0 {
		t.Errorf("12 nested base64 layers: %v, want nothing beyond depth %d", fs, maxViewDepth)
	}
	w := "jane.doe@example.com"
	for i := 0; i < 3; i++ {
		w = base64.StdEncoding.EncodeToString([]byte(w))
	}
	if fs := sc.ScanText(w); len(fs) != 1 || fs[0].Via.String() != "base64 → base64 → base64" {
		t.Errorf("3 nested base64 layers: %v", fs)
	}
	big := strings.Repeat("%2525&amp;amp; dot [at] "+base64.StdEncoding.EncodeToString([]byte("%26amp;%40 dot ")), 1<<14)
	x := sc.getCtx()
	x.scanString(big, keyNone, false)
	if x.decoded > x.budget {
		t.Errorf("decoded %d bytes for a %d-byte text, budget %d", x.decoded, len(big), x.budget)
	}
	sc.putCtx(x)
}

func mustScanner(t testing.TB) *Scanner {
	t.Helper()
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// FuzzNormalize: whatever the nesting of encodings, findings stay within the text, in order,
// and their String never shows what they cover.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"jane%2540example.com", "&#x6a;ane&commat;example&period;com", "<a href='mailto:a@b.co'>",
		base64.StdEncoding.EncodeToString([]byte("jane@example.com %34111111111111111")), "j a n e [at] x (dot) com",
		"4111/1111/1111/1111", hex.EncodeToString([]byte("4111 1111 1111 1111")), "%%%%&&&&<<<<====", "&#99999999;&#xffffffff;",
		`jane\u0040example\x2ecom \ud83d\ude00 \u{1F600} \U0010FFFF \`, "jane=40example=2Ecom=\n", "\u202emoc.elpmaxe@enaj\u202c \u202e\u202a",
		"j-o-h-n-@-e-x-a-m-p-l-e-.-c-o-m 4 1 1 1   1", "**jane**@`example.com`~~x~~", `{"email":"jane@example.com","n":[1,2]}`,
		"раssword Тr0ub4dоr 4111 О111"} {
		f.Add(s)
	}
	sc := mustScanner(f)
	f.Fuzz(func(t *testing.T, s string) {
		prev := -1
		for _, fd := range sc.ScanText(s) {
			if fd.Start < 0 || fd.End > len(s) || fd.Start >= fd.End || fd.Start < prev {
				t.Fatalf("span [%d,%d) of %d bytes after %d", fd.Start, fd.End, len(s), prev)
			}
			prev = fd.Start
			if v := s[fd.Start:fd.End]; len(v) >= 4 && strings.Contains(fd.String(), v) && !strings.Contains(fd.Type.String()+fd.Rule+fd.Via.String(), v) {
				t.Fatalf("String() shows the value %q: %s", v, fd)
			}
		}
	})
}
