package pii

// plainBlock returns the plain-byte mask of the 64 bytes at p (byte k in bit k), as plain8 computes
// it eight bytes at a time, with SSE2 compares sixteen bytes at a time (plainmask_amd64.s).
//
//go:noescape
func plainBlock(p *byte) uint64
