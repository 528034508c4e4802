package grpcconn

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/gateway/face/frames"
)

// ErrNoTurn is the error of a write that did not start before its caller's
// deadline, another write holding the stream: nothing of it was sent.
var ErrNoTurn = errors.New("no turn to write before the deadline")

// Writer writes the messages of one gRPC stream, one at a time.
// grpc-go's SendMsg takes no deadline: it waits for as long as the other
// end's flow-control window stays full, which an end that stops reading
// keeps so for ever. A write that has waited the timeout calls stall once,
// which must end the stream (its handler returns, or its context is
// cancelled), so that the write fails; every later one fails at once.
type Writer struct {
	sendMsg func(any) error
	timeout time.Duration
	stall   func()

	turn    chan struct{} // held by the write in progress
	epoch   time.Time     // began counts from here, on the monotonic clock
	began   atomic.Int64  // since epoch, when the write in progress began; 0 between writes
	stalled atomic.Bool
	// watch fires timeout after a write began, unless stopped as it
	// ends; made by the first write, and used only with the turn held.
	watch *time.Timer
}

// NewWriter writes with sendMsg, calling stall once a write has waited
// timeout.
func NewWriter(sendMsg func(any) error, timeout time.Duration, stall func()) *Writer {
	return &Writer{sendMsg: sendMsg, timeout: timeout, stall: stall, turn: make(chan struct{}, 1), epoch: time.Now()}
}

// Send writes b, waiting for its turn until ctx ends (ErrNoTurn).
func (w *Writer) Send(ctx context.Context, b []byte) error {
	select {
	case w.turn <- struct{}{}:
	case <-ctx.Done():
		return ErrNoTurn
	}
	defer func() { <-w.turn }()
	if w.stalled.Load() {
		return frames.ErrWriteStalled
	}
	w.began.Store(int64(time.Since(w.epoch)) + 1)
	if w.watch == nil {
		w.watch = time.AfterFunc(w.timeout, w.check)
	} else {
		w.watch.Reset(w.timeout)
	}
	err := w.sendMsg(&b)
	w.began.Store(0)
	w.watch.Stop()
	if err == nil || !w.stalled.Load() {
		return err
	}
	return fmt.Errorf("%w: %w", frames.ErrWriteStalled, err)
}

// check stalls the stream if the write in progress has waited the timeout.
// The watch may fire just as a write ends, or for one that was followed
// by another: what began says which.
func (w *Writer) check() {
	b := w.began.Load()
	if b == 0 || time.Since(w.epoch)-time.Duration(b-1) < w.timeout {
		return
	}
	if w.stalled.CompareAndSwap(false, true) {
		w.stall()
	}
}
