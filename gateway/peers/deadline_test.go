package peers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// A call whose deadline passed before it was sent (its caller waited its
// turn on a loaded machine) fails as the caller's timeout, E_TIMEOUT, and
// is not sent to be refused by the peer as expiring before it was sent.
func TestDeadlinePassedBeforeSendingIsATimeout(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	var tb Table
	m := &wire.Message{To: wire.Ref{Agent: "echo", Org: "globex"}}
	_, err := tb.prepareOutbound(ctx, m)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.ErrTimeout {
		t.Fatalf("got %v, want E_TIMEOUT", err)
	}
	if m.Exp != 0 {
		t.Fatalf("exp set to %d for a call that is not sent", m.Exp)
	}
}
