package pii

import (
	"slices"

	"github.com/moltgate/moltgate/wire"
)

// Decoded messages. The gateway holds every message as a wire.Value tree once it is decoded;
// ScanTree walks that tree in place (no re-encoding, and no allocation when nothing is found)
// with the same rules as ScanJSON: every string value is scanned with its key as context, keys
// are scanned, and numbers under a telling key ("ssn": 078051120), or long enough to be a card
// number, are scanned as text.

// ScanTree scans v. root prefixes every path (e.g. "p"; "" for none). skip, if not nil, is
// asked about each member of the top-level object by key, and a member it returns true for is
// not scanned: the gateway uses it to pass over the message header. Object members are visited
// in their order in the tree.
func (s *Scanner) ScanTree(root string, v wire.Value, skip func(key string) bool) []Finding {
	return s.AppendTree(nil, root, v, skip)
}

// AppendTree is ScanTree appending to dst.
func (s *Scanner) AppendTree(dst []Finding, root string, v wire.Value, skip func(key string) bool) []Finding {
	x := s.getCtx()
	x.out = dst
	x.walkTree(root, v, keyNone, 0, skip)
	x.finishDoc(0, func(fn func(path func() string, str string, key keyKind)) {
		y := x.walker()
		y.eachTree(root, v, keyNone, 0, skip, fn)
	})
	dst = x.out
	s.putCtx(x)
	return dst
}

func (x *scanCtx) walkTree(root string, v wire.Value, key keyKind, depth int, skip func(string) bool) {
	if depth > maxDepth {
		return
	}
	switch v.Kind() {
	case wire.String:
		str, _ := v.Str()
		x.scanLeaf(root, str, key, false)
	case wire.Number:
		if num, _ := v.NumberText(); key != keyNone || longInt(num) {
			x.scanLeaf(root, num, key, false)
		}
	case wire.Array:
		mark := len(x.jparts)
		for i, e := range v.Elems() {
			x.segs = append(x.segs, pathSeg{index: i})
			if t, ok := scalarText(e.Value); ok {
				x.notePart(mark, t, "")
			}
			x.walkTree(root, e.Value, key, depth+1, nil)
			x.segs = x.segs[:len(x.segs)-1]
		}
		x.endContainer(root, mark, key)
	case wire.Object:
		mark := len(x.jparts)
		outer := x.siblingID
		x.siblingID = siblingScheme(v.Members())
		defer func() { x.siblingID = outer }()
		for i, m := range v.Members() {
			if skip != nil && skip(m.Key) {
				continue
			}
			x.pushKey(root, m.Key, i)
			if t, ok := scalarText(m.Value); ok {
				x.notePart(mark, t, m.Key)
			}
			x.walkTree(root, m.Value, x.memberKey(m.Key), depth+1, nil)
			x.segs = x.segs[:len(x.segs)-1]
		}
		x.endContainer(root, mark, key)
	}
}

// scalarText returns the text of a string or a number as written.
func scalarText(v wire.Value) (string, bool) {
	switch v.Kind() {
	case wire.String:
		return v.Str()
	case wire.Number:
		s, ok := v.NumberText()
		return s, ok && integerText(s)
	}
	return "", false
}

// eachTree visits every string of v with its path, for the document-level health pass.
func (x *scanCtx) eachTree(root string, v wire.Value, key keyKind, depth int, skip func(string) bool, fn func(path func() string, s string, key keyKind)) {
	if depth > maxDepth {
		return
	}
	switch v.Kind() {
	case wire.String:
		str, _ := v.Str()
		fn(func() string { return x.path(root) }, str, key)
	case wire.Array:
		for i, e := range v.Elems() {
			x.segs = append(x.segs, pathSeg{index: i})
			x.eachTree(root, e.Value, key, depth+1, nil, fn)
			x.segs = x.segs[:len(x.segs)-1]
		}
	case wire.Object:
		for i, m := range v.Members() {
			if skip != nil && skip(m.Key) {
				continue
			}
			x.segs = append(x.segs, pathSeg{isKey: true, index: i, key: m.Key, safe: x.safeKey(m.Key)})
			x.eachTree(root, m.Value, x.keyOf(m.Key), depth+1, nil, fn)
			x.segs = x.segs[:len(x.segs)-1]
		}
	}
}

// Masks written in place of what is hidden. They name the kind of data and never its length.
const (
	// MaskField replaces a value named by pii_meta.mask_fields.
	MaskField = "[masked]"
	// MaskSecret replaces secret material wherever it is found.
	MaskSecret = "[secret]"
)

// MaskString returns text with every finding replaced by "[type]" ("[email]", "[phone]") and
// every secret by MaskSecret.
func (s *Scanner) MaskString(text string) string {
	x := s.getCtx()
	x.scanString(text, keyNone, false)
	n := len(x.out)
	x.finishDoc(0, nil)
	if len(x.out) > n {
		slices.SortStableFunc(x.out, func(a, b Finding) int { return a.Start - b.Start })
	}
	out := applyMasks(text, x.out)
	s.putCtx(x)
	return out
}

func maskFor(t Type) string {
	if t.Class() == ClassSecret {
		return MaskSecret
	}
	return "[" + t.String() + "]"
}

// applyMasks replaces the spans of fs (ordered, not overlapping, within text) by their masks.
func applyMasks(text string, fs []Finding) string {
	if len(fs) == 0 {
		return text
	}
	b := make([]byte, 0, len(text))
	at := 0
	for _, f := range fs {
		if f.Start < at || f.End > len(text) {
			continue
		}
		b = append(b, text[at:f.Start]...)
		b = append(b, maskFor(f.Type)...)
		at = f.End
	}
	b = append(b, text[at:]...)
	return string(b)
}

// MaskTree returns a copy of v in which every personal datum and secret found is replaced as
// MaskString does, every key holding one is replaced by "{n}" (its position), and every value
// named by fields is replaced whole by MaskField. An entry of fields names a member key
// ("email"), a path below root ("p.contact.email") or a pii_meta type ("email"), which masks
// every finding of that type. v itself is not modified; an unchanged subtree is shared.
func (s *Scanner) MaskTree(root string, v wire.Value, fields []string) wire.Value {
	all := s.ScanTree(root, v, nil)
	m := masker{sc: s, fields: fields}
	for _, f := range all {
		if identifies(f.Type) {
			m.identity = true
		}
	}
	out, _ := m.mask(root, v, keyNone, 0, false, nil)
	return out
}

type masker struct {
	sc       *Scanner
	fields   []string
	identity bool
	cells    map[int][]Finding // what a column view found on the cells of the row masked next
}

func (m *masker) named(path, key string) bool {
	for _, f := range m.fields {
		if f == path || key != "" && f == key {
			return true
		}
	}
	return false
}

func (m *masker) typeNamed(t Type) bool {
	meta := string(t.Meta())
	for _, f := range m.fields {
		if meta != "" && f == meta || f == t.String() {
			return true
		}
	}
	return false
}

// leaf masks one string scanned with key as context; extra are findings of a joined view on it.
func (m *masker) leaf(str string, key keyKind, extra []Finding) string {
	x := m.sc.getCtx()
	x.scanString(str, key, false)
	if m.identity {
		x.out = append(x.out, x.healthCues...)
		x.base = len(x.out)
		x.s = str
		x.healthTerms()
		x.resolveHealth()
		slices.SortStableFunc(x.out, func(a, b Finding) int { return a.Start - b.Start })
		// A health finding may overlap another one; keep the first of overlapping spans.
		keep := x.out[:0]
		end := 0
		for _, f := range x.out {
			if f.Start >= end {
				keep = append(keep, f)
				end = f.End
			}
		}
		x.out = keep
	}
	if len(extra) > 0 {
		// The pieces of a value split over fields: masked with the rest, the first of
		// overlapping spans kept.
		x.out = append(x.out, extra...)
		slices.SortStableFunc(x.out, func(a, b Finding) int { return a.Start - b.Start })
		keep := x.out[:0]
		end := 0
		for _, f := range x.out {
			if f.Start >= end {
				keep = append(keep, f)
				end = f.End
			}
		}
		x.out = keep
	}
	for _, f := range x.out {
		if m.typeNamed(f.Type) && f.Start == 0 && f.End == len(str) {
			m.sc.putCtx(x)
			return MaskField
		}
	}
	out := applyMasks(str, x.out)
	m.sc.putCtx(x)
	return out
}

func (m *masker) mask(path string, v wire.Value, key keyKind, depth int, named bool, extra []Finding) (wire.Value, bool) {
	if depth > maxDepth {
		return v, false
	}
	switch v.Kind() {
	case wire.String:
		if named {
			return wire.StringValue(MaskField), true
		}
		str, _ := v.Str()
		if out := m.leaf(str, key, extra); out != str {
			return wire.StringValue(out), true
		}
	case wire.Number, wire.True, wire.False:
		if named {
			return wire.StringValue(MaskField), true
		}
		if num, ok := v.NumberText(); ok && (key != keyNone || longInt(num) || len(extra) > 0) {
			if out := m.leaf(num, key, extra); out != num {
				return wire.StringValue(out), true
			}
		}
	case wire.Array:
		var elems []wire.Value
		cells := m.cells // this array is a row whose cells a column view found pieces on
		m.cells = nil
		joined := m.joinedHits(v, key)
		cols := m.columnHits(v, key) // joined_rows.go
		for i, fs := range cells {
			if joined == nil {
				joined = map[int][]Finding{}
			}
			joined[i] = append(joined[i], fs...)
		}
		if _, offs, ok := arrayGroups(v); ok && len(extra) > 0 {
			// The groups of a number its parent's joined view found (joined_groups.go).
			for i, fs := range groupsMasks(extra, offs) {
				if joined == nil {
					joined = map[int][]Finding{}
				}
				joined[i] = append(joined[i], fs...)
			}
		}
		for i, e := range v.Elems() {
			m.cells = cols[i]
			nv, changed := m.mask(wire.IndexPath(path, i), e.Value, key, depth+1, named, joined[i])
			m.cells = nil
			if changed && elems == nil {
				elems = make([]wire.Value, 0, v.Len())
				for _, p := range v.Elems()[:i] {
					elems = append(elems, p.Value)
				}
			}
			if elems != nil {
				elems = append(elems, nv)
			}
		}
		if elems != nil {
			return wire.ArrayValue(elems...), true
		}
	case wire.Object:
		var members []wire.Member
		joined := m.joinedHits(v, key)
		pname, pv, pair := pairMember(v) // pairs.go
		for i, mb := range v.Members() {
			p := wire.JoinPath(path, mb.Key)
			k := mb.Key
			if m.leaf(k, keyNone, nil) != k {
				k = "{" + itoa(i) + "}"
			}
			kind, ex := classifyKey(mb.Key), joined[i]
			if pair && i == pv {
				if nk := classifyKey(pname); nk != keyNone {
					kind = nk
				}
				ex = append(ex, extra...)
			}
			nv, changed := m.mask(p, mb.Value, kind, depth+1, named || m.named(p, mb.Key), ex)
			if (changed || k != mb.Key) && members == nil {
				members = make([]wire.Member, 0, v.Len())
				members = append(members, v.Members()[:i]...)
			}
			if members != nil {
				members = append(members, wire.Member{Key: k, Value: nv})
			}
		}
		if members != nil {
			return wire.ObjectValue(members...), true
		}
	}
	return v, false
}

// joinedHits returns, by child position, what the joined views of v's scalar children find.
func (m *masker) joinedHits(v wire.Value, key keyKind) map[int][]Finding {
	var parts []jpart
	var pos []int
	add := func(i int, c wire.Value, k string) {
		if t, ok := scalarText(c); ok && partRoom(parts, t, k) {
			parts = append(parts, jpart{s: t, key: k})
			pos = append(pos, i)
		} else if g, offs, ok := arrayGroups(c); ok && len(parts) < maxJoinParts {
			parts = append(parts, groupsPart(c, g, offs, k))
			pos = append(pos, i)
		} else if name, vi, ok := pairMember(c); ok && len(parts) < maxJoinParts {
			t, _ := scalarText(c.Members()[vi].Value)
			parts = append(parts, jpart{s: t, key: name})
			pos = append(pos, i)
		}
	}
	if v.Kind() == wire.Array {
		for i, e := range v.Elems() {
			add(i, e.Value, "")
		}
	} else {
		for i, mb := range v.Members() {
			add(i, mb.Value, mb.Key)
		}
	}
	if len(parts) < 2 {
		return nil
	}
	x := m.sc.getCtx()
	hits := x.joinFind(parts, key)
	m.sc.putCtx(x)
	if len(hits) == 0 {
		return nil
	}
	out := make(map[int][]Finding, len(parts))
	for _, h := range hits {
		if h.cue && !m.identity {
			continue // masked only where the document names someone, as in one string
		}
		out[pos[h.part]] = append(out[pos[h.part]], h.f)
	}
	return out
}

// longInt reports whether num, a JSON number's text, is an integer of 12 digits or more: short
// enough numbers are counts, amounts and times, but a card number sent as a number is a card
// number all the same, under any key.
func longInt(num string) bool {
	if len(num) > 0 && num[0] == '-' {
		num = num[1:]
	}
	if len(num) < 12 {
		return false
	}
	for i := 0; i < len(num); i++ {
		if !isDigit(num[i]) {
			return false
		}
	}
	return true
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
