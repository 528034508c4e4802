package pii

import (
	"strings"
	"unsafe"
)

// longMarks returns the marks of a text longer than maxMarkText: with AVX2, which of the bytes
// of the marks it holds, 32 bytes a round, and whether " dot" is in it, so that the prefilters
// search only for the bytes that are there; without, all of them. markSpace is always set.
func longMarks(s string) uint16 {
	if !plainAVX2 || len(s) < 35 {
		return markAll
	}
	m, k := byteMarksAVX2(unsafe.StringData(s), len(s))
	for i := k; i < len(s); i++ {
		m |= markTab[s[i]] &^ markDot
	}
	if strings.Contains(s[k:], " dot") {
		m |= markDot
	}
	return m | markSpace
}

//go:noescape
func byteMarksAVX2(p *byte, n int) (marks uint16, done int)
