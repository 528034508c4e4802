package pii

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Context cues: short lower-case phrases looked for in a window before (or after) a candidate.
// A cue must start at a word boundary; it may end inside a word, so "birth" matches "birthday".
var (
	cardCues = newCues("card", "credit", "debit", "visa", "mastercard", "amex", "cc ", "cc#", "cc:", "cc no", "payment", "pan ",
		"karte", "kreditkarte", "carte bancaire", "carte de cr", "carte bleue", "tarjeta", "creditcard", "bankkaart",
		"karta kredytowa", "karta płatnicza", "platební kart", "kreditkort", "betalkort", "cartão", "cartao",
		"carta di credito", "kredi kartı", "カード", "信用卡", "银行卡")
	ssnCues   = newCues("ssn", "social security", "social sec", "ss#", "ss #", "ss no")
	itinCues  = newCues("itin", "taxpayer", "tax id", "tin")
	phoneCues = newCues("phone", "call", "tel", "mobile", "cell", "fax", "sms", "text me", "whatsapp", "dial", "ring", "contact", "reach", "desk", "hotline", "answering", "messages to", "registered", "number", "mob", "ph:", "ph.", "direct", "office:", "home:", "work:",
		"tālr", "puhelin", "puh.", "puh:") // Latvian, Finnish
	nhsCues      = newCues("nhs", "health service")
	abaCues      = newCues("routing", "aba", "rtn", "transit", "bank")
	accountCues  = newCues("account", "acct", "a/c", "bank", "konto", "compte")
	passportCues = newCues("passport", "reisepass", "passeport", "pasaporte", "passaporto", "paspoort")
	dlCues       = newCues("driver", "driving", "licence", "license", "dl#", "dl:", "dl no", "führerschein")
	nationalCues = newCues(append(append(moreSchemeCues(), nzMUCues()...), "national id", "national identity", "id number", "id no", "id#", "id card", "identity", "identification",
		"pesel", "personnummer", "personal number", "personal code", "personal id", "fødselsnummer", "fodselsnummer", "birth number",
		"rodné", "rodne", "egn", "cnp", "emšo", "emso", "amka", "kennitala", "codice fiscale", "fiscal code", "steuer", "tax id",
		"tax number", "bsn", "burgerservicenummer", "nir", "sécurité sociale", "securite sociale", "insee", "dni", "nie", "nif",
		"hetu", "henkilötunnus", "cpr", "pps", "oib", "isikukood", "asmens", "personas kods", "citizen", "social insurance",
		"aadhaar", "aadhar", "uidai", "pan ", "pan:", "pan#", "pan no", "permanent account", "my number", "mynumber",
		"individual number", "マイナンバー", "個人番号", "身份证", "身份號", "公民身份", "resident id", "resident identity",
		"cpf", "cnpj", "cadastro", "sin ", "sin:", "sin#", "sin no", "tfn", "tax file", "medicare", "personalausweis",
		"ausweis", "identity card", "carte d'identit", "carta d'identit", "identifikationsnummer", "sécu", "secu ",
		"numéro de sécurité", "numero de securite", "nss", "documento", "cédula", "cedula", "rfc", "curp",
		"fiscal code", "nino", "ni number", "national insurance", "nas ", "nas:", "assurance sociale", "आधार",
		"cadastro de pessoas", "kojin", "nhs", "ssn", "social security", "citizen service",
		"teudat", "תעודת זהות", "israeli id", "personas kod", "sa id", "south african id", "rsa id", "thai id", "บัตรประชาชน", "เลขประจำตัวประชาชน",
		"personal public service", "егн", "ЕГН",
		// national_tr.go
		"tckn", "tc kimlik", "t.c. kimlik", "kimlik no", "kimlik numara", "tc no", "turkish id", "personnr", "fødselsnr", "fodselsnr")...)
	dobCues = newCues(append(dobWordsMore, "born", "birth", "dob", "d.o.b", "b-day", "bday", "geboren", "geb.", "né le", "née le", "nato il", "nata il", "nacido", "nacida",
		"b. ", "né(e)", "né ", "née ", "nació", "nacio", "nacimiento", "naissance", "nascita", "nascimento", "nascido", "nascida",
		"geburt", "geboorte", "urodzeni", "urodzon", "fødsels", "fodsels", "födelse", "fodelse", "syntymä", "doğum", "dogum",
		"生年月日", "出生", "誕生日", "рождения", "родился", "родилась", "народження", "народився", "народилася",
		"γέννησης", "γεννήθηκε", "född", "fødd", "født", "syntynyt", "syntymäaika", "narozen", "narození", "születés",
		"született", "생년월일", "출생", "rođen", "rođena", "rođenja", "rojstva", "rojen", "rojena", "gimimo", "gimęs", "gimė", "gimusi",
		"naștere", "nastere", "născut", "nascut", "lahir", "nacimento",
		"dzimšanas", "dzimis", "dzimusi", "sünniaeg", "sündinud", "narodil", "narodila", "urodził", "urodziła")...)
)

// cueList is a list of cues with the set of their first bytes and of their first two bytes
// (case-folded), so that a window is searched only at the word starts that can begin one, and
// a position is compared only with the cues that start with its byte.
type cueList struct {
	cues  []string // in the order given
	first [4]uint64
	pair  [64]uint64 // bit pairKey(c[0], c[1]) of every cue of two bytes or more
	short bool       // a cue of one byte: pair cannot rule a position out
	// letterFirst: every cue starts with a letter (ASCII, or a byte from 0x80 up), so only
	// such bytes can start one.
	letterFirst bool
	// sorted holds the cues by first byte, the longest first; those that start with byte c
	// are sorted[from[c]:from[c+1]].
	sorted []string
	from   [257]uint16
}

func pairKey(a, b byte) uint32 { return uint32(lower(a))<<6 ^ uint32(lower(b)) }

func newCues(cues ...string) *cueList {
	cues = withCapitals(cues)
	cl := &cueList{cues: cues, sorted: slices.Clone(cues), letterFirst: true}
	for _, c := range cues {
		cl.letterFirst = cl.letterFirst && isAlpha(c[0])
		cl.first[c[0]>>6] |= 1 << (c[0] & 63)
		if len(c) < 2 {
			cl.short = true
		} else {
			k := pairKey(c[0], c[1]) & 4095
			cl.pair[k>>6] |= 1 << (k & 63)
		}
	}
	slices.SortStableFunc(cl.sorted, func(a, b string) int {
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		return len(b) - len(a)
	})
	k := 0
	for c := 0; c <= 256; c++ {
		for k < len(cl.sorted) && int(cl.sorted[k][0]) < c {
			k++
		}
		cl.from[c] = uint16(k)
	}
	return cl
}

// starting returns the cues that start with byte c, the longest first.
func (cl *cueList) starting(c byte) []string { return cl.sorted[cl.from[c]:cl.from[int(c)+1]] }

// may reports whether a cue may start at p of s: its first two bytes are some cue's.
func (cl *cueList) may(s string, p int) bool {
	c0 := lower(s[p])
	if cl.first[c0>>6]&(1<<(c0&63)) == 0 {
		return false
	}
	if cl.short || p+1 >= len(s) {
		return true
	}
	k := pairKey(c0, s[p+1]) & 4095
	return cl.pair[k>>6]&(1<<(k&63)) != 0
}

// at returns the end of the longest cue that starts at p and ends by b, or -1.
func (cl *cueList) at(s string, p, b int) int {
	w := s[p:b]
	for _, c := range cl.starting(lower(s[p])) {
		if hasFoldPrefix(w, c) {
			return p + len(c)
		}
	}
	return -1
}

// lowerInto copies s lower-cased (ASCII) into buf.
func lowerInto(buf []byte, s string) []byte {
	buf = buf[:0]
	for i := 0; i < len(s); i++ {
		buf = append(buf, lower(s[i]))
	}
	return buf
}

// hasCue reports whether s[a:b] holds one of cues (lower case), compared case-insensitively, at
// a word start. The window is at most 160 bytes, ending at b. The word starts are found 64
// bytes at a time from masks of the window's bytes (cueMasks), and only they are compared.
func hasCue(s string, a, b int, cl *cueList) bool {
	if a < 0 {
		a = 0
	}
	if b > len(s) {
		b = len(s)
	}
	if b-a > 160 {
		a = b - 160
	}
	if a >= b {
		return false
	}
	prevAlnum := a > 0 && isAlnum(s[a-1])
	for base := a; base < b; base += 64 {
		n := min(b-base, 64)
		first, alnum := cueMasks(s, base, n)
		starts := ^(alnum<<1 | b2u(prevAlnum))
		if cl.letterFirst {
			starts &= first
		}
		if n < 64 {
			starts &= 1<<n - 1
		}
		prevAlnum = alnum>>63 != 0
		for starts != 0 {
			p := base + bits.TrailingZeros64(starts)
			starts &= starts - 1
			if cl.may(s, p) && cl.at(s, p, b) >= 0 {
				return true
			}
		}
	}
	return false
}

// cueMasks returns, for the n <= 64 bytes of s from base, the bits of the bytes that may begin a
// cue (letters, as isAlpha: ASCII or from 0x80 up) and of the ASCII letters and digits (isAlnum).
// Bits from n up may be set.
func cueMasks(s string, base, n int) (first, alnum uint64) {
	b := unsafe.Slice(unsafe.StringData(s), len(s))[base:]
	if len(b) >= 64 && plainAVX2 {
		letter, high, digit := classBlockAVX2(&b[0])
		return letter | high, letter | digit
	}
	k := 0
	for ; k < n && k+8 <= len(b); k += 8 {
		f, a := cueMask8(binary.LittleEndian.Uint64(b[k:]))
		first |= f << k
		alnum |= a << k
	}
	for ; k < n; k++ {
		if isAlpha(b[k]) {
			first |= 1 << k
		}
		if isAlnum(b[k]) {
			alnum |= 1 << k
		}
	}
	return first, alnum
}

// cueMask8 returns one bit per byte of w (byte k in bit k) for the letters (ASCII or from 0x80
// up) and for the ASCII letters and digits; see plain8 and alpha8 for the method.
func cueMask8(w uint64) (first, alnum uint64) {
	const (
		lo7 = 0x7f7f7f7f7f7f7f7f
		hi8 = 0x8080808080808080
		mul = 0x0102040810204080
	)
	x := w & lo7
	l := x | 0x2020202020202020
	letter := (l + 0x1f1f1f1f1f1f1f1f) &^ (l + 0x0505050505050505) &^ w & hi8
	dig := (x + 0x5050505050505050) &^ (x + 0x4646464646464646) &^ w & hi8
	return (((letter | w&hi8) >> 7) * mul) >> 56, (((letter | dig) >> 7) * mul) >> 56
}

// cueBefore looks for a cue in the window bytes before position p, not crossing a line break
// followed by an unrelated line (blank line), so that labels like "Phone:\n123" still count.
func (x *scanCtx) cueBefore(p, window int, cues *cueList) bool {
	return hasCue(x.s, p-window, p, cues)
}

// cueAround looks before and shortly after.
func (x *scanCtx) cueAround(a, b, before, after int, cues *cueList) bool {
	return hasCue(x.s, a-before, a, cues) || hasCue(x.s, b, b+after, cues)
}

// withCapitals adds to cues the form of each with its letters beyond ASCII in capitals: the
// comparison folds ASCII only, and forms, cards and headings print their labels in capitals
// ("EMŠO", "ДАТА НАРОДЖЕННЯ", "NÚMERO DE DOCUMENTO").
func withCapitals(cues []string) []string {
	out := cues
	for _, c := range cues {
		if up := upperBeyondASCII(c); up != c {
			if len(out) == len(cues) {
				out = slices.Clone(cues)
			}
			out = append(out, up)
		}
	}
	return out
}

// upperBeyondASCII returns s with its letters from U+0080 up in upper case, ASCII as it is.
func upperBeyondASCII(s string) string {
	var b []byte
	for i, r := range s {
		if r < utf8.RuneSelf {
			if b != nil {
				b = append(b, byte(r))
			}
			continue
		}
		u := unicode.ToUpper(r)
		if u != r && b == nil {
			b = append([]byte(nil), s[:i]...)
		}
		if b != nil {
			b = utf8.AppendRune(b, u)
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}
