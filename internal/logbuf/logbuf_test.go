package logbuf

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Writers on many goroutines and a reader meanwhile (run with -race): every
// line is kept whole.
func TestConcurrentWritesAndReads(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				fmt.Fprintf(&b, "writer %d line %d\n", i, j)
			}
		}()
	}
	stop := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			select {
			case <-stop:
				return
			default:
				_ = b.String()
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-read
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, l := range lines {
		var i, j int
		if n, err := fmt.Sscanf(l, "writer %d line %d", &i, &j); n != 2 || err != nil {
			t.Fatalf("a line torn: %q", l)
		}
	}
}

func ExampleBuffer() {
	var b Buffer
	log := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	log.Info("session established", "peer", "gateway@globex")
	fmt.Print(b.String())
	// Output: level=INFO msg="session established" peer=gateway@globex
}
