package replay

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Defaults of MemoryConfig.
const (
	DefaultMaxEntries      = 1 << 18
	DefaultMaxPerNamespace = 1 << 14
)

// MemoryConfig configures a Memory. The zero value is usable.
type MemoryConfig struct {
	// MaxEntries bounds the keys held at once, about 150 bytes each.
	// Default 262144 (under 40 MiB when full).
	MaxEntries int
	// MaxPerNamespace bounds the keys of one namespace, that is the ids
	// remembered for one sender, so that one sender cannot fill the store.
	// Default 16384: over 27 messages a second, every second, for the
	// whole 10-minute window.
	MaxPerNamespace int
	// Now is the clock that expires keys. Default time.Now.
	Now func() time.Time
}

// Memory is a Storage held in this process's memory. Expired keys are
// dropped as new ones arrive, oldest first, at O(log n) each. It is safe for
// concurrent use.
type Memory struct {
	now        func() time.Time
	max, maxNS int

	mu    sync.Mutex
	keys  map[memKey]int64 // expiry in unix nanoseconds
	perNS map[string]nsState
	queue expiryHeap
}

type memKey struct{ ns, key string }

// nsState counts a namespace's keys and holds the one copy of its name that
// every key of the namespace shares.
type nsState struct {
	name string
	n    int
}

// NewMemory makes an empty Memory.
func NewMemory(cfg MemoryConfig) *Memory {
	m := &Memory{now: cfg.Now, max: cfg.MaxEntries, maxNS: cfg.MaxPerNamespace,
		keys: map[memKey]int64{}, perNS: map[string]nsState{}}
	if m.now == nil {
		m.now = time.Now
	}
	if m.max <= 0 {
		m.max = DefaultMaxEntries
	}
	if m.maxNS <= 0 {
		m.maxNS = DefaultMaxPerNamespace
	}
	return m
}

// Insert implements Storage.
func (m *Memory) Insert(_ context.Context, ns, key string, expires time.Time) (bool, error) {
	now, exp := m.now().UnixNano(), expires.UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.purge(now)
	st, known := m.perNS[ns]
	if known {
		if e, found := m.keys[memKey{st.name, key}]; found && e > now {
			return false, nil
		}
	}
	if exp <= now {
		return true, nil // nothing to remember
	}
	if len(m.keys) >= m.max || st.n >= m.maxNS {
		return false, ErrFull
	}
	if !known {
		st.name = strings.Clone(ns)
	}
	st.n++
	m.perNS[st.name] = st
	k := memKey{st.name, strings.Clone(key)}
	m.keys[k] = exp
	m.queue.push(expiry{exp, k})
	if len(m.queue) > 2*m.max {
		m.compact()
	}
	return true, nil
}

// Take implements Storage.
func (m *Memory) Take(_ context.Context, ns, key string) (bool, error) {
	now := m.now().UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.perNS[ns]
	if !ok {
		return false, nil
	}
	k := memKey{st.name, key}
	e, ok := m.keys[k]
	if !ok {
		return false, nil
	}
	m.remove(k)
	return e > now, nil
}

// Len reports how many keys are held, expired ones not yet dropped
// included.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}

func (m *Memory) remove(k memKey) {
	delete(m.keys, k)
	st := m.perNS[k.ns]
	if st.n--; st.n <= 0 {
		delete(m.perNS, k.ns)
	} else {
		m.perNS[k.ns] = st
	}
}

// purge drops every key that has expired by now. A queue entry whose key
// was taken, or taken and inserted again with another expiry, is skipped.
func (m *Memory) purge(now int64) {
	for len(m.queue) > 0 && m.queue[0].at <= now {
		e := m.queue.pop()
		if cur, ok := m.keys[e.k]; ok && cur == e.at {
			m.remove(e.k)
		}
	}
}

// compact rebuilds the queue from the keys, dropping the entries of keys
// that were taken early.
func (m *Memory) compact() {
	q := make(expiryHeap, 0, len(m.keys))
	for k, at := range m.keys {
		q.push(expiry{at, k})
	}
	m.queue = q
}

type expiry struct {
	at int64
	k  memKey
}

// expiryHeap is a min-heap on at.
type expiryHeap []expiry

func (h *expiryHeap) push(e expiry) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p].at <= q[i].at {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
}

func (h *expiryHeap) pop() expiry {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = expiry{}
	q = q[:last]
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < len(q) && q[l].at < q[min].at {
			min = l
		}
		if r < len(q) && q[r].at < q[min].at {
			min = r
		}
		if min == i {
			break
		}
		q[i], q[min] = q[min], q[i]
		i = min
	}
	*h = q
	return top
}
