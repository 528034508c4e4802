package pii

import "golang.org/x/sys/cpu"

// plainAVX2 chooses the AVX2 form of plainBlock, where the processor has it.
var plainAVX2 = cpu.X86.HasAVX2

// plainBlock returns the plain-byte mask of the 64 bytes at p (byte k in bit k), as plain8 computes
// it eight bytes at a time, with the vector compares of plainmask_amd64.s: 32 bytes at a time with
// AVX2, else 16 with SSE2, which every amd64 processor has.
func plainBlock(p *byte) uint64 {
	if plainAVX2 {
		return plainBlockAVX2(p)
	}
	return plainBlockSSE2(p)
}

//go:noescape
func plainBlockSSE2(p *byte) uint64

//go:noescape
func plainBlockAVX2(p *byte) uint64

// classBlockAVX2 returns, for the 64 bytes at p, the masks of the ASCII letters, of the bytes from
// 0x80 up and of the ASCII digits (byte k in bit k), 32 bytes at a time. Only where
// plainAVX2 is true; alphaMasks and cueMasks compute the same eight bytes at a time elsewhere.
//
//go:noescape
func classBlockAVX2(p *byte) (letter, high, digit uint64)
