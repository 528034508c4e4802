package pii

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"
)

// Health information counts as personal data only when it is about someone: identified in the
// same document (a name, e-mail, phone, id number...), or spoken of in a sentence with a
// condition or medicine of the vocabulary (health_vocab.go). "Patient is a 38-year-old male with
// a history of headaches" alone identifies nobody and passes. Terms: diagnoses and conditions,
// medications and treatments, ICD-10 codes after a diagnosis cue.

var healthTerms = []string{"diagnosed", "diagnosis", "diagnoses", "prescribed", "prescription",
	"medication", "suffers from", "suffering from", "treated for", "treatment for", "history of",
	"hiv", "aids", "cancer", "tumour", "tumor", "leukemia", "leukaemia", "diabetes", "diabetic",
	"depression", "schizophrenia", "bipolar", "asthma", "epilepsy", "dementia", "alzheimer",
	"parkinson", "hepatitis", "tuberculosis", "chemotherapy", "dialysis", "insulin", "metformin",
	"lisinopril", "sertraline", "fluoxetine", "prozac", "methadone", "oxycodone", "antidepressant",
	"antiretroviral", "pregnant", "pregnancy", "miscarriage", "abortion", "stroke", "heart attack",
	"hypertension", "adhd", "autism", "anorexia", "bulimia", "covid", "icd-10", "icd10", "blood type",
	"allergic to", "allergy", "mental health", "psychiatric", "therapy", "rehab", "overdose",
	"disorder", "syndrome", "disease", "infection", "surgery", "biopsy", "mri", "admitted to hospital"}

var healthByFirst = func() (t [256][]string) {
	for _, h := range healthTerms {
		t[h[0]] = append(t[h[0]], h)
	}
	return t
}()

// healthTab holds the first four bytes (case-folded) of every term of four bytes or more, in a
// direct-mapped table whose multiplier is chosen so that no two prefixes share a slot; the
// three-byte terms ("hiv", "mri") are compared directly. Three bytes alone would let "the"
// through for "therapy", and "dis" for "disease".
var healthTab, healthMul, healthShort = func() (tab [1024]uint32, mul uint32, short []uint32) {
	var keys []uint32
	for _, h := range healthTerms {
		if len(h) == 3 {
			short = append(short, fold3(h, 0))
		} else if !slices.Contains(keys, fold4(h, 0)) {
			keys = append(keys, fold4(h, 0))
		}
	}
	for mul = 0x9E3779B1; ; mul += 2 {
		tab = [1024]uint32{}
		ok := true
		for _, k := range keys {
			slot := &tab[(k*mul)>>22]
			if *slot != 0 {
				ok = false
				break
			}
			*slot = k
		}
		if ok {
			return tab, mul, short
		}
	}
}()

// fold4 is the first four bytes at i, each with bit 0x20 set (ASCII letters lower-cased).
func fold4(s string, i int) uint32 {
	return uint32(s[i]|0x20) | uint32(s[i+1]|0x20)<<8 | uint32(s[i+2]|0x20)<<16 | uint32(s[i+3]|0x20)<<24
}

// healthCandidate reports whether a health term may start at i (i+2 < len(s)).
func healthCandidate(s string, i int) bool {
	if i+3 < len(s) {
		k := fold4(s, i)
		if healthTab[(k*healthMul)>>22] == k {
			return true
		}
	}
	k3 := fold3(s, i)
	return k3 == healthShort[0] || k3 == healthShort[1]
}

// healthTerms scans x.s for health terms (case-insensitive, at word starts) and ICD-10 codes.
// Word starts (a letter not preceded by a letter or digit) are found 64 bytes at a time.
func (x *scanCtx) healthTerms() {
	s := x.s
	n := len(s)
	b := unsafe.Slice(unsafe.StringData(s), n)
	short0, short1 := healthShort[0], healthShort[1]
	prevAlnum := false
	for base := 0; base < n; base += 64 {
		alpha, alnum := alphaMasks(b[base:])
		starts := alpha &^ (alnum<<1 | b2u(prevAlnum))
		prevAlnum = alnum>>63&1 != 0
		for starts != 0 {
			i := base + bits.TrailingZeros64(starts)
			starts &= starts - 1
			if i+3 < n {
				// One four-byte load: the term filter, and the ICD-10 shape (capital, digit).
				k := binary.LittleEndian.Uint32(b[i:]) | 0x20202020
				if healthTab[(k*healthMul)>>22] != k && k&0xffffff != short0 && k&0xffffff != short1 &&
					!(isUpper(s[i]) && isDigit(s[i+1])) {
					continue
				}
			} else if i+2 >= n {
				continue
			}
			x.healthWord(i)
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// healthWord checks the word starting at i.
func (x *scanCtx) healthWord(i int) {
	s := x.s
	if i+2 < len(s) && healthCandidate(s, i) {
		for _, t := range healthByFirst[lower(s[i])] {
			if hasFoldPrefix(s[i:], t) && healthWordShape(s, i, len(t)) {
				x.add(TypeHealth, i, i+len(t), 0.8, "health.term")
				break
			}
		}
	}
	// ICD-10: letter, two digits, optional .digits, after a diagnosis or ICD cue.
	if i+3 <= len(s) && isUpper(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) && (i+3 == len(s) || !isWordByte(s[i+3])) {
		j := i + 3
		e := j
		if e+1 < len(s) && s[e] == '.' && isAlnum(s[e+1]) {
			e += 2
			for e < len(s) && isAlnum(s[e]) && e-j < 5 {
				e++
			}
		}
		if hasCue(s, i-40, i, icdCues) {
			x.add(TypeHealth, i, e, 0.85, "health.icd10")
		}
	}
}

// healthWordShape reports whether the n bytes at i, which match a term but for case, are written
// as people write words: in lower case, in capitals, or with capitals only at word starts
// ("Heart Attack"). Base64 (keys, signatures, tokens) is full of slashes and pluses followed by
// mixed-case letters, and "/hIv" or "+DiSease" there is no health information. A term of four
// letters or fewer ("hiv", "mri", "adhd") must also end a word, save for a plural s, so that
// "hive" and "mrinal" are not read as "hiv" and "mri".
func healthWordShape(s string, i, n int) bool {
	w := s[i : i+n]
	allUpper, midUpper := true, false
	for j := 0; j < len(w); j++ {
		if isLower(w[j]) {
			allUpper = false
		} else if isUpper(w[j]) && j > 0 && isAlpha(w[j-1]) {
			midUpper = true
		}
	}
	if midUpper && !allUpper {
		return false
	}
	if n > 4 {
		return true
	}
	e := i + n
	if e < len(s) && (s[e] == 's' || s[e] == 'S') {
		e++
	}
	return e == len(s) || !isAlnum(s[e])
}

// alphaMasks returns, for the (up to) 64 bytes of b, the bits of the bytes that are letters
// (ASCII or from 0x80 up, as isAlpha) and of those that are letters or digits.
func alphaMasks(b []byte) (alpha, alnum uint64) {
	k := 0
	if len(b) >= 64 && plainAVX2 {
		letter, high, digit := classBlockAVX2(&b[0])
		return letter | high, letter | high | digit
	}
	if len(b) >= 64 {
		// Unrolled over a fixed-size array: no bounds checks, and the eight words independent.
		w := (*[64]byte)(b[:64])
		a0, d0 := alpha8(binary.LittleEndian.Uint64(w[0:8]))
		a1, d1 := alpha8(binary.LittleEndian.Uint64(w[8:16]))
		a2, d2 := alpha8(binary.LittleEndian.Uint64(w[16:24]))
		a3, d3 := alpha8(binary.LittleEndian.Uint64(w[24:32]))
		a4, d4 := alpha8(binary.LittleEndian.Uint64(w[32:40]))
		a5, d5 := alpha8(binary.LittleEndian.Uint64(w[40:48]))
		a6, d6 := alpha8(binary.LittleEndian.Uint64(w[48:56]))
		a7, d7 := alpha8(binary.LittleEndian.Uint64(w[56:64]))
		alpha = a0 | a1<<8 | a2<<16 | a3<<24 | a4<<32 | a5<<40 | a6<<48 | a7<<56
		digit := d0 | d1<<8 | d2<<16 | d3<<24 | d4<<32 | d5<<40 | d6<<48 | d7<<56
		return alpha, alpha | digit
	}
	for ; k+8 <= len(b); k += 8 {
		a, d := alpha8(binary.LittleEndian.Uint64(b[k:]))
		alpha |= a << k
		alnum |= (a | d) << k
	}
	for ; k < len(b); k++ {
		if isAlpha(b[k]) {
			alpha |= 1 << k
			alnum |= 1 << k
		} else if isDigit(b[k]) {
			alnum |= 1 << k
		}
	}
	return alpha, alnum
}

// alpha8 returns one bit per byte of w for letters and for digits (see plain8 for the method).
func alpha8(w uint64) (alpha, digit uint64) {
	const (
		lo7 = 0x7f7f7f7f7f7f7f7f
		hi8 = 0x8080808080808080
		mul = 0x0102040810204080 // gathers the high bits of the eight bytes into the top byte
	)
	x := w & lo7
	l := x | 0x2020202020202020 // ASCII letters folded to lower case
	letter := (l + 0x1f1f1f1f1f1f1f1f) &^ (l + 0x0505050505050505) &^ w
	// Folding also maps '@' to '`' and '[' .. '_' to '{' .. 0x7f, which are outside 'a'..'z'.
	letter = (letter | w) & hi8
	dig := (x + 0x5050505050505050) &^ (x + 0x4646464646464646) &^ w & hi8
	return ((letter >> 7) * mul) >> 56, ((dig >> 7) * mul) >> 56
}

var icdCues = newCues("icd", "diagnos", "code")
