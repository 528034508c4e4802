package frames

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
)

// echo answers each envelope with "re:" and what it held, and remembers
// the origins it was given.
type echo struct {
	mu      sync.Mutex
	origins []pipeline.Origin
}

func (e *echo) Handle(_ context.Context, o pipeline.Origin, body []byte, _ func([]byte) error) pipeline.Answer {
	e.mu.Lock()
	e.origins = append(e.origins, o)
	e.mu.Unlock()
	return pipeline.Answer{Body: append([]byte("re:"), body...)}
}

type noSessions struct{}

func (noSessions) Remove(string) {}

func newConns(t *testing.T, h Handler) *Conns {
	t.Helper()
	return New(Config{Handler: h, Sessions: noSessions{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		HandshakeTimeout: func() time.Duration { return time.Minute }})
}

// frames returns a recv that gives each of in, then err.
func frames(err error, in ...string) func() ([]byte, error) {
	var mu sync.Mutex
	return func() ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(in) == 0 {
			return nil, err
		}
		b := []byte(in[0])
		in = in[1:]
		return b, nil
	}
}

func TestServeAnswersInOrderBeforeTheHandshake(t *testing.T) {
	h := &echo{}
	c := newConns(t, h)
	var sent []string
	var mu sync.Mutex
	send := func(b []byte) error { mu.Lock(); sent = append(sent, string(b)); mu.Unlock(); return nil }
	o := &pipeline.Origin{Face: pipeline.FaceStream, Remote: "192.0.2.1:443"}
	end := c.Serve(context.Background(), context.Background(), o, frames(io.EOF, "one", "two", "three"), send, nil)
	if end != EndPeer {
		t.Fatalf("end %d, want EndPeer (%d)", end, EndPeer)
	}
	if want := fmt.Sprint([]string{"re:one", "re:two", "re:three"}); fmt.Sprint(sent) != want {
		t.Fatalf("sent %q, want %s", sent, want)
	}
	for _, got := range h.origins {
		if got.Face != o.Face || got.Remote != o.Remote || got.Conn == nil || got.Unread == nil || got.OnSession == nil {
			t.Fatalf("the pipeline was given %+v: the connection, its unread refusals and its session hook are missing", got)
		}
	}
	if h.origins[0].Conn != h.origins[2].Conn || h.origins[0].Unread != h.origins[2].Unread {
		t.Fatal("one connection's envelopes came with different connections")
	}
}

func TestServeEndsOnABrokenLimit(t *testing.T) {
	c := newConns(t, &echo{})
	recv := frames(fmt.Errorf("%w: too many pings", ErrPolicy))
	if end := c.Serve(context.Background(), context.Background(), &pipeline.Origin{Face: pipeline.FaceWS}, recv, func([]byte) error { return nil }, nil); end != EndPolicy {
		t.Fatalf("end %d, want EndPolicy (%d)", end, EndPolicy)
	}
}

func TestServeEndsWhenAWriteFails(t *testing.T) {
	c := newConns(t, &echo{})
	broken := errors.New("broken pipe")
	end := c.Serve(context.Background(), context.Background(), &pipeline.Origin{Face: pipeline.FaceWS}, frames(io.EOF, "one", "two"), func([]byte) error { return broken }, nil)
	if end != EndWrite {
		t.Fatalf("end %d, want EndWrite (%d)", end, EndWrite)
	}
}

// blocked is a recv that waits until release, as a peer that sends nothing.
func blocked(release <-chan struct{}) func() ([]byte, error) {
	return func() ([]byte, error) {
		<-release
		return nil, io.EOF
	}
}

func TestSweepEndsAConnectionWithoutASession(t *testing.T) {
	c := newConns(t, &echo{})
	release := make(chan struct{})
	defer close(release)
	done := make(chan End, 1)
	go func() {
		done <- c.Serve(context.Background(), context.Background(), &pipeline.Origin{Face: pipeline.FaceStream}, blocked(release), func([]byte) error { return nil }, nil)
	}()
	// Until its time is up, a sweep leaves the connection be; the sweep
	// after it ends it. Sweeps run until Serve has registered it.
	for {
		c.Sweep(time.Now())
		select {
		case end := <-done:
			t.Fatalf("ended (%d) before its time to make a session was up", end)
		default:
		}
		c.Sweep(time.Now().Add(time.Hour))
		select {
		case end := <-done:
			// Not EndPeer: the face tells the peer that nothing it sent
			// after the handshake was read.
			if end != EndNoSession {
				t.Fatalf("end %d, want EndNoSession (%d)", end, EndNoSession)
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestServeStopsOnShutdown(t *testing.T) {
	quitting, quit := context.WithCancel(context.Background())
	c := newConns(t, &echo{})
	release := make(chan struct{})
	defer close(release)
	done := make(chan End, 1)
	go func() {
		done <- c.Serve(context.Background(), quitting, &pipeline.Origin{Face: pipeline.FaceStream}, blocked(release), func([]byte) error { return nil }, nil)
	}()
	quit()
	if end := <-done; end != EndShutdown {
		t.Fatalf("end %d, want EndShutdown (%d)", end, EndShutdown)
	}
}
