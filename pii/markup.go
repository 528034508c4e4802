package pii

import (
	"strings"
	"unicode/utf8"
)

// HTML. An address in an e-mail template or a scraped page is written "jane&#64;example.com",
// "<a href="mailto:jane@example.com">" or split by tags. The HTML view decodes entities (named,
// decimal, hex; with or without the ';' browsers forgive), replaces each tag by a space and the
// values of its attributes, dropping a "mailto:", "tel:" or "sms:" scheme, so that an attribute
// value reads as text of its own.

// htmlCandidate reports whether s holds an entity ('&' then '#' or a letter), a tag ('<' then a
// letter, '/' or '!') or "mailto:".
func htmlCandidate(s string, mk uint16) bool {
	for _, c := range [...]byte{'&', '<'} {
		if c == '&' && mk&markAmp == 0 || c == '<' && mk&markLt == 0 {
			continue
		}
		for r := s; ; {
			i := strings.IndexByte(r, c)
			if i < 0 || i+1 >= len(r) {
				break
			}
			n := r[i+1]
			if c == '&' && (n == '#' || isAlpha(n) && n < 0x80) || c == '<' && (isAlpha(n) && n < 0x80 || n == '/' || n == '!') {
				return true
			}
			r = r[i+1:]
		}
	}
	for r := s; mk&markColon != 0; {
		i := strings.IndexByte(r, ':')
		if i < 0 {
			return false
		}
		if i >= 6 && hasFoldPrefix(r[i-6:], "mailto") {
			return true
		}
		r = r[i+1:]
	}
	return false
}

// namedEntities are the entities that stand for characters an identifier or a secret is made
// of, and the spaces and quotes around them.
var namedEntities = map[string]string{
	"amp": "&", "lt": "<", "gt": ">", "quot": `"`, "apos": "'", "nbsp": " ", "ensp": " ", "emsp": " ",
	"thinsp": " ", "commat": "@", "period": ".", "lowbar": "_", "UnderBar": "_", "hyphen": "-", "dash": "-",
	"ndash": "-", "mdash": "-", "minus": "-", "colon": ":", "semi": ";", "comma": ",", "excl": "!",
	"quest": "?", "num": "#", "dollar": "$", "percnt": "%", "plus": "+", "equals": "=", "sol": "/",
	"bsol": `\`, "lpar": "(", "rpar": ")", "lsqb": "[", "lbrack": "[", "rsqb": "]", "rbrack": "]",
	"lcub": "{", "lbrace": "{", "rcub": "}", "rbrace": "}", "verbar": "|", "vert": "|", "ast": "*",
	"midast": "*", "Tab": "\t", "NewLine": "\n", "grave": "`", "Hat": "^", "tilde": "~", "zwsp": "",
	"shy": "", "AMP": "&", "LT": "<", "GT": ">", "QUOT": `"`,
}

// entity decodes the character reference at the start of s ("&#64;", "&#x40;", "&commat;") and
// returns it with the bytes it takes, or 0 bytes.
func entity(s string) (string, int) {
	if len(s) < 3 || s[0] != '&' {
		return "", 0
	}
	if s[1] == '#' {
		i, r, hex := 2, rune(0), false
		if i < len(s) && s[i]|0x20 == 'x' {
			hex = true
			i++
		}
		d := i
		for i < len(s) && i-d < 8 && (hex && isHex(s[i]) || !hex && isDigit(s[i])) {
			if hex {
				r = r<<4 | rune(unhex(s[i]))
			} else {
				r = r*10 + rune(s[i]-'0')
			}
			i++
		}
		if i == d {
			return "", 0
		}
		if i < len(s) && s[i] == ';' {
			i++
		}
		if r == 0 || r > utf8.MaxRune || r >= 0xd800 && r <= 0xdfff {
			r = utf8.RuneError
		}
		return string(r), i
	}
	e := 1
	for e < len(s) && e < 12 && isAlnum(s[e]) {
		e++
	}
	if e == len(s) || s[e] != ';' {
		return "", 0
	}
	if v, ok := namedEntities[s[1:e]]; ok {
		return v, e + 1
	}
	return "", 0
}

// htmlView returns s with entities decoded and markup stripped, or a nil map when nothing
// changed.
func htmlView(s string) (string, []int32) {
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	emit := func(t string, pos int) {
		for k := 0; k < len(t); k++ {
			b = append(b, t[k])
			at = append(at, int32(pos))
		}
	}
	changed := false
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '&':
			if t, n := entity(s[i:]); n > 0 {
				emit(t, i)
				i += n
				changed = true
				continue
			}
		case c == '<' && i+1 < len(s) && (isAlpha(s[i+1]) && s[i+1] < 0x80 || s[i+1] == '/' || s[i+1] == '!'):
			if strings.HasPrefix(s[i:], "<!--") {
				// A comment's text is text: only its markers go. An empty one ("ja<!-- -->ne")
				// splits nothing.
				if e := strings.Index(s[i+4:min(len(s), i+4+64)], "-->"); e >= 0 && strings.TrimSpace(s[i+4:i+4+e]) == "" {
					i += 4 + e + 3
					changed = true
					continue
				}
				emit(" ", i)
				i += 4
				changed = true
				continue
			}
			e := strings.IndexByte(s[i:min(len(s), i+4096)], '>')
			if e < 0 || !tagName(s[i+1:i+e]) {
				break
			}
			// Inline tags split nothing ("jane<b>@</b>example.com" is one
			// address); other tags end a word.
			sep := " "
			if inlineTag(s[i+1 : i+e]) {
				sep = ""
			}
			emit(sep, i)
			attrValues(s, i, i+e, emit)
			emit(sep, i+e)
			i += e + 1
			changed = true
			continue
		case c == '-' && strings.HasPrefix(s[i:], "-->"):
			emit(" ", i)
			i += 3
			changed = true
			continue
		case c|0x20 == 'm' && hasFoldPrefix(s[i:], "mailto:") && (i == 0 || !isAlnum(s[i-1])):
			emit(" ", i)
			i += len("mailto:")
			changed = true
			continue
		}
		b = append(b, s[i])
		at = append(at, int32(i))
		i++
	}
	if !changed {
		return "", nil
	}
	return string(b), append(at, int32(len(s)))
}

// attrValues emits the values of the attributes of the tag s[a:e] ('<' at a, '>' at e) that
// carry text or a link (href, src, title, alt, value, content, label, placeholder, action,
// data-*), each between spaces, with entities decoded and a leading URL scheme that names a
// mailbox or a line dropped. Presentation attributes (class, style, id...) are left out.
func attrValues(s string, a, e int, emit func(t string, pos int)) {
	for i := a + 1; i < e; i++ {
		if s[i] != '=' {
			continue
		}
		n := i
		for n > a+1 && s[n-1] == ' ' {
			n--
		}
		ns := n
		for ns > a+1 && (isAlnum(s[ns-1]) || s[ns-1] == '-' || s[ns-1] == '_' || s[ns-1] == ':') {
			ns--
		}
		name := strings.ToLower(s[ns:n])
		i++
		for i < e && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
		if i >= e {
			return
		}
		var vs, ve int
		if q := s[i]; q == '"' || q == '\'' {
			vs = i + 1
			ve = strings.IndexByte(s[vs:e], q)
			if ve < 0 {
				ve = e
			} else {
				ve += vs
			}
		} else {
			vs = i
			ve = vs
			for ve < e && s[ve] != ' ' && s[ve] != '\t' && s[ve] != '\n' {
				ve++
			}
		}
		i = ve
		switch name {
		case "href", "src", "title", "alt", "value", "content", "label", "placeholder", "action":
		default:
			if !strings.HasPrefix(name, "data-") {
				continue
			}
		}
		for _, scheme := range [...]string{"mailto:", "tel:", "sms:"} {
			if hasFoldPrefix(s[vs:ve], scheme) {
				vs += len(scheme)
				break
			}
		}
		emit(" ", vs)
		for k := vs; k < ve; {
			if s[k] == '&' {
				if t, n := entity(s[k:ve]); n > 0 {
					emit(t, k)
					k += n
					continue
				}
			}
			emit(s[k:k+1], k)
			k++
		}
		emit(" ", ve)
	}
}

// inlineTag reports whether the tag whose text (between '<' and '>') is t formats text within a
// line rather than separating it.
func inlineTag(t string) bool {
	t = strings.TrimPrefix(t, "/")
	e := 0
	for e < len(t) && isAlnum(t[e]) {
		e++
	}
	switch strings.ToLower(t[:e]) {
	case "a", "b", "i", "u", "s", "em", "strong", "span", "font", "small", "big", "sub", "sup", "mark",
		"code", "tt", "kbd", "samp", "var", "wbr", "abbr", "cite", "q", "ins", "del", "bdi", "bdo":
		return true
	}
	return false
}

// tagName reports whether the text of a tag (between '<' and '>') starts with an element name
// ("a", "/p", "br/"): letters and digits, then a space, '/' or the end. "<user:password>" is
// not a tag.
func tagName(t string) bool {
	t = strings.TrimPrefix(t, "/")
	e := 0
	for e < len(t) && (isAlnum(t[e]) || e > 0 && t[e] == '-') {
		e++
	}
	return e > 0 && isAlpha(t[0]) && (e == len(t) || t[e] == ' ' || t[e] == '/' || t[e] == '\t' || t[e] == '\n')
}
