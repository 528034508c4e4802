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
