package coalesce

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// conn records the batches it is given and can hold or fail them.
type conn struct {
	mu      sync.Mutex
	msgs    []string
	flushes int
	gate    chan struct{}
	entered chan struct{}
	fail    error
	delay   time.Duration
}

func (c *conn) flush(buf []byte, ends []int) error {
	if c.entered != nil {
		select {
		case c.entered <- struct{}{}:
		default:
		}
	}
	if c.gate != nil {
		<-c.gate
	}
	time.Sleep(c.delay)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return c.fail
	}
	c.flushes++
	start := 0
	for _, e := range ends {
		c.msgs = append(c.msgs, string(buf[start:e]))
		start = e
	}
	if start != len(buf) {
		return fmt.Errorf("ends stop at %d of %d bytes", start, len(buf))
	}
	return nil
}

func (c *conn) written() ([]string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...), c.flushes
}

// TestOrderAndBatching holds the first write: the messages queued meanwhile go out in the
// order their hooks ran, in one or two more batches, each message whole.
func TestOrderAndBatching(t *testing.T) {
	c := &conn{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := NewWriter(c.flush, Options{})
	first := make(chan error)
	go func() { first <- w.Write([]byte("first")) }()
	<-c.entered
	var wg sync.WaitGroup
	var order []string
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprintf("m%02d", i)
			err := w.Append(func(dst []byte) ([]byte, error) { return append(dst, msg...), nil }, func() {
				order = append(order, msg) // under the Writer's lock
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	close(c.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	got, flushes := c.written()
	if want := append([]string{"first"}, order...); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("written %q\nwant    %q", got, want)
	}
	if flushes > 3 {
		t.Fatalf("%d writes for a held burst", flushes)
	}
}

func TestEncodeErrorQueuesNothing(t *testing.T) {
	c := &conn{}
	w := NewWriter(c.flush, Options{})
	bad := errors.New("no encoding")
	err := w.Append(func(dst []byte) ([]byte, error) { return append(dst, "half"...), bad }, func() { t.Error("hook ran for a failed encoding") })
	if err != bad {
		t.Fatalf("got %v", err)
	}
	if err := w.Write([]byte("next")); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.written(); fmt.Sprint(got) != "[next]" {
		t.Fatalf("written %q", got)
	}
	if w.Err() != nil {
		t.Fatal("an encoding error stopped the writer")
	}
}

func TestWriteErrorIsSticky(t *testing.T) {
	c := &conn{fail: errors.New("broken pipe")}
	w := NewWriter(c.flush, Options{})
	if err := w.Write([]byte("x")); err == nil || w.Err() == nil {
		t.Fatal("write error lost")
	}
	if err := w.Write([]byte("y")); err == nil {
		t.Fatal("error not sticky")
	}
	if err := w.Sync(); err == nil {
		t.Fatal("Sync hid the error")
	}
}

// TestBackpressure holds the connection: writers stop once a megabyte is queued.
func TestBackpressure(t *testing.T) {
	c := &conn{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := NewWriter(c.flush, Options{})
	go w.Write([]byte("held"))
	<-c.entered
	chunk := make([]byte, 64<<10)
	queued := make(chan int, 100)
	go func() {
		for i := range 40 {
			w.Write(chunk)
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
	close(c.gate)
	for n < 39 {
		<-queued
		n++
	}
}

// TestWriterIsNotKeptWriting: a caller that found the connection free writes at most
// maxRounds batches for others, then leaves the rest to a goroutine of its own. Every
// batch here queues another message while it is written, so the queue never empties, and
// the batches after the first maxRounds are held until the caller has returned.
func TestWriterIsNotKeptWriting(t *testing.T) {
	const more = 20
	release := make(chan struct{})
	var (
		w       *Writer
		flushes int
		got     []string
	)
	w = NewWriter(func(buf []byte, ends []int) error {
		flushes++ // flushes never overlap
		if flushes > maxRounds {
			<-release
		}
		got = append(got, string(buf))
		if flushes <= more {
			go w.Write([]byte(fmt.Sprint(flushes)))
			time.Sleep(time.Millisecond) // let it queue
		}
		return nil
	}, Options{})
	returned := make(chan error)
	go func() { returned <- w.Write([]byte("0")) }()
	select {
	case err := <-returned:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the caller is still writing for others")
	}
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
		w.mu.Lock()
		n := len(got)
		w.mu.Unlock()
		if n == more+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d batches written, want %d", n, more+1)
		}
		time.Sleep(time.Millisecond)
	}
	for i, b := range got {
		if b != fmt.Sprint(i) {
			t.Fatalf("batch %d is %q", i, b)
		}
	}
}

// slowConn writes slowly, so that writers keep appending while a batch is on its way out.
type slowConn struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *slowConn) flush(buf []byte, ends []int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(buf) > 0 {
		n := min(len(buf), 4096)
		s.buf.Write(buf[:n])
		buf = buf[n:]
		time.Sleep(time.Microsecond)
	}
	return nil
}

// TestLargeBatchesStayIntact: once a batch grew past maxPending, the buffer writers
// appended to next must not be the one being written. Every message must arrive whole and
// in each writer's order.
func TestLargeBatchesStayIntact(t *testing.T) {
	s := &slowConn{}
	w := NewWriter(s.flush, Options{})
	const writers, msgs, size = 8, 200, 40 << 10
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range msgs {
				body := bytes.Repeat([]byte{byte('a' + g)}, size)
				copy(body, fmt.Sprintf("%d/%04d", g, i))
				if err := w.Write(body); err != nil {
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
	out := s.buf.Bytes()
	if len(out) != writers*msgs*size {
		t.Fatalf("%d bytes written, want %d", len(out), writers*msgs*size)
	}
	next := make([]int, writers)
	for n := 0; n < writers*msgs; n++ {
		m := out[n*size : (n+1)*size]
		var g, i int
		if _, err := fmt.Sscanf(string(m[:6]), "%d/%04d", &g, &i); err != nil || g >= writers {
			t.Fatalf("message %d is corrupt: %q", n, m[:16])
		}
		if i != next[g] || bytes.Count(m[6:], []byte{byte('a' + g)}) != size-6 {
			t.Fatalf("message %d of writer %d is corrupt or out of order (want %d)", i, g, next[g])
		}
		next[g]++
	}
}

// TestIdleWriterHoldsNoBuffers: with a pool, a Writer that has written everything gives
// its buffers back, and takes them again for the next message.
func TestIdleWriterHoldsNoBuffers(t *testing.T) {
	var pool sync.Pool
	c := &conn{}
	w := NewWriter(c.flush, Options{Pool: &pool})
	for i := range 3 {
		if err := w.Write([]byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		w.mu.Lock()
		held := w.cur != nil || w.spare != nil
		w.mu.Unlock()
		if held {
			t.Fatalf("after write %d the writer holds a buffer", i)
		}
	}
	if got, _ := c.written(); fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("written %q", got)
	}
}

// TestSharedPool: writers of many connections share one pool; each connection gets its own
// messages, whole and in order (run with -race).
func TestSharedPool(t *testing.T) {
	var pool sync.Pool
	const conns, msgs = 8, 300
	cs := make([]*conn, conns)
	ws := make([]*Writer, conns)
	var wg sync.WaitGroup
	for i := range conns {
		cs[i] = &conn{}
		ws[i] = NewWriter(cs[i].flush, Options{Pool: &pool, Yield: i%2 == 0})
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range msgs {
					if err := ws[i].Write([]byte(fmt.Sprintf("%d/%d/%d", i, g, n))); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	for i, c := range cs {
		if err := ws[i].Sync(); err != nil {
			t.Fatal(err)
		}
		got, _ := c.written()
		if len(got) != 2*msgs {
			t.Fatalf("connection %d got %d messages, want %d", i, len(got), 2*msgs)
		}
		next := [2]int{}
		for _, m := range got {
			var ci, g, n int
			if _, err := fmt.Sscanf(m, "%d/%d/%d", &ci, &g, &n); err != nil || ci != i || n != next[g] {
				t.Fatalf("connection %d got %q after %v", i, m, next)
			}
			next[g]++
		}
	}
}
