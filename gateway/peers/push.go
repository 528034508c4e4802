package peers

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// Pushed is how the push of a message to one peer ended.
type Pushed int

const (
	// Delivered: the peer answered with a respond.
	Delivered Pushed = iota
	// Refused: the peer answered with an error that sending again would
	// not change.
	Refused
	// Unreached: every try failed on the way; the peer fetches what was
	// pushed on its next pull.
	Unreached
)

// Defaults of PushConfig.
const (
	DefaultPushTries = 5
	DefaultPushWait  = time.Second
)

// PushConfig is how Push tries each peer.
type PushConfig struct {
	// Tries is how many times a peer that cannot be reached is tried.
	// Default DefaultPushTries.
	Tries int
	// Wait is the wait before the second try, three times longer before
	// each next: 1 s, 3 s, 9 s and 27 s by default, about two minutes in
	// all. Default DefaultPushWait.
	Wait time.Duration
	// Go runs f in the background, tracked so that shutdown waits for
	// it. Required.
	Go func(f func())
}

// GatewayCaller calls peers in the gateway's own name: a *Table.
type GatewayCaller interface {
	CallAsGateway(ctx context.Context, ps *Remote, m *wire.Message, onMsg func(*wire.Message) (done bool, err error)) error
}

// Push sends to each peer of to, each on its own, the message build makes
// for it (built again for each try: a new id and time), through c in the
// gateway's own name; a peer that cannot be reached, or answers with a
// recoverable error, is tried again, until ctx ends. done is told how
// each peer's push ended, with the last error when it did not deliver.
func Push(ctx context.Context, cfg PushConfig, c GatewayCaller, to []*Remote, build func(ps *Remote) *wire.Message, done func(ps *Remote, how Pushed, err error)) {
	if cfg.Tries <= 0 {
		cfg.Tries = DefaultPushTries
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultPushWait
	}
	for _, ps := range to {
		cfg.Go(func() {
			var err error
			for try, wait := 0, cfg.Wait; try < cfg.Tries; try, wait = try+1, wait*3 {
				err = c.CallAsGateway(ctx, ps, build(ps), func(m *wire.Message) (bool, error) {
					_, ok := m.Payload.(*wire.RespondPayload)
					return ok, nil
				})
				if err == nil {
					done(ps, Delivered, nil)
					return
				}
				if we := pipeline.AsWire(err); !we.Code.Recoverable() && we.Code != wire.ErrPeerUnavailable {
					done(ps, Refused, err)
					return
				}
				if try+1 == cfg.Tries {
					break
				}
				select {
				case <-ctx.Done():
					done(ps, Unreached, ctx.Err())
					return
				case <-time.After(wait):
				}
			}
			done(ps, Unreached, err)
		})
	}
}
