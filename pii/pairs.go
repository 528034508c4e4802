package pii

import "github.com/moltgate/moltgate/wire"

// Name/value pairs. Much structured data carries its member names as data: HAR and HTTP
// captures list headers as [{"name":"X-Api-Key","value":…}], Kubernetes containers their
// environment as [{"name":"DB_PASSWORD","value":…}], AWS its tags as [{"Key":…,"Value":…}],
// form serialisers their fields as [{"name":"iban_part1","value":…}]. An object that holds one
// such pair is read as the member it stands for: its value is scanned again under the kind of
// key its name is, and in its parent's joined view it is one part under that name, so that the
// pairs of an array are read together as the members of one object are. Only an object with
// exactly one name-like and one value-like scalar member is a pair, and the value is scanned
// again only when the name is a key the scanner knows, so the cost falls on such objects alone.
//
// Spreadsheet and table exports wrap each cell likewise, with no name: {"cells":[{"v":"+593"},
// {"v":"967642"},{"v":"791"}]}. An object whose one member is value-like is such a cell, and in
// its parent's joined view it is one part, as a scalar item of the array would be.

// pairNameKey reports a member that names the value beside it.
func pairNameKey(k string) bool {
	switch k {
	case "name", "Name", "NAME", "key", "Key", "KEY", "k", "header", "Header", "field", "Field", "param",
		"parameter", "variable", "var", "attribute", "attr", "property", "prop", "setting", "option":
		return true
	}
	return false
}

// pairValueKey reports a member that holds the value a sibling names.
func pairValueKey(k string) bool {
	switch k {
	case "value", "Value", "VALUE", "val", "v", "content", "data":
		return true
	}
	return false
}

// pairName reports a name a pair may carry: a member name as systems write them (letters,
// digits, '-', '_', '.', ':'), at most 64 bytes, with a letter in it.
func pairName(s string) bool {
	if len(s) < 2 || len(s) > 64 {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':':
		default:
			return false
		}
	}
	return letter
}

// pairOf returns the indexes, among the scalar parts of the object whose parts start at mark,
// of its name and of its value, when it holds one name/value pair.
func (x *scanCtx) pairOf(mark int) (name, value int, ok bool) {
	parts := x.jparts[mark:]
	name, value = -1, -1
	for i, p := range parts {
		switch {
		case p.key == "" || p.kids != nil:
			return 0, 0, false
		case pairNameKey(p.key):
			if name >= 0 {
				return 0, 0, false
			}
			name = i
		case pairValueKey(p.key):
			if value >= 0 {
				return 0, 0, false
			}
			value = i
		}
	}
	if name < 0 && value == 0 && len(parts) == 1 && cellText(parts[0].s) {
		return -1, 0, true // a cell: {"v":"+593"}
	}
	if name < 0 || value < 0 || !pairName(parts[name].s) || parts[value].s == "" {
		return 0, 0, false
	}
	return name, value, true
}

// cellText reports a value a cell object may hold for its parent's joined view: a short one with
// a byte other than a lower-case letter or a space (the views report what has such a byte).
func cellText(s string) bool {
	return len(s) > 0 && len(s) <= 64 && joinWorthy([]jpart{{s: s}})
}

// pairView reads the object whose parts start at mark as the member its name/value pair
// stands for: it scans the value again under its name's kind of key, keeping what that finds
// beyond the plain scan, and returns the part the pair is in its parent's joined view.
func (x *scanCtx) pairView(root string, mark int) (jpart, bool) {
	depth := len(x.segs)
	n, v, ok := x.pairOf(mark)
	if !ok {
		return jpart{}, false
	}
	if n < 0 {
		// A cell is its value in its parent's view, under the cell's own step.
		if depth == 0 {
			return jpart{}, false
		}
		seg := x.segs[depth-1]
		return jpart{s: x.jparts[mark+v].s, seg: seg, key: seg.key, depth: depth}, true
	}
	name, val := x.jparts[mark+n].s, x.jparts[mark+v]
	if kind := x.keyOf(name); kind != keyNone {
		before, hc := len(x.out), len(x.healthCues)
		x.segs = append(x.segs, val.seg)
		x.scanLeaf(root, val.s, kind, false)
		x.segs = x.segs[:len(x.segs)-1]
		x.out = appendNew(x.out[:before], x.out[before:])
		x.healthCues = appendNew(x.healthCues[:hc], x.healthCues[hc:])
	}
	if depth == 0 {
		return jpart{}, false
	}
	return jpart{s: val.s, seg: x.segs[depth-1], key: name, depth: depth}, true
}

// appendNew appends to dst the findings of fs it does not hold yet. fs may alias dst's spare
// capacity: each is copied before the next is read.
func appendNew(dst, fs []Finding) []Finding {
	n := len(fs)
	tail := make([]Finding, n)
	copy(tail, fs)
	for _, f := range tail {
		if !hasFinding(dst, f) {
			dst = append(dst, f)
		}
	}
	return dst
}

// pairMember returns, for an object that holds one name/value pair as pairOf reads it in the
// walk, its name and the position of its value member: the masker reads it by it.
func pairMember(v wire.Value) (name string, value int, ok bool) {
	if v.Kind() != wire.Object {
		return "", 0, false
	}
	n := -1
	value = -1
	for i, mb := range v.Members() {
		s, scalar := scalarText(mb.Value)
		if !scalar || keyText(s) {
			continue
		}
		switch {
		case pairNameKey(mb.Key):
			if n >= 0 {
				return "", 0, false
			}
			n, name = i, s
		case pairValueKey(mb.Key):
			if value >= 0 || s == "" {
				return "", 0, false
			}
			value = i
		}
	}
	if n < 0 && value >= 0 && cellObject(v, value) {
		return "", value, true
	}
	if n < 0 || value < 0 || !pairName(name) {
		return "", 0, false
	}
	return name, value, true
}

// cellObject reports whether the object v, whose member at value is value-like, is a cell as the
// walk reads one: that member is its one part (no other scalar member, no array of groups, no
// pair or cell of its own), and it holds cellText.
func cellObject(v wire.Value, value int) bool {
	for i, mb := range v.Members() {
		if i == value {
			if s, _ := scalarText(mb.Value); !cellText(s) {
				return false
			}
			continue
		}
		if s, scalar := scalarText(mb.Value); scalar && !keyText(s) {
			return false
		}
		if _, _, ok := arrayGroups(mb.Value); ok {
			return false
		}
		if _, _, ok := pairMember(mb.Value); ok {
			return false
		}
	}
	return true
}
