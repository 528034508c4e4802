//go:build !amd64

package pii

import (
	"encoding/binary"
	"unsafe"
)

// plainBlock returns the plain-byte mask of the 64 bytes at p (byte k in bit k).
func plainBlock(p *byte) uint64 {
	b := unsafe.Slice(p, 64)
	return plain8(binary.LittleEndian.Uint64(b[0:8])) |
		plain8(binary.LittleEndian.Uint64(b[8:16]))<<8 |
		plain8(binary.LittleEndian.Uint64(b[16:24]))<<16 |
		plain8(binary.LittleEndian.Uint64(b[24:32]))<<24 |
		plain8(binary.LittleEndian.Uint64(b[32:40]))<<32 |
		plain8(binary.LittleEndian.Uint64(b[40:48]))<<40 |
		plain8(binary.LittleEndian.Uint64(b[48:56]))<<48 |
		plain8(binary.LittleEndian.Uint64(b[56:64]))<<56
}

// plainAVX2 is false: there is no AVX2 form here.
const plainAVX2 = false

// classBlockAVX2 returns, for the 64 bytes at p, the masks of the ASCII letters, of the bytes
// from 0x80 up and of the ASCII digits. Callers use it only where plainAVX2 is true, and
// compute the masks eight bytes at a time otherwise; this form keeps the build whole.
func classBlockAVX2(p *byte) (letter, high, digit uint64) {
	for k, c := range unsafe.Slice(p, 64) {
		switch {
		case isUpper(c) || isLower(c):
			letter |= 1 << k
		case c >= 0x80:
			high |= 1 << k
		case isDigit(c):
			digit |= 1 << k
		}
	}
	return letter, high, digit
}
