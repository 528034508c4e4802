package pii

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// The scan is one pass over the bytes of a string. A 64-bit mask of plain bytes (lower-case
// letters, and separators below '0' other than '-' and '.') is built eight bytes at a time, and
// the loop jumps from one non-plain byte to the next: the bulk of prose costs a few instructions
// per eight bytes. At a non-plain byte, step takes the word around it (a 256-entry class table
// splits words): a trigger byte (@ - : = ~) starts its detector, digits the number detectors, the
// first three bytes of a word go through a small bloom filter of cue words and token prefixes,
// and a capitalised word looks back for a lower-case name cue. Candidates are then confirmed by
// checksums, formats, numbering plans and nearby context words.

const (
	cLower = 1 << iota
	cUpper
	cDigit
	cHigh  // byte of a multi-byte UTF-8 sequence
	cUnder // '_'
	cTrig  // non-word byte that starts a detector
	cJoin  // '-', '.' or ':': may continue a token after a lower-case prefix ("sk-", "hvs.")
	cBreak // '\n' or '\r'

	cWord  = cLower | cUpper | cDigit | cHigh | cUnder
	cAlpha = cLower | cUpper | cHigh
)

var ctab = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = cLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = cUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = cDigit
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = cHigh
	}
	t['_'] = cUnder
	for _, c := range "@-:=~|" {
		t[c] = cTrig
	}
	for _, c := range "-.:" {
		t[c] |= cJoin
	}
	t['\n'], t['\r'] = cBreak, cBreak
	return t
}()

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isAlpha(c byte) bool { return ctab[c]&cAlpha != 0 }
func isAlnum(c byte) bool { return ctab[c]&(cLower|cUpper|cDigit) != 0 }
func isWordByte(c byte) bool {
	return ctab[c]&cWord != 0
}
func lower(c byte) byte {
	if isUpper(c) {
		return c + 32
	}
	return c
}

// bloom is a 4096-bit filter over the case-folded first three bytes of a word.
type bloom [64]uint64

func fold3(s string, i int) uint32 {
	k := uint32(s[i]|0x20) | uint32(s[i+1]|0x20)<<8
	if i+2 < len(s) {
		k |= uint32(s[i+2]|0x20) << 16
	}
	return k
}

func bloomHash(k uint32) uint32 { return (k * 0x9E3779B1) >> 20 }

func (b *bloom) add(p string) {
	k := uint32(p[0]|0x20) | uint32(p[1]|0x20)<<8
	if len(p) > 2 {
		k |= uint32(p[2]|0x20) << 16
	}
	h := bloomHash(k)
	b[h>>6] |= 1 << (h & 63)
}

func (b *bloom) has(k uint32) bool {
	h := bloomHash(k)
	return b[h>>6]&(1<<(h&63)) != 0
}

var cueBloom = func() (b bloom) {
	for _, p := range cuePrefixes {
		b.add(p)
	}
	for _, r := range tokenRules {
		b.add(r.prefix)
	}
	return b
}()

// cueStart[c|0x20] is set when a word that starts with the byte c may be one cue reads: the
// first bytes of the token rules' prefixes and of the cue words nameCue knows. Numbers and most
// words are passed over on one load, before the three-byte filter.
var cueStart = func() (t [256]bool) {
	for _, r := range tokenRules {
		t[r.prefix[0]|0x20] = true
	}
	for c, ok := range nameCueFirst {
		t[c] = t[c] || ok
	}
	return t
}()

// scanCtx is the state of one scan call; pooled so that clean input allocates nothing.
type scanCtx struct {
	sc   *Scanner
	s    string
	key  keyKind
	base int // index in out of the current string's first finding
	out  []Finding

	identity   bool       // a finding that identifies a person was made in this document
	personCue  bool       // a capitalised pronoun, "Patient" or a given name speaks of someone (see personWords)
	healthCues []Finding  // health findings waiting for an identity in the same document
	docBytes   int        // the bytes of the document's strings scanned so far (see lowerHealth)
	lower      lowerState // see lowerLook
	titleSeen  bool       // a word in title case was scanned in this document (see lowerLook)

	num numSpan // scratch for the number being classified

	keyMemo map[string]keyKind // see keyOf; survives pooling

	// JSON walk state.
	keyBuf []byte
	segs   []pathSeg
	strBuf []byte

	foldAt []int32 // see fold

	pwSeen    int  // end of the last token pwWord examined in the current string
	leetCue   int  // end of the last password word in leetspeak pwWord met in the current string
	joinPhone bool // a joined view of a phone number's named parts may report a phone number
	// runs are the texts in pieces of the document (joined_text.go), read again by the
	// document's health pass.
	runs        []textRun
	runPersonal bool // a text in pieces, read whole, speaks of a person
	// structAt is 1 + where a Markdown table or an SQL VALUES list starts in the current
	// string (tabletext.go), or 0.
	structAt int
	// siblingID is the rule of the identifier a member of the object being walked names as the
	// type of a document ({"document_type":"PESEL","document_number":…}), or "".
	siblingID string

	// cliMarksOf is the text whose marks of a password given on a command line without a flag
	// cliMarks says (pwcli.go), looked for once a text.
	cliMarksOf string
	cliMarks   bool

	farCue [2]farCue // see nextWord

	second *scanCtx // see walker; pooled with this one

	normState // see normalize
}

// add records a finding for the current string unless it is disabled or below the threshold.
func (x *scanCtx) add(t Type, start, end int, conf float64, rule string) {
	if conf < x.sc.minConf || x.sc.disabled[t] || start >= end {
		return
	}
	if t.Class() == ClassSecret && x.sc.allow[x.s[start:end]] {
		return
	}
	if conf > 1 {
		conf = 1
	}
	x.out = append(x.out, Finding{Type: t, Start: start, End: end, Confidence: conf, Rule: rule, Via: x.via})
}

// scanString scans one string, appending to x.out. inKey marks an object key.
func (x *scanCtx) scanString(s string, key keyKind, inKey bool) {
	x.docBytes += len(s)
	folded, ok := x.fold(s)
	x.s = folded
	x.key = key
	x.base = len(x.out)
	hc := len(x.healthCues)
	if !inKey && key != keyNone {
		x.keyContext()
	}
	if !x.jsonText() {
		x.run()
		if x.structAt > 0 {
			x.structured()
		}
		x.normalize(0)
	}
	x.resolve()
	if !inKey {
		x.lowerLook()
	}
	if ok {
		x.unfold(x.out[x.base:])
		x.unfold(x.healthCues[hc:])
		x.s = s
	}
	for i := x.base; i < len(x.out); i++ {
		x.out[i].InKey = inKey
		if identifies(x.out[i].Type) {
			x.identity = true
		}
	}
}

func identifies(t Type) bool { return t.Class() == ClassPII && t != TypeHealth }

func (x *scanCtx) run() {
	s := x.s
	n := len(s)
	// b aliases s for eight-byte loads; it is never written.
	b := unsafe.Slice(unsafe.StringData(s), n)
	// Bit k of plain is set when s[base+k] is a lower-case letter or a byte below '0' other
	// than '-' and '.': the bytes of ordinary prose that start no detector. Runs of them are
	// skipped through the mask; every other byte goes to step.
	base := -1 << 62
	var plain uint64
	done := 0 // scanning back for the start of a word never goes before done
	i := 0
	x.pwSeen = 0
	x.leetCue = 0
	x.structAt = 0
	for i < n {
		if uint(i-base) >= 64 { // also when i < base
			base = i
			plain = plainMask(b[i:])
		}
		r := ^plain >> (uint(i-base) & 63)
		if r == 0 {
			i = base + 64
			continue
		}
		i += bits.TrailingZeros64(r)
		if i >= n {
			break
		}
		i = x.step(i, done)
		done = i
	}
}

// plainMask returns the plain-byte mask of the (up to) 64 bytes of b; bits past the end of b
// are clear.
func plainMask(b []byte) uint64 {
	if len(b) >= 64 {
		return plainBlock(&b[0])
	}
	var m uint64
	k := 0
	for ; k+8 <= len(b); k += 8 {
		m |= plain8(binary.LittleEndian.Uint64(b[k:])) << k
	}
	for ; k < len(b); k++ {
		if c := b[k]; isLower(c) || c < '0' && c != '-' && c != '.' {
			m |= 1 << k
		}
	}
	return m
}

// lowerBefore returns the start of the run of lower-case ASCII letters that ends at p, reading
// back no further than done. Most runs are a word's letters before a full stop or a digit: eight
// bytes are tested at once.
func lowerBefore(s string, p, done int) int {
	i := p
	if p >= 8 {
		const (
			lo7 = 0x7f7f7f7f7f7f7f7f
			hi8 = 0x8080808080808080
		)
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), len(s))[p-8 : p])
		x := w & lo7
		lowers := (x + 0x1f1f1f1f1f1f1f1f) &^ (x + 0x0505050505050505) &^ w & hi8
		// s[p-1] is the top byte: the lower-case bytes that end the eight are its leading ones.
		l := bits.LeadingZeros64(^lowers&hi8) >> 3
		if i = p - l; l < 8 || i <= done {
			return max(i, done)
		}
	}
	for i > done && isLower(s[i-1]) {
		i--
	}
	return i
}

// plain8 returns one bit per byte of w (byte k in bit k), set when the byte is plain. For a
// byte x below 0x80, x+(0x80-c) carries into the byte's high bit iff x >= c, and no addition
// carries into the next byte; bytes from 0x80 up are not plain.
func plain8(w uint64) uint64 {
	const (
		lo7 = 0x7f7f7f7f7f7f7f7f
		hi8 = 0x8080808080808080
	)
	x := w & lo7
	geA := x + 0x1f1f1f1f1f1f1f1f    // >= 'a'
	gtZ := x + 0x0505050505050505    // >  'z'
	ge0 := x + 0x5050505050505050    // >= '0'
	geDash := x + 0x5353535353535353 // >= '-'
	geSl := x + 0x5151515151515151   // >= '/'
	m := (geA&^gtZ | ^ge0&^(geDash&^geSl)) &^ w & hi8
	// Gather the high bits into the low byte.
	return ((m >> 7) * 0x0102040810204080) >> 56
}

// step examines the byte at p, which is not plain, with the word around it, and returns where
// scanning resumes (> p). The lower-case letters just before p (back to done) belong to the
// same word.
func (x *scanCtx) step(p, done int) int {
	s := x.s
	n := len(s)
	k := ctab[s[p]]
	i := p
	if p > done && isLower(s[p-1]) {
		i = lowerBefore(s, p, done)
	}
	if i+36 <= n && s[i+8] == '-' && s[i+13] == '-' {
		// Message, task and stream ids are everywhere in agent traffic,
		// and their digit groups pass for phone numbers or IBANs: a UUID
		// is an identifier of the protocol, never of a person.
		if e := uuidAt(s, i); e > p {
			return e
		}
	}
	if k&cWord == 0 {
		// A lower-case word followed by '-', '.' or ':' may be a token prefix ("sk-", "hvs.")
		// or a cue ("name:", "mr.").
		if k&cJoin != 0 && i < p && i+1 < n && cueStart[s[i]|0x20] && cueBloom.has(fold3(s, i)) {
			if e := x.cue(i, p); e > p {
				return e
			}
		}
		if k&cTrig != 0 {
			if e := x.trigger(p, i); e > p {
				return e
			}
		}
		if p >= x.pwSeen && p+1 < n && !isLower(s[p+1]) && !isSpace(s[p+1]) && (i < p || isAlnum(s[p+1]) || p > 0 && isAlpha(s[p-1])) {
			if e := x.pwWord(p, i); e > p {
				return e
			}
		}
		return p + 1
	}
	m := k
	if i < p {
		m |= cLower
	} else if k&(cUpper|cHigh) != 0 && !afterStop(s, p) {
		// A capitalised word may be a name after a lower-case cue ("my name is", "dear").
		if e := x.nameBack(p); e > p {
			return e
		}
	}
	j := p + 1
	var k2 uint8 // the class of the byte after the word
	for j < n {
		k2 = ctab[s[j]]
		if k2&cWord == 0 {
			break
		}
		m |= k2
		j++
	}
	x.noteWord(i, j, m)
	if k2&cBreak != 0 {
		x.noteBreak(j) // see linesView
	}
	if j-i == 1 && !x.spaced && spacedAt(s, j) {
		x.spaced, x.spacedFrom = true, max(0, i-8) // see spacedView
	}
	if j-i == 6 && s[i] == 'V' && s[i:j] == "VALUES" {
		x.noteStructure(i) // SQL's VALUES list
	}
	if i == p && k&(cUpper|cHigh) != 0 {
		if m == cUpper && j-i >= 2 {
			x.caseWords++ // a word in capitals, see caseCandidate
		}
		// A capitalised word (or one of ideographs): the name rules.
		if e := x.capitalWord(p, j, k, m); e > p {
			return e
		}
	}
	if j-i == 2 && m == cUpper && j+1 < n && s[j] == ' ' && isDigit(s[j+1]) {
		// "AB 12 34 56 C": a national insurance number written in pairs.
		if e := x.nino(i); e > j {
			return e
		}
	}
	if i+1 < n && cueStart[s[i]|0x20] && cueBloom.has(fold3(s, i)) {
		if e := x.cue(i, j); e > j {
			return e
		}
	}
	if i < p && m&cUpper != 0 && m&^(cUpper|cLower) == 0 {
		x.caseWords += 2 // a word in alternating case (or camelCase), see caseCandidate
	}
	if i < p && m&cDigit != 0 && m&(cUpper|cHigh) == 0 && j-i >= 8 {
		// "nie: y8271409w": an identifier typed in lower case.
		if e := x.lowerID(i, j); e > j-1 {
			return e
		}
	}
	if p >= x.pwSeen && m&cAlpha != 0 && (m&cDigit != 0 || i > 0 && !isSpace(s[i-1]) && !isAlnum(s[i-1]) && s[i-1] != '"' ||
		j+1 < n && !isSpace(s[j]) && !sentenceEnd(s, j) &&
			(!isLower(s[j+1]) || s[j] != '=' && s[j] != ':' && s[j] != '-' && s[j] != '.' && s[j] != '/')) {
		// A word with a digit or a symbol may be a password stated in prose.
		if e := x.pwWord(p, i); e > p {
			return e
		}
	}
	if m&(cDigit|cUpper) != 0 && (j-i >= 16 || m&(cUpper|cLower) != 0 && (j < n && ctab[s[j]]&cJoin != 0 && !sentenceEnd(s, j) ||
		s[j-1] >= 0x80 || j < n && (s[j] == '/' || s[j] == '+') || i > 0 && ctab[s[i-1]]&cJoin != 0)) {
		if e := x.tokenRun(i, j); e > j {
			return e
		}
	}
	if m == cDigit && j-i >= 4 && j-i <= 10 && i > 0 {
		// Digits alone after "PIN", "passcode", "door code": an access code?
		if e := x.passcodeAt(i, j); e > i {
			return e
		}
	}
	if m&cDigit != 0 {
		if m == cDigit && j+1 < n && pwLeadSymbol(s[j]) && isAlnum(s[j+1]) && p >= x.pwSeen {
			// Digits joined by a password's symbol to letters ("1%gk-cTWB"): a password stated
			// in prose, which no word of letters holds.
			if e := x.pwWord(p, i); e > p {
				return e
			}
		}
		if e := x.numeric(i, j, m == cDigit); e > j {
			x.noteBreak(e)
			return e
		}
	}
	return j
}

// capitalWord tries the rules for a word s[p:j] that starts with a capital or a byte from 0x80
// up (k is its first byte's class, m the classes of its bytes): names in lists, pairs and alone,
// and in Chinese and Japanese script. It returns where scanning resumes, or p.
func (x *scanCtx) capitalWord(p, j int, k, m uint8) int {
	s := x.s
	n := len(s)
	i := p
	if m&cLower != 0 {
		x.titleSeen = true // see lowerLook
	}
	if j+2 < n && s[j] == ',' && s[j+1] == ' ' && isUpper(s[j+2]) && isUpper(s[p]) {
		// "Hannah, Anthony, Derek and Anna": a list of given names?
		if e := x.nameList(p); e > j {
			return e
		}
	}
	if j+5 < n && (s[j] == ',' || strings.HasPrefix(s[j:], " and ")) && personPluralNear(s, i, j) {
		// "founders: Kónya, Becker and Vasquez", "Marrero and Murphy were engineers"?
		if e := x.personList(p); e > j {
			return e
		}
	}
	if p > 3 && s[p-1] == '\n' && (s[p-2] == ',' || s[p-2] == '\r' && s[p-3] == ',') && j+1 < n && s[j] == ' ' {
		// A name on the line under a sign-off ("Cheers,\nGiedrė Galdikas")?
		if e := x.signoffName(p); e > j {
			return e
		}
	}
	if j+1 < n && s[j] == ' ' && (isUpper(s[j+1]) || s[j+1] >= 0x80 || s[j+1] == 'd' || s[j+1] == 'v') {
		// Two capitalised words: a given name and a surname?
		if e := x.namePair(p, j); e > j {
			return e
		}
	}
	if j-i >= 3 && j-i <= 20 {
		// A given name alone, with a cue that makes it a person's?
		if isGivenName(s[i:j]) {
			if e := x.singleName(p, j); e > p {
				return e
			}
			// A given name alone speaks of someone, as a pronoun does: "Ismael (room 16) needs
			// her sertraline".
			if !x.personCue && x.key != keyPlace && !namePairStop.hasFold(s[i:j]) && !titleWords.hasFold(s[i:j]) && !headingAt(s, i, j) {
				x.personCue = true // not "November", "Tuesday", "Pope"
			}
		} else if e := x.loneSurname(p, j, speechAround(s, i, j)); e > p {
			// A surname alone, or a name no list knows?
			return e
		}
	}
	if k&cHigh != 0 {
		// A word of another script: one test for most words, which are ASCII.
		if s[p] >= 0xE4 && s[p] <= 0xE9 && j-i >= 9 && (m&cDigit != 0 || j+1 < n && s[j] == ' ' && isDigit(s[j+1])) {
			// Ideographs with digits: an address in Chinese or Japanese?
			if e := x.cjkAddressAt(p); e > p {
				return e
			}
		}
		if s[p] >= 0xCD && s[p] <= 0xD3 || s[p] >= 0xEA && s[p] <= 0xED {
			// Greek, Cyrillic or Hangul: a name by its shape or its cue?
			if e := x.scriptName(p, j); e > p {
				return e
			}
		}
		if sc := caselessScript(s, p); sc != 0 {
			// Hebrew, Arabic, Devanagari, Thai or Georgian: a name after an honorific or a cue?
			if e := x.caselessName(p, sc); e > p {
				return e
			}
		}
		if s[p] >= 0xE4 && s[p] <= 0xE9 && j-i >= 12 {
			// A role word, two or three ideographs and a verb: a Chinese name in Chinese text?
			if e := x.cjkRoleName(p, j); e > p {
				return e
			}
		}
		if s[p] >= 0xE4 && s[p] <= 0xE9 && j+1 < n && s[j] == ' ' && s[j+1] >= 0xE4 {
			// Ideographs, a space and ideographs: a Japanese name set in other text?
			if e := x.cjkNameAt(p); e > p {
				return e
			}
		}
	}
	if !x.personCue && j-i <= 10 && k&cUpper != 0 && personLens[s[i]|0x20]>>(j-i)&1 != 0 && (personWords.hasFold(s[i:j]) || firstPersonOpener(s, i, j)) && !headingAt(s, i, j) {
		x.personCue = true
	}
	return p
}

// afterStop reports whether the separators just before p hold a full stop. No cue reaches a
// name across one, except an abbreviated honorific ("Dr. Ann"), which the '.' itself already
// tried going forward.
func afterStop(s string, p int) bool {
	for k := p - 1; k >= 0 && k >= p-8; k-- {
		switch c := s[k]; {
		case c == '.':
			return true
		case isWordByte(c):
			return false
		}
	}
	return false
}

// nameBack looks, before the capitalised word at p, for a lower-case cue word: among the three
// words just before it ("dear", "mr.", "sincerely,", "i am", "call me", "signed by"), and
// "name", "named" or "called" anywhere in the 64 bytes before it ("my name on the account is").
// Each, in text order, runs as if it had been met going forward; a name is kept only if it
// starts at p. It returns where scanning resumes, or p.
func (x *scanCtx) nameBack(p int) int {
	s := x.s
	lo := max(0, p-64)
	var cand [8]int // start<<8 | length
	nc := 0
	add := func(a, e int) {
		if a > 0 && isWordByte(s[a-1]) {
			// The tail of an identifier: a name key as code writes it ("firstName='Ann'",
			// "last_name="); not that of a capitalised word, which most are.
			if a >= 2 && (s[a-1] == '_' || isUpper(s[a-1]) && isLower(s[a-2])) && nc < len(cand) && (e == len(s) || !isWordByte(s[e])) {
				if ka := codeKeyStart(s, a, lo); ka < a && codeNameKey(s[ka:e]) {
					cand[nc] = ka<<8 | (e - ka)
					nc++
				}
			}
			return
		}
		if nc == len(cand) || e-a > 9 || e < len(s) && isWordByte(s[e]) {
			return
		}
		if a > 0 && s[a-1] == '-' && accountNameFlag(s, a, e) {
			cand[nc] = a<<8 | (e - a)
			nc++
			return
		}
		if cueLens[s[a]]>>((e-a)&31)&1 == 0 || a+1 >= len(s) || !cueBloom.has(fold3(s, a)) {
			return
		}
		c := a<<8 | (e - a)
		for k := 0; k < nc; k++ {
			if cand[k] == c {
				return
			}
		}
		cand[nc] = c
		nc++
	}
	k := p
	for w := 0; w < 3; w++ {
		for k > lo && !isWordByte(s[k-1]) {
			k--
		}
		e := k
		for k > lo && isLower(s[k-1]) {
			k--
		}
		if k == e {
			break
		}
		add(k, e)
	}
	for ci, c := range [...]string{"name", "called"} {
		for a := x.nextWord(ci, c, lo); a < p; a = x.nextWord(ci, c, a+1) {
			e := a + len(c)
			if e < p && s[e] == 'd' {
				e++ // "named"
			}
			add(a, e)
		}
	}
	if nc == 0 {
		return p
	}
	slices.Sort(cand[:nc])
	for _, c := range cand[:nc] {
		a, l := c>>8, c&0xff
		before := len(x.out)
		e := x.nameCue(a, a+l)
		if e > a+l && len(x.out) > before && x.out[len(x.out)-1].Start == p {
			return e
		}
		x.out = x.out[:before]
	}
	return p
}

// nextWord returns the first index at or after lo of c, the cue word of slot k of x.farCue, in
// x.s (len(x.s) if there is none). Its answer is kept: capitals are met in text order, so the
// string is searched for each word about once, not in a window at every capital.
func (x *scanCtx) nextWord(k int, c string, lo int) int {
	f := &x.farCue[k]
	if f.s != x.s || lo < f.from || lo > f.at {
		at := len(x.s)
		if r := strings.Index(x.s[lo:], c); r >= 0 {
			at = lo + r
		}
		*f = farCue{s: x.s, from: lo, at: at}
	}
	return f.at
}

// farCue is nextWord's answer for one word: no occurrence of it in s[from:at], and one at at.
type farCue struct {
	s        string
	from, at int
}

// cueLens[c] has bit n set when a lower-case cue word of n letters starts with c: the words
// nameCue acts on (honorifics, "dear", "name", "called", "i", "patient", "sincerely"...).
var cueLens = func() (t [256]uint32) {
	for _, w := range []string{"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "mister", "dear", "name", "named",
		"called", "call", "i", "patient", "surname", "firstname", "lastname", "fullname", "sincerely", "regards", "signed"} {
		t[w[0]] |= 1 << len(w)
	}
	return t
}()

// trigger handles a non-word trigger byte at i, after the lower-case letters s[lo:i], and returns
// where scanning resumes (<= i: no match).
func (x *scanCtx) trigger(i, lo int) int {
	switch x.s[i] {
	case '@':
		return x.at(i)
	case '-':
		return x.dash(i)
	case '=':
		if i+3 < len(x.s) && isUpperHex(x.s[i+1]) {
			x.noteQP(i) // "=40": quoted-printable?
		}
		return x.assign(i, lo)
	case ':':
		return x.assign(i, lo)
	case '~':
		return x.tilde(i)
	case '|':
		if i == 0 || x.s[i-1] == '\n' {
			x.noteStructure(i) // a Markdown table's line
		}
	}
	return i
}

// uuidAt returns the end of a UUID (8-4-4-4-12 hex digits, either case)
// that starts at i and stands as a word of its own, or i if there is none.
func uuidAt(s string, i int) int {
	const n = 36
	if len(s)-i < n || (i > 0 && isAlnum(s[i-1])) || (len(s) > i+n && (isAlnum(s[i+n]) || s[i+n] == '-')) {
		return i
	}
	for j := 0; j < n; j++ {
		c := s[i+j]
		switch j {
		case 8, 13, 18, 23:
			if c != '-' {
				return i
			}
		default:
			if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return i
			}
		}
	}
	return i + n
}

// oneOf reports whether c is a byte of set. For the few bytes of a constant set, a loop the
// compiler inlines costs a third of a call to strings.IndexByte.
func oneOf(c byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// walker returns a second context for walking the document again (finishDoc's each) with this
// one's key memo and flagged member names. It is kept with x, so that a document that
// identifies someone does not allocate a context each time it is read again.
func (x *scanCtx) walker() *scanCtx {
	y := x.second
	if y == nil {
		y = new(scanCtx)
		x.second = y
	}
	y.keyMemo, y.flaggedKeys = x.keyMemo, x.flaggedKeys
	y.segs, y.keyBuf, y.strBuf = y.segs[:0], y.keyBuf[:0], y.strBuf[:0]
	return y
}
