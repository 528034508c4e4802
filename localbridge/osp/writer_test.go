package osp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
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

// TestWriterBackpressure holds the connection: writers stop once a megabyte is queued.
func TestWriterBackpressure(t *testing.T) {
	sw := &slowWriter{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := NewWriter(sw, 0, 0)
	go w.WriteFrame([]byte("held"))
	<-sw.entered
	chunk := make([]byte, 64<<10)
	queued := make(chan int, 100)
	go func() {
		for i := range 40 {
			w.WriteFrame(chunk)
			queued <- i
		}
	}()
	n := 0
	for n < 16 {
		<-queued
		n++
	}
	select {
	case <-queued:
		// At most one more may squeeze in at the boundary.
		select {
		case <-queued:
			t.Fatal("writers were not held back")
		default:
		}
	default:
	}
	close(sw.gate)
	for n < 39 {
		<-queued
		n++
	}
}

// jitterWriter writes slowly, in pieces, so that writers keep appending
// while a batch is on its way out.
type jitterWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (j *jitterWriter) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for len(p) > 0 {
		n := min(len(p), 4096)
		j.buf.Write(p[:n])
		p = p[n:]
		time.Sleep(time.Microsecond)
	}
	return 0, nil
}

// TestWriterLargeBatchesStayIntact: once a batch grew past maxPending, the
// buffer writers appended to next was the one being written, and frames
// came out interleaved. Every frame must arrive whole and in each writer's
// order.
func TestWriterLargeBatchesStayIntact(t *testing.T) {
	jw := &jitterWriter{}
	w := NewWriter(jw, 0, 0)
	const writers, frames = 8, 200
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range frames {
				body := bytes.Repeat([]byte{byte('a' + g)}, 40<<10)
				copy(body, fmt.Sprintf("%d/%04d", g, i))
				if err := w.WriteFrame(body); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(bytes.NewReader(jw.buf.Bytes()), 1<<20)
	next := make([]int, writers)
	for n := 0; n < writers*frames; n++ {
		f, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		var g, i int
		if _, err := fmt.Sscanf(string(f[:6]), "%d/%04d", &g, &i); err != nil || g >= writers {
			t.Fatalf("frame %d is corrupt: %q", n, f[:16])
		}
		if i != next[g] || len(f) != 40<<10 || bytes.Count(f[6:], []byte{byte('a' + g)}) != len(f)-6 {
			t.Fatalf("frame %d of writer %d is corrupt or out of order (want %d)", i, g, next[g])
		}
		next[g]++
	}
}
