package replay

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Journal keeps the message ids a Durable store accepts, so that they
// outlive the process. Record must be durable when it returns; Load calls
// fn for every record that has not expired.
type Journal interface {
	Record(ctx context.Context, ns, key string, expires time.Time) error
	Load(ctx context.Context, now time.Time, fn func(ns, key string, expires time.Time)) error
}

// Durable is a Storage that answers from a Memory and writes every message
// id it accepts through to a Journal, from which a restarted gateway
// reloads the window. Without it, a signed message accepted just before a
// restart would be accepted again just after, within its ±Skew. Challenges
// are not journaled: a restart ends every handshake under way.
type Durable struct {
	mem *Memory
	j   Journal
}

// NewDurable loads the unexpired ids of j into mem and returns the
// Storage that keeps them both.
func NewDurable(ctx context.Context, mem *Memory, j Journal) (*Durable, error) {
	var full error
	err := j.Load(ctx, mem.now(), func(ns, key string, expires time.Time) {
		if _, err := mem.Insert(ctx, ns, key, expires); err != nil && full == nil {
			full = err
		}
	})
	if err != nil {
		return nil, fmt.Errorf("load replay window: %w", err)
	}
	if full != nil {
		return nil, fmt.Errorf("load replay window: %w: the journal holds more ids than the window may", full)
	}
	return &Durable{mem: mem, j: j}, nil
}

// Insert implements Storage. An id is accepted only once its journal
// record is written; if the write fails, the id is forgotten again, so
// that the sender may retry the same message once the store is back.
func (d *Durable) Insert(ctx context.Context, ns, key string, expires time.Time) (bool, error) {
	fresh, err := d.mem.Insert(ctx, ns, key, expires)
	if err != nil || !fresh || !strings.HasPrefix(ns, nsIDPrefix) || !expires.After(d.mem.now()) {
		return fresh, err
	}
	if err := d.j.Record(ctx, ns, key, expires); err != nil {
		d.mem.Take(ctx, ns, key)
		return false, fmt.Errorf("record message id: %w", err)
	}
	return true, nil
}

// Take implements Storage.
func (d *Durable) Take(ctx context.Context, ns, key string) (bool, error) {
	return d.mem.Take(ctx, ns, key)
}
