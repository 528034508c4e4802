package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
)

func testLiveness(t *testing.T, e *env) {
	ctx := t.Context()
	id := directory.ID{Agent: "a", Org: "acme"}
	if _, err := e.s.Liveness(ctx, id); !errors.Is(err, directory.ErrNotFound) {
		t.Fatalf("Liveness of a stranger: %v, want ErrNotFound", err)
	}
	// Hours start on the hour, and so does the clock.
	t0 := e.clock.Now()
	e.clock.Advance(2 * time.Hour)
	hb := directory.Heartbeat{At: t0.Add(time.Minute), Status: directory.StatusAlive, Load: 0.3, QueueDepth: 7,
		CapabilitiesActive: []string{"x.y", "x.z"}}
	if err := e.s.RecordLiveness(ctx, id, hb); err != nil {
		t.Fatal(err)
	}
	if err := e.s.RecordLiveness(ctx, id, directory.Heartbeat{At: t0.Add(2 * time.Minute), Status: directory.StatusHealthy, Load: 0.4}); err != nil {
		t.Fatal(err)
	}
	// An observation that arrives late counts for uptime but does not
	// replace the latest state.
	if err := e.s.RecordLiveness(ctx, id, directory.Heartbeat{At: t0.Add(30 * time.Second), Status: directory.StatusAlive, Load: 0.9}); err != nil {
		t.Fatal(err)
	}
	l, err := e.s.Liveness(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Status != directory.StatusHealthy || l.Load != 0.4 || l.QueueDepth != 0 || len(l.CapabilitiesActive) != 0 {
		t.Errorf("latest state = %+v", l)
	}
	if !l.FirstSeen.Equal(t0.Add(30*time.Second)) || !l.LastSeen.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("first/last seen = %v / %v", l.FirstSeen, l.LastSeen)
	}
	if l.Uptime30d != 1 || l.ObservedHours != 1 {
		t.Errorf("uptime %v over %d hours, want 1 over 1", l.Uptime30d, l.ObservedHours)
	}
	// Second hour: one up out of four; uptime is the mean of the hours.
	h2 := t0.Add(time.Hour + time.Minute)
	for i, st := range []directory.Status{directory.StatusOffline, directory.StatusUnhealthy, directory.StatusDegraded, directory.StatusOffline} {
		hb := directory.Heartbeat{At: h2.Add(time.Duration(i) * time.Second), Status: st, CapabilitiesActive: []string{"x.y"}}
		if err := e.s.RecordLiveness(ctx, id, hb); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(3 * time.Hour)
	l, err = e.s.Liveness(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Uptime30d != 0.625 || l.ObservedHours != 2 || l.Status != directory.StatusOffline || len(l.CapabilitiesActive) != 1 {
		t.Errorf("after two hours: %+v; want uptime 0.625 over 2 hours, offline", l)
	}
	// A time in the future is taken as now; one beyond the window is refused.
	if err := e.s.RecordLiveness(ctx, id, directory.Heartbeat{At: e.clock.Now().Add(time.Hour), Status: directory.StatusAlive}); err != nil {
		t.Fatal(err)
	}
	if l, _ := e.s.Liveness(ctx, id); !l.LastSeen.Equal(e.clock.Now()) {
		t.Errorf("future observation recorded at %v, want now %v", l.LastSeen, e.clock.Now())
	}
	old := directory.Heartbeat{At: e.clock.Now().Add(-directory.UptimeWindow), Status: directory.StatusAlive}
	if err := e.s.RecordLiveness(ctx, id, old); !errors.Is(err, directory.ErrStale) {
		t.Errorf("observation older than the window: %v, want ErrStale", err)
	}
	for _, bad := range []directory.Heartbeat{
		{Status: "sleepy"},
		{Status: directory.StatusAlive, Load: 1.5},
		{Status: directory.StatusAlive, QueueDepth: -1},
		{Status: directory.StatusAlive, CapabilitiesActive: []string{"no good"}},
	} {
		var fe *directory.FieldError
		if err := e.s.RecordLiveness(ctx, id, bad); !errors.As(err, &fe) {
			t.Errorf("%+v: %v, want a FieldError", bad, err)
		}
	}
	// The specification's spelling of decommissioned is understood.
	st, err := directory.ParseStatus("decomissioned")
	if err != nil || st != directory.StatusDecommissioned {
		t.Errorf("ParseStatus(decomissioned) = %v, %v", st, err)
	}
}

func testUptimePrune(t *testing.T, e *env) {
	ctx := t.Context()
	a := directory.ID{Agent: "a", Org: "acme"}
	once := directory.ID{Agent: "once", Org: "acme"}
	day := 24 * time.Hour
	for _, id := range []directory.ID{a, once} {
		x := e.entry(id.Agent, id.Org, "x.y")
		x.ExpiresAt = e.clock.Now().Add(90 * day)
		e.put(x)
	}
	record(t, e.s, a.Agent, a.Org, directory.StatusOffline, e.clock.Now())
	record(t, e.s, once.Agent, once.Org, directory.StatusAlive, e.clock.Now())
	for d := 1; d <= 30; d++ {
		e.clock.Advance(day)
		record(t, e.s, a.Agent, a.Org, directory.StatusAlive, e.clock.Now())
	}
	// Before the sweep, day 0's down hour is still counted.
	l, _ := e.s.Liveness(ctx, a)
	if want := 30.0 / 31; l.ObservedHours != 31 || l.Uptime30d < want-1e-6 || l.Uptime30d > want+1e-6 {
		t.Errorf("before the sweep: %v over %d hours, want %v over 31", l.Uptime30d, l.ObservedHours, want)
	}
	if p := e.search(directory.Query{Capability: "x.y", MinUptime: 0.99}); !sameStrings(ids(p), []string{"once@acme"}) {
		t.Errorf("before the sweep min_uptime 0.99 finds %v, want once (1 of 1) and not a (30 of 31)", ids(p))
	}
	e.clock.Advance(time.Hour)
	sw, err := e.s.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sw.LivenessRecords != 2 || sw.LivenessAgents != 1 {
		t.Errorf("Sweep = %+v; want 2 hourly records and 1 agent", sw)
	}
	l, err = e.s.Liveness(ctx, a)
	if err != nil || l.Uptime30d != 1 || l.ObservedHours != 30 {
		t.Errorf("after the sweep: %+v, %v; want uptime 1 over 30 hours", l, err)
	}
	if _, err := e.s.Liveness(ctx, once); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("agent unseen for 30 days: %v, want ErrNotFound", err)
	}
	// Search follows: a now qualifies, once is back to never observed.
	if p := e.search(directory.Query{Capability: "x.y", MinUptime: 0.99}); !sameStrings(ids(p), []string{"a@acme"}) {
		t.Errorf("after the sweep min_uptime 0.99 finds %v", ids(p))
	}
	p := e.search(directory.Query{Capability: "x.y", Sort: directory.SortUptime})
	if !sameStrings(ids(p), []string{"a@acme", "once@acme"}) || p.Results[1].Liveness != nil {
		t.Errorf("after the sweep by uptime: %v", ids(p))
	}
	// Pruning goes in batches; make more than one batch's worth.
	var wg sync.WaitGroup
	const n = 1100
	errs := make(chan error, n)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				err := e.s.RecordLiveness(ctx, directory.ID{Agent: fmt.Sprint("bulk", i), Org: "acme"},
					directory.Heartbeat{Status: directory.StatusAlive})
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	e.clock.Advance(directory.UptimeWindow + time.Hour)
	sw, err = e.s.Sweep(ctx)
	if err != nil || sw.LivenessRecords != n+30 || sw.LivenessAgents != n+1 {
		t.Errorf("bulk Sweep = %+v, %v; want %d records, %d agents", sw, err, n+30, n+1)
	}
}
