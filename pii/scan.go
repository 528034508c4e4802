package pii

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"
)

// The scan is one pass over the bytes of a string. A 256-entry class table splits the text into
// words; a word is examined further only when it holds a digit, when its first three bytes hit a
// small bloom filter of cue words and token prefixes, or when a trigger byte (@ - : = ~) follows
// it. Everything else (the bulk of prose) costs a table lookup per byte. Candidates are then
// confirmed by checksums, formats and nearby context words; no regular expression runs.

const (
	cLower = 1 << iota
	cUpper
	cDigit
	cHigh  // byte of a multi-byte UTF-8 sequence
	cUnder // '_'
	cTrig  // non-word byte that starts a detector

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
	for _, c := range "@-:=~" {
		t[c] = cTrig
	}
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

// scanCtx is the state of one scan call; pooled so that clean input allocates nothing.
type scanCtx struct {
	sc   *Scanner
	s    string
	key  keyKind
	base int // index in out of the current string's first finding
	out  []Finding

	identity   bool      // a finding that identifies a person was made in this document
	healthCues []Finding // health findings waiting for an identity in the same document

	num numSpan // scratch for the number being classified

	// JSON walk state.
	keyBuf []byte
	segs   []pathSeg
	strBuf []byte
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
	x.out = append(x.out, Finding{Type: t, Start: start, End: end, Confidence: conf, Rule: rule})
}

// scanString scans one string, appending to x.out. inKey marks an object key.
func (x *scanCtx) scanString(s string, key keyKind, inKey bool) {
	x.s = s
	x.key = key
	x.base = len(x.out)
	if !inKey && key != keyNone {
		x.keyContext()
	}
	x.run()
	x.resolve()
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
	i := 0
	for i < n {
		k := ctab[s[i]]
		if k&cWord == 0 {
			if k&cTrig != 0 {
				if e := x.trigger(i); e > i {
					i = e
					continue
				}
			}
			i++
			continue
		}
		// A word. Runs of lower-case letters, the bulk of prose, are skipped eight bytes at a
		// time; other word bytes are classified one by one.
		j := i + 1
		m := k
		for {
			if j+8 <= n {
				nl := notLower8(binary.LittleEndian.Uint64(b[j:]))
				if nl == 0 {
					j += 8
					continue
				}
				j += bits.TrailingZeros64(nl) >> 3
			} else {
				for j < n && isLower(s[j]) {
					j++
				}
				if j >= n {
					break
				}
			}
			k2 := ctab[s[j]]
			if k2&cWord == 0 {
				break
			}
			m |= k2
			j++
		}
		// Where scanning resumes if nothing starts here: past a plain separator directly.
		next := j
		if j < n && ctab[s[j]] == 0 {
			next = j + 1
		}
		if m == cLower {
			// A plain lower-case word can only be a name cue ("dear", "name", "sincerely"...) or
			// start a vendor token whose prefix ends in '-', '.' or ':' ("sk-", "hvs.").
			if cueLens[s[i]]>>((j-i)&31)&1 != 0 ||
				j < n && (s[j] == '-' || s[j] == '.' || s[j] == ':') {
				if i+1 < n && cueBloom.has(fold3(s, i)) {
					if e := x.cue(i, j); e > j {
						i = e
						continue
					}
				}
			}
			i = next
			continue
		}
		if i+1 < n && cueBloom.has(fold3(s, i)) {
			if e := x.cue(i, j); e > j {
				i = e
				continue
			}
		}
		if m&cDigit != 0 {
			if e := x.numeric(i, j); e > j {
				i = e
				continue
			}
		}
		i = next
	}
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

// notLower8 returns, for the eight bytes of w, a mask with the high bit set in every byte that
// is not an ASCII lower-case letter.
func notLower8(w uint64) uint64 {
	const hi = 0x8080808080808080
	// For a byte below 0x80, b+0x1f carries into the high bit iff b >= 'a', and b+0x05 iff
	// b > 'z'; neither addition carries into the next byte. Bytes from 0x80 up are not letters.
	lo := w &^ hi
	isLower := (lo + 0x1f1f1f1f1f1f1f1f) &^ (lo + 0x0505050505050505) &^ w & hi
	return isLower ^ hi
}

// trigger handles a non-word trigger byte at i and returns where scanning resumes (<= i: no match).
func (x *scanCtx) trigger(i int) int {
	switch x.s[i] {
	case '@':
		return x.at(i)
	case '-':
		return x.dash(i)
	case ':', '=':
		return x.assign(i)
	case '~':
		return x.tilde(i)
	}
	return i
}

// resolve sorts the current string's findings and drops overlaps: a secret beats personal data,
// then higher confidence, then the longer span.
func (x *scanCtx) resolve() {
	f := x.out[x.base:]
	if len(f) < 2 {
		return
	}
	slices.SortFunc(f, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	keep := f[:1]
	for _, g := range f[1:] {
		last := &keep[len(keep)-1]
		if g.Start >= last.End {
			keep = append(keep, g)
			continue
		}
		if better(g, *last) {
			*last = g
		}
	}
	x.out = x.out[:x.base+len(keep)]
}

func better(a, b Finding) bool {
	ca, cb := a.Type.Class() == ClassSecret, b.Type.Class() == ClassSecret
	if ca != cb {
		return ca
	}
	if a.Confidence != b.Confidence {
		return a.Confidence > b.Confidence
	}
	return a.End-a.Start > b.End-b.Start
}

// finishDoc runs once per document: health information counts only when the document also
// identifies someone, so the deferred health findings are emitted, and the texts re-scanned for
// health terms, only then. each calls fn for every string of the document with its path.
func (x *scanCtx) finishDoc(_ int, each func(fn func(path string, s string, key keyKind))) {
	if !x.identity {
		return
	}
	x.out = append(x.out, x.healthCues...)
	if each == nil {
		// Free text: the one string is x.s.
		x.base = len(x.out)
		x.healthTerms()
		x.resolveHealth()
		return
	}
	each(func(path, s string, key keyKind) {
		x.s = s
		x.base = len(x.out)
		x.healthTerms()
		x.resolveHealth()
		for i := x.base; i < len(x.out); i++ {
			x.out[i].Path = path
		}
	})
}

// resolveHealth keeps only health findings that do not overlap an earlier finding of the string.
func (x *scanCtx) resolveHealth() {
	if len(x.out)-x.base > 1 {
		f := x.out[x.base:]
		slices.SortFunc(f, func(a, b Finding) int { return a.Start - b.Start })
		keep := f[:1]
		for _, g := range f[1:] {
			if g.Start >= keep[len(keep)-1].End {
				keep = append(keep, g)
			}
		}
		x.out = x.out[:x.base+len(keep)]
	}
}
