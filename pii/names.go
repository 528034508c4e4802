package pii

import (
	"encoding/base64"
	"strings"
)

// Names after a cue. Here a cue that says a person's name follows ("my name is", "Dear", "Mr.",
// "Dr.", "Patient:", "Name:", "called", "I'm") or a name key reports a name; the name itself must
// look like one: one to four capitalised words (initials allowed), not a common capitalised word.
// A name without a cue is the gazetteer's (names_gazetteer.go).

// cuePrefixes are the first three bytes (case-folded) of name cue words.
var cuePrefixes = []string{"nam", "dea", "mr.", "mr ", "mrs", "ms.", "ms ", "mis", "dr.", "dr ",
	"mx.", "i'm", "i a", "pat", "cal", "sin", "reg", "sig", "sur", "pro"}

var tokenIndex = func() map[uint32][]int {
	m := map[uint32][]int{}
	for i, r := range tokenRules {
		k := uint32(r.prefix[0]|0x20) | uint32(r.prefix[1]|0x20)<<8 | uint32(r.prefix[2]|0x20)<<16
		m[k] = append(m[k], i)
	}
	return m
}()

// cue handles a word whose first bytes hit the cue filter.
func (x *scanCtx) cue(i, j int) int {
	s := x.s
	if i+2 < len(s) {
		for _, r := range tokenIndex[fold3(s, i)] {
			if e, t, c, rule := tokenRules[r].check(x, i); e > i {
				if t != 0 { // type 0: a public token of the protocol, read whole
					x.add(t, i, e, c, rule)
				}
				return e
			}
		}
	}
	return x.nameCue(i, j)
}

var honorifics = toSet("mr mrs ms miss mx dr prof sir dame madam mister")

var notNames = toSet(`the a an i it its this that my your our his her their we you he she they me us him
them is am are was were be been sorry happy glad fine ok okay yes no not here there hello hi dear all
sir madam team everyone customer customers support service user admin please thanks thank just so very
from at in on to for of with and or but if then also too going trying looking calling writing available
new good great well back home out up down going done ready sure afraid interested unable able
siri alexa cortana bixby`)

// nameCueFirst holds the first letters of the cue words nameCue knows; cueStart, the scan's
// filter before it, is built from it.
var nameCueFirst = func() (t [256]bool) {
	for _, c := range "mdnipcsr" {
		t[c] = true
	}
	return t
}()

// nameCue recognises the cue word at s[i:j] and a name after it.
func (x *scanCtx) nameCue(i, j int) int {
	s := x.s
	// A name key as code writes it, or an account's name flag (names_codekey.go), is tried
	// only when the word is no cue of prose: most calls are for those.
	code := false
	if j-i > 9 || !nameCueFirst[lower(s[i])] || i > 0 && (s[i-1] == '-' || isWordByte(s[i-1])) {
		if code = codeNameKey(s[i:j]) || i > 0 && s[i-1] == '-' && accountNameFlag(s, i, j); !code && (j-i > 9 || !nameCueFirst[lower(s[i])]) {
			return i
		}
	}
	var buf [16]byte
	w := string(lowerInto(buf[:0], s[i:j]))
	if code {
		w = "fullname"
	}
	k := j
	conf := 0.0
	asked := false
	switch {
	case honorifics.has(w) && w != "sir" && w != "madam" && w != "dame":
		if shipCue(s, i, j) {
			return i // "the MS Hans Christian Andersen": a ship (names_eponym.go)
		}
		if k < len(s) && s[k] == '.' {
			k++
		}
		conf = 0.85
	case w == "dear":
		conf = 0.8
	case w == "name" || w == "named" || w == "called":
		// "my name is X", "name: X", "Name - X", "named X", "name on the account? User: X".
		if pw, ok := wordBefore(s, i); ok && pw.b == i-1 && pw.b-pw.a <= 12 && thingNames.hasFold(s[pw.a:pw.b]) {
			return i // "the file name is Quarterly Report", "product name: Moltgate Pro"
		}
		if w != "name" && namedWhere(s, j) {
			return i // "the Tenant named in Schedule 1" (names_named.go)
		}
		if w == "name" && schemaNameAttr(s, i, j) {
			return i // <Property Name="Cedula" …/>: a field's name in a schema (markup_schema.go)
		}
		k, asked = x.skipToName(j, 40)
		conf = 0.8
		if w == "name" && !x.nameNounContext(i) {
			conf = 0.7
		}
	case w == "i" && j+1 < len(s) && (strings.HasPrefix(s[j:], "'m ") || strings.HasPrefix(s[j:], " am ")):
		if s[j] == '\'' {
			k = j + 3
		} else {
			k = j + 4
		}
		conf = 0.6
	case w == "patient" || w == "surname" || w == "firstname" || w == "lastname" || w == "fullname":
		k = j
		for k < len(s) && (s[k] == ' ' || s[k] == ':' || code && (s[k] == '=' || s[k] == '"' || s[k] == '\'')) {
			k++
		}
		if k == j || !strings.Contains(s[j:k], ":") && w == "patient" {
			return i
		}
		if code && !strings.ContainsAny(s[j:k], "='\"") {
			return i // a schema's type, not a value: "firstName: String!", "lastName: string;"
		}
		conf = 0.85
	case w == "call" && strings.HasPrefix(s[j:], " me "):
		k = j + 4
		conf = 0.7
	case w == "sincerely" || w == "regards" || w == "signed":
		k = j
		for k < len(s) && (s[k] == ',' || s[k] == ' ' || s[k] == '\n' || s[k] == '\r' || s[k] == ':') {
			k++
		}
		if w == "signed" && strings.HasPrefix(s[k:], "by ") {
			k += 3
		}
		conf = 0.7
	default:
		return i
	}
	a, e, n := x.personName(k)
	if n == 0 && (w == "name" || w == "named" || w == "called" || w == "i" || w == "call") {
		// "my name is vitoria": a given name of the gazetteer, written in lower case.
		a = skipSpace(s, k)
		e = a
		for e < len(s) && (isLower(s[e]) || s[e] >= 0x80) {
			e++
		}
		if e-a < 3 || !isGivenName(s[a:e]) {
			return i
		}
		n = 1
	}
	if n == 0 {
		return i
	}
	if asked && (thingWordIn(s, j, a) || n < 2 && !x.nameNounContext(i) && !knownWordIn(s, a, e)) {
		// The answer to a question on a thing's name ("What name should the bucket have?") is
		// none; to one that says nothing of a person, a single word is a name only when it
		// is known as one.
		return i
	}
	if firmWordIn(s, a, e) {
		return i // "Best regards,\nAtlas Logistics Oy": a firm signs
	}
	if n == 1 && (w == "sincerely" || w == "regards" || w == "signed") && !isGivenName(s[a:e]) && !knownOrShaped(s[a:e]) {
		return i // "Best regards,\nKundservice": a team signs, not a person the lists know
	}
	if n == 1 && conf < 0.8 && w != "name" {
		conf -= 0.05
	}
	x.add(TypeName, a, e, conf, "name.context")
	return e
}

// skipToName moves past "is", ":", "?", "User:", "it to" and the like after a name cue, within max bytes,
// and to the next line after a question that asks for the name (asked).
func (x *scanCtx) skipToName(k, max int) (next int, asked bool) {
	s := x.s
	lim := min(len(s), k+max)
	for k < lim {
		switch c := s[k]; {
		case c == ' ' || c == ':' || c == '?' || c == '-' || c == '=' || c == '"' || c == '\n' || c == '\t' || c == '\r':
			k++
			continue
		case c == '\'' && k+1 < len(s) && s[k+1] == 's':
			k += 2
			continue
		case c == '[' || isDigit(c):
			// The time of a chat line below the question: "name?\n[16:36] user: it's X".
			if e := clockAt(s, k); e > k {
				k = e
				continue
			}
			return k, asked
		}
		w, ok := wordAt(s, k, false)
		if !ok {
			return k, asked
		}
		var buf [16]byte
		if w.b-w.a > 12 {
			return k, asked
		}
		lw := string(lowerInto(buf[:0], s[w.a:w.b]))
		switch lw {
		case "is", "was", "it", "to", "as", "be", "reads", "user", "customer", "client", "caller", "visitor", "guest",
			"on", "the", "account", "in", "of", "me",
			"is:", "please", "change", "correct", "it's", "its", "should", "appears", "and", "last", "first", "full", "maiden":
			k = w.b
			continue
		}
		if !asked {
			// A question that asks for the name, answered on the next line: "What name is the
			// booking under?\n[16:36] user: it's X".
			if q := strings.IndexAny(s[k:min(len(s), k+max)], "?\n"); q > 0 && s[k+q] == '?' {
				asked = true
				k += q + 1
				lim = min(len(s), k+max)
				continue
			}
		}
		return k, asked
	}
	return k, asked
}

// clockAt returns the end of a time of day at k ("16:36", "[16:36]", "[09:12:05]"), or k.
func clockAt(s string, k int) int {
	e := k
	if e < len(s) && s[e] == '[' {
		e++
	}
	d := 0
	for e < len(s) && (isDigit(s[e]) || s[e] == ':') && d < 8 {
		e++
		d++
	}
	if d < 4 || !strings.Contains(s[k:e], ":") {
		return k
	}
	if s[k] == '[' {
		if e >= len(s) || s[e] != ']' {
			return k
		}
		e++
	}
	return e
}

// thingNames name things whose name is asked for as a person's is: "file name", "product name".
var thingNames = toSet(`file product project bucket host domain branch table column field app application repo
repository package device server service company brand team channel folder directory database db
dataset model variable function class module image container cluster queue topic key network
wifi ssid printer store shop street city town village country region`)

// thingWordIn reports whether a word of thingNames is among the words of s[a:e].
func thingWordIn(s string, a, e int) bool {
	for k := a; k < e; {
		w, ok := wordAt(s, k, false)
		if !ok {
			k++
			continue
		}
		if w.a >= e {
			return false
		}
		if w.b-w.a <= 12 && thingNames.hasFold(s[w.a:w.b]) {
			return true
		}
		k = w.b
	}
	return false
}

// knownWordIn reports whether a word of the capitalised words s[a:e] is known as a name or has a
// surname's ending.
func knownWordIn(s string, a, e int) bool {
	for k := a; k < e; {
		w, ok := wordAt(s, k, false)
		if !ok || w.a >= e {
			return false
		}
		if knownOrShaped(strings.TrimRight(s[w.a:min(w.b, e)], ".,")) {
			return true
		}
		k = w.b
	}
	return false
}

// nameNounContext: "name" preceded by my/your/his/her/the/full/last/first/maiden.
func (x *scanCtx) nameNounContext(i int) bool {
	return x.cueBefore(i, 12, nameNounCues)
}

// personName reads 1-4 capitalised words (initials like "J." allowed) at k.
func (x *scanCtx) personName(k int) (int, int, int) {
	s := x.s
	k = skipSpace(s, k)
	a := k
	e := k
	n := 0
	for n < 4 {
		w, ok := wordAt(s, e, false)
		if !ok || w.a != skipSpace(s, e) {
			break
		}
		if w.b-w.a > 30 || !capitalized(s, w) || identifierAt(s, w.b) {
			break
		}
		var buf [32]byte
		lw := strings.TrimSuffix(string(lowerInto(buf[:0], s[w.a:w.b])), ".")
		if notNames.has(lw) || streetPrefixes.has(lw) {
			break
		}
		// Each word: letters (apostrophes and hyphens inside), or an initial "J.".
		body := s[w.a:w.b]
		if strings.HasSuffix(body, ".") && len(body) > 3 {
			body = body[:len(body)-1]
			w.b--
		}
		if len(body) == 2 && body[1] == '.' || len(body) == 1 {
			if n == 0 {
				break
			}
		}
		if n == 0 {
			a = w.a
		}
		e = w.b
		n++
		if w.b < len(s) && s[w.b] != ' ' {
			break
		}
	}
	if n == 0 {
		return a, a, 0
	}
	return a, e, n
}

func decodeB64(dst []byte, v string) (int, error) {
	enc := base64.StdEncoding
	if !strings.HasSuffix(v, "=") && len(v)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	if enc.DecodedLen(len(v)) > len(dst) {
		return 0, base64.CorruptInputError(0)
	}
	return enc.Decode(dst, []byte(v))
}

var nameNounCues = newCues("my ", "your ", "his ", "her ", "full ", "last ", "first ", "maiden ", "patient ", "'s ")
