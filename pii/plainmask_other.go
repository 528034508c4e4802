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
