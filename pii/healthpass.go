package pii

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// healthPass is healthTerms and healthVocabScan(true) in one pass over x.s: the word starts are
// found once (64 bytes at a time, as each of them finds them) and each is tried as a term, an
// ICD-10 code and a phrase of the vocabulary. A document that identifies someone is read again
// for health information string by string, so this pass is most of what such a document costs
// beyond its first scan.
func (x *scanCtx) healthPass() {
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
			if i+1 >= n {
				continue
			}
			var k3 uint32 // fold3(s, i), from the term filter's load where there is one
			vocab := false
			if i+3 < n {
				k := binary.LittleEndian.Uint32(b[i:]) | 0x20202020
				k3 = k & 0xffffff
				if healthTab[(k*healthMul)>>22] == k || k3 == short0 || k3 == short1 ||
					isUpper(s[i]) && isDigit(s[i+1]) {
					x.healthWord(i)
				}
				if c := k >> 24; k&0x80808080 == 0 && c >= 'a' && c <= 'z' {
					// Four ASCII letters: a first word of the vocabulary has them.
					vocab = vocabBloom4.has(k)
				} else {
					vocab = vocabBloom.has(k3)
				}
			} else {
				if i+2 < n {
					x.healthWord(i)
				}
				k3 = fold3(s, i)
				vocab = vocabBloom.has(k3)
			}
			if vocab {
				if e := vocabAt(s, i); e > i {
					x.add(TypeHealth, i, e, 0.8, "health.vocabulary")
				}
			}
		}
	}
}
