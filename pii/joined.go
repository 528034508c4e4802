package pii

import "strings"

// Joined views. A value split over sibling fields leaves as surely as a whole one:
// ["jane.doe","@","example.com"], {"user":"jane.doe","domain":"example.com"}, a card number in
// four fields, a key in two halves. After the members of an object or the items of an array
// are scanned one by one, their scalar values (strings, and numbers as written) are read
// together, in order and without separators, and an object that names a mailbox's user and
// domain in two members is read as user@domain. A finding of such a view that takes bytes of
// two parts or more is reported once for every part it takes, at that part's path and on the
// bytes of it taken, with Via "joined": a refusal names every field, and masking hides every
// piece. The view is short (at most maxJoinParts parts and maxJoinLen bytes), so it costs little
// beside the scan of the parts themselves, and it reports only what a split value is: e-mail
// addresses, card and bank numbers, national identifiers and vendor tokens. Numbers in lists
// and words of a sentence put side by side would otherwise read as phone numbers and names.

const (
	maxJoinParts = 12
	maxJoinLen   = 256
)

// jpart is one scalar child of the object or array being walked.
type jpart struct {
	s     string
	seg   pathSeg // its step from the container
	key   string  // its member name; "" in an array
	depth int     // len(x.segs) when it was noted, its step on top
	kids  []jpart // the groups of an array lifted into its parent's view (joined_groups.go)
	koffs []int   // where each of kids starts in s, and len(s)
	row   bool    // kids are the cells of a table's row (joined_rows.go), s is empty
}

// jhit is a finding of a joined view on one part.
type jhit struct {
	part int
	f    Finding
	cue  bool // a health term that waits for an identity in the document
}

// joinable reports whether a joined view may report t.
func joinable(t Type) bool {
	switch t {
	case TypeEmail, TypeCard, TypeIBAN, TypeSSN, TypeITIN, TypeNationalID, TypeNHS, TypeNINO,
		TypePrivateKey, TypeCloudToken, TypeAPIToken, TypeJWT, TypePassword, TypeSecret:
		return true
	}
	return false
}

// joinFind scans the joined views of parts, read under the container's key, and returns what
// they find on two parts or more, per part. It leaves x.out as it found it.
func (x *scanCtx) joinFind(parts []jpart, key keyKind) []jhit {
	if len(parts) > maxJoinParts && len(parts) <= maxCharParts && charParts(parts) {
		return x.joinChars(parts, key)
	}
	if len(parts) < 2 || len(parts) > maxJoinParts {
		return nil
	}
	total := 0
	for _, p := range parts {
		total += len(p.s)
	}
	hits := x.textRunFind(nil, parts, key)
	if key == keyNone {
		// {"ssn_area":..,"ssn_group":..}: the members' names say what the whole is.
		key = x.namesSay(parts)
	}
	if total > maxJoinLen || !joinWorthy(parts) {
		return hits
	}
	var offs [maxJoinParts + 1]int
	var b strings.Builder
	for i, p := range parts {
		offs[i] = b.Len()
		b.WriteString(p.s)
	}
	offs[len(parts)] = b.Len()
	hits = x.joinScan(hits, b.String(), parts, offs[:len(parts)+1], key)
	// A mailbox in named members: {"user":"jane.doe","domain":"example.com"}.
	u, d := -1, -1
	for i, p := range parts {
		switch mailRole(p.key) {
		case 'u':
			u = i
		case 'd':
			d = i
		}
	}
	if u >= 0 && d >= 0 && !strings.Contains(parts[u].s, "@") {
		v := parts[u].s + "@" + strings.TrimPrefix(parts[d].s, "@")
		pick := [2]int{u, d}
		for _, h := range x.joinScan(nil, v, []jpart{parts[u], parts[d]}, []int{0, len(parts[u].s), len(v)}, key) {
			h.part = pick[h.part]
			hits = append(hits, h)
		}
	}
	hits = append(hits, x.phoneParts(parts, key)...)
	hits = append(hits, x.ibanPieces(parts, key)...)
	hits = append(hits, x.atSplit(parts, key)...)
	return dedupHits(hits)
}

// dedupHits drops a hit that repeats one before it: the text-run view and the joined view of
// every part may find the same value.
func dedupHits(hits []jhit) []jhit {
	out := hits[:0]
	for i, h := range hits {
		dup := false
		for _, g := range hits[:i] {
			if g.part == h.part && g.f.Type == h.f.Type && g.f.Start == h.f.Start && g.f.End == h.f.End {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, h)
		}
	}
	return out
}

// joinWorthy reports whether parts hold a byte other than a lower-case letter or a space: what a
// joined view reports always does (the digits of a number, the '@' and '.' of an address, the
// capitals and digits of a token), and words side by side cost no scan.
func joinWorthy(parts []jpart) bool {
	for _, p := range parts {
		for k := 0; k < len(p.s); k++ {
			if c := p.s[k]; !isLower(c) && c != ' ' {
				return true
			}
		}
	}
	return false
}

// joinScan scans v, the parts joined (part i at offs[i]:offs[i+1]), and appends to hits the
// findings it makes on two parts or more, placed on each part.
func (x *scanCtx) joinScan(hits []jhit, v string, parts []jpart, offs []int, key keyKind) []jhit {
	return x.joinScanAll(hits, v, parts, offs, key, false)
}

// joinScanAll is joinScan; with all, it reports what every detector finds, health terms among
// them, for parts that are one text cut in pieces (joined_text.go).
func (x *scanCtx) joinScanAll(hits []jhit, v string, parts []jpart, offs []int, key keyKind, all bool) []jhit {
	s, k, base, via, ident := x.s, x.key, x.base, x.via, x.identity
	hc := len(x.healthCues)
	start := len(x.out)
	x.via = Via(StageJoined)
	if all {
		// What speaks of a person is read from the text whole: its pieces alone ("I", "he")
		// say what the text does not.
		cue, lower, n := x.personCue, x.lower, x.docBytes
		x.personCue, x.lower = false, lowerState{}
		x.scanString(v, key, false)
		x.runPersonal = x.runPersonal || x.personCue || x.lower.vocab && x.lower.person
		x.personCue, x.lower, x.docBytes = cue || x.personCue, lowerState{lower.vocab || x.lower.vocab, lower.person || x.lower.person}, n
	} else {
		x.scanString(v, key, false)
	}
	found := x.out[start:]
	direct := len(found)
	if all {
		found = append(found, x.healthCues[hc:]...)
	}
	for j, f := range found {
		if !all && !joinable(f.Type) && !(x.joinPhone && f.Type == TypePhone) {
			continue
		}
		n := 0
		for i := range parts {
			if f.Start < offs[i+1] && offs[i] < f.End {
				n++
			}
		}
		// A text in pieces joined is the text as written, so what would glue unrelated
		// members (an address's '@' in the middle of a part, small groups of digits) is no
		// sign against it; a number must still not start or end inside a word.
		if n < 1 || !all && n < 2 || !all && f.Type == TypeEmail && !splitAtSign(v, f, offs) || !all && f.Type == TypeCard && !cardGroups(f, offs) ||
			(numberLike(f.Type) || all && (f.Type == TypePhone || f.Type == TypeDOB)) && !wholeParts(v, f, offs) {
			continue
		}
		cue := j >= direct
		for i, p := range parts {
			a, e := max(f.Start, offs[i]), min(f.End, offs[i+1])
			if a >= e {
				continue
			}
			g := f
			g.Start, g.End = a-offs[i], e-offs[i]
			if g.End > len(p.s) {
				g.End = len(p.s)
			}
			if g.Start < g.End {
				hits = append(hits, jhit{part: i, f: g, cue: cue})
			}
		}
	}
	x.out = x.out[:start]
	x.healthCues = x.healthCues[:hc]
	x.s, x.key, x.base, x.via, x.identity = s, k, base, via, ident
	return hits
}

// splitAtSign reports whether the '@' of the address f found in v starts or ends its part: a
// part that holds a local part, '@' and a domain was read whole by the scan of the part, which
// may have had reason to pass it ("git@host:path" after a branch name is not an address).
func splitAtSign(v string, f Finding, offs []int) bool {
	at := strings.IndexByte(v[f.Start:f.End], '@')
	if at < 0 {
		return false
	}
	at += f.Start
	for i := 0; i+1 < len(offs); i++ {
		if offs[i] <= at && at < offs[i+1] {
			return at == offs[i] || at == offs[i+1]-1 || !heldAddress(v[offs[i]:offs[i+1]], at-offs[i])
		}
	}
	return false
}

// heldAddress reports whether part, whose byte at is the '@' of an address that goes on into
// the next part, holds an address of its own about that '@': a local part before it and a
// domain with a dot after it. One that does was read whole by the scan of the part; one cut
// before its domain's dot ("…david96@richard", "son.com") was not.
func heldAddress(part string, at int) bool {
	if at == 0 || !isAlnum(part[at-1]) {
		return false
	}
	dot := false
	for k := at + 1; k < len(part); k++ {
		c := part[k]
		if c == '.' && k+2 < len(part) && isAlpha(part[k+1]) && isAlpha(part[k+2]) {
			dot = true // a top-level domain of two letters or more: "yahoo.c" + "om" was cut
		} else if !isAlnum(c) && c != '-' && c != '.' {
			break
		}
	}
	return dot
}

// cardGroups reports whether the parts a card number f takes are groups of one: three digits
// or more each but the last. A list of small numbers side by side is not a card number.
func cardGroups(f Finding, offs []int) bool {
	for i := 0; i+1 < len(offs); i++ {
		a, e := max(f.Start, offs[i]), min(f.End, offs[i+1])
		if a < e && e-a < 3 && e < f.End {
			return false
		}
	}
	return true
}

// numberLike reports whether t is a number that a joined view finds only in parts taken whole.
func numberLike(t Type) bool {
	switch t {
	case TypeCard, TypeIBAN, TypeSSN, TypeITIN, TypeNationalID, TypeNHS, TypeNINO:
		return true
	}
	return false
}

// wholeParts reports whether the number f found in v takes every part it touches whole, but for
// separators at a part's edges. A number split over fields is split into its groups, each a
// field of its own; one that starts inside a part took the tail of something else, such as the
// last group of a UUID beside a chunk size ({"stream_id":"…-123456789012","chunk_size":65536}),
// which reads as a Luhn-valid card one time in ten.
func wholeParts(v string, f Finding, offs []int) bool {
	for i := 0; i+1 < len(offs); i++ {
		a, e := offs[i], offs[i+1]
		if f.End <= a || e <= f.Start {
			continue
		}
		for a < e && !isDigit(v[a]) && !isUpper(v[a]) {
			a++
		}
		for e > a && !isDigit(v[e-1]) && !isUpper(v[e-1]) {
			e--
		}
		// A number may start inside the first part it takes, after a space or a label's
		// punctuation ("IBAN: PL06 9669", "8800…"), and end inside the last before any but a
		// letter or digit; not after a '-', '_' or '.', which join it to what came before.
		if a < f.Start && !(f.Start > offs[i] && f.Start >= a && openBefore(v[f.Start-1])) ||
			f.End < e && !(f.End < offs[i+1] && !isAlnum(v[f.End])) {
			return false
		}
	}
	return true
}

// openBefore reports whether a value may start after c in running text.
func openBefore(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ':', '(', '[', '=', '#', '"', '\'', ',', ';', '+':
		return true
	}
	return false
}

// mailRole says whether a member named k holds the user ('u') or the domain ('d') of a mailbox.
func mailRole(k string) byte {
	var buf [64]byte
	n := string(normKey(buf[:0], k))
	switch {
	case inList(n, "user", "username", "localpart", "local", "mailbox", "login", "emailuser", "mailuser", "emaillocal"):
		return 'u'
	case inList(n, "domain", "emaildomain", "maildomain", "mailboxdomain", "domainpart", "emaildomainpart"):
		// Not "host" or "server": {"host":..,"user":..} configures a connection.
		return 'd'
	}
	return mailRoleWord(n)
}

// joined scans the joined views of the container whose scalar children are x.jparts[mark:],
// at the current path, and adds their findings with the paths of the parts.
func (x *scanCtx) joined(root string, mark int, key keyKind) {
	parts := x.jparts[mark:]
	if len(parts) < 2 {
		return
	}
	if all := parts; len(withoutRows(all)) != len(all) {
		x.columnViews(root, all, key)
		if parts = withoutRows(all); len(parts) < 2 {
			return
		}
	}
	rmark := len(x.runs)
	hits := x.joinFind(parts, key)
	x.pathRuns(root, rmark)
	for _, h := range hits {
		x.segs = append(x.segs, parts[h.part].seg)
		if p := parts[h.part]; p.kids != nil {
			if identifies(h.f.Type) {
				x.identity = true
			}
			x.groupHits(root, p, h.f)
			x.segs = x.segs[:len(x.segs)-1]
			continue
		}
		h.f.Path = x.path(root)
		x.segs = x.segs[:len(x.segs)-1]
		if h.cue {
			// Health terms wait for an identity in the document, as those of one string do.
			if !hasFinding(x.healthCues, h.f) {
				x.healthCues = append(x.healthCues, h.f)
			}
			continue
		}
		if hasFinding(x.out, h.f) {
			continue // a text in pieces finds again what its part found alone
		}
		if identifies(h.f.Type) {
			x.identity = true
		}
		x.out = append(x.out, h.f)
	}
}

// notePart records s, a scalar child of the container whose parts start at mark, under the
// step on top of x.segs; key is its member name ("" in an array). A container with more parts
// than a view takes records no more (partRoom).
func (x *scanCtx) notePart(mark int, s, key string) {
	if partRoom(x.jparts[mark:], s, key) && !keyText(s) {
		x.jparts = append(x.jparts, jpart{s: s, seg: x.segs[len(x.segs)-1], key: key, depth: len(x.segs)})
	}
}

// endContainer scans the joined views of the container whose parts start at mark and forgets
// its parts.
func (x *scanCtx) endContainer(root string, mark int, key keyKind) {
	x.joined(root, mark, key)
	g, lift := x.liftGroups(mark)
	if !lift {
		g, lift = x.pairView(root, mark)
	}
	if !lift {
		g, lift = x.liftRow(mark)
	}
	x.jparts = x.jparts[:mark]
	if lift {
		x.jparts = append(x.jparts, g)
	}
}

// flagKey remembers a member name in which something was found, so that the document-level
// passes, which do not scan names again, never show it in a path either.
func (x *scanCtx) flagKey(k string) {
	if x.flaggedKeys == nil {
		x.flaggedKeys = map[string]bool{}
	}
	x.flaggedKeys[k] = true
}

// safeKey reports whether a member name may stand in a path: a plain identifier in which
// nothing was found.
func (x *scanCtx) safeKey(k string) bool { return plainIdent(k) && !x.flaggedKeys[k] }
