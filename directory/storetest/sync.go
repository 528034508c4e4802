package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
)

func testChanges(t *testing.T, e *env) {
	ctx := t.Context()
	t0 := e.clock.Now()
	for _, a := range []string{"a", "b", "c"} {
		e.put(e.entry(a, "acme", "x.y"))
		e.clock.Advance(time.Second)
	}
	names := func(p directory.ChangePage) []string {
		var out []string
		for _, x := range p.Entries {
			out = append(out, x.AgentID)
		}
		return out
	}
	p, err := e.s.Changes(ctx, &directory.ChangesQuery{Since: t0.Add(time.Second)})
	if err != nil || !sameStrings(names(p), []string{"b", "c"}) || p.Next != "" {
		t.Fatalf("since t0+1s: %v next %q, %v", names(p), p.Next, err)
	}
	if !bytes.HasPrefix(p.Entries[0].Registration, []byte(`{"op":"register"`)) {
		t.Errorf("changes lack the registration bytes: %q", p.Entries[0].Registration)
	}
	// Page by page, oldest first.
	var walked []string
	q := directory.ChangesQuery{Limit: 1}
	for i := 0; ; i++ {
		p, err := e.s.Changes(ctx, &q)
		if err != nil {
			t.Fatal(err)
		}
		walked = append(walked, names(p)...)
		if p.Next == "" {
			break
		}
		q.Cursor = p.Next
		if i > 5 {
			t.Fatal("Changes pagination does not end")
		}
	}
	if !sameStrings(walked, []string{"a", "b", "c"}) {
		t.Errorf("paged changes: %v", walked)
	}
	// Pages bounded in bytes: an entry past the bound waits for the next
	// page, unless it is the first.
	walked = nil
	one := len(p.Entries[0].Registration)
	q = directory.ChangesQuery{MaxBytes: 2*one - 1}
	for i := 0; ; i++ {
		p, err := e.s.Changes(ctx, &q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) != 1 {
			t.Fatalf("a page of %d entries within %d bytes", len(p.Entries), q.MaxBytes)
		}
		walked = append(walked, names(p)...)
		if p.Next == "" {
			break
		}
		q.Cursor = p.Next
		if i > 5 {
			t.Fatal("Changes pagination does not end")
		}
	}
	if !sameStrings(walked, []string{"a", "b", "c"}) {
		t.Errorf("changes paged by bytes: %v", walked)
	}
	if p, err := e.s.Changes(ctx, &directory.ChangesQuery{MaxBytes: 3 * one}); err != nil || len(p.Entries) != 3 || p.Next != "" {
		t.Errorf("changes within the bound: %v next %q, %v", names(p), p.Next, err)
	}
	// A renewal and a removal are changes too.
	if _, err := e.s.Renew(ctx, directory.ID{Agent: "a", Org: "acme"}, "", e.clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	if err := e.s.Delete(ctx, directory.ID{Agent: "b", Org: "acme"}, directory.Deletion{SignedAt: e.clock.Now(), Signed: []byte("bye")}); err != nil {
		t.Fatal(err)
	}
	since := t0.Add(3 * time.Second)
	p, err = e.s.Changes(ctx, &directory.ChangesQuery{Since: since})
	if err != nil || !sameStrings(names(p), []string{"a"}) {
		t.Errorf("changes without removed: %v, %v", names(p), err)
	}
	p, err = e.s.Changes(ctx, &directory.ChangesQuery{Since: since, IncludeRemoved: true})
	if err != nil || !sameStrings(names(p), []string{"a", "b"}) || !p.Entries[1].Removed {
		t.Errorf("changes with removed: %v, %v", names(p), err)
	}
}

// testSyncTombstone applies remote writes as registry sync does: with
// Put, in whatever order they arrive.
func testSyncTombstone(t *testing.T, e *env) {
	ctx := t.Context()
	t0 := e.clock.Now()
	reg := e.entry("a", "acme", "x.y")
	removal := &directory.Entry{
		AgentID: "a", Org: "acme", PublicKey: reg.PublicKey, Visibility: directory.Public,
		SignedAt: t0.Add(time.Minute), Removed: true, Registration: []byte("removal"),
		ExpiresAt: reg.ExpiresAt,
	}
	// The removal arrives before the registration it removes.
	if _, err := e.s.Put(ctx, removal, directory.PutOptions{}); err != nil {
		t.Fatalf("Put tombstone: %v", err)
	}
	if _, err := e.s.Get(ctx, reg.ID(), local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("Get of a tombstone: %v", err)
	}
	if _, err := e.s.Put(ctx, reg, directory.PutOptions{}); !errors.Is(err, directory.ErrStale) {
		t.Errorf("older registration after its removal: %v, want ErrStale", err)
	}
	later := e.entry("a", "acme", "x.y")
	later.SignedAt = t0.Add(2 * time.Minute)
	if _, err := e.s.Put(ctx, later, directory.PutOptions{}); err != nil {
		t.Fatalf("newer registration after the removal: %v", err)
	}
	// A renewal travels as the same registration with a later expiry; an
	// older copy of it does not undo the renewal.
	renewed := *later
	renewed.ExpiresAt = later.ExpiresAt.Add(time.Hour)
	if _, err := e.s.Put(ctx, &renewed, directory.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Put(ctx, later, directory.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	g, err := e.s.Get(ctx, later.ID(), local)
	if err != nil || !g.ExpiresAt.Equal(renewed.ExpiresAt) {
		t.Errorf("expiry after an older copy: %v, %v; want %v", g.ExpiresAt, err, renewed.ExpiresAt)
	}
	// A remote removal under another key is a conflict like any other.
	bad := *removal
	bad.SignedAt = t0.Add(3 * time.Minute)
	bad.PublicKey = Key("ed25519:", "intruder")
	if _, err := e.s.Put(ctx, &bad, directory.PutOptions{}); !errors.Is(err, directory.ErrConflict) {
		t.Errorf("removal under another key: %v, want ErrConflict", err)
	}
}

func testConcurrent(t *testing.T, e *env) {
	ctx := t.Context()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*3)
	contested := make(chan error, workers)
	shared := directory.ID{Agent: "shared", Org: "acme"}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := e.entry("contested", "acme", "x.c")
			x.PublicKey = Key("ed25519:", fmt.Sprint("contender", w))
			x.Registration = fmt.Appendf(nil, "contender %d", w)
			_, err := e.s.Put(ctx, x, directory.PutOptions{})
			contested <- err
			for i := range each {
				x := e.entry(fmt.Sprintf("w%d-%d", w, i), "acme", "x.y", fmt.Sprintf("x.w%d", w))
				if _, err := e.s.Put(ctx, x, directory.PutOptions{}); err != nil {
					errs <- err
				}
				s := e.entry("shared", "acme", "x.s")
				s.SignedAt = s.SignedAt.Add(time.Duration(w*each+i) * time.Millisecond)
				if _, err := e.s.Put(ctx, s, directory.PutOptions{}); err != nil && !errors.Is(err, directory.ErrStale) {
					errs <- err
				}
				st := directory.StatusHealthy
				if i%5 == 0 {
					st = directory.StatusOffline
				}
				if err := e.s.RecordLiveness(ctx, shared, directory.Heartbeat{Status: st}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(contested)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}
	won := 0
	for err := range contested {
		switch {
		case err == nil:
			won++
		case errors.Is(err, directory.ErrConflict), errors.Is(err, directory.ErrStale):
		default:
			t.Errorf("contested Put: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d contenders registered the same agent under different keys, want 1", won)
	}
	if p := e.search(directory.Query{Capability: "x.y"}); p.Total != workers*each {
		t.Errorf("found %d entries, want %d", p.Total, workers*each)
	}
	g, err := e.s.Get(ctx, shared, local)
	if err != nil {
		t.Fatal(err)
	}
	if want := e.clock.Now().Add((workers*each - 1) * time.Millisecond); !g.SignedAt.Equal(want) {
		t.Errorf("shared entry holds the write signed at %v, want the newest %v", g.SignedAt, want)
	}
	l, err := e.s.Liveness(ctx, shared)
	if err != nil {
		t.Fatal(err)
	}
	// Each worker recorded 25 observations, 5 of them offline.
	if l.Uptime30d != 0.8 || l.ObservedHours != 1 {
		t.Errorf("uptime after concurrent records = %v over %d hours, want 0.8 over 1", l.Uptime30d, l.ObservedHours)
	}
}

func testTwoHandles(t *testing.T, e *env) {
	ctx := t.Context()
	s1, s2 := e.s, e.openStore()
	x := e.entry("replicated", "acme", "x.y")
	if _, err := s1.Put(ctx, x, directory.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := s2.Search(ctx, &directory.Query{Capability: "x.y"})
	if err != nil || !sameStrings(ids(p), []string{"replicated@acme"}) {
		t.Fatalf("registration through one store, search through the other: %v, %v", ids(p), err)
	}
	if err := s2.RecordLiveness(ctx, x.ID(), directory.Heartbeat{Status: directory.StatusAlive}); err != nil {
		t.Fatal(err)
	}
	if l, err := s1.Liveness(ctx, x.ID()); err != nil || l.Status != directory.StatusAlive {
		t.Errorf("liveness through the other store: %+v, %v", l, err)
	}
	// Both write at once.
	var wg sync.WaitGroup
	for i, s := range []directory.Store{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 30 {
				y := e.entry(fmt.Sprintf("h%d-%d", i, j), "acme", "x.y")
				if _, err := s.Put(ctx, y, directory.PutOptions{}); err != nil {
					t.Errorf("store %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	for i, s := range []directory.Store{s1, s2} {
		p, err := s.Search(ctx, &directory.Query{Capability: "x.y"})
		if err != nil || p.Total != 61 {
			t.Errorf("store %d sees %d entries, %v; want 61", i, p.Total, err)
		}
	}
	e.clock.Advance(time.Second)
	if err := s2.Delete(ctx, x.ID(), directory.Deletion{SignedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.Get(ctx, x.ID(), local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("removal through the other store: %v", err)
	}
}
