package wire

import (
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds of JSON value. The zero Kind is Absent: a Value that was not
// there at all, as opposed to an explicit null.
const (
	Absent Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"absent", "null", "boolean", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is a parsed JSON value, kept as received: object members stay in
// input order with their keys, numbers keep their literal text. Values are
// immutable once parsed and safe to share.
type Value struct {
	kind Kind
	// s is the decoded string of a String, the literal of a Number.
	s string
	// items holds array elements (with empty keys) or object members.
	items []Member
}

// Member is one key/value pair of an object.
type Member struct {
	Key   string
	Value Value
}

// Equal reports whether v and w are the same JSON value written the same
// way: the same kinds, the same number texts and strings, and the same
// members in the same order.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind || v.s != w.s || len(v.items) != len(w.items) {
		return false
	}
	for i := range v.items {
		if v.items[i].Key != w.items[i].Key || !v.items[i].Value.Equal(w.items[i].Value) {
			return false
		}
	}
	return true
}

// Kind returns v's JSON type.
func (v Value) Kind() Kind { return v.kind }

// IsAbsent reports whether v is the zero Value.
func (v Value) IsAbsent() bool { return v.kind == Absent }

// Str returns the string of a String value.
func (v Value) Str() (string, bool) { return v.s, v.kind == String }

// Bool returns the boolean of a True or False value.
func (v Value) Bool() (b, ok bool) { return v.kind == True, v.kind == True || v.kind == False }

// NumberText returns the literal text of a Number value.
func (v Value) NumberText() (string, bool) { return v.s, v.kind == Number }

// Int returns a Number that is an integer literal within int64.
func (v Value) Int() (int64, bool) {
	if v.kind != Number || !isIntLiteral(v.s) {
		return 0, false
	}
	n, err := strconv.ParseInt(v.s, 10, 64)
	return n, err == nil
}

// Float returns a Number as float64.
func (v Value) Float() (float64, bool) {
	if v.kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.s, 64)
	return f, err == nil
}

// Len is the number of array elements or object members.
func (v Value) Len() int { return len(v.items) }

// Index returns the i-th array element.
func (v Value) Index(i int) Value {
	if v.kind != Array || i < 0 || i >= len(v.items) {
		return Value{}
	}
	return v.items[i].Value
}

// Members returns an object's members in input order. The slice must not be
// modified.
func (v Value) Members() []Member {
	if v.kind != Object {
		return nil
	}
	return v.items
}

// Elems returns an array's elements as members with empty keys. The slice
// must not be modified.
func (v Value) Elems() []Member {
	if v.kind != Array {
		return nil
	}
	return v.items
}

// Get returns the member named key of an object, or an Absent value.
func (v Value) Get(key string) Value {
	if v.kind != Object {
		return Value{}
	}
	for i := range v.items {
		if v.items[i].Key == key {
			return v.items[i].Value
		}
	}
	return Value{}
}

// StringValue makes a String value.
func StringValue(s string) Value { return Value{kind: String, s: s} }

// BoolValue makes a True or False value.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: True}
	}
	return Value{kind: False}
}

// IntValue makes a Number value.
func IntValue(n int64) Value { return Value{kind: Number, s: strconv.FormatInt(n, 10)} }

// NullValue makes a null.
func NullValue() Value { return Value{kind: Null} }

// ObjectValue makes an object from members, which it keeps. It does not
// check for duplicate keys: callers building values by hand own that.
func ObjectValue(members ...Member) Value { return Value{kind: Object, items: members} }

// ArrayValue makes an array.
func ArrayValue(elems ...Value) Value {
	items := make([]Member, len(elems))
	for i, e := range elems {
		items[i].Value = e
	}
	return Value{kind: Array, items: items}
}

// With returns a copy of object v with key set to val (replaced if present,
// else appended).
func (v Value) With(key string, val Value) Value {
	items := make([]Member, 0, len(v.items)+1)
	replaced := false
	for _, m := range v.items {
		if m.Key == key {
			m.Value = val
			replaced = true
		}
		items = append(items, m)
	}
	if !replaced {
		items = append(items, Member{key, val})
	}
	return Value{kind: Object, items: items}
}

// Without returns a copy of object v without key.
func (v Value) Without(key string) Value {
	items := make([]Member, 0, len(v.items))
	for _, m := range v.items {
		if m.Key != key {
			items = append(items, m)
		}
	}
	return Value{kind: Object, items: items}
}

// MarshalJSON gives the canonical (RFC 8785) bytes of v.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.kind == Absent {
		return []byte("null"), nil
	}
	return AppendCanonical(nil, v), nil
}

// UnmarshalJSON parses b strictly with the default limits.
func (v *Value) UnmarshalJSON(b []byte) error {
	p, err := Parse(b, 0)
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// String gives the canonical text of v.
func (v Value) String() string { return string(AppendCanonical(nil, v)) }

// Walk calls fn for every string value under v, depth first, with its JSON
// path relative to prefix and the key of the member that holds it (empty for
// array elements). Object keys themselves are passed with isKey set. It stops
// early if fn returns false.
func (v Value) Walk(prefix string, fn func(path, key, s string, isKey bool) bool) bool {
	switch v.kind {
	case String:
		return fn(prefix, "", v.s, false)
	case Array:
		for i := range v.items {
			if !v.items[i].Value.walk(prefix, i, "", fn) {
				return false
			}
		}
	case Object:
		for i := range v.items {
			m := &v.items[i]
			p := JoinPath(prefix, m.Key)
			if !fn(p, m.Key, m.Key, true) {
				return false
			}
			if !m.Value.walk(p, -1, m.Key, fn) {
				return false
			}
		}
	}
	return true
}

func (v Value) walk(prefix string, index int, key string, fn func(path, key, s string, isKey bool) bool) bool {
	if index >= 0 {
		prefix = IndexPath(prefix, index)
	}
	if v.kind == String {
		return fn(prefix, key, v.s, false)
	}
	return v.Walk(prefix, fn)
}

// JoinPath appends an object key to a JSON path: "p" + "x" is "p.x"; keys
// that are not plain identifiers are quoted, as in `p["a.b"]`.
func JoinPath(parent, key string) string {
	if isPlainKey(key) {
		if parent == "" {
			return key
		}
		return parent + "." + key
	}
	return parent + "[" + strconv.Quote(key) + "]"
}

// IndexPath appends an array index to a JSON path.
func IndexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !PlainKeyByte(k[i]) {
			return false
		}
	}
	return true
}

// PlainKeyByte reports whether c may appear in an object key that a JSON
// path (JoinPath) shows without quotes.
func PlainKeyByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isIntLiteral reports whether a valid JSON number literal has no fraction
// or exponent.
func isIntLiteral(s string) bool { return !strings.ContainsAny(s, ".eE") }
