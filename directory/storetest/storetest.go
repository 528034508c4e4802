// Package storetest is the conformance suite every directory.Store
// backend passes. A backend's tests call Run with a function that makes a
// fresh, empty database and returns a way to open stores on it.
package storetest

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
)

// NewDB makes a fresh, empty database for one test and returns a function
// that opens a store on it. Each call of the returned function opens a new
// handle on the same database (a second gateway replica, say); the suite
// closes the stores it opens.
type NewDB func(t *testing.T) func(o directory.Options) directory.Store

// Run runs the conformance suite.
func Run(t *testing.T, newDB NewDB) {
	tests := []struct {
		name string
		fn   func(*testing.T, *env)
	}{
		{"PutGet", testPutGet},
		{"UpdateKeepsRegisteredAt", testUpdateKeepsRegisteredAt},
		{"KeyConflictAndRotation", testKeyConflict},
		{"StaleWrites", testStale},
		{"UpdateRequiresLiveEntry", testUpdateOption},
		{"Validation", testValidation},
		{"DeleteTombstone", testDelete},
		{"Renew", testRenew},
		{"Expiry", testExpiry},
		{"Sweep", testSweep},
		{"PurgeOrg", testPurgeOrg},
		{"Ping", testPing},
		{"Visibility", testVisibility},
		{"PeerDisclosure", testPeerDisclosure},
		{"SearchCapabilities", testSearchCapabilities},
		{"SearchRequirements", testSearchRequirements},
		{"SearchFilters", testSearchFilters},
		{"SearchSort", testSearchSort},
		{"SearchHealth", testSearchHealth},
		{"Pagination", testPagination},
		{"BadCursor", testBadCursor},
		{"CapabilityList", testCapabilityList},
		{"Changes", testChanges},
		{"SyncTombstone", testSyncTombstone},
		{"Liveness", testLiveness},
		{"UptimePrune", testUptimePrune},
		{"ConcurrentWriters", testConcurrent},
		{"TwoHandles", testTwoHandles},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			open := newDB(t)
			e := &env{t: t, clock: NewClock(), open: open}
			e.s = e.openStore()
			tc.fn(t, e)
		})
	}
}

// env is one test's database, clock and first store.
type env struct {
	t     *testing.T
	clock *Clock
	open  func(directory.Options) directory.Store
	s     directory.Store
}

func (e *env) openStore() directory.Store {
	s := e.open(directory.Options{Now: e.clock.Now})
	e.t.Cleanup(func() { s.Close() })
	return s
}

// Clock is a settable clock for Options.Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at 2025-01-01 00:00 UTC.
func NewClock() *Clock { return &Clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Key returns a well-formed public key text for name, with prefix
// "ed25519:" or "x25519:". The bytes are a hash of name, not a curve
// point: the store checks only the form.
func Key(prefix, name string) string {
	sum := sha256.Sum256([]byte(prefix + name))
	return prefix + base64.StdEncoding.EncodeToString(sum[:])
}

// NewEntry returns a valid public entry for agent@org offering caps,
// registered now for an hour.
func NewEntry(now time.Time, agent, org string, caps ...string) *directory.Entry {
	return &directory.Entry{
		AgentID:      agent,
		Org:          org,
		Name:         agent,
		Description:  "test agent " + agent,
		Endpoint:     directory.Endpoint{URL: "https://" + org + ".example/moltspeak/v0.1", Transport: "https"},
		PublicKey:    Key("ed25519:", agent+"@"+org),
		Capabilities: caps,
		Visibility:   directory.Public,
		ExpiresAt:    now.Add(time.Hour),
		SignedAt:     now,
		Registration: fmt.Appendf(nil, `{"op":"register","from":{"agent":%q,"org":%q},"ts":%d}`, agent, org, now.UnixMilli()),
	}
}

func (e *env) entry(agent, org string, caps ...string) *directory.Entry {
	return NewEntry(e.clock.Now(), agent, org, caps...)
}

func (e *env) put(en *directory.Entry) directory.Entry {
	e.t.Helper()
	got, err := e.s.Put(e.t.Context(), en, directory.PutOptions{})
	if err != nil {
		e.t.Fatalf("Put %s: %v", en.ID(), err)
	}
	return got
}

func (e *env) search(q directory.Query) directory.Page {
	e.t.Helper()
	p, err := e.s.Search(e.t.Context(), &q)
	if err != nil {
		e.t.Fatalf("Search %+v: %v", q, err)
	}
	return p
}

// ids returns "agent@org" of each result, in order.
func ids(p directory.Page) []string {
	out := make([]string, len(p.Results))
	for i, r := range p.Results {
		out[i] = r.Entry.ID().String()
	}
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
