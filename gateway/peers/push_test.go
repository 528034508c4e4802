package peers

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// scripted answers each peer's tries in turn with its script's errors
// (nil: a respond), and counts the tries and the ids.
type scripted struct {
	mu      sync.Mutex
	scripts map[*Remote][]error
	tries   map[*Remote]int
	ids     map[string]bool
}

func (s *scripted) CallAsGateway(_ context.Context, ps *Remote, m *wire.Message, onMsg func(*wire.Message) (bool, error)) error {
	s.mu.Lock()
	n := s.tries[ps]
	s.tries[ps]++
	s.ids[m.ID] = true
	script := s.scripts[ps]
	s.mu.Unlock()
	if n < len(script) && script[n] != nil {
		return script[n]
	}
	_, err := onMsg(&wire.Message{Op: wire.OpRespond, Payload: &wire.RespondPayload{Status: "success"}})
	return err
}

// Push tries each peer on its own: one that answers at once is
// delivered, one that is unreachable twice and then answers is delivered
// on its third try with a message built anew, one that refuses is not
// tried again, and one never reached is given up after Tries.
func TestPushEachPeerOnItsOwn(t *testing.T) {
	now, later, refusing, gone := &Remote{}, &Remote{}, &Remote{}, &Remote{}
	down := wire.Errorf(wire.ErrPeerUnavailable, "", "cannot reach peer")
	s := &scripted{tries: map[*Remote]int{}, ids: map[string]bool{}, scripts: map[*Remote][]error{
		later:    {down, wire.Errorf(wire.ErrRateLimit, "", "slow down"), nil},
		refusing: {wire.Errorf(wire.ErrSignature, "p.handover.sig", "does not verify")},
		gone:     {down, down, down, down},
	}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[*Remote]Pushed{}
	built := 0
	cfg := PushConfig{Tries: 4, Wait: time.Millisecond, Go: func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }}
	Push(context.Background(), cfg, s, []*Remote{now, later, refusing, gone}, func(*Remote) *wire.Message {
		mu.Lock()
		defer mu.Unlock()
		built++
		return &wire.Message{ID: string(rune('a' + built))}
	}, func(ps *Remote, how Pushed, err error) {
		mu.Lock()
		defer mu.Unlock()
		if _, twice := got[ps]; twice {
			t.Error("done told twice of one peer")
		}
		if (how == Delivered) != (err == nil) {
			t.Errorf("%v with %v", how, err)
		}
		got[ps] = how
	})
	wg.Wait()
	want := map[*Remote]Pushed{now: Delivered, later: Delivered, refusing: Refused, gone: Unreached}
	for ps, w := range want {
		if got[ps] != w {
			t.Errorf("peer ended %v, want %v", got[ps], w)
		}
	}
	if s.tries[now] != 1 || s.tries[later] != 3 || s.tries[refusing] != 1 || s.tries[gone] != 4 {
		t.Fatalf("tries: %d %d %d %d", s.tries[now], s.tries[later], s.tries[refusing], s.tries[gone])
	}
	if len(s.ids) != built || built != 9 {
		t.Fatalf("%d messages built, %d ids sent: each try is built anew", built, len(s.ids))
	}
}

// A push whose context ends stops trying, and says so.
func TestPushStopsWithItsContext(t *testing.T) {
	gone := &Remote{}
	down := wire.Errorf(wire.ErrPeerUnavailable, "", "cannot reach peer")
	s := &scripted{tries: map[*Remote]int{}, ids: map[string]bool{}, scripts: map[*Remote][]error{gone: {down, down, down, down, down}}}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	Push(ctx, PushConfig{Wait: time.Hour, Go: func(f func()) { go f() }}, s, []*Remote{gone},
		func(*Remote) *wire.Message { return &wire.Message{ID: "x"} },
		func(_ *Remote, how Pushed, err error) {
			if how != Unreached {
				t.Errorf("ended %v", how)
			}
			ended <- err
		})
	cancel()
	if err := <-ended; err != context.Canceled {
		t.Fatalf("ended with %v", err)
	}
}
