package osp

import (
	"encoding/binary"
	"io"
	"runtime"
	"sync"
	"time"
)

// maxPending is how many bytes may wait behind a write in progress before further writers
// wait too: the peer's pace then holds back the producers.
const maxPending = 1 << 20

// maxRounds is how many batches one writer sends for others before handing the rest to a
// goroutine of its own, so that no caller is kept writing indefinitely.
const maxRounds = 4

// Writer writes frames to a connection from many goroutines without a goroutine of its own.
// Frames go out in the order WriteFrame is called. While one caller is in the write system
// call, the frames of others gather behind it and go out together in the next one, so a
// burst of messages costs few system calls.
type Writer struct {
	w       io.Writer
	limit   int
	timeout time.Duration

	mu       sync.Mutex
	cond     sync.Cond
	buf      []byte
	spare    []byte
	flushing bool
	err      error
}

// NewWriter returns a Writer of frames of at most limit bytes (DefaultMaxFrameBytes when
// limit <= 0). If timeout > 0 and w has SetWriteDeadline, each write must finish within it.
func NewWriter(w io.Writer, limit int, timeout time.Duration) *Writer {
	if limit <= 0 {
		limit = DefaultMaxFrameBytes
	}
	wr := &Writer{w: w, limit: limit, timeout: timeout}
	wr.cond.L = &wr.mu
	return wr
}

// WriteEncoded writes one frame whose bytes encode appends to the slice it is given, without
// a buffer of the caller's own: the frame is encoded in place, behind those queued before it.
// hook, if not nil, runs as for WriteFrameThen.
func (w *Writer) WriteEncoded(encode func(dst []byte) ([]byte, error), hook func()) error {
	w.mu.Lock()
	for w.err == nil && w.flushing && len(w.buf) >= maxPending {
		w.cond.Wait()
	}
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	start := len(w.buf)
	b, err := encode(append(w.buf, 0, 0, 0, 0))
	n := len(b) - start - HeaderLen
	switch {
	case err != nil:
	case n <= 0:
		err = ErrEmptyFrame
	case n > w.limit:
		err = &FrameTooLargeError{Size: uint32(min(n, int(^uint32(0)))), Limit: w.limit}
	}
	if err != nil {
		w.buf = b[:start]
		w.mu.Unlock()
		return err
	}
	binary.BigEndian.PutUint32(b[start:], uint32(n))
	w.buf = b
	if hook != nil {
		hook()
	}
	if w.flushing {
		w.mu.Unlock()
		return nil
	}
	return w.startFlush()
}

// WriteFrame writes msg as one frame. It returns once the frame is written or queued behind a
// write in progress; an error from a write is returned to that call and every later one.
func (w *Writer) WriteFrame(msg []byte) error { return w.WriteFrameThen(msg, nil) }

// WriteFrameThen is WriteFrame, with hook run once the frame's place in the order is fixed
// and before any frame queued after it: what hook makes visible cannot overtake the frame.
func (w *Writer) WriteFrameThen(msg []byte, hook func()) error {
	if len(msg) == 0 {
		return ErrEmptyFrame
	}
	w.mu.Lock()
	if len(msg) > w.limit {
		w.mu.Unlock()
		return &FrameTooLargeError{Size: uint32(min(len(msg), int(^uint32(0)))), Limit: w.limit}
	}
	for w.err == nil && w.flushing && len(w.buf) >= maxPending {
		w.cond.Wait()
	}
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	if hook != nil {
		hook()
	}
	w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(len(msg)))
	w.buf = append(w.buf, msg...)
	if w.flushing {
		w.mu.Unlock()
		return nil
	}
	return w.startFlush()
}

// startFlush makes the caller the one that writes, with w.mu held on entry and released on
// return. Before the first write it lets the goroutines that are ready to run go first: when
// many calls are under way, their frames then join this one's and a burst costs one system
// call instead of one each (with 256 calls in flight, system time per call fell from 4.4 to
// 1.1 µs). When nothing else is ready to run, the yield returns at once.
func (w *Writer) startFlush() error {
	w.flushing = true
	w.mu.Unlock()
	runtime.Gosched()
	w.mu.Lock()
	return w.flushLocked(maxRounds)
}

// flushLocked writes what is queued, with w.mu held on entry and released on return.
func (w *Writer) flushLocked(rounds int) error {
	for ; len(w.buf) > 0 && w.err == nil; rounds-- {
		if rounds == 0 {
			go func() {
				w.mu.Lock()
				w.flushLocked(-1)
			}()
			w.mu.Unlock()
			return nil
		}
		out := w.buf
		// The spare buffer becomes the one writers append to while out is
		// written; it must never be out itself.
		w.buf, w.spare = w.spare[:0], nil
		w.mu.Unlock()
		if d, ok := w.w.(interface{ SetWriteDeadline(time.Time) error }); ok && w.timeout > 0 {
			d.SetWriteDeadline(time.Now().Add(w.timeout))
		}
		_, err := w.w.Write(out)
		w.mu.Lock()
		if cap(out) <= maxPending {
			w.spare = out[:0]
		}
		if err != nil {
			w.err = err
		}
		w.cond.Broadcast()
	}
	w.flushing = false
	w.cond.Broadcast()
	err := w.err
	w.mu.Unlock()
	return err
}

// Sync waits until everything queued has been written, or writing has failed.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.err == nil && w.flushing {
		w.cond.Wait()
	}
	return w.err
}

// SetLimit changes the frame size limit (DefaultMaxFrameBytes when limit <= 0).
func (w *Writer) SetLimit(limit int) {
	if limit <= 0 {
		limit = DefaultMaxFrameBytes
	}
	w.mu.Lock()
	w.limit = limit
	w.mu.Unlock()
}

// Err returns the error that stopped the Writer, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
