// Package logbuf is a buffer that many goroutines may write while another
// reads it: what a gateway, a bridge or a child process logs during a
// test, collected for the test to look at while they run.
package logbuf

import (
	"bytes"
	"sync"
)

// Buffer collects what is written to it. The zero value is empty and ready;
// it is safe for concurrent use, and must not be copied once used.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what has been written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
