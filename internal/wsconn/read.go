package wsconn

import (
	"context"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/gateway/face/frames"
)

const (
	// WriteTimeout bounds a control message's write, and is the default
	// for a batch's.
	WriteTimeout = 10 * time.Second
	// PingEvery is how often each end pings the other.
	PingEvery = 30 * time.Second
	// CloseNoSession is the close code of a connection the answering
	// gateway ends because no session was made on it within its handshake
	// timeout (in the private range, after HTTP's 408). Nothing sent on it
	// was acted on, so the dialling gateway sends it again on a new one.
	CloseNoSession = 4408
)

// KeepAlive pings the other end every PingEvery so that dead connections
// are noticed. Between pings it holds a timer, not a goroutine.
func KeepAlive(conn *Conn) (stop func()) {
	var mu sync.Mutex
	var t *time.Timer
	stopped := false
	mu.Lock()
	defer mu.Unlock()
	t = time.AfterFunc(PingEvery, func() {
		err := conn.Control(websocket.PingMessage, nil, time.Now().Add(WriteTimeout))
		mu.Lock()
		defer mu.Unlock()
		if err == nil && !stopped {
			t.Reset(PingEvery)
		}
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
	}
}

// ReadMessage reads the next message whole, under the connection's read limit,
// into the room buf gives once the message has begun (a new buffer if buf
// is nil), so that a connection waiting for its next message holds no
// buffer. ReadMessage reads through io.ReadAll, which starts at 512 bytes
// and grows step by step: five allocations and 6 KB of garbage for a sealed
// 1 KiB message, where this makes one at most.
func ReadMessage(c *websocket.Conn, buf func() []byte) ([]byte, error) {
	_, r, err := c.NextReader()
	if err != nil {
		return nil, err
	}
	var b []byte
	if buf != nil {
		b = buf()[:0]
	} else {
		b = make([]byte, 0, frames.ReadSize)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = slices.Grow(b, len(b))
		}
	}
}

// Transport carries a handshake over a WebSocket before anything else
// uses it: each message is one WebSocket message.
type Transport struct{ C *websocket.Conn }

func (t Transport) Send(ctx context.Context, b []byte) error {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Now().Add(WriteTimeout)
	}
	t.C.SetWriteDeadline(d)
	return t.C.WriteMessage(websocket.TextMessage, b)
}

func (t Transport) Receive(ctx context.Context) ([]byte, error) {
	if d, ok := ctx.Deadline(); ok {
		t.C.SetReadDeadline(d)
	}
	return ReadMessage(t.C, nil)
}
