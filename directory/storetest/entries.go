package storetest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
)

var local = directory.Viewer{Local: true}

func testPutGet(t *testing.T, e *env) {
	ctx := t.Context()
	in := e.entry("calendar-bot", "acme", "calendar.schedule", "calendar.check")
	in.Endpoint.WebSocket = "wss://acme.example/moltspeak/stream"
	in.EncryptionKey = Key("x25519:", "calendar-bot@acme")
	in.Metadata = []byte(`{"version": "2.1.0", "languages": ["en","de"], "max_attendees": 100}`)
	in.Tags = []string{"scheduling", "meetings"}
	in.AllowedOrgs = []string{"globex", "initech"}
	in.Verified = true
	in.Registration = []byte{0, 1, 2, 0xff, '{', '}'}

	put := e.put(in)
	now := e.clock.Now()
	if !put.RegisteredAt.Equal(now) || !put.UpdatedAt.Equal(now) {
		t.Errorf("Put times = %v, %v; want both %v", put.RegisteredAt, put.UpdatedAt, now)
	}
	got, err := e.s.Get(ctx, in.ID(), local)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := *in
	want.RegisteredAt, want.UpdatedAt = now, now
	if !entriesEqual(got, want) {
		t.Errorf("Get = %+v\nwant %+v", got, want)
	}
	if !entriesEqual(put, want) {
		t.Errorf("Put returned %+v\nwant %+v", put, want)
	}
	if _, err := e.s.Get(ctx, directory.ID{Agent: "calendar-bot", Org: "other"}, local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("Get of another org's agent: %v, want ErrNotFound", err)
	}
	if _, err := e.s.Get(ctx, directory.ID{Agent: "nobody", Org: "acme"}, local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("Get of unknown agent: %v, want ErrNotFound", err)
	}
}

// entriesEqual compares entries with times to the millisecond.
func entriesEqual(a, b directory.Entry) bool {
	for _, p := range [][2]*time.Time{{&a.RegisteredAt, &b.RegisteredAt}, {&a.UpdatedAt, &b.UpdatedAt},
		{&a.ExpiresAt, &b.ExpiresAt}, {&a.SignedAt, &b.SignedAt}} {
		if p[0].UnixMilli() != p[1].UnixMilli() || p[0].IsZero() != p[1].IsZero() {
			return false
		}
		*p[0], *p[1] = time.Time{}, time.Time{}
	}
	if !bytes.Equal(a.Metadata, b.Metadata) || !bytes.Equal(a.Registration, b.Registration) {
		return false
	}
	a.Metadata, b.Metadata, a.Registration, b.Registration = nil, nil, nil, nil
	norm := func(e *directory.Entry) {
		for _, l := range []*[]string{&e.Capabilities, &e.Tags, &e.AllowedOrgs} {
			if len(*l) == 0 {
				*l = nil
			}
		}
	}
	norm(&a)
	norm(&b)
	return reflect.DeepEqual(a, b)
}

func testUpdateKeepsRegisteredAt(t *testing.T, e *env) {
	ctx := t.Context()
	first := e.put(e.entry("a", "acme", "x.y"))
	e.clock.Advance(time.Minute)
	upd := e.entry("a", "acme", "x.z")
	upd.Name = "renamed"
	got := e.put(upd)
	if !got.RegisteredAt.Equal(first.RegisteredAt) {
		t.Errorf("RegisteredAt moved on update: %v, want %v", got.RegisteredAt, first.RegisteredAt)
	}
	if !got.UpdatedAt.Equal(e.clock.Now()) {
		t.Errorf("UpdatedAt = %v, want %v", got.UpdatedAt, e.clock.Now())
	}
	g, err := e.s.Get(ctx, upd.ID(), local)
	if err != nil || g.Name != "renamed" || !sameStrings(g.Capabilities, []string{"x.z"}) {
		t.Fatalf("Get after update = %+v, %v", g, err)
	}
	// The capability index follows the update.
	if p := e.search(directory.Query{Capability: "x.y"}); len(p.Results) != 0 {
		t.Errorf("old capability still found: %v", ids(p))
	}
	if p := e.search(directory.Query{Capability: "x.z"}); !sameStrings(ids(p), []string{"a@acme"}) {
		t.Errorf("new capability: %v", ids(p))
	}
}

func testKeyConflict(t *testing.T, e *env) {
	ctx := t.Context()
	orig := e.put(e.entry("a", "acme", "x.y"))
	e.clock.Advance(time.Second)

	hijack := e.entry("a", "acme", "x.y")
	hijack.PublicKey = Key("ed25519:", "attacker")
	if _, err := e.s.Put(ctx, hijack, directory.PutOptions{}); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("Put with another key: %v, want ErrConflict", err)
	}
	// A rotation from the wrong key is refused too.
	if _, err := e.s.Put(ctx, hijack, directory.PutOptions{RotateFrom: Key("ed25519:", "someone")}); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("rotation from a key that is not the stored one: %v, want ErrConflict", err)
	}
	// The same agent in another org is another entry.
	other := e.entry("a", "globex", "x.y")
	e.put(other)

	rotated := e.entry("a", "acme", "x.y")
	rotated.PublicKey = Key("ed25519:", "a@acme-2")
	got, err := e.s.Put(ctx, rotated, directory.PutOptions{RotateFrom: orig.PublicKey})
	if err != nil {
		t.Fatalf("authorised rotation: %v", err)
	}
	if got.PublicKey != rotated.PublicKey || !got.RegisteredAt.Equal(orig.RegisteredAt) {
		t.Errorf("after rotation: key %s registered %v", got.PublicKey, got.RegisteredAt)
	}
	// The old key is now the wrong one.
	e.clock.Advance(time.Second)
	back := e.entry("a", "acme", "x.y")
	if _, err := e.s.Put(ctx, back, directory.PutOptions{}); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("Put with the key rotated away: %v, want ErrConflict", err)
	}
	// Once the entry has expired the id is free again.
	e.clock.Advance(2 * time.Hour)
	fresh := e.entry("a", "acme", "x.y")
	fresh.PublicKey = Key("ed25519:", "newcomer")
	got, err = e.s.Put(ctx, fresh, directory.PutOptions{})
	if err != nil {
		t.Fatalf("Put over an expired entry with a new key: %v", err)
	}
	if !got.RegisteredAt.Equal(e.clock.Now()) {
		t.Errorf("a new registration after expiry kept RegisteredAt %v", got.RegisteredAt)
	}
}

func testStale(t *testing.T, e *env) {
	ctx := t.Context()
	newer := e.entry("a", "acme", "x.y")
	newer.SignedAt = e.clock.Now()
	e.put(newer)

	old := e.entry("a", "acme", "x.old")
	old.SignedAt = e.clock.Now().Add(-time.Second)
	if _, err := e.s.Put(ctx, old, directory.PutOptions{}); !errors.Is(err, directory.ErrStale) {
		t.Fatalf("older write: %v, want ErrStale", err)
	}
	// The same write again is accepted (idempotent).
	if _, err := e.s.Put(ctx, newer, directory.PutOptions{}); err != nil {
		t.Fatalf("same write again: %v", err)
	}
	// Same timestamp: the greater bytes win, whatever the order.
	lo := e.entry("b", "acme", "x.lo")
	hi := e.entry("b", "acme", "x.hi")
	lo.Registration = []byte("aaa")
	hi.Registration = []byte("bbb")
	e.put(hi)
	if _, err := e.s.Put(ctx, lo, directory.PutOptions{}); !errors.Is(err, directory.ErrStale) {
		t.Fatalf("same time, smaller bytes: %v, want ErrStale", err)
	}
	lo2 := e.entry("c", "acme", "x.lo")
	lo2.Registration = []byte("aaa")
	hi2 := e.entry("c", "acme", "x.hi")
	hi2.Registration = []byte("bbb")
	e.put(lo2)
	e.put(hi2)
	g, err := e.s.Get(ctx, hi2.ID(), local)
	if err != nil || g.Capabilities[0] != "x.hi" {
		t.Fatalf("tie-break: got %+v, %v", g.Capabilities, err)
	}
}

func testUpdateOption(t *testing.T, e *env) {
	ctx := t.Context()
	upd := directory.PutOptions{Update: true}
	if _, err := e.s.Put(ctx, e.entry("a", "acme", "x.y"), upd); !errors.Is(err, directory.ErrNotFound) {
		t.Fatalf("update of nothing: %v, want ErrNotFound", err)
	}
	e.put(e.entry("a", "acme", "x.y"))
	e.clock.Advance(time.Second)
	if _, err := e.s.Put(ctx, e.entry("a", "acme", "x.z"), upd); err != nil {
		t.Fatalf("update: %v", err)
	}
	e.clock.Advance(2 * time.Hour)
	if _, err := e.s.Put(ctx, e.entry("a", "acme", "x.z"), upd); !errors.Is(err, directory.ErrExpired) {
		t.Fatalf("update of an expired entry: %v, want ErrExpired", err)
	}
}

func testValidation(t *testing.T, e *env) {
	ctx := t.Context()
	cases := []struct {
		field string
		edit  func(*directory.Entry)
	}{
		{"agent_id", func(x *directory.Entry) { x.AgentID = "bad id" }},
		{"org", func(x *directory.Entry) { x.Org = "" }},
		{"endpoint.url", func(x *directory.Entry) { x.Endpoint.URL = "" }},
		{"endpoint.url", func(x *directory.Entry) { x.Endpoint.URL = "ftp://x.example/" }},
		{"endpoint.url", func(x *directory.Entry) { x.Endpoint.URL = "https://user:pw@x.example/" }},
		{"endpoint.websocket", func(x *directory.Entry) { x.Endpoint.WebSocket = "https://x.example/" }},
		{"endpoint.transport", func(x *directory.Entry) { x.Endpoint.Transport = "carrier-pigeon" }},
		{"public_key", func(x *directory.Entry) { x.PublicKey = "ed25519:abc" }},
		{"public_key", func(x *directory.Entry) { x.PublicKey = Key("x25519:", "k") }},
		{"encryption_key", func(x *directory.Entry) { x.EncryptionKey = Key("ed25519:", "k") }},
		{"encryption_key", func(x *directory.Entry) { x.EncryptionKey = "x25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" }}, // low order
		{"capabilities", func(x *directory.Entry) { x.Capabilities = nil }},
		{"capabilities[1]", func(x *directory.Entry) { x.Capabilities = []string{"a.b", "a..b"} }},
		{"capabilities[1]", func(x *directory.Entry) { x.Capabilities = []string{"a.b", "a.b"} }},
		{"capabilities[0]", func(x *directory.Entry) { x.Capabilities = []string{"registry.sync"} }},
		{"metadata", func(x *directory.Entry) { x.Metadata = []byte(`[1,2]`) }},
		{"metadata", func(x *directory.Entry) { x.Metadata = []byte(`{"a":1,"a":2}`) }},
		{"metadata", func(x *directory.Entry) { x.Metadata = []byte(`{"a":`) }},
		{"visibility", func(x *directory.Entry) { x.Visibility = "secret" }},
		{"allowed_orgs[0]", func(x *directory.Entry) { x.AllowedOrgs = []string{"no way"} }},
		{"tags[1]", func(x *directory.Entry) { x.Tags = []string{"a", "a"} }},
		{"name", func(x *directory.Entry) { x.Name = "bell\a" }},
		{"expires_at", func(x *directory.Entry) { x.ExpiresAt = time.Time{} }},
		{"signed_at", func(x *directory.Entry) { x.SignedAt = time.Time{} }},
	}
	for _, c := range cases {
		x := e.entry("v", "acme", "x.y")
		c.edit(x)
		_, err := e.s.Put(ctx, x, directory.PutOptions{})
		var fe *directory.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: Put error %v, want a FieldError on %s", c.field, err, c.field)
		}
	}
	if _, err := e.s.Get(ctx, directory.ID{Agent: "v", Org: "acme"}, local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("an invalid entry was stored: %v", err)
	}
}

func testDelete(t *testing.T, e *env) {
	ctx := t.Context()
	in := e.entry("a", "acme", "x.y")
	in.AllowedOrgs = []string{"globex"}
	e.put(in)
	id := in.ID()
	e.clock.Advance(time.Second)

	del := directory.Deletion{Key: in.PublicKey, SignedAt: e.clock.Now(), Signed: []byte(`{"action":"delete"}`)}
	if err := e.s.Delete(ctx, id, directory.Deletion{Key: Key("ed25519:", "other"), SignedAt: del.SignedAt}); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("Delete with another key: %v, want ErrConflict", err)
	}
	if err := e.s.Delete(ctx, id, directory.Deletion{SignedAt: in.SignedAt.Add(-time.Second)}); !errors.Is(err, directory.ErrStale) {
		t.Fatalf("Delete older than the registration: %v, want ErrStale", err)
	}
	if err := e.s.Delete(ctx, id, del); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := e.s.Get(ctx, id, local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := e.s.Delete(ctx, id, del); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("Delete twice: %v, want ErrNotFound", err)
	}
	if err := e.s.Delete(ctx, directory.ID{Agent: "nobody", Org: "acme"}, del); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("Delete of unknown: %v, want ErrNotFound", err)
	}
	if p := e.search(directory.Query{Capability: "x.y", Viewer: local}); len(p.Results) != 0 {
		t.Errorf("search finds a removed entry: %v", ids(p))
	}
	// The tombstone is what sync sees.
	ch, err := e.s.Changes(ctx, &directory.ChangesQuery{IncludeRemoved: true, Viewer: directory.Viewer{Org: "globex"}})
	if err != nil || len(ch.Entries) != 1 {
		t.Fatalf("Changes: %+v, %v", ch, err)
	}
	ts := ch.Entries[0]
	if !ts.Removed || ts.PublicKey != in.PublicKey || !bytes.Equal(ts.Registration, del.Signed) ||
		ts.SignedAt.UnixMilli() != del.SignedAt.UnixMilli() || len(ts.Capabilities) != 0 ||
		!sameStrings(ts.AllowedOrgs, []string{"globex"}) {
		t.Errorf("tombstone = %+v", ts)
	}
	// Re-registering needs a newer signature than the removal.
	old := e.entry("a", "acme", "x.y")
	old.SignedAt = del.SignedAt.Add(-time.Millisecond)
	if _, err := e.s.Put(ctx, old, directory.PutOptions{}); !errors.Is(err, directory.ErrStale) {
		t.Errorf("registration older than the removal: %v, want ErrStale", err)
	}
	e.clock.Advance(time.Second)
	again := e.put(e.entry("a", "acme", "x.y"))
	if !again.RegisteredAt.Equal(e.clock.Now()) {
		t.Errorf("re-registration RegisteredAt = %v, want now", again.RegisteredAt)
	}
	if p := e.search(directory.Query{Capability: "x.y"}); len(p.Results) != 1 {
		t.Errorf("re-registered entry not found: %v", ids(p))
	}
}

func testRenew(t *testing.T, e *env) {
	ctx := t.Context()
	in := e.put(e.entry("a", "acme", "x.y"))
	id := in.ID()
	e.clock.Advance(30 * time.Minute)
	until := e.clock.Now().Add(2 * time.Hour)
	if _, err := e.s.Renew(ctx, id, Key("ed25519:", "other"), until); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("Renew with another key: %v, want ErrConflict", err)
	}
	got, err := e.s.Renew(ctx, id, in.PublicKey, until)
	if err != nil {
		t.Fatalf("Renew: %v", err)
	}
	if !got.ExpiresAt.Equal(until) || !got.UpdatedAt.Equal(e.clock.Now()) {
		t.Errorf("Renew = expires %v updated %v", got.ExpiresAt, got.UpdatedAt)
	}
	e.clock.Advance(time.Hour + 45*time.Minute) // past the original expiry, before the renewed one
	if _, err := e.s.Get(ctx, id, local); err != nil {
		t.Fatalf("Get within the renewed term: %v", err)
	}
	e.clock.Advance(time.Hour)
	if _, err := e.s.Renew(ctx, id, "", e.clock.Now().Add(time.Hour)); !errors.Is(err, directory.ErrExpired) {
		t.Fatalf("Renew after expiry: %v, want ErrExpired", err)
	}
	// Only the entry's key learns that it expired.
	if _, err := e.s.Renew(ctx, id, Key("ed25519:", "other"), e.clock.Now().Add(time.Hour)); !errors.Is(err, directory.ErrConflict) {
		t.Fatalf("Renew of an expired entry with another key: %v, want ErrConflict", err)
	}
	if _, err := e.s.Renew(ctx, directory.ID{Agent: "nobody", Org: "acme"}, "", until); !errors.Is(err, directory.ErrNotFound) {
		t.Fatalf("Renew of unknown: %v, want ErrNotFound", err)
	}
	// After the sweep has taken the expired entry, it is simply unknown.
	e.clock.Advance(directory.DefaultExpiredRetention)
	if _, err := e.s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Renew(ctx, id, "", e.clock.Now().Add(time.Hour)); !errors.Is(err, directory.ErrNotFound) {
		t.Fatalf("Renew after the sweep: %v, want ErrNotFound", err)
	}
}

func testExpiry(t *testing.T, e *env) {
	ctx := t.Context()
	short := e.entry("short", "acme", "x.y")
	short.ExpiresAt = e.clock.Now().Add(10 * time.Minute)
	e.put(short)
	e.put(e.entry("long", "acme", "x.y"))

	visible := func() []string {
		return ids(e.search(directory.Query{Capability: "x.y"}))
	}
	if got := visible(); !sameSet(got, []string{"short@acme", "long@acme"}) {
		t.Fatalf("before expiry: %v", got)
	}
	e.clock.Advance(10 * time.Minute) // expiry is exclusive: at ExpiresAt the entry is gone
	if got := visible(); !sameSet(got, []string{"long@acme"}) {
		t.Errorf("at expiry: search %v", got)
	}
	if _, err := e.s.Get(ctx, short.ID(), local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("Get of expired: %v, want ErrNotFound", err)
	}
	caps, err := e.s.Capabilities(ctx, &directory.CapabilityQuery{})
	if err != nil || len(caps) != 1 || caps[0].Agents != 1 {
		t.Errorf("Capabilities after expiry: %+v, %v", caps, err)
	}
	ch, err := e.s.Changes(ctx, &directory.ChangesQuery{IncludeRemoved: true})
	if err != nil || len(ch.Entries) != 1 || ch.Entries[0].AgentID != "long" {
		t.Errorf("Changes after expiry: %+v, %v", ch.Entries, err)
	}
	e.clock.Advance(time.Hour)
	if got := visible(); len(got) != 0 {
		t.Errorf("after both expired: %v", got)
	}
}

func testSweep(t *testing.T, e *env) {
	ctx := t.Context()
	e.put(e.entry("expiring", "acme", "x.y"))
	keep := e.entry("keeper", "acme", "x.y")
	keep.ExpiresAt = e.clock.Now().Add(365 * 24 * time.Hour)
	e.put(keep)
	gone := e.entry("gone", "acme", "x.y")
	e.put(gone)
	e.clock.Advance(time.Second)
	if err := e.s.Delete(ctx, gone.ID(), directory.Deletion{SignedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	// Expired an hour ago: kept (within ExpiredRetention) for ErrExpired.
	e.clock.Advance(2 * time.Hour)
	sw, err := e.s.Sweep(ctx)
	if err != nil || sw.Expired != 0 || sw.Tombstones != 0 {
		t.Fatalf("early Sweep = %+v, %v", sw, err)
	}
	if _, err := e.s.Renew(ctx, directory.ID{Agent: "expiring", Org: "acme"}, "", e.clock.Now().Add(time.Hour)); !errors.Is(err, directory.ErrExpired) {
		t.Errorf("Renew within retention: %v, want ErrExpired", err)
	}
	e.clock.Advance(directory.DefaultExpiredRetention)
	sw, err = e.s.Sweep(ctx)
	if err != nil || sw.Expired != 1 || sw.Tombstones != 0 {
		t.Fatalf("Sweep after retention = %+v, %v", sw, err)
	}
	// The tombstone lives on for TombstoneRetention after the removal.
	e.clock.Advance(directory.DefaultTombstoneRetention)
	sw, err = e.s.Sweep(ctx)
	if err != nil || sw.Tombstones != 1 {
		t.Fatalf("Sweep after tombstone retention = %+v, %v", sw, err)
	}
	if _, err := e.s.Get(ctx, keep.ID(), local); err != nil {
		t.Errorf("the live entry did not survive the sweeps: %v", err)
	}
	ch, err := e.s.Changes(ctx, &directory.ChangesQuery{IncludeRemoved: true})
	if err != nil || len(ch.Entries) != 1 {
		t.Errorf("after the sweeps Changes = %+v, %v", ch.Entries, err)
	}
	// A tombstone outlives the registration it removed.
	long := e.entry("long", "acme", "x.y")
	long.ExpiresAt = e.clock.Now().Add(30 * 24 * time.Hour)
	e.put(long)
	e.clock.Advance(time.Second)
	if err := e.s.Delete(ctx, long.ID(), directory.Deletion{SignedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(directory.DefaultTombstoneRetention + time.Hour)
	if sw, _ := e.s.Sweep(ctx); sw.Tombstones != 0 {
		t.Errorf("tombstone swept before the removed registration would have expired")
	}
	stale := e.entry("long", "acme", "x.y")
	stale.SignedAt = long.SignedAt
	if _, err := e.s.Put(ctx, stale, directory.PutOptions{}); !errors.Is(err, directory.ErrStale) {
		t.Errorf("replaying the removed registration: %v, want ErrStale", err)
	}
}

func testPing(t *testing.T, e *env) {
	if err := e.s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping on an empty store: %v", err)
	}
	e.put(e.entry("pinged", "acme", "x.y"))
	if err := e.s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping on a store with an entry: %v", err)
	}
}

func testPurgeOrg(t *testing.T, e *env) {
	ctx := t.Context()
	e.put(e.entry("a", "globex", "x.y"))
	gone := e.entry("b", "globex", "x.y")
	e.put(gone)
	e.put(e.entry("a", "acme", "x.y"))
	e.clock.Advance(time.Second)
	if err := e.s.Delete(ctx, gone.ID(), directory.Deletion{SignedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	id := directory.ID{Agent: "a", Org: "globex"}
	if err := e.s.RecordLiveness(ctx, id, directory.Heartbeat{At: e.clock.Now(), Status: directory.StatusAlive}); err != nil {
		t.Fatal(err)
	}
	n, err := e.s.PurgeOrg(ctx, "globex")
	if err != nil || n != 2 {
		t.Fatalf("PurgeOrg = %d, %v; want the live entry and the removal", n, err)
	}
	if _, err := e.s.Get(ctx, id, local); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("purged entry: %v, want ErrNotFound", err)
	}
	if _, err := e.s.Liveness(ctx, id); !errors.Is(err, directory.ErrNotFound) {
		t.Errorf("purged liveness: %v, want ErrNotFound", err)
	}
	if got := ids(e.search(directory.Query{Capability: "x.y", Viewer: local})); !sameStrings(got, []string{"a@acme"}) {
		t.Errorf("search after the purge: %v", got)
	}
	ch, err := e.s.Changes(ctx, &directory.ChangesQuery{IncludeRemoved: true})
	if err != nil || len(ch.Entries) != 1 || ch.Entries[0].Org != "acme" {
		t.Errorf("changes after the purge: %+v, %v", ch.Entries, err)
	}
	// The purged organisation may register again from scratch.
	e.put(e.entry("a", "globex", "x.y"))
	if n, err := e.s.PurgeOrg(ctx, "initech"); err != nil || n != 0 {
		t.Errorf("PurgeOrg of a stranger = %d, %v", n, err)
	}
}
