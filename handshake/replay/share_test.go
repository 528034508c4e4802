package replay

import (
	"context"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// Senders nobody vouches for share one namespace: fresh keys, however many,
// fill that share and no more, and the ids of a known sender still fit.
func TestStrangersFillOnlyTheirShare(t *testing.T) {
	clk := newClock(t0)
	mem := NewMemory(MemoryConfig{Now: clk.Now, MaxEntries: 16, MaxPerNamespace: 4})
	w := New(Config{Now: clk.Now, Storage: mem})
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		if err := w.CheckShared(ctx, msg(sender(byte(10+i)), i, t0), "strangers"); err != nil {
			t.Fatalf("stranger %d: %v", i, err)
		}
	}
	wantCode(t, w.CheckShared(ctx, msg(sender(20), 20, t0), "strangers"), wire.ErrRateLimit)
	for i := 0; i < 4; i++ {
		if err := w.Check(ctx, msg(sender(1), i, t0)); err != nil {
			t.Fatalf("known sender's message %d: %v", i, err)
		}
	}
	// Within the share an id is still once per sender.
	wantCode(t, w.CheckShared(ctx, msg(sender(10), 0, t0), "strangers"), wire.ErrReplay)
	clk.Add(DefaultSkew + time.Second)
	if err := w.CheckShared(ctx, msg(sender(20), 21, clk.Now()), "strangers"); err != nil {
		t.Fatalf("after the share's ids expired: %v", err)
	}
}

// One sender's id in a share is not another sender's: two strangers may use
// the same id.
func TestShareKeepsSendersApart(t *testing.T) {
	w := New(Config{Now: newClock(t0).Now})
	ctx := context.Background()
	if err := w.CheckShared(ctx, msg(sender(1), 7, t0), "strangers"); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckShared(ctx, msg(sender(2), 7, t0), "strangers"); err != nil {
		t.Fatalf("another stranger's same id: %v", err)
	}
	// A share's namespace is never a sender key's, whatever its name.
	for _, name := range []string{"", "x", "01234567890123456789012345", "strangers"} {
		if ns := shareNS(name); len(ns) == len(senderNS(sender(1))) {
			t.Fatalf("share %q has a sender's namespace length", name)
		}
	}
}
