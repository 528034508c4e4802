package pii

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/moltgate/moltgate/wire"
)

// The payload of a row as the evasion test rewrites it: a mutable copy of the tree whose
// strings carry the spans of the values in them (what the gate found there, or for a row the
// gate lets pass, the words that look like values), so that a rewriting can aim at the values,
// at the words around them, or at the whole text.

type enode struct {
	kind  wire.Kind
	s     string   // a string's value, a number's literal
	spans [][2]int // values in s, in order, not overlapping
	keys  []string // an object's member names
	kids  []*enode
}

func toENode(v wire.Value) *enode {
	n := &enode{kind: v.Kind()}
	switch v.Kind() {
	case wire.String:
		n.s, _ = v.Str()
	case wire.Number:
		n.s, _ = v.NumberText()
	case wire.Array:
		for _, e := range v.Elems() {
			n.kids = append(n.kids, toENode(e.Value))
		}
	case wire.Object:
		for _, m := range v.Members() {
			n.keys = append(n.keys, m.Key)
			n.kids = append(n.kids, toENode(m.Value))
		}
	}
	return n
}

func (n *enode) clone() *enode {
	c := *n
	c.spans = append([][2]int(nil), n.spans...)
	c.keys = append([]string(nil), n.keys...)
	c.kids = make([]*enode, len(n.kids))
	for i, k := range n.kids {
		c.kids[i] = k.clone()
	}
	return &c
}

func (n *enode) appendJSON(b []byte) []byte {
	switch n.kind {
	case wire.String:
		q, _ := json.Marshal(n.s)
		return append(b, q...)
	case wire.Number:
		return append(b, n.s...)
	case wire.Null:
		return append(b, "null"...)
	case wire.True:
		return append(b, "true"...)
	case wire.False:
		return append(b, "false"...)
	case wire.Array:
		b = append(b, '[')
		for i, k := range n.kids {
			if i > 0 {
				b = append(b, ',')
			}
			b = k.appendJSON(b)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, k := range n.kids {
		if i > 0 {
			b = append(b, ',')
		}
		q, _ := json.Marshal(n.keys[i])
		b = append(append(b, q...), ':')
		b = k.appendJSON(b)
	}
	return append(b, '}')
}

func (n *enode) value() (wire.Value, error) { return wire.Parse(n.appendJSON(nil), 0) }

// strings visits every string of the tree.
func (n *enode) strings(fn func(s *enode)) {
	if n.kind == wire.String {
		fn(n)
	}
	for _, k := range n.kids {
		k.strings(fn)
	}
}

// hasSpans reports whether some string of the tree holds a value.
func (n *enode) hasSpans() bool {
	found := false
	n.strings(func(s *enode) { found = found || len(s.spans) > 0 })
	return found
}

// leafPaths calls fn with each string of the tree and whether a finding's path names it: the
// scanner writes a member as ".name" or, when the name is not one it may show, "{index}".
func (n *enode) leafPaths(fn func(s *enode, names func(path string) bool)) {
	var walk func(n *enode, segs []string)
	walk = func(n *enode, segs []string) {
		if n.kind == wire.String {
			segs := segs
			fn(n, func(path string) bool { return pathMatches(path, segs) })
			return
		}
		for i, k := range n.kids {
			if n.kind == wire.Array {
				walk(k, append(segs[:len(segs):len(segs)], "["+itoa(i)+"]"))
			} else {
				walk(k, append(segs[:len(segs):len(segs)], "{"+itoa(i)+"}", n.keys[i]))
			}
		}
	}
	// The gate's message puts the payload at member 3, "p".
	walk(n, []string{"{3}", "p"})
}

// pathMatches reports whether path is segs: "[i]" for an item; "{i}" then the name for a member.
func pathMatches(path string, segs []string) bool {
	for k := 0; k < len(segs); k++ {
		g := segs[k]
		if g[0] == '[' {
			if !strings.HasPrefix(path, g) {
				return false
			}
			path = path[len(g):]
			continue
		}
		name := segs[k+1]
		k++
		switch {
		case strings.HasPrefix(path, g):
			path = path[len(g):]
		case strings.HasPrefix(path, "."+name):
			path = path[1+len(name):]
		case k == 1 && strings.HasPrefix(path, name):
			path = path[len(name):]
		default:
			return false
		}
	}
	return path == ""
}

// setSpans gives each string of a row the spans of the findings of the gate's scan fs; when
// none is placed, the words that look like values.
func (n *enode) setSpans(fs []Finding) {
	n.leafPaths(func(s *enode, names func(string) bool) {
		for _, f := range fs {
			if f.InKey || f.End > len(s.s) || f.Start >= f.End || !names(f.Path) {
				continue
			}
			s.spans = addSpan(s.spans, f.Start, f.End)
		}
	})
	if n.hasSpans() {
		return
	}
	n.strings(func(s *enode) { s.spans = valueWords(s.s) })
	if !n.hasSpans() {
		n.strings(func(s *enode) {
			if strings.TrimSpace(s.s) != "" {
				s.spans = [][2]int{{0, len(s.s)}}
			}
		})
	}
}

// addSpan adds [a,b) to the sorted spans, merging it with those it overlaps.
func addSpan(sp [][2]int, a, b int) [][2]int {
	out := make([][2]int, 0, len(sp)+1)
	placed := false
	for _, x := range sp {
		switch {
		case x[1] < a:
			out = append(out, x)
		case b < x[0]:
			if !placed {
				out = append(out, [2]int{a, b})
				placed = true
			}
			out = append(out, x)
		default:
			a, b = min(a, x[0]), max(b, x[1])
		}
	}
	if !placed {
		out = append(out, [2]int{a, b})
	}
	return out
}

// valueWords returns the words of s that look like values: those holding a digit or '@', or
// of 10 bytes or more, trimmed of the punctuation around them.
func valueWords(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		for i < len(s) && isSpaceByte(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpaceByte(s[j]) {
			j++
		}
		a, b := i, j
		for a < b && strings.IndexByte(`"'(),;:[]{}<>.!?`, s[a]) >= 0 {
			a++
		}
		for b > a && strings.IndexByte(`"'(),;:[]{}<>.!?`, s[b-1]) >= 0 {
			b--
		}
		if w := s[a:b]; len(w) >= 10 || strings.ContainsAny(w, "0123456789@") {
			out = append(out, [2]int{a, b})
		}
		i = j
	}
	return out
}

// mapValues rewrites every value of the tree with f; it reports whether there was one, and
// whether f changed one.
func (n *enode) mapValues(r *rand.Rand, f func(r *rand.Rand, v string) string) bool {
	changed := false
	n.strings(func(s *enode) {
		if len(s.spans) == 0 {
			return
		}
		var b strings.Builder
		var sp [][2]int
		last := 0
		for _, x := range s.spans {
			b.WriteString(s.s[last:x[0]])
			v := f(r, s.s[x[0]:x[1]])
			changed = changed || v != s.s[x[0]:x[1]]
			sp = append(sp, [2]int{b.Len(), b.Len() + len(v)})
			b.WriteString(v)
			last = x[1]
		}
		b.WriteString(s.s[last:])
		s.s, s.spans = b.String(), sp
	})
	return changed
}

// mapWords rewrites with f every run of ASCII letters outside the values; keys too if inKeys.
func (n *enode) mapWords(r *rand.Rand, inKeys bool, f func(r *rand.Rand, w string) string) bool {
	changed := false
	words := func(s string, spans [][2]int) (string, [][2]int) {
		var b strings.Builder
		var sp [][2]int
		k := 0
		for i := 0; i < len(s); {
			if k < len(spans) && i == spans[k][0] {
				sp = append(sp, [2]int{b.Len(), b.Len() + spans[k][1] - spans[k][0]})
				b.WriteString(s[spans[k][0]:spans[k][1]])
				i = spans[k][1]
				k++
				continue
			}
			end := len(s)
			if k < len(spans) {
				end = spans[k][0]
			}
			j := i
			for j < end && (isUpper(s[j]) || isLower(s[j])) {
				j++
			}
			if j == i {
				b.WriteByte(s[i])
				i++
				continue
			}
			w := f(r, s[i:j])
			changed = changed || w != s[i:j]
			b.WriteString(w)
			i = j
		}
		return b.String(), sp
	}
	var walk func(n *enode)
	walk = func(n *enode) {
		if n.kind == wire.String {
			n.s, n.spans = words(n.s, n.spans)
		}
		for i := range n.keys {
			if inKeys {
				n.keys[i], _ = words(n.keys[i], nil)
			}
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(n)
	return changed
}

// mapStrings rewrites every string that holds a value, whole, with f.
func (n *enode) mapStrings(r *rand.Rand, f func(r *rand.Rand, s string) string) bool {
	changed := false
	n.strings(func(s *enode) {
		if len(s.spans) == 0 {
			return
		}
		v := f(r, s.s)
		changed = changed || v != s.s
		s.s, s.spans = v, [][2]int{{0, len(v)}}
	})
	return changed
}

// runes splits s into its characters.
func runes(s string) []string {
	out := make([]string, 0, len(s))
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}
