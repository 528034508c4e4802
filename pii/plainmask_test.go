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

// TestClassBlockAgreesWithAlpha8 holds the vector class masks to alpha8 and cueMask8, which
// alphaMasks and cueMasks use where there is no AVX2, on every byte value at every position and
// on random blocks.
func TestClassBlockAgreesWithAlpha8(t *testing.T) {
	if !plainAVX2 {
		t.Skip("no AVX2 form on this processor")
	}
	check := func(b []byte) {
		t.Helper()
		var alpha, digit, first, alnum uint64
		for k := 0; k < 64; k += 8 {
			w := binary.LittleEndian.Uint64(b[k:])
			a, d := alpha8(w)
			f, an := cueMask8(w)
			alpha, digit, first, alnum = alpha|a<<k, digit|d<<k, first|f<<k, alnum|an<<k
		}
		letter, high, dig := classBlockAVX2(&b[0])
		if letter|high != alpha || dig != digit || letter|high != first || letter|dig != alnum {
			t.Fatalf("%q: classBlockAVX2 %064b %064b %064b; alpha8 %064b %064b, cueMask8 %064b %064b",
				b, letter, high, dig, alpha, digit, first, alnum)
		}
	}
	var b [64]byte
	for pos := 0; pos < 64; pos++ {
		for c := 0; c < 256; c++ {
			for k := range b {
				b[k] = ' '
			}
			b[pos] = byte(c)
			check(b[:])
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 100000; n++ {
		for k := range b {
			b[k] = byte(r.UintN(256))
		}
		check(b[:])
	}
}
