package classify

import (
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Counts counts blocked messages by reason and direction with atomic counters. The gateway's
// metrics collector reads it with Each on every scrape.
type Counts struct {
	n [numReasons + 1][3]atomic.Uint64
}

// Blocked implements Counter.
func (c *Counts) Blocked(r Reason, d Direction) {
	if r > 0 && int(r) <= numReasons && d <= Inbound {
		c.n[r][d].Add(1)
	}
}

// Get returns how many messages were blocked for r in direction d.
func (c *Counts) Get(r Reason, d Direction) uint64 {
	if r == 0 || int(r) > numReasons || d > Inbound {
		return 0
	}
	return c.n[r][d].Load()
}

// Each calls fn for every reason and direction, zero counts included, so that a metrics
// exporter shows every series from the start.
func (c *Counts) Each(fn func(r Reason, d Direction, n uint64)) {
	for _, r := range Reasons() {
		for _, d := range []Direction{Outbound, Inbound} {
			fn(r, d, c.n[r][d].Load())
		}
	}
}

// memGrants is the in-memory Grants: a bounded LRU. Entries past their consent's expiry are
// ignored by the gate and pushed out by newer ones.
type memGrants struct {
	c *lru.Cache[string, Grant]
}

// NewGrants returns an in-memory Grants that holds the grants of at most size requests.
func NewGrants(size int) Grants {
	c, err := lru.New[string, Grant](max(size, 1))
	if err != nil {
		panic(err) // only for a size below 1
	}
	return memGrants{c: c}
}

func (m memGrants) Remember(id string, g Grant) { m.c.Add(id, g) }

func (m memGrants) Lookup(id string) (Grant, bool) { return m.c.Get(id) }
