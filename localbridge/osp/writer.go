package osp

import (
	"encoding/binary"
	"io"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/internal/coalesce"
)

// Writer writes frames to a connection from many goroutines without a goroutine of its own.
// Frames go out in the order WriteFrame is called. While one caller is in the write system
// call, the frames of others gather behind it and go out together in the next one, so a
// burst of messages costs few system calls.
type Writer struct {
	q     *coalesce.Writer
	limit atomic.Int64
}

// NewWriter returns a Writer of frames of at most limit bytes (DefaultMaxFrameBytes when
// limit <= 0). If timeout > 0 and w has SetWriteDeadline, each write must finish within it.
func NewWriter(w io.Writer, limit int, timeout time.Duration) *Writer {
	wr := &Writer{}
	wr.SetLimit(limit)
	d, ok := w.(interface{ SetWriteDeadline(time.Time) error })
	wr.q = coalesce.NewWriter(func(buf []byte, _ []int) error {
		if ok && timeout > 0 {
			d.SetWriteDeadline(time.Now().Add(timeout))
		}
		_, err := w.Write(buf)
		return err
	}, coalesce.Options{Yield: true})
	return wr
}

// WriteEncoded writes one frame whose bytes encode appends to the slice it is given, without
// a buffer of the caller's own: the frame is encoded in place, behind those queued before it.
// hook, if not nil, runs as for WriteFrameThen.
func (w *Writer) WriteEncoded(encode func(dst []byte) ([]byte, error), hook func()) error {
	return w.q.Append(func(dst []byte) ([]byte, error) {
		start := len(dst)
		b, err := encode(append(dst, 0, 0, 0, 0))
		if err != nil {
			return b, err
		}
		n, limit := len(b)-start-HeaderLen, int(w.limit.Load())
		switch {
		case n <= 0:
			return b, ErrEmptyFrame
		case n > limit:
			return b, &FrameTooLargeError{Size: uint32(min(n, int(^uint32(0)))), Limit: limit}
		}
		binary.BigEndian.PutUint32(b[start:], uint32(n))
		return b, nil
	}, hook)
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
	if limit := int(w.limit.Load()); len(msg) > limit {
		return &FrameTooLargeError{Size: uint32(min(len(msg), int(^uint32(0)))), Limit: limit}
	}
	return w.q.Append(func(dst []byte) ([]byte, error) {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
		return append(dst, msg...), nil
	}, hook)
}

// Sync waits until everything queued has been written, or writing has failed.
func (w *Writer) Sync() error { return w.q.Sync() }

// SetLimit changes the frame size limit (DefaultMaxFrameBytes when limit <= 0).
func (w *Writer) SetLimit(limit int) {
	if limit <= 0 {
		limit = DefaultMaxFrameBytes
	}
	w.limit.Store(int64(limit))
}

// Err returns the error that stopped the Writer, if any.
func (w *Writer) Err() error { return w.q.Err() }
