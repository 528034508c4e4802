package replay_test

import (
	"context"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func Example() {
	now := time.UnixMilli(1_800_000_000_000)
	w := replay.New(replay.Config{Now: func() time.Time { return now }})
	ctx := context.Background()

	// A message whose signature has been verified.
	var key keys.Ed25519Public
	key[0] = 7
	m := &wire.Message{
		ID:   "7d444840-9dc0-41d2-9c3a-59ab6c1fa6b8",
		TS:   now.UnixMilli(),
		From: wire.Sender{Agent: "weather-bot", Org: "globex", Key: key},
	}
	fmt.Println(w.Check(ctx, m))
	fmt.Println(w.Check(ctx, m)) // the same message again

	// Challenges are redeemed once.
	c, _ := w.Challenge(ctx)
	fmt.Println(w.Redeem(ctx, c))
	fmt.Println(w.Redeem(ctx, c))
	// Output:
	// <nil>
	// E_REPLAY: id: message id already seen from this sender
	// <nil>
	// E_AUTH_FAILED: challenge: challenge unknown, expired or already used
}
