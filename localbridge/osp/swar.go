package osp

import (
	"encoding/binary"
	"math/bits"
)

// Eight bytes at a time, SWAR style: whether any byte of a word is below 0x20, a quote or a
// backslash. The tests are exact for the lowest such byte: a borrow can only mark bytes above
// a true one. (The encoder's scan, which also stops at bytes from 0x80, is jsonw's.)

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func hasZero(w uint64) uint64 { return (w - ones) & ^w & highs }

// special reports the bytes a JSON string cannot hold as they are.
func special(w uint64) uint64 {
	less := (w - 0x20*ones) & ^w & highs
	return less | hasZero(w^('"'*ones)) | hasZero(w^('\\'*ones))
}

// plainBytes returns how many leading bytes of b may stand in a JSON string as they are,
// reading eight at a time; bytes from 0x80 count as plain (UTF-8 is checked elsewhere).
func plainBytes(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b) && strPlain[b[i]]; i++ {
	}
	return i
}
