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
				if k&0x80808080 == 0 && (k+0x1f1f1f1f)&^(k+0x05050505)&0x80808080 == 0x80808080 &&
					!healthFirst4.has(k) {
					// Four ASCII letters that begin no term and no first word of the vocabulary.
					continue
				}
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

// wideBloom is a 32768-bit filter over four case-folded bytes: with the few hundred keys it
// holds, about one word in a hundred that begins with none of them gets through.
type wideBloom [512]uint64

func (b *wideBloom) set(k uint32) {
	h := (k * 0x9E3779B1) >> 17
	b[h>>6] |= 1 << (h & 63)
}

func (b *wideBloom) has(k uint32) bool {
	h := (k * 0x9E3779B1) >> 17
	return b[h>>6]&(1<<(h&63)) != 0
}

// healthFirst4 lets through, of the words that begin with four ASCII letters, only those that
// healthPass must read further: the first four bytes of a term of four bytes or more, of a first
// word of the vocabulary of four bytes or more, and of a three-letter term with a plural s
// ("hivs"; "hive" is no term, and the ICD-10 shape starts with a letter and a digit). The other
// words (most of the prose) cost one load, a test of their letters and one bit of the filter.
var healthFirst4 = func() (b wideBloom) {
	for _, h := range healthTerms {
		if len(h) == 3 {
			b.set(fold3(h, 0) | 's'<<24)
		} else {
			b.set(fold4(h, 0))
		}
	}
	for w := range healthVocab {
		if len(w) >= 4 {
			b.set(fold4(w, 0))
		}
	}
	return b
}()
