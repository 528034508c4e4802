package pii

import "github.com/moltgate/moltgate/wire"

// A number whose groups are the items of an array beside its other pieces:
// {"cc":"+234","rest":["803","998","7062"]}, {"country":"HU","check":"68","bban":["59362925",
// "17782698","96998266"]}. The array's own joined view reads the groups together but without the
// pieces beside it, and the parent's view, which reads only scalar members, never sees the
// groups. So an array whose items are a few short groups of digits and capitals is, once walked,
// one more part of its parent's view, read as its groups joined; what that view finds on it is
// reported on each group it takes. Only such arrays are lifted: a list of words, of long strings
// or of many items stays where it is, so the lift costs nothing on prose and little on data.

const (
	maxGroupLen  = 12 // bytes of one group
	maxGroupsLen = 40 // bytes of the groups together
)

// liftGroups returns the parts x.jparts[mark:] of an array that has just been walked, with its
// step on top of x.segs, as one part of its parent's view, when they are the groups of a split
// number and the parent still takes parts.
func (x *scanCtx) liftGroups(mark int) (jpart, bool) {
	parts := x.jparts[mark:]
	depth := len(x.segs)
	if len(parts) < 2 || len(parts) > maxJoinParts || depth == 0 {
		return jpart{}, false
	}
	total := 0
	for _, p := range parts {
		if p.key != "" || !groupText(p.s) {
			return jpart{}, false
		}
		total += len(p.s)
	}
	if total > maxGroupsLen {
		return jpart{}, false
	}
	kids, ok := x.liftKids(mark, depth)
	if !ok {
		return jpart{}, false
	}
	offs := make([]int, len(parts)+1)
	buf := make([]byte, 0, total)
	for i, p := range parts {
		offs[i] = len(buf)
		buf = append(buf, p.s...)
	}
	offs[len(parts)] = len(buf)
	seg := x.segs[depth-1]
	return jpart{s: string(buf), seg: seg, key: seg.key, depth: depth, kids: kids, koffs: offs}, true
}

// liftKids returns a copy of the parts x.jparts[mark:] of an array just walked at depth, to be
// the kids of the one part it becomes in its parent's view, when that view still takes parts:
// the parent's parts so far are those noted with their step at this depth.
func (x *scanCtx) liftKids(mark, depth int) ([]jpart, bool) {
	n := 0
	for i := mark - 1; i >= 0 && x.jparts[i].depth == depth; i-- {
		n++
	}
	if n >= maxJoinParts {
		return nil, false
	}
	kids := make([]jpart, len(x.jparts)-mark)
	copy(kids, x.jparts[mark:])
	return kids, true
}

// groupText reports whether s is one group of a split number: 1 to maxGroupLen digits and
// capitals, with at least one digit, and spaces or '-' between them.
func groupText(s string) bool {
	if len(s) == 0 || len(s) > maxGroupLen {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			digit = true
		case isUpper(c), c == ' ' && i > 0, c == '-' && i > 0:
		default:
			return false
		}
	}
	return digit
}

// groupHits reports f, found by a joined view on the lifted part p (whose step is on top of
// x.segs), on each group it takes, at the group's path.
func (x *scanCtx) groupHits(root string, p jpart, f Finding) {
	for i, k := range p.kids {
		a, e := max(f.Start, p.koffs[i]), min(f.End, p.koffs[i+1])
		if a >= e {
			continue
		}
		g := f
		g.Start, g.End = a-p.koffs[i], min(e-p.koffs[i], len(k.s))
		if g.Start >= g.End {
			continue // the space spacedGroups put after the group
		}
		x.segs = append(x.segs, k.seg)
		g.Path = x.path(root)
		x.segs = x.segs[:len(x.segs)-1]
		x.out = append(x.out, g)
	}
}

// spacedGroups returns p, when it is lifted groups, with a space between the groups: a phone
// number's groups read as one run of eleven digits or more after a country code are no number
// the scan reads, and a subscriber number written in groups is read in its groups.
func spacedGroups(p jpart) jpart {
	if p.kids == nil {
		return p
	}
	buf := make([]byte, 0, len(p.s)+len(p.kids))
	offs := make([]int, len(p.kids)+1)
	for i, k := range p.kids {
		if i > 0 {
			buf = append(buf, ' ')
		}
		offs[i] = len(buf)
		buf = append(buf, k.s...)
	}
	offs[len(p.kids)] = len(buf)
	p.s, p.koffs = string(buf), offs
	return p
}

// unspace returns the offset in p of offset q in sp, p with spacedGroups' spaces: a space
// maps to the end of the group before it.
func unspace(p, sp jpart, q int) int {
	if p.kids == nil {
		return q
	}
	for i := len(sp.kids) - 1; i >= 0; i-- {
		if q >= sp.koffs[i] {
			return p.koffs[i] + min(q-sp.koffs[i], len(p.kids[i].s))
		}
	}
	return q
}

// planValid keeps the hits of phone numbers that their region's plan holds valid: a member not
// named for a number is read as one only then.
func planValid(hits []jhit) []jhit {
	out := hits[:0]
	for _, h := range hits {
		if h.f.Confidence >= 0.9 {
			out = append(out, h)
		}
	}
	return out
}

// loneNumberPart returns the one part other than the country code c and the area code a that
// reads as a subscriber number (digits, with spaces or '-' between groups), or -1: beside a
// member that names a country code, the member holding the rest of the number may be named
// anything ("rest", "digits", "valor").
func loneNumberPart(parts []jpart, c, a int) int {
	n := -1
	for i, p := range parts {
		if i == c || i == a {
			continue
		}
		nd, ok := 0, len(p.s) > 0
		for k := 0; k < len(p.s) && ok; k++ {
			switch ch := p.s[k]; {
			case isDigit(ch):
				nd++
			case ch == ' ' || ch == '-':
			default:
				ok = false
			}
		}
		if !ok || nd < 4 || nd > 14 {
			continue
		}
		if n >= 0 {
			return -1 // two candidates: no telling which is the number
		}
		n = i
	}
	return n
}

// arrayGroups returns the items of v joined and where each starts (and the end), when v is an
// array of groups of a split number that liftGroups would lift: MaskTree reads it in its
// parent's joined view as the scan does, and hides each group the view finds.
func arrayGroups(v wire.Value) (string, []int, bool) {
	if v.Kind() != wire.Array || v.Len() < 2 || v.Len() > maxJoinParts {
		return "", nil, false
	}
	var buf []byte
	offs := make([]int, 0, v.Len()+1)
	for _, e := range v.Elems() {
		t, ok := scalarText(e.Value)
		if !ok || !groupText(t) || len(buf)+len(t) > maxGroupsLen {
			return "", nil, false
		}
		offs = append(offs, len(buf))
		buf = append(buf, t...)
	}
	return string(buf), append(offs, len(buf)), true
}

// groupsPart is the part arrayGroups' array v, its items g joined at offs, makes in its
// parent's view under the member name k.
func groupsPart(v wire.Value, g string, offs []int, k string) jpart {
	kids := make([]jpart, 0, v.Len())
	for i := range v.Elems() {
		kids = append(kids, jpart{s: g[offs[i]:offs[i+1]]})
	}
	return jpart{s: g, key: k, kids: kids, koffs: offs}
}

// groupsMasks splits fs, found on an array's items joined, over the items at offs.
func groupsMasks(fs []Finding, offs []int) map[int][]Finding {
	out := map[int][]Finding{}
	for _, f := range fs {
		for i := 0; i+1 < len(offs); i++ {
			a, e := max(f.Start, offs[i]), min(f.End, offs[i+1])
			if a < e {
				g := f
				g.Start, g.End = a-offs[i], e-offs[i]
				out[i] = append(out[i], g)
			}
		}
	}
	return out
}

// An IBAN in three members, its country, its check digits and its account number (whole or in
// groups), is one whatever order the members come in: a gateway reads members in the canonical
// order of their names, which puts {"country","check","bban"} as bban, check, country. The
// country is two capitals of a country that has IBANs, the check two digits, the account number
// the one other part of digits and capitals; read as country, check, account, it is an IBAN only
// if mod 97 says so.

// ibanPieces returns the hits of the IBAN whose country, check digits and account number are
// parts in another order than theirs.
func (x *scanCtx) ibanPieces(parts []jpart, key keyKind) []jhit {
	c, k, b := -1, -1, -1
	for i, p := range parts {
		s := p.s
		switch {
		case len(s) == 2 && isUpper(s[0]) && isUpper(s[1]) && ibanLen[s] > 0:
			if c >= 0 {
				return nil
			}
			c = i
		case len(s) == 2 && isDigit(s[0]) && isDigit(s[1]):
			if k >= 0 {
				return nil
			}
			k = i
		case len(s) >= 8 && len(s) <= 30 && accountText(s):
			if b >= 0 {
				return nil
			}
			b = i
		}
	}
	if c < 0 || k < 0 || b < 0 || c+1 == k && k+1 == b {
		return nil // missing, or in order already: the joined view in member order reads it
	}
	v := parts[c].s + parts[k].s + parts[b].s
	pick := [3]int{c, k, b}
	var hits []jhit
	for _, h := range x.joinScan(nil, v, []jpart{parts[c], parts[k], parts[b]}, []int{0, 2, 4, len(v)}, key) {
		if h.f.Type == TypeIBAN {
			h.part = pick[h.part]
			hits = append(hits, h)
		}
	}
	return hits
}

// accountText reports whether s holds only digits and capitals, at least one digit.
func accountText(s string) bool {
	d := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			d = true
		case !isUpper(c):
			return false
		}
	}
	return d
}
