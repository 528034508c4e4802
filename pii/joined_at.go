package pii

import "strings"

// An address split into members with its '@' a member of its own ({"mailbox":"jane.doe",
// "at":"@","host":"example.com"}) is one whatever order the members come in: a gateway reads a
// payload's members in its canonical order, not the order the sender wrote them, so the joined
// view in member order may put the domain before the '@'. The lone '@' says what the other two
// are: the member that reads as a domain follows it, and the one member left precedes it.

// atSplit returns the hits of the address made of a lone "@" member, a domain member and one
// other member, in whatever order they stand.
func (x *scanCtx) atSplit(parts []jpart, key keyKind) []jhit {
	at, dom, loc := -1, -1, -1
	for i, p := range parts {
		if p.s == "@" || p.s == "＠" {
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	// A domain after the '@' first ("jane.doe" reads as a host name too), then one before it.
	for i := range parts {
		j := (at + 1 + i) % len(parts)
		if j != at && domainLike(parts[j].s) {
			dom = j
			break
		}
	}
	if dom < 0 {
		return nil
	}
	for i, p := range parts {
		if i != at && i != dom && p.s != "" && len(p.s) <= 64 && !strings.ContainsAny(p.s, " @") {
			if loc >= 0 {
				return nil // more than one candidate: no telling which is the mailbox
			}
			loc = i
		}
	}
	if loc < 0 || loc < at && at < dom {
		return nil // none, or in order already: the joined view in member order finds it
	}
	v := parts[loc].s + "@" + parts[dom].s
	pick := [2]int{loc, dom}
	var hits []jhit
	for _, h := range x.joinScan(nil, v, []jpart{parts[loc], parts[dom]}, []int{0, len(parts[loc].s), len(v)}, key) {
		h.part = pick[h.part]
		hits = append(hits, h)
	}
	if len(hits) > 0 {
		// The '@' is a piece of the address too: masking hides it with the others.
		h := hits[0]
		h.part, h.f.Start, h.f.End = at, 0, len(parts[at].s)
		hits = append(hits, h)
	}
	return hits
}

// domainLike reports whether s reads as a host name: labels of letters, digits and '-' joined
// by dots, the last of two letters or more.
func domainLike(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || len(s)-dot-1 < 2 || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	for i := dot + 1; i < len(s); i++ {
		if !isLower(s[i]) && !isUpper(s[i]) {
			return false
		}
	}
	return true
}
