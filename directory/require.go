package directory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Bounds of one query's requirements. Each entry a search walks is
// matched against them, and an includes list costs its length times the
// length of the metadata array it is looked for in: unbounded, one
// anonymous query could hold a processor for minutes.
const (
	// MaxRequirements bounds the conditions.
	MaxRequirements = 32
	// MaxRequirementValues bounds the values of one list: a literal
	// array or the operand of includes.
	MaxRequirementValues = 64
	// MaxRequirementsLen bounds the requirements object, in bytes.
	MaxRequirementsLen = 4096
)

// Requirements are conditions on an entry's metadata, all of which must
// hold for the entry to match. Each names a top-level metadata key; an entry
// without that key does not match.
//
// A condition is either a literal or an operator object:
//
//	"timezone_support": true          the value equals true, or is an array holding true
//	"languages": ["en", "ja"]         the value is an array holding both "en" and "ja"
//	"languages": {"includes": ["en"]} the same, spelled out; a scalar operand means [operand]
//	"model": {"eq": ["a", "b"]}       the value is exactly ["a", "b"]
//	"max_attendees": {"gte": 50}      the value is a number ≥ 50; "lte" likewise
//
// An object is an operator object when all its keys are among eq,
// includes, gte and lte; several operators in one object must all hold.
// Numbers compare by value (1 equals 1.0).
type Requirements struct {
	conds []condition // sorted by key
}

type condition struct {
	Key      string `json:"k"`
	Literal  any    `json:"l,omitempty"`
	IsLit    bool   `json:"il,omitempty"`
	Eq       any    `json:"eq,omitempty"`
	HasEq    bool   `json:"he,omitempty"`
	Includes []any  `json:"in,omitempty"`
	HasIncl  bool   `json:"hi,omitempty"`
	Gte      *float64
	Lte      *float64
}

// ParseRequirements parses the requirements object of a discover query.
// Empty input or null means no requirements.
func ParseRequirements(data []byte) (Requirements, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return Requirements{}, nil
	}
	if len(data) > MaxRequirementsLen {
		return Requirements{}, fieldErr("requirements", "longer than %d bytes", MaxRequirementsLen)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Requirements{}, fieldErr("requirements", "want a JSON object")
	}
	if len(raw) > MaxRequirements {
		return Requirements{}, fieldErr("requirements", "more than %d conditions", MaxRequirements)
	}
	var r Requirements
	for k, v := range raw {
		f := "requirements." + k
		if k == "" || len(k) > MaxCapabilityLen {
			return Requirements{}, fieldErr("requirements", "keys must be 1 to %d bytes", MaxCapabilityLen)
		}
		val, err := decodeValue(v)
		if err != nil {
			return Requirements{}, fieldErr(f, "%v", err)
		}
		c := condition{Key: k}
		if ops, ok := val.(map[string]any); ok && isOperatorObject(ops) {
			if err := c.setOperators(ops); err != nil {
				return Requirements{}, fieldErr(f, "%v", err)
			}
		} else {
			c.Literal, c.IsLit = val, true
		}
		if lit, _ := c.Literal.([]any); len(lit) > MaxRequirementValues || len(c.Includes) > MaxRequirementValues {
			return Requirements{}, fieldErr(f, "more than %d values", MaxRequirementValues)
		}
		r.conds = append(r.conds, c)
	}
	slices.SortFunc(r.conds, func(a, b condition) int { return strings.Compare(a.Key, b.Key) })
	return r, nil
}

func isOperatorObject(m map[string]any) bool {
	if len(m) == 0 {
		return false
	}
	for k := range m {
		switch k {
		case "eq", "includes", "gte", "lte":
		default:
			return false
		}
	}
	return true
}

func (c *condition) setOperators(ops map[string]any) error {
	if v, ok := ops["eq"]; ok {
		c.Eq, c.HasEq = v, true
	}
	if v, ok := ops["includes"]; ok {
		if a, isArr := v.([]any); isArr {
			c.Includes = a
		} else {
			c.Includes = []any{v}
		}
		c.HasIncl = true
	}
	for _, op := range []string{"gte", "lte"} {
		v, ok := ops[op]
		if !ok {
			continue
		}
		f, isNum := v.(float64)
		if !isNum {
			return fmt.Errorf("%s wants a number", op)
		}
		if op == "gte" {
			c.Gte = &f
		} else {
			c.Lte = &f
		}
	}
	return nil
}

// Empty reports whether there are no conditions.
func (r Requirements) Empty() bool { return len(r.conds) == 0 }

// Keys returns the metadata keys the conditions name, sorted.
func (r Requirements) Keys() []string {
	keys := make([]string, len(r.conds))
	for i, c := range r.conds {
		keys[i] = c.Key
	}
	return keys
}

// MarshalJSON writes a canonical form: equal requirements give equal
// bytes whatever the order or spelling they were parsed from.
func (r Requirements) MarshalJSON() ([]byte, error) {
	if r.conds == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(r.conds)
}

// Match reports whether metadata (a JSON object, or nil) meets every
// condition. It decodes only the values the conditions name.
func (r Requirements) Match(metadata []byte) bool {
	if len(r.conds) == 0 {
		return true
	}
	if len(metadata) == 0 {
		return false
	}
	var small [8]bool
	seen := small[:0]
	if len(r.conds) > len(small) {
		seen = make([]bool, 0, len(r.conds))
	}
	seen = seen[:len(r.conds)]
	matched := 0
	ok := eachMember(metadata, func(key []byte, escaped bool, val []byte) bool {
		i := r.find(key, escaped)
		if i < 0 || seen[i] {
			return true
		}
		seen[i] = true
		var v any
		if json.Unmarshal(val, &v) != nil || !r.conds[i].match(v) {
			return false
		}
		matched++
		return true
	})
	return ok && matched == len(r.conds)
}

// find returns the index of the condition on key, or -1.
func (r Requirements) find(key []byte, escaped bool) int {
	k := string(key)
	if escaped {
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k) != nil {
			return -1
		}
	}
	i, found := slices.BinarySearchFunc(r.conds, k, func(c condition, k string) int { return strings.Compare(c.Key, k) })
	if !found {
		return -1
	}
	return i
}

// eachMember calls fn with the key (still escaped, without its quotes;
// escaped says whether it holds a backslash) and the raw value of each
// member of the JSON object data, in order, until fn returns false. It
// reports whether it went through the whole object and data was one
// well-formed object as far as a scan can tell; entries' metadata was
// validated when it was stored, so this is only a guard.
func eachMember(data []byte, fn func(key []byte, escaped bool, val []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		end, escaped := skipString(data, i)
		if end < 0 {
			return false
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend := skipValue(data, i)
		if vend < 0 {
			return false
		}
		if !fn(key, escaped, data[i:vend]) {
			return false
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i]
// (a quote), or -1, and whether it holds an escape.
func skipString(data []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, false
}

// skipValue returns the index just past the JSON value starting at
// data[i], or -1.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		end, _ := skipString(data, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, _ := skipString(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func (c *condition) match(v any) bool {
	if c.IsLit {
		if lit, ok := c.Literal.([]any); ok {
			return containsAll(v, lit)
		}
		if equalJSON(v, c.Literal) {
			return true
		}
		return containsAll(v, []any{c.Literal})
	}
	if c.HasEq && !equalJSON(v, c.Eq) {
		return false
	}
	if c.HasIncl {
		ok := containsAll(v, c.Includes)
		if !ok && len(c.Includes) == 1 {
			ok = equalJSON(v, c.Includes[0])
		}
		if !ok {
			return false
		}
	}
	if c.Gte != nil || c.Lte != nil {
		n, isNum := v.(float64)
		if !isNum {
			return false
		}
		if c.Gte != nil && n < *c.Gte {
			return false
		}
		if c.Lte != nil && n > *c.Lte {
			return false
		}
	}
	return true
}

// containsAll reports whether v is an array holding every element of want.
func containsAll(v any, want []any) bool {
	arr, ok := v.([]any)
	if !ok {
		return false
	}
	for _, w := range want {
		found := false
		for _, x := range arr {
			if equalJSON(x, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// equalJSON compares decoded JSON values; numbers are float64 already.
func equalJSON(a, b any) bool { return reflect.DeepEqual(a, b) }

// decodeValue decodes one JSON value with numbers as float64 and rejects
// trailing data.
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON")
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the value")
	}
	return v, nil
}
