package pii

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// JSON payloads: every string value is scanned with its key as context, and keys themselves are
// scanned too (a map keyed by e-mail addresses leaks as much as a list of them). Paths are built
// only for strings that have findings, so a clean payload costs no allocation.

// pathSeg is one step of a JSON path: an object key or an array index.
type pathSeg struct {
	key   string // raw key bytes (unescaped); "" for an index
	index int    // array index, or the key's position in its object
	isKey bool
	safe  bool // the key is a plain identifier without findings: shown as .key
}

// ErrInvalidJSON is returned by ScanJSON for input that is not a JSON object or array.
var ErrInvalidJSON = errors.New("pii: invalid JSON")

// maxDepth bounds nesting, as the wire format does.
const maxDepth = 64

func (x *scanCtx) path(root string) string {
	b := make([]byte, 0, len(root)+16*len(x.segs))
	b = append(b, root...)
	for _, g := range x.segs {
		switch {
		case !g.isKey:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(g.index), 10)
			b = append(b, ']')
		case g.safe:
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, g.key...)
		default:
			b = append(b, '{')
			b = strconv.AppendInt(b, int64(g.index), 10)
			b = append(b, '}')
		}
	}
	return string(b)
}

func plainIdent(k string) bool {
	if len(k) == 0 || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(isAlpha(c) && c < 0x80 || c == '_' || (i > 0 && (isDigit(c) || c == '-'))) {
			return false
		}
	}
	return true
}

// scanLeaf scans one string value (or key) at the current path and labels its findings.
func (x *scanCtx) scanLeaf(root, s string, key keyKind, inKey bool) {
	start := len(x.out)
	hc := len(x.healthCues)
	x.scanString(s, key, inKey)
	if len(x.out) > start || len(x.healthCues) > hc {
		p := x.path(root)
		for i := start; i < len(x.out); i++ {
			x.out[i].Path = p
		}
		for i := hc; i < len(x.healthCues); i++ {
			x.healthCues[i].Path = p
		}
	}
}

// pushKey scans an object key and pushes it on the path.
func (x *scanCtx) pushKey(root, k string, pos int) {
	before := len(x.out)
	x.segs = append(x.segs, pathSeg{isKey: true, index: pos})
	if len(k) > 0 {
		x.scanLeaf(root, k, keyNone, true)
	}
	g := &x.segs[len(x.segs)-1]
	if len(x.out) > before {
		x.flagKey(k)
	}
	g.safe = len(x.out) == before && plainIdent(k)
	if g.safe {
		g.key = k
	}
	if len(x.out) > before {
		// The key's own findings are reported at the object's path.
		p := x.path(root)
		for i := before; i < len(x.out); i++ {
			x.out[i].Path = p
		}
	}
}

// ScanValue scans a decoded JSON value as produced by encoding/json (with UseNumber or not):
// map[string]any, []any, string, json.Number, float64, bool and nil. root prefixes every path,
// e.g. "p". Map keys are visited in sorted order so results are deterministic.
func (s *Scanner) ScanValue(root string, v any) []Finding {
	x := s.getCtx()
	x.walkValue(root, v, keyNone, 0)
	x.finishDoc(0, func(fn func(path func() string, str string, key keyKind)) {
		eachString(root, v, x.flaggedKeys, fn)
	})
	out := x.out
	s.putCtx(x)
	return out
}

func (x *scanCtx) walkValue(root string, v any, key keyKind, depth int) {
	if depth > maxDepth {
		return
	}
	switch t := v.(type) {
	case string:
		x.scanLeaf(root, t, key, false)
	case json.Number:
		x.scanLeaf(root, string(t), key, false)
	case float64:
		if num := strconv.FormatFloat(t, 'f', -1, 64); key != keyNone || longInt(num) {
			x.scanLeaf(root, num, key, false)
		}
	case []any:
		mark := len(x.jparts)
		for i, e := range t {
			x.segs = append(x.segs, pathSeg{index: i})
			if s, ok := anyScalar(e); ok {
				x.notePart(mark, s, "")
			}
			x.walkValue(root, e, key, depth+1)
			x.segs = x.segs[:len(x.segs)-1]
		}
		x.endContainer(root, mark, key)
	case map[string]any:
		mark := len(x.jparts)
		keys := sortedKeys(t)
		outer := x.siblingID
		x.siblingID = siblingSchemeMap(t, keys)
		defer func() { x.siblingID = outer }()
		for i, k := range keys {
			x.pushKey(root, k, i)
			if s, ok := anyScalar(t[k]); ok {
				x.notePart(mark, s, k)
			}
			x.walkValue(root, t[k], x.memberKey(k), depth+1)
			x.segs = x.segs[:len(x.segs)-1]
		}
		x.endContainer(root, mark, key)
	}
}

// anyScalar returns the text of a string or a number of a value decoded by encoding/json.
func anyScalar(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return string(t), integerText(string(t))
	case float64:
		s := strconv.FormatFloat(t, 'f', -1, 64)
		return s, integerText(s)
	}
	return "", false
}

// integerText reports whether a JSON number as written is an integer. Only integers are parts of
// a joined view: the digits of a fraction (a load of 0.5094090209598323) beside another number
// would read as a card number, and no one splits an identifier into fractions.
func integerText(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// eachString visits every string of v with its path (for the document-level health pass).
func eachString(root string, v any, flagged map[string]bool, fn func(path func() string, s string, key keyKind)) {
	var walk func(v any, key keyKind, depth int)
	x := &scanCtx{}
	x.flaggedKeys = flagged
	walk = func(v any, key keyKind, depth int) {
		if depth > maxDepth {
			return
		}
		switch t := v.(type) {
		case string:
			fn(func() string { return x.path(root) }, t, key)
		case []any:
			for i, e := range t {
				x.segs = append(x.segs, pathSeg{index: i})
				walk(e, key, depth+1)
				x.segs = x.segs[:len(x.segs)-1]
			}
		case map[string]any:
			for i, k := range sortedKeys(t) {
				x.segs = append(x.segs, pathSeg{isKey: true, index: i, key: k, safe: x.safeKey(k)})
				walk(t[k], classifyKey(k), depth+1)
				x.segs = x.segs[:len(x.segs)-1]
			}
		}
	}
	walk(v, keyNone, 0)
}

// ScanJSON scans raw JSON bytes (an object or array) without decoding them into a tree. Strings
// without escapes are scanned in place; offsets are bytes of the decoded string. root prefixes
// every path. Keys are visited in document order.
func (s *Scanner) ScanJSON(root string, data []byte) ([]Finding, error) {
	x := s.getCtx()
	w := jsonWalker{x: x, data: data, root: root}
	w.skipWS()
	if w.pos >= len(data) || (data[w.pos] != '{' && data[w.pos] != '[') {
		s.putCtx(x)
		return nil, ErrInvalidJSON
	}
	if err := w.value(keyNone, 0); err != nil {
		s.putCtx(x)
		return nil, err
	}
	w.skipWS()
	if w.pos != len(data) {
		s.putCtx(x)
		return nil, fmt.Errorf("%w: trailing data at byte %d", ErrInvalidJSON, w.pos)
	}
	x.finishDoc(0, func(fn func(path func() string, str string, key keyKind)) {
		y := x.walker()
		w2 := jsonWalker{x: y, data: data, root: root, visit: fn}
		_ = w2.value(keyNone, 0)
	})
	out := x.out
	s.putCtx(x)
	return out, nil
}

type jsonWalker struct {
	x     *scanCtx
	data  []byte
	pos   int
	root  string
	mark  int                                             // x.jparts of the container being walked start here
	mkey  string                                          // the member name of the value being walked; "" in an array
	visit func(path func() string, s string, key keyKind) // set for the health pass: no scanning
}

func (w *jsonWalker) skipWS() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *jsonWalker) errf(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrInvalidJSON, what, w.pos)
}

func (w *jsonWalker) value(key keyKind, depth int) error {
	if depth > maxDepth {
		return w.errf("nesting too deep")
	}
	w.skipWS()
	if w.pos >= len(w.data) {
		return w.errf("unexpected end")
	}
	x := w.x
	switch c := w.data[w.pos]; {
	case c == '{':
		w.pos++
		w.skipWS()
		if w.pos < len(w.data) && w.data[w.pos] == '}' {
			w.pos++
			return nil
		}
		saved := w.mark
		w.mark = len(x.jparts)
		for i := 0; ; i++ {
			w.skipWS()
			k, err := w.str()
			if err != nil {
				return err
			}
			// The key must outlive the next string decode; copy it only when it was unescaped.
			if w.visit != nil {
				x.segs = append(x.segs, pathSeg{isKey: true, index: i, key: k, safe: x.safeKey(k)})
			} else {
				x.pushKey(w.root, k, i)
			}
			kind := x.keyOf(k)
			w.skipWS()
			if w.pos >= len(w.data) || w.data[w.pos] != ':' {
				return w.errf("expected ':'")
			}
			w.pos++
			w.mkey = k
			if err := w.value(kind, depth+1); err != nil {
				return err
			}
			x.segs = x.segs[:len(x.segs)-1]
			w.skipWS()
			if w.pos >= len(w.data) {
				return w.errf("unexpected end")
			}
			if w.data[w.pos] == ',' {
				w.pos++
				continue
			}
			if w.data[w.pos] == '}' {
				w.pos++
				w.endContainer(saved, key)
				return nil
			}
			return w.errf("expected ',' or '}'")
		}
	case c == '[':
		w.pos++
		w.skipWS()
		if w.pos < len(w.data) && w.data[w.pos] == ']' {
			w.pos++
			return nil
		}
		saved := w.mark
		w.mark = len(x.jparts)
		for i := 0; ; i++ {
			x.segs = append(x.segs, pathSeg{index: i})
			w.mkey = ""
			if err := w.value(key, depth+1); err != nil {
				return err
			}
			x.segs = x.segs[:len(x.segs)-1]
			w.skipWS()
			if w.pos >= len(w.data) {
				return w.errf("unexpected end")
			}
			if w.data[w.pos] == ',' {
				w.pos++
				continue
			}
			if w.data[w.pos] == ']' {
				w.pos++
				w.endContainer(saved, key)
				return nil
			}
			return w.errf("expected ',' or ']'")
		}
	case c == '"':
		s, err := w.str()
		if err != nil {
			return err
		}
		if w.visit != nil {
			w.visit(func() string { return x.path(w.root) }, s, key)
			return nil
		}
		x.notePart(w.mark, s, w.mkey)
		x.scanLeaf(w.root, s, key, false)
		return nil
	case c == '-' || isDigit(c):
		a := w.pos
		for w.pos < len(w.data) && (isDigit(w.data[w.pos]) || containsByte("+-.eE", w.data[w.pos])) {
			w.pos++
		}
		if num := unsafe.String(&w.data[a], w.pos-a); w.visit == nil {
			if integerText(num) {
				x.notePart(w.mark, num, w.mkey)
			}
			if key != keyNone || longInt(num) {
				x.scanLeaf(w.root, num, key, false)
			}
		}
		return nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(w.data)-w.pos >= len(lit) && string(w.data[w.pos:w.pos+len(lit)]) == lit {
				w.pos += len(lit)
				return nil
			}
		}
		return w.errf("unexpected byte")
	}
}

// str reads a JSON string at w.pos. Without escapes it aliases the input; with escapes it is
// decoded into a fresh string (keys stay referenced by the path while their value is walked).
func (w *jsonWalker) str() (string, error) {
	d := w.data
	if w.pos >= len(d) || d[w.pos] != '"' {
		return "", w.errf("expected string")
	}
	w.pos++
	a := w.pos
	for w.pos < len(d) {
		c := d[w.pos]
		if c == '"' {
			s := ""
			if w.pos > a {
				s = unsafe.String(&d[a], w.pos-a)
			}
			w.pos++
			return s, nil
		}
		if c == '\\' {
			return w.strEscaped(a)
		}
		if c < 0x20 {
			return "", w.errf("control character in string")
		}
		w.pos++
	}
	return "", w.errf("unterminated string")
}

func (w *jsonWalker) strEscaped(a int) (string, error) {
	d := w.data
	buf := make([]byte, 0, w.pos-a+16)
	buf = append(buf, d[a:w.pos]...)
	for w.pos < len(d) {
		c := d[w.pos]
		switch {
		case c == '"':
			w.pos++
			return string(buf), nil
		case c == '\\':
			if w.pos+1 >= len(d) {
				return "", w.errf("bad escape")
			}
			e := d[w.pos+1]
			w.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := w.hex4()
				if !ok {
					return "", w.errf("bad \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(utf8.RuneError)
					if w.pos+1 < len(d) && d[w.pos] == '\\' && d[w.pos+1] == 'u' {
						w.pos += 2
						if lo, ok := w.hex4(); ok {
							r2 = utf16.DecodeRune(r, lo)
						}
					}
					r = r2
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", w.errf("bad escape")
			}
		case c < 0x20:
			return "", w.errf("control character in string")
		default:
			buf = append(buf, c)
			w.pos++
		}
	}
	return "", w.errf("unterminated string")
}

func (w *jsonWalker) hex4() (rune, bool) {
	if w.pos+4 > len(w.data) {
		return 0, false
	}
	var r rune
	for _, c := range w.data[w.pos : w.pos+4] {
		r <<= 4
		switch {
		case isDigit(c):
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	w.pos += 4
	return r, true
}

// endContainer ends the walk of an object or array: its joined views are scanned (not in the
// health pass, which only visits strings) and the walk returns to its parent's parts.
func (w *jsonWalker) endContainer(saved int, key keyKind) {
	if w.visit == nil {
		w.x.endContainer(w.root, w.mark, key)
	}
	w.mark = saved
}
