package peers

import (
	"errors"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/wire"
)

// A WebSocket the peer closes because no session was made on it in time
// (its end of the handshake was late; this end's was not) was never read:
// the calls on it are sent again in a new session, where any other end of
// the connection loses them as the peer may have acted on them.
func TestNoSessionCloseResendsCalls(t *testing.T) {
	lostCall := wire.Errorf(wire.ErrPeerUnavailable, "", "connection to peer globex lost before the reply")
	for _, tc := range []struct {
		name   string
		err    error
		resend bool
	}{
		{"no session in time", &websocket.CloseError{Code: wsconn.CloseNoSession, Text: "no session was made in time"}, true},
		{"going away", &websocket.CloseError{Code: websocket.CloseGoingAway}, false},
		{"reset", errors.New("connection reset by peer"), false},
	} {
		p := newPooled(nil, func() {})
		var tb Table
		tb.readReplies(nil, p, func() ([]byte, error) { return nil, tc.err })
		if !p.isDead() {
			t.Fatalf("%s: the connection is not dead", tc.name)
		}
		err := p.lost(lostCall)
		f, _ := classify(err)
		if got := errors.As(err, new(sessionGone)) && f.safe && f.renew; got != tc.resend {
			t.Fatalf("%s: the call's %v is sent again: %v, want %v", tc.name, err, got, tc.resend)
		}
	}
}
