package outage

import (
	"context"
	"errors"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
)

// Replay is the name the replay window's store is watched under.
const Replay = "replay window"

// WatchReplay returns st with its failures recorded in w under the name
// Replay. A full window (replay.ErrFull) is a limit, not a failure.
func WatchReplay(st replay.Storage, w *Watch) replay.Storage {
	return watchedReplay{st: st, w: w}
}

type watchedReplay struct {
	st replay.Storage
	w  *Watch
}

func (r watchedReplay) record(err error) {
	if err == nil || errors.Is(err, replay.ErrFull) {
		r.w.Worked(Replay)
		return
	}
	if cause := Cause(err, nil); cause != "" {
		r.w.Failed(Replay, cause, err)
	}
}

func (r watchedReplay) Insert(ctx context.Context, ns, key string, expires time.Time) (bool, error) {
	fresh, err := r.st.Insert(ctx, ns, key, expires)
	r.record(err)
	return fresh, err
}

func (r watchedReplay) Take(ctx context.Context, ns, key string) (bool, error) {
	ok, err := r.st.Take(ctx, ns, key)
	r.record(err)
	return ok, err
}
