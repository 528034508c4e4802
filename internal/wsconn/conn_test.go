package wsconn

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// countingConn counts the writes that reach the connection.
type countingConn struct {
	net.Conn
	mu       sync.Mutex
	writes   int
	deadline int
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countingConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline++
	c.mu.Unlock()
	return c.Conn.SetWriteDeadline(t)
}

func TestCorkGathersWrites(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	cc := &countingConn{Conn: a}
	var bufs sync.Pool
	cork := newCork(cc, &bufs)
	got := make(chan string)
	go func() {
		buf := make([]byte, 64)
		n, _ := b.Read(buf)
		got <- string(buf[:n])
	}()
	cork.hold()
	for _, s := range []string{"one ", "two ", "three"} {
		cork.SetWriteDeadline(time.Now().Add(time.Minute))
		cork.Write([]byte(s))
	}
	if cc.writes != 0 || cc.deadline != 0 {
		t.Fatalf("held cork wrote %d times and set %d deadlines", cc.writes, cc.deadline)
	}
	if err := cork.release(); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "one two three" {
		t.Fatalf("read %q", s)
	}
	if cc.writes != 1 || cc.deadline != 1 {
		t.Fatalf("release made %d writes and set %d deadlines, want 1 and 1", cc.writes, cc.deadline)
	}
	if cork.buf != nil {
		t.Fatal("an idle cork keeps its buffer")
	}
	// Not held, writes go straight through.
	go b.Read(make([]byte, 8))
	if _, err := cork.Write([]byte("direct")); err != nil || cc.writes != 2 {
		t.Fatalf("direct write: %v, %d writes", err, cc.writes)
	}
}

// TestWSConnBatches sends messages from many goroutines over a real WebSocket with a cork
// on each side: every message arrives whole and once, in each sender's order, and the
// messages queued behind a write in progress share system calls.
func TestWSConnBatches(t *testing.T) {
	var bufs, queues sync.Pool
	received := make(chan []string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj := &Hijacker{ResponseWriter: w, Bufs: &bufs}
		c, err := (&websocket.Upgrader{}).Upgrade(hj, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		if hj.Cork == nil {
			t.Error("the upgrade did not go through the cork")
		}
		var msgs []string
		for {
			_, b, err := c.ReadMessage()
			if err != nil {
				break
			}
			msgs = append(msgs, string(b))
		}
		received <- msgs
	}))
	defer srv.Close()

	cd := &Dialer{Bufs: &bufs}
	d := websocket.Dialer{NetDialContext: cd.Dial}
	c, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	cc := &countingConn{Conn: cd.Cork.Conn}
	cd.Cork.Conn = cc
	conn := New(c, cd.Cork, &queues, WriteTimeout)
	const senders, each = 16, 200
	var wg sync.WaitGroup
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := conn.Write([]byte(fmt.Sprintf("%02d/%03d/%s", s, i, strings.Repeat("x", 1000)))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := conn.Sync(); err != nil {
		t.Fatal(err)
	}
	conn.Control(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	msgs := <-received
	c.Close()
	if len(msgs) != senders*each {
		t.Fatalf("received %d messages, want %d", len(msgs), senders*each)
	}
	next := make([]int, senders)
	for _, m := range msgs {
		var s, i int
		if _, err := fmt.Sscanf(m[:6], "%02d/%03d", &s, &i); err != nil || i != next[s] || len(m) != 1007 {
			t.Fatalf("message %.10q out of order or damaged (sender %d expects %d)", m, s, next[s])
		}
		next[s]++
	}
	cc.mu.Lock()
	writes := cc.writes
	cc.mu.Unlock()
	t.Logf("%d messages in %d writes", senders*each, writes)
	if writes >= senders*each {
		t.Fatalf("%d messages took %d writes: nothing was batched", senders*each, writes)
	}
}

// TestWSConnWriteFailureEndsConnection: a write that fails (the other end is gone) closes
// the connection, so that the reader waiting on it, and every call waiting for a reply on
// it, learns at once; and every later write fails.
func TestWSConnWriteFailureEndsConnection(t *testing.T) {
	var bufs, queues sync.Pool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		c.NetConn().(*net.TCPConn).SetLinger(0) // reset, not a clean close
		c.NetConn().Close()
	}))
	defer srv.Close()
	cd := &Dialer{Bufs: &bufs}
	c, _, err := (&websocket.Dialer{NetDialContext: cd.Dial}).Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := New(c, cd.Cork, &queues, WriteTimeout)
	msg := []byte(strings.Repeat("x", 16<<10))
	deadline := time.Now().Add(10 * time.Second)
	for conn.Write(msg) == nil && conn.Sync() == nil {
		if time.Now().After(deadline) {
			t.Fatal("writes to a reset connection kept succeeding")
		}
		time.Sleep(time.Millisecond)
	}
	if conn.Write([]byte("later")) == nil {
		t.Fatal("a write after the failure succeeded")
	}
	// Closed by this side, not merely reset by the other.
	if _, err := cd.Cork.Conn.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the connection is still open after a failed write: read gave %v", err)
	}
}
