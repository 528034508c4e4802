package wire

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendCanonical appends the RFC 8785 (JCS) canonical form of v to dst:
// object members sorted by the UTF-16 code units of their keys, no
// insignificant whitespace, strings with the minimal escapes, numbers in the
// ECMAScript shortest form.
func AppendCanonical(dst []byte, v Value) []byte {
	return jcsForm.value(dst, v)
}

// A form is one way of writing a tree as compact JSON: how keys are
// ordered, strings escaped and numbers printed. The tree walk is shared.
type form struct {
	less   func(a, b string) bool
	str    func(dst []byte, s string) []byte
	number func(dst []byte, lit string) []byte
}

// The forms: RFC 8785, and what the reference Python SDK signs.
var (
	jcsForm    = form{less: lessUTF16, str: appendJCSString, number: appendES6Number}
	pythonForm = form{less: func(a, b string) bool { return a < b }, str: appendPythonString, number: appendPythonNumber}
)

func (f *form) value(dst []byte, v Value) []byte {
	switch v.kind {
	case Null, Absent:
		return append(dst, "null"...)
	case True:
		return append(dst, "true"...)
	case False:
		return append(dst, "false"...)
	case Number:
		return f.number(dst, v.s)
	case String:
		return f.str(dst, v.s)
	case Array:
		dst = append(dst, '[')
		for i := range v.items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = f.value(dst, v.items[i].Value)
		}
		return append(dst, ']')
	case Object:
		dst, _ = f.object(dst, v.items, "", nil)
		return dst
	}
	return dst
}

// object writes an object's members in the form's key order, leaving out
// the member named skip (if any) and adding insert (if not nil) in its
// place (insert takes the place of skip, so it must have the same key). It
// returns where, in dst, a member named skip belongs.
func (f *form) object(dst []byte, members []Member, skip string, insert *Member) (out []byte, mark int) {
	var stack [32]int
	order := sortedMembers(members, stack[:0], f.less)
	dst = append(dst, '{')
	mark = -1
	first := true
	write := func(m *Member) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = f.str(dst, m.Key)
		dst = append(dst, ':')
		dst = f.value(dst, m.Value)
	}
	for _, j := range order {
		m := &members[j]
		if skip != "" && m.Key == skip {
			continue
		}
		if mark < 0 && skip != "" && f.less(skip, m.Key) {
			mark = len(dst)
			if insert != nil {
				write(insert)
				insert = nil
			}
		}
		write(m)
	}
	if mark < 0 {
		mark = len(dst)
	}
	if insert != nil {
		write(insert)
	}
	return append(dst, '}'), mark
}

// appendTop writes object v canonically, leaving out the member named skip
// and adding insert (if not nil) in its sorted place.
func appendTop(dst []byte, v Value, skip string, insert *Member) []byte {
	if v.kind != Object {
		return jcsForm.value(dst, v)
	}
	dst, _ = jcsForm.object(dst, v.items, skip, insert)
	return dst
}

// appendTopMarked writes object v canonically without its member named
// "sig", and reports where a "sig" member belongs: at byte mark of the
// output, after before members and before after members.
func appendTopMarked(dst []byte, v Value) (out []byte, mark int, before, after bool) {
	start := len(dst)
	out, mark = jcsForm.object(dst, v.items, "sig", nil)
	before = mark > start+1
	after = out[mark] != '}'
	return out, mark, before, after
}

// sortedMembers returns the indexes of members in key order. It reuses buf
// and, for the usual small objects, sorts in place without allocating.
func sortedMembers(members []Member, buf []int, less func(a, b string) bool) []int {
	order := buf[:0]
	for i := range members {
		order = append(order, i)
	}
	// Insertion sort: members arrive sorted or nearly sorted (from a
	// canonical sender), and n is small.
	for i := 1; i < len(order); i++ {
		j := i
		for j > 0 && less(members[order[i]].Key, members[order[j-1]].Key) {
			j--
		}
		if j != i {
			x := order[i]
			copy(order[j+1:i+1], order[j:i])
			order[j] = x
		}
	}
	return order
}

// lessUTF16 orders strings by their UTF-16 code units, as RFC 8785 requires.
// It equals byte order except where a character above U+FFFF meets one in
// U+E000..U+FFFF.
func lessUTF16(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if ca != cb {
				return ca < cb
			}
			i++
			j++
			continue
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if ra != rb {
			return utf16Key(ra) < utf16Key(rb)
		}
		i += na
		j += nb
	}
	return i == len(a) && j < len(b)
}

// utf16Key maps a rune to a value that sorts like its first UTF-16 unit
// followed by the second.
func utf16Key(r rune) uint32 {
	if r < 0x10000 {
		return uint32(r) << 16
	}
	r -= 0x10000
	hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
	return uint32(hi)<<16 | uint32(lo)
}

const hexDigits = "0123456789abcdef"

func appendJCSString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		for i+8 <= len(s) && noEscape8(load64(s[i:])) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendES6Number writes a JSON number literal in the form ECMAScript's
// Number.prototype.toString gives its float64 value (RFC 8785, 3.2.2.3).
func appendES6Number(dst []byte, lit string) []byte {
	// Integer literals of up to 15 digits are exact in float64 and print as
	// themselves; only "-0" needs care.
	if len(lit) <= 15 && isIntLiteral(lit) {
		if lit == "-0" {
			return append(dst, '0')
		}
		return append(dst, lit...)
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return AppendES6Float(dst, f)
}

// AppendES6Float writes f as ECMAScript's Number.prototype.toString does.
// f must be finite.
func AppendES6Float(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...) // unreachable for parsed input
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var scratch [32]byte
	// Shortest round-trip digits, as "d.ddde±xx".
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	var digits [20]byte
	k := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	n := exp + 1 // position of the decimal point relative to the digits
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits[:k]...)
		for j := k; j < n; j++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:k]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for j := 0; j < -n; j++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits[:k]...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:k]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// AppendPythonSorted appends v as Python's
// json.dumps(v, sort_keys=True, separators=(",", ":")) prints it after
// json.loads: keys in code-point order, every character outside printable
// ASCII escaped as \uXXXX, integer literals as written, other numbers as
// Python's float repr. The reference Python SDK signs this form; it equals
// the canonical form for ASCII text and integers.
func AppendPythonSorted(dst []byte, v Value) []byte {
	return pythonForm.value(dst, v)
}

// appendPython writes object v in the Python form without its member named
// skip.
func appendPython(dst []byte, v Value, skip string) []byte {
	if v.kind != Object {
		return pythonForm.value(dst, v)
	}
	dst, _ = pythonForm.object(dst, v.items, skip, nil)
	return dst
}

// appendPythonNumber writes an integer literal as Python's int prints it,
// any other number as its float repr.
func appendPythonNumber(dst []byte, lit string) []byte {
	if isIntLiteral(lit) {
		if lit == "-0" {
			return append(dst, '0')
		}
		return append(dst, lit...)
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return appendPythonFloat(dst, f)
}

func appendPythonString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r >= 0x20 && r < 0x7f:
			dst = append(dst, byte(r))
		case r < 0x10000:
			dst = appendU4(dst, r)
		default:
			r -= 0x10000
			dst = appendU4(dst, 0xD800+(r>>10))
			dst = appendU4(dst, 0xDC00+(r&0x3FF))
		}
	}
	return append(dst, '"')
}

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// appendPythonFloat writes f as Python's float repr: shortest round-trip
// digits, positional when the decimal exponent is in [-4, 16), else
// scientific with a signed exponent of at least two digits.
func appendPythonFloat(dst []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	var digits [20]byte
	k, i := 0, 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	decpt := exp + 1
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			dst = append(dst, '0', '.')
			for j := 0; j < -decpt; j++ {
				dst = append(dst, '0')
			}
			dst = append(dst, digits[:k]...)
		case decpt >= k:
			dst = append(dst, digits[:k]...)
			for j := k; j < decpt; j++ {
				dst = append(dst, '0')
			}
			dst = append(dst, '.', '0')
		default:
			dst = append(dst, digits[:decpt]...)
			dst = append(dst, '.')
			dst = append(dst, digits[decpt:k]...)
		}
		return dst
	}
	dst = append(dst, digits[0])
	if k > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:k]...)
	}
	dst = append(dst, 'e')
	x := decpt - 1
	if x < 0 {
		dst = append(dst, '-')
		x = -x
	} else {
		dst = append(dst, '+')
	}
	if x < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(x), 10)
}

// load64 reads eight bytes of s, little-endian; the compiler turns it into
// one load.
func load64(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
