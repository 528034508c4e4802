package osp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
)

// slowWriter records writes and can block them.
type slowWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	writes  int
	gate    chan struct{}
	entered chan struct{}
	fail    error
}

func (s *slowWriter) Write(p []byte) (int, error) {
	if s.entered != nil {
		select {
		case s.entered <- struct{}{}:
		default:
		}
	}
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return 0, s.fail
	}
	s.writes++
	return s.buf.Write(p)
}

func TestWriterOrderAndBatching(t *testing.T) {
	sw := &slowWriter{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := NewWriter(sw, 0, 0)
	first := make(chan error)
	go func() { first <- w.WriteFrame([]byte("first")) }()
	<-sw.entered
	// While the first write is held, others queue behind it.
	var wg sync.WaitGroup
	var order []string
	var omu sync.Mutex
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprintf("m%02d", i)
			w.WriteFrameThen([]byte(msg), func() {
				omu.Lock()
				order = append(order, msg)
				omu.Unlock()
			})
		}()
	}
	wg.Wait()
	close(sw.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	r := NewReader(bytes.NewReader(sw.buf.Bytes()), 0)
	got := []string{}
	for {
		f, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(f))
	}
	if len(got) != 51 || got[0] != "first" {
		t.Fatalf("got %d frames, first %q", len(got), got[0])
	}
	for i, m := range order {
		if got[i+1] != m {
			t.Fatalf("frame %d is %q, hook order says %q", i+1, got[i+1], m)
		}
	}
	if sw.writes > 3 {
		t.Fatalf("%d writes for a held burst", sw.writes)
	}
}

func TestWriterErrorsAndLimits(t *testing.T) {
	sw := &slowWriter{fail: errors.New("broken pipe")}
	w := NewWriter(sw, 10, 0)
	if err := w.WriteFrame([]byte("x")); err == nil || w.Err() == nil {
		t.Fatal("write error lost")
	}
	if err := w.WriteFrame([]byte("y")); err == nil {
		t.Fatal("error not sticky")
	}
	var tl *FrameTooLargeError
	if err := NewWriter(&slowWriter{}, 10, 0).WriteFrame(make([]byte, 11)); !errors.As(err, &tl) {
		t.Fatalf("got %v", err)
	}
	if err := NewWriter(&slowWriter{}, 10, 0).WriteFrame(nil); err != ErrEmptyFrame {
		t.Fatalf("got %v", err)
	}
}
