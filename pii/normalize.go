package pii

import (
	"strings"
)

// Normalisation. A value leaves as surely percent-encoded, written with HTML entities, wrapped
// in markup, base64'd or spelt "jane dot doe at example dot com" as it does in plain text. After
// a string is scanned as given, each such form found in it is undone into a view, the view is
// scanned with the same detectors, and what it finds is placed back on the string: on the bytes
// that encoded it, with Finding.Via naming the decodings applied. A view is scanned the same way
// in turn, so double percent-encoding or base64 inside an HTML attribute come undone too.
//
// Each view runs only on a candidate a cheap prefilter flags, so that prose pays almost nothing:
// a '%' followed by two hex digits; an '&' opening an entity, a '<' opening a tag or "mailto:";
// a word of 12 bytes or more among those the scan already stops at (capitals, digits), which
// the blob decoders extend over the base64 alphabet and try as hex, base32 and base64, keeping
// only what decodes to text; "dot" as a word or a bracketed "[at]"; three or more digit groups
// under one separator; and words in capitals or in alternating case (normalize_case.go). Views nest at most maxViewDepth deep, and all the views of one
// string hold at most decodeBudget times its length plus decodeSlack bytes, so hostile input
// costs time and memory in proportion to its length.

const (
	// maxViewDepth bounds nested decodings (base64 of a percent-encoded HTML attribute is 3).
	maxViewDepth = 4
	// decodeBudget and decodeSlack bound the bytes of all views of one string: decodeBudget
	// times its length, plus decodeSlack.
	decodeBudget = 4
	decodeSlack  = 64 << 10
	// minBlobWord is the length of a word that makes the blob decoders look around it: 12
	// base64 characters hold 9 bytes, less than the shortest e-mail address worth finding.
	minBlobWord = 12
	// maxHints bounds the blob and digit candidates one text records.
	maxHints = 256
)

// normState is the normalisation's part of a scanCtx.
type normState struct {
	via        Via     // stages of the view being scanned; zero for the text as given
	depth      int     // views nested
	decoded    int     // bytes of views made for the string scanned
	budget     int     // bound on decoded
	hints      []int32 // candidates: start, end and kind (hintBlob, hintDigits) per entry
	chainEnd   int     // end of the last chain of digit groups read, for cards with odd separators
	capLangs   uint8   // sepLangs whose word for '.' was met capitalised ("DOT")
	jsonNest   int     // JSON texts read inside strings around this scan, see jsonText
	qp         bool    // the scan met a quoted-printable escape, see noteQP
	blobAt     [2]int  // the blob a view of blobInContext decodes, for scanView
	spaced     bool    // the scan met a one-character word that may start a spaced run
	spacedFrom int     // a little before the first such word
	lineBreak  bool    // a value may go on over a line break, see linesView
	rtl        []int32 // runs of the folded string shown right to left, see rtlView
	caseWords  int     // words in capitals or in alternating case the scan met, see caseCandidate

	jparts      []jpart         // scalar children of the containers being walked, see joined
	flaggedKeys map[string]bool // member names that hold a finding, see safeKey
}

const (
	hintBlob = iota
	hintDigits
)

// noteWord is told of each word [i,j) the scan stops at, with the classes of its bytes. It
// records long words as blob candidates and chains of digit groups as card candidates.
func (x *scanCtx) noteWord(i, j int, m uint8) {
	// Most words are short and not numbers: kept inline, the test costs a compare or two.
	if j-i >= minBlobWord || j-i == 3 || m&^(cDigit|cUnder) == 0 {
		x.noteCandidate(i, j, m)
	}
}

func (x *scanCtx) noteCandidate(i, j int, m uint8) {
	if m&cUnder != 0 && !x.spaced && j-i >= 5 && underscored(x.s[i:j]) {
		x.spaced, x.spacedFrom = true, max(0, i-8)
	}
	if j-i == 3 && x.s[i] < 'a' && sepDotFirst[x.s[i]|0x20] {
		for l := range sepLangs {
			for _, d := range sepLangs[l].dot {
				if len(d) == j-i && hasFoldPrefix(x.s[i:j], d) {
					x.capLangs |= 1 << l
				}
			}
		}
	}
	if j-i >= minBlobWord && len(x.hints) < 3*maxHints {
		x.hints = append(x.hints, int32(i), int32(j), hintBlob)
	}
	if m&^(cDigit|cUnder) != 0 || i < x.chainEnd || !isDigit(x.s[i]) {
		return
	}
	if i > 0 && x.s[i-1] == '\n' {
		x.lineBreak = true // a number after a line break
	}
	// A number: read on over the groups that follow it. Each is tried once, and the detectors
	// may skip over the ones after it, so the chain is read here rather than group by group.
	s := x.s
	digits, groups, k := 0, 0, i
	for k < len(s) {
		g := k
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k == g {
			break
		}
		digits += k - g
		groups++
		e, lim := k, min(len(s), k+5)
		for e < lim && chainSep[s[e]] {
			e++
		}
		if e == k || e == len(s) || !isDigit(s[e]) || digits > 19 {
			break
		}
		k = e
	}
	x.chainEnd = k
	if groups >= 3 && digits >= 13 && digits <= 19 && len(x.hints) < 3*maxHints {
		x.hints = append(x.hints, int32(i), int32(k), hintDigits)
	}
}

// chainSep holds the bytes that may stand between two digit groups of a chain: not an ASCII
// letter or digit, not a line feed.
var chainSep = func() (t [256]bool) {
	for c := range 256 {
		t[c] = !isAlnum(byte(c)) && c != '\n'
	}
	return t
}()

// normalize scans the views of x.s that its candidates call for; hints from hm on are x.s's.
// It leaves x.hints as it found them before hm.
func (x *scanCtx) normalize(hm int) {
	s := x.s
	if x.depth == 0 {
		x.decoded, x.budget = 0, decodeBudget*len(s)+decodeSlack
	}
	if x.depth < maxViewDepth && x.decoded < x.budget {
		mk := marks(s)
		if mk&markPct != 0 && x.room(len(s)) && hasPercentEscape(s) {
			if v, at := percentView(s); at != nil {
				x.scanView(v, at, 0, 0, StagePercent, nil)
			}
		}
		if mk&markBslash != 0 && x.room(len(s)) && hasEscape(s) {
			if v, at := escapeView(s); at != nil {
				x.scanView(v, at, 0, 0, StageEscape, nil)
			}
		}
		if mk&markMD != 0 && x.room(len(s)) && markdownCandidate(s) {
			if v, at := markdownView(s); at != nil {
				x.scanView(v, at, 0, 0, StageMarkdown, nil)
			}
		}
		if x.spaced && x.room(len(s)) {
			if v, at, runs := spacedView(s, x.spacedFrom); at != nil {
				x.scanView(v, at, 0, 0, StageSeparators, func(_ string, f Finding) bool {
					for k := 0; k+1 < len(runs); k += 2 {
						if f.Start < runs[k+1] && f.End > runs[k] {
							return true
						}
					}
					return false
				})
			}
		}
		if x.qp && x.room(len(s)) {
			v, at := qpView(s)
			x.scanView(v, at, 0, 0, StageQP, nil)
		}
		if mk&markHTML != 0 && x.room(len(s)) && htmlCandidate(s, mk) {
			if v, at := htmlView(s); at != nil {
				x.scanView(v, at, 0, 0, StageHTML, nil)
			}
		}
		if x.depth == 0 && len(x.rtl) > 0 && x.room(len(s)) {
			v, at := rtlView(s, x.rtl)
			x.scanView(v, at, 0, 0, StageBidi, nil)
		}
		if x.depth == 0 && len(s) <= maxAnnouncedText && x.room(len(s)) && mayAnnounce(s) {
			if v, at := announcedView(s); at != nil {
				x.scanView(v, at, 0, 0, StageAnnounced, nil)
			}
			if v, at := joinedPiecesView(s); at != nil {
				x.scanView(v, at, 0, 0, StageAnnounced, acceptJoinedPieces)
			}
		}
		if x.depth == 0 && digitWordCandidate(s) && x.room(len(s)) {
			if v, at := digitWordsView(s); at != nil {
				x.scanView(v, at, 0, 0, StageSeparators, acceptDigitWords)
			}
		}
		if x.depth == 0 && x.lineBreak && x.room(len(s)) {
			if v, at, joins := linesView(s); at != nil {
				x.scanView(v, at, 0, 0, StageLines, acceptCut(x.out[x.base:], s, at, joins))
			}
		}
		x.blobViews(hm)
		if x.caseWords >= minCaseWords && x.room(len(s)) && caseCandidate(s) {
			if v, at := caseFoldView(s); at != nil {
				x.dropCaseNames()
				x.scanView(v, at, 0, 0, StageCase, nil)
			}
		}
		if x.depth == 0 && x.room(len(s)) && lowerProse(s) {
			if v, at := caseView(s); at != nil {
				x.scanView(v, at, 0, 0, StageCase, acceptCaseName)
			}
		}
		if langs := sepCandidate(s, mk) | x.capLangs; langs != 0 {
			for l := range sepLangs {
				if langs&(1<<l) == 0 {
					continue
				}
				if !x.room(len(s)) {
					break
				}
				if v, at := sepView(s, &sepLangs[l]); at != nil {
					x.scanView(v, at, 0, 0, StageSeparators, acceptSepEmail)
				}
			}
		}
	}
	x.hints = x.hints[:hm]
	x.chainEnd, x.capLangs, x.qp, x.spaced, x.lineBreak = 0, 0, false, false, false
	x.caseWords = 0
}

// room reports whether a view of n bytes fits in what is left of the budget; the view is not
// even made when it does not.
func (x *scanCtx) room(n int) bool { return x.decoded+n <= x.budget }

// The bytes that start a view's candidate, as marks tells them. The order of the first eight
// is byteMarksAVX2's (marks_amd64.s).
const (
	markPct    = 1 << iota // '%'
	markAmp                // '&'
	markColon              // ':' ("mailto:")
	markLt                 // '<'
	markLBrack             // '['
	markLParen             // '('
	markLBrace             // '{'
	markAt                 // '@'
	markSpace              // ' ': words spelt out
	markDot                // " dot" may be in the text
	markBslash             // a backslash: escapes
	markMD                 // '*', '`' or '~': Markdown

	markAll = 1<<iota - 1

	markHTML    = markAmp | markLt | markColon
	markBracket = markLt | markLBrack | markLParen | markLBrace

	// maxMarkText is the length up to which marks reads every byte: below it, one loop costs
	// less than the calls to strings.IndexByte the prefilters make.
	maxMarkText = 128
)

var markTab = func() (t [256]uint16) {
	t['%'] = markPct
	t['&'] = markAmp
	t[':'] = markColon
	t['<'] = markLt
	t[' '] = markSpace | markDot
	t['['], t['('], t['{'] = markLBrack, markLParen, markLBrace
	t['@'] = markAt
	t['\\'] = markBslash
	t['*'], t['`'], t['~'] = markMD, markMD, markMD
	return t
}()

// marks returns which prefilters s calls for: the marks of the bytes a short s holds; for a
// longer one, longMarks.
func marks(s string) uint16 {
	if len(s) > maxMarkText {
		return longMarks(s)
	}
	var m uint16
	for i := 0; i < len(s); i++ {
		m |= markTab[s[i]]
	}
	return m
}

// scanView scans v, a view of x.s, and adds what it finds that x.s's own findings do not already
// cover, placed on x.s: through at (at[k] is the offset in x.s of v's byte k, at[len(v)] the end
// of what v covers) or, when at is nil, on [lo,hi). accept, if not nil, filters the findings.
func (x *scanCtx) scanView(v string, at []int32, lo, hi int, st Stage, accept func(v string, f Finding) bool) {
	blob := x.blobAt
	x.blobAt = [2]int{}
	if x.decoded += len(v); x.decoded > x.budget {
		return
	}
	if at != nil && hasHigh(v) {
		// A decoded entity or escape may be a look-alike character; fold the view as the
		// text itself is folded, composing the offsets.
		saved, savedRTL := x.foldAt, x.rtl
		x.foldAt, x.rtl = nil, nil
		if f, ok := x.fold(v); ok {
			at2 := make([]int32, len(f)+1)
			for k := range at2 {
				at2[k] = at[x.foldAt[k]]
			}
			v, at = f, at2
		}
		x.foldAt, x.rtl = saved, savedRTL
	}
	s, base, ns := x.s, x.base, x.normState
	hm := len(x.hints)
	x.s, x.base = v, len(x.out)
	x.via = ns.via.then(st)
	x.depth++
	x.chainEnd, x.capLangs, x.qp, x.spaced, x.lineBreak = 0, 0, false, false, false
	x.caseWords = 0
	switch {
	case x.jsonText():
	default:
		x.run()
		x.normalize(hm)
	}
	x.resolve()
	found := x.out[x.base:]
	keep := x.out[:x.base]
	for _, f := range found {
		if accept != nil && !accept(v, f) {
			continue
		}
		if at != nil && (st == StageBidi || st == StageAnnounced) {
			f.Start, f.End = spanOfReversed(s, at, f.Start, f.End)
		} else if at != nil {
			f.Start, f.End = int(at[f.Start]), int(at[f.End])
			if blob[1] > 0 && f.Start <= blob[0] && f.End >= blob[0] {
				f.End = max(f.End, blob[1])
			}
			if st == StageMarkdown && f.Type == TypeEmail && maskedEmail(s[f.Start:f.End]) {
				continue // see maskedEmail
			}
		} else {
			f.Start, f.End = lo, hi
		}
		if f.Start < f.End && !covered(keep[base:], f) {
			keep = dropFragments(keep, base, f)
			keep = append(keep, f)
		}
	}
	x.out = keep
	decoded := x.decoded
	x.s, x.base, x.normState = s, base, ns
	x.decoded = decoded
	x.hints = x.hints[:hm]
}

// dropFragments removes from fs[base:] the personal data found within f's span but not on all
// of it: a number or a word the text as given showed only a piece of ("4083028" of a card
// number written with entities).
func dropFragments(fs []Finding, base int, f Finding) []Finding {
	out := fs[:base]
	for _, g := range fs[base:] {
		if g.Type.Class() == ClassPII && f.Start <= g.Start && g.End <= f.End && g.End-g.Start < f.End-f.Start {
			continue
		}
		out = append(out, g)
	}
	return out
}

// covered reports whether one of fs already finds f's type on all the bytes f covers.
func covered(fs []Finding, f Finding) bool {
	for _, g := range fs {
		if g.Type == f.Type && g.Start <= f.Start && f.End <= g.End {
			return true
		}
	}
	return false
}

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// hasPercentEscape reports whether s holds '%' followed by two hex digits.
func hasPercentEscape(s string) bool {
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 || i+2 >= len(s) {
			return false
		}
		if isHex(s[i+1]) && isHex(s[i+2]) {
			return true
		}
		s = s[i+1:]
	}
}

// percentView decodes %XX escapes, and '+' as a space when s reads as a query (holds '=' or
// '?'). It returns a nil map when nothing changed.
func percentView(s string) (string, []int32) {
	query := strings.ContainsAny(s, "=?")
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			at = append(at, int32(i))
			i += 3
			continue
		case c == '+' && query:
			c = ' '
		}
		b = append(b, c)
		at = append(at, int32(i))
		i++
	}
	return string(b), append(at, int32(len(s)))
}

// acceptSepEmail keeps, of what the separators view finds, the e-mail addresses whose local
// part is not a word that stands before "at" in prose ("find us at example dot com" names a
// site, not a mailbox).
func acceptSepEmail(v string, f Finding) bool {
	if f.Type != TypeEmail {
		return false
	}
	at := strings.IndexByte(v[f.Start:f.End], '@')
	if at < 0 {
		return false
	}
	local := strings.ToLower(v[f.Start : f.Start+at])
	switch local {
	case "us", "me", "in", "it", "him", "her", "them", "you", "we", "is", "are", "was", "be", "here", "there",
		"online", "home", "work", "live", "up", "out", "on", "look", "available", "found", "hosted", "located",
		"site", "website", "page", "visit", "start", "stop", "arrive", "meet", "see", "apply", "register", "buy":
		return false
	}
	return true
}
