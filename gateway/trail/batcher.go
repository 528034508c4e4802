package trail

import (
	"context"
	"sync"
	"time"

	"github.com/moltgate/moltgate/handshake"
)

// batcher gathers one side's receipts by peer organisation, and has each
// batch signed once it holds max, or window after its first.
type batcher struct {
	window time.Duration
	max    int
	goFn   func(func())
	base   context.Context
	flush  func(*batch)

	mu   sync.Mutex
	open map[string]*batch
}

// batch is the receipts of one peer waiting to be signed.
type batch struct {
	ps    Peer
	sess  *handshake.Session // the session of the last exchange, or nil
	items []*held
}

// add puts h in the batch of org; the first of a batch starts its timer.
func (q *batcher) add(org string, h *held) {
	q.mu.Lock()
	b := q.open[org]
	if b == nil || b.ps != h.ps {
		if b != nil {
			// The peer was imported again: what was gathered goes to
			// the one it was for.
			old := b
			q.goFn(func() { q.flush(old) })
		}
		b = &batch{ps: h.ps}
		q.open[org] = b
		q.goFn(func() {
			t := time.NewTimer(q.window)
			defer t.Stop()
			select {
			case <-t.C:
			case <-q.base.Done():
			}
			q.flushIfOpen(org, b)
		})
	}
	if h.sess != nil {
		b.sess = h.sess
	}
	b.items = append(b.items, h)
	full := len(b.items) >= q.max
	if full {
		delete(q.open, org)
	}
	q.mu.Unlock()
	if full {
		q.goFn(func() { q.flush(b) })
	}
}

// flushIfOpen signs b if it is still the batch gathering for org.
func (q *batcher) flushIfOpen(org string, b *batch) {
	q.mu.Lock()
	cur := q.open[org] == b
	if cur {
		delete(q.open, org)
	}
	q.mu.Unlock()
	if cur {
		q.flush(b)
	}
}
