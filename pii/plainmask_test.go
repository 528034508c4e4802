package pii

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestPlainBlockAgreesWithPlain8 holds the block mask to plain8, the definition, on every byte
// value at every position and on random blocks, in each form the processor can run.
func TestPlainBlockAgreesWithPlain8(t *testing.T) {
	for name, plainBlock := range plainBlockForms() {
		t.Run(name, func(t *testing.T) { testPlainBlock(t, plainBlock) })
	}
}

func testPlainBlock(t *testing.T, plainBlock func(*byte) uint64) {
	want := func(b []byte) uint64 {
		var m uint64
		for k := 0; k < 64; k += 8 {
			m |= plain8(binary.LittleEndian.Uint64(b[k:])) << k
		}
		return m
	}
	var b [64]byte
	for pos := 0; pos < 64; pos++ {
		for c := 0; c < 256; c++ {
			for k := range b {
				b[k] = 'a'
			}
			b[pos] = byte(c)
			if got, w := plainBlock(&b[0]), want(b[:]); got != w {
				t.Fatalf("byte %#x at %d: plainBlock %064b, plain8 %064b", c, pos, got, w)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 100000; n++ {
		for k := range b {
			b[k] = byte(r.UintN(256))
		}
		if got, w := plainBlock(&b[0]), want(b[:]); got != w {
			t.Fatalf("%q: plainBlock %064b, plain8 %064b", b[:], got, w)
		}
	}
}

// TestLowerBeforeAgreesBytewise holds lowerBefore to a byte-by-byte reading back.
func TestLowerBeforeAgreesBytewise(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := "abcxyz`{AZ@[ .-\x80\xff09"
	for n := 0; n < 200000; n++ {
		b := make([]byte, 1+r.IntN(24))
		for k := range b {
			if r.IntN(4) == 0 {
				b[k] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[k] = byte('a' + r.IntN(26))
			}
		}
		s := string(b)
		p := r.IntN(len(s) + 1)
		done := r.IntN(p + 1)
		want := p
		for want > done && isLower(s[want-1]) {
			want--
		}
		if got := lowerBefore(s, p, done); got != want {
			t.Fatalf("lowerBefore(%q, %d, %d) = %d, want %d", s, p, done, got, want)
		}
	}
}
