package replay

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// mapJournal is a Journal in memory that can be made to fail.
type mapJournal struct {
	mu   sync.Mutex
	recs map[[2]string]time.Time
	fail error
}

func (j *mapJournal) Record(_ context.Context, ns, key string, expires time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return j.fail
	}
	j.recs[[2]string{ns, key}] = expires
	return nil
}

func (j *mapJournal) Load(_ context.Context, now time.Time, fn func(ns, key string, expires time.Time)) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for k, exp := range j.recs {
		if exp.After(now) {
			fn(k[0], k[1], exp)
		}
	}
	return nil
}

func durableWindow(t *testing.T, clk *clock, j Journal) *Window {
	t.Helper()
	d, err := NewDurable(context.Background(), NewMemory(MemoryConfig{Now: clk.Now}), j)
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Storage: d, Now: clk.Now})
}

// TestDurableSurvivesRestart accepts a message, restarts (a new Memory
// over the same journal) and sees the copy refused; challenges are not
// journaled.
func TestDurableSurvivesRestart(t *testing.T) {
	clk := newClock(t0)
	j := &mapJournal{recs: map[[2]string]time.Time{}}
	w := durableWindow(t, clk, j)
	m := msg(sender(1), 1, t0)
	if err := w.Check(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Challenge(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(j.recs) != 1 {
		t.Fatalf("journal holds %d records; want the one message id", len(j.recs))
	}
	clk.Add(time.Minute)
	restarted := durableWindow(t, clk, j)
	wantCode(t, restarted.Check(context.Background(), m), wire.ErrReplay)
	if err := restarted.Check(context.Background(), msg(sender(1), 2, clk.Now())); err != nil {
		t.Fatalf("a new message after the restart: %v", err)
	}
	// Past its window the record is not loaded again.
	clk.Add(10 * time.Minute)
	later := durableWindow(t, clk, j)
	if n := later.store.(*Durable).mem.Len(); n != 0 {
		t.Fatalf("%d expired ids loaded", n)
	}
}

// TestDurableWriteFailure: an id whose record cannot be written is not
// accepted, and not remembered either, so that the sender's retry of the
// same message succeeds once the journal works again.
func TestDurableWriteFailure(t *testing.T) {
	clk := newClock(t0)
	j := &mapJournal{recs: map[[2]string]time.Time{}, fail: errors.New("disk full")}
	w := durableWindow(t, clk, j)
	m := msg(sender(1), 1, t0)
	wantCode(t, w.Check(context.Background(), m), wire.ErrStorageUnavailable)
	j.mu.Lock()
	j.fail = nil
	j.mu.Unlock()
	if err := w.Check(context.Background(), m); err != nil {
		t.Fatalf("retry after the journal came back: %v", err)
	}
	wantCode(t, w.Check(context.Background(), m), wire.ErrReplay)
}
