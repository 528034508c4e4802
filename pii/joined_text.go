package pii

// Text cut in pieces. The joined view of joined.go reports only what a split value is (an
// address, a card, a token), because the members of an ordinary object put side by side glue
// words and numbers into names and phone numbers that no one wrote. Some siblings are one text
// by their own account, and their joined view is that text exactly, so it is read with every
// detector, names, dates of birth, phone numbers and health terms among them:
//
//   - members named as a series: {"text":"…","text_2":"…"}, {"part1":"…","part2":"…"},
//     {"note_a":"…","note_b":"…"}; the first may bear the bare name;
//   - items of an array one joint of which cuts a sentence: a space at either side of the
//     joint ("Passenger", " Brianna"), or a word or a number cut in two where a piece holds a
//     space ("Lu", "zia Mosemann"; "born on 19", "80-04-06").
//
// A run of such parts (two or more, next to each other) is read whole, and a finding is
// reported on each part it takes, as joined.go reports its own: one on a single part too, since
// the context that makes it may stand in another ("born on" + " 1973-04-10"), unless the part
// alone gave it already.

// maxTextRunLen bounds the text a run is read as: a longer one is a document in pieces, and
// each piece was read on its own.
const maxTextRunLen = 4096

// textRuns calls fn with each run [lo, hi) of two parts or more that read as one text. The
// items of an array one joint of which cuts a sentence are one text, all of them: a word cut
// in two pieces with no space in either ("dispa", "raî", "t") is cut like the others.
func textRuns(parts []jpart, fn func(lo, hi int)) {
	if parts[0].key == "" {
		for i := 1; i < len(parts); i++ {
			if textLink(parts[i-1], parts[i]) {
				fn(0, len(parts))
				return
			}
		}
		return
	}
	lo := 0
	for i := 1; i <= len(parts); i++ {
		if i < len(parts) && textLink(parts[i-1], parts[i]) {
			continue
		}
		if i-lo >= 2 {
			fn(lo, i)
		}
		lo = i
	}
}

// textLink reports whether parts a and b, next to each other, are pieces of one text.
func textLink(a, b jpart) bool {
	if a.s == "" || b.s == "" || a.kids != nil || b.kids != nil {
		return false // an array of digit groups is a value's part (joined_groups.go), not text
	}
	if a.key != "" || b.key != "" {
		// Members are one text only by their names: {"name":"Breno das Neves","task":"review"}
		// reads the same as a sentence cut after "Neves".
		return a.key != "" && b.key != "" && sameSeries(a.key, b.key)
	}
	l, r := a.s[len(a.s)-1], b.s[0]
	if l == ' ' && r != ' ' || r == ' ' && l != ' ' {
		return hasWordByte(a.s) && hasWordByte(b.s)
	}
	// A word or a number cut in two, in a sentence: one of the pieces holds a space.
	return (isAlnum(l) || l >= 0x80) && (isLower(r) || isDigit(r) || r >= 0x80) && (containsByte(a.s, ' ') || containsByte(b.s, ' '))
}

// sameSeries reports whether member names a and b, in that order, name pieces of one series:
// the same stem, b with a suffix of a number or a letter after a separator, and a either the
// bare stem or the stem with a suffix of the same kind.
func sameSeries(a, b string) bool {
	sb, kb := seriesStem(b)
	if kb == 0 || sb == "" {
		return false
	}
	if a == sb {
		return true
	}
	sa, ka := seriesStem(a)
	return ka == kb && sa == sb && a != b
}

// seriesStem splits a member name into its stem and a series suffix: digits, with or without
// a separator before them ("part2", "text_2", "line-3"), kind 'n'; or one lower-case letter
// after a separator ("note_b"), kind 'a'. Kind 0: no suffix.
func seriesStem(k string) (string, byte) {
	e := len(k)
	for e > 0 && isDigit(k[e-1]) {
		e--
	}
	if e < len(k) && len(k)-e <= 2 {
		stem := k[:e]
		if stem != "" && isSeriesSep(stem[len(stem)-1]) {
			stem = stem[:len(stem)-1]
		}
		return stem, 'n'
	}
	if len(k) >= 3 && isLower(k[len(k)-1]) && isSeriesSep(k[len(k)-2]) {
		return k[:len(k)-2], 'a'
	}
	return k, 0
}

func isSeriesSep(c byte) bool { return c == '_' || c == '-' || c == '.' }

func hasWordByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) || s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// textRunFind reads each run of parts that is one text with every detector and returns the
// findings on two parts of it or more, per part (indices into parts).
func (x *scanCtx) textRunFind(hits []jhit, parts []jpart, key keyKind) []jhit {
	textRuns(parts, func(lo, hi int) {
		run := parts[lo:hi]
		var offs [maxJoinParts + 1]int
		n := 0
		for i, p := range run {
			offs[i] = n
			n += len(p.s)
		}
		offs[len(run)] = n
		if n > maxTextRunLen {
			return
		}
		buf := make([]byte, 0, n)
		for _, p := range run {
			buf = append(buf, p.s...)
		}
		// {"contact":"Lu","contact_2":"zia Mosemann"}: the series' stem names the whole, and
		// says more of it than the container's name.
		k := key
		if stem, _ := seriesStem(run[0].key); stem != "" {
			if sk := x.keyOf(stem); sk != keyNone {
				k = sk
			}
		}
		start := len(hits)
		text := string(buf)
		hits = x.joinScanAll(hits, text, run, offs[:len(run)+1], k, true)
		r := textRun{s: text, key: k, offs: append([]int(nil), offs[:len(run)+1]...)}
		for _, p := range run {
			r.segs = append(r.segs, p.seg)
		}
		x.runs = append(x.runs, r)
		for i := start; i < len(hits); i++ {
			hits[i].part += lo
		}
	})
	return hits
}

// textRun is a text in pieces as the document's health pass reads it again: health terms
// count only once the whole document is known to identify someone (resolve.go).
type textRun struct {
	s     string
	key   keyKind
	offs  []int     // part i is s[offs[i]:offs[i+1]]
	segs  []pathSeg // each part's step from its container, until paths are set
	paths []string  // each part's path
}

// pathRuns sets the paths of the runs from mark on, found in the container at the current
// path.
func (x *scanCtx) pathRuns(root string, mark int) {
	for i := mark; i < len(x.runs); i++ {
		r := &x.runs[i]
		for _, seg := range r.segs {
			x.segs = append(x.segs, seg)
			r.paths = append(r.paths, x.path(root))
			x.segs = x.segs[:len(x.segs)-1]
		}
	}
}

// eachRun calls fn, a document pass's reading of one string, for every text in pieces of the
// document, and adds what it finds placed on each part it takes, at its path, but for what the
// pass found when it read a part alone.
func (x *scanCtx) eachRun(fn func(path func() string, s string, key keyKind)) {
	for _, r := range x.runs {
		if r.paths == nil {
			continue // found by a view that reports no paths
		}
		base := len(x.out)
		fn(func() string { return "" }, r.s, r.key)
		found := append([]Finding(nil), x.out[base:]...)
		x.out = x.out[:base]
		for _, f := range found {
			n := 0
			for i := 0; i+1 < len(r.offs); i++ {
				if f.Start < r.offs[i+1] && r.offs[i] < f.End {
					n++
				}
			}
			for i := 0; i+1 < len(r.offs); i++ {
				a, e := max(f.Start, r.offs[i]), min(f.End, r.offs[i+1])
				if a < e {
					g := f
					g.Start, g.End, g.Path = a-r.offs[i], e-r.offs[i], r.paths[i]
					if n == 1 && hasFinding(x.out[:base], g) {
						continue // the pass found it in the part alone
					}
					g.Via = joinedVia(f.Via)
					x.out = append(x.out, g)
				}
			}
		}
	}
}

// joinedVia returns v as reached through a joined view: the view is the outermost stage.
func joinedVia(v Via) Via {
	w := Via(StageJoined)
	for _, s := range v.Stages() {
		w = w.then(s)
	}
	return w
}

// hasFinding reports whether fs holds f: the same type on the same bytes at the same path, with
// or without a view.
func hasFinding(fs []Finding, f Finding) bool {
	for _, g := range fs {
		if g.Type == f.Type && g.Start == f.Start && g.End == f.End && g.Path == f.Path {
			return true
		}
	}
	return false
}
