// Package workers runs a connection's items of work on goroutines that outlive one item.
//
// A goroutine starts with a small stack. Work that runs deep (decoding, checking, signing a
// message) grows it, and growing copies it, once or twice, every time a fresh goroutine
// takes an item: under load that was about 5 % of a gateway's CPU. A worker that takes the
// next item keeps the stack it grew. A worker with nothing to do for a while exits, so an
// idle connection holds none.
package workers

import "time"

// A Pool hands items to its workers. It has no bound of its own: the caller limits how many
// items are in flight (a semaphore, say), and so how many workers there can be.
type Pool[T any] struct {
	work   chan T // unbuffered: a send succeeds only if a worker waits
	do     func(T)
	done   <-chan struct{}
	linger time.Duration
}

// New returns a pool whose workers call do on each item. A worker with no item for linger,
// or once done is closed, exits; items handed over before then are all done.
func New[T any](done <-chan struct{}, linger time.Duration, do func(T)) *Pool[T] {
	return &Pool[T]{work: make(chan T), do: do, done: done, linger: linger}
}

// Go hands v to a worker waiting for work, or starts a worker with it. It does not wait for
// v to be done.
func (p *Pool[T]) Go(v T) {
	select {
	case p.work <- v:
	default:
		go p.run(v)
	}
}

func (p *Pool[T]) run(v T) {
	var linger *time.Timer
	for {
		p.do(v)
		if linger == nil {
			linger = time.NewTimer(p.linger)
		} else {
			linger.Reset(p.linger)
		}
		select {
		case v = <-p.work:
		case <-linger.C:
			return
		case <-p.done:
			linger.Stop()
			return
		}
	}
}
