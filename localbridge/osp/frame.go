package osp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrameBytes is the default limit on the JSON bytes of one frame (4 MiB).
const DefaultMaxFrameBytes = 4 << 20

// HeaderLen is the length of the frame header.
const HeaderLen = 4

// keepBuffer is the largest read buffer a Reader keeps between frames. Larger frames get a
// buffer of their own, so an idle connection that once received 4 MiB does not hold 4 MiB.
const keepBuffer = 64 << 10

// ErrEmptyFrame is returned for a frame whose length is zero: no JSON object is that short.
var ErrEmptyFrame = errors.New("empty frame")

// FrameTooLargeError reports a frame whose announced length exceeds the limit. The bytes of the
// frame are never read, so the error carries sizes only.
type FrameTooLargeError struct {
	Size  uint32 // announced length
	Limit int    // the limit in force
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the limit of %d bytes", e.Size, e.Limit)
}

// Reader reads length-prefixed frames. Short reads from the underlying connection are
// reassembled; a connection closed between frames gives io.EOF and one closed inside a frame
// gives io.ErrUnexpectedEOF.
type Reader struct {
	r     *bufio.Reader
	limit int
	hdr   [HeaderLen]byte
	buf   []byte

	// A frame read in part when a read deadline passed, to be finished by the next call.
	got  int    // bytes of the header and then of the body read so far
	body []byte // the frame's bytes, once its header is in
}

// NewReader returns a Reader that accepts frames of at most limit bytes (DefaultMaxFrameBytes
// when limit <= 0).
func NewReader(r io.Reader, limit int) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 32<<10)
	}
	if limit <= 0 {
		limit = DefaultMaxFrameBytes
	}
	return &Reader{r: br, limit: limit}
}

// SetLimit changes the frame size limit for the frames that follow.
func (r *Reader) SetLimit(limit int) {
	if limit <= 0 {
		limit = DefaultMaxFrameBytes
	}
	r.limit = limit
}

// ReadFrame returns the JSON bytes of the next frame. The slice is valid until the next call.
// After an error the Reader must not be used again, as the stream has lost its framing, with
// two exceptions: after ErrEmptyFrame the next frame follows, and after a read deadline
// passed (an error that matches os.ErrDeadlineExceeded) the next call goes on with the frame
// where the deadline cut it off.
func (r *Reader) ReadFrame() ([]byte, error) {
	if r.body == nil {
		k, err := io.ReadFull(r.r, r.hdr[r.got:])
		r.got += k
		if err != nil {
			if err == io.EOF && r.got > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		r.got = 0
		n := binary.BigEndian.Uint32(r.hdr[:])
		if n == 0 {
			return nil, ErrEmptyFrame
		}
		if uint64(n) > uint64(r.limit) {
			return nil, &FrameTooLargeError{Size: n, Limit: r.limit}
		}
		if int(n) <= keepBuffer {
			if cap(r.buf) < int(n) {
				r.buf = make([]byte, keepBuffer)
			}
			r.body = r.buf[:n]
		} else {
			r.body = make([]byte, n)
		}
	}
	k, err := io.ReadFull(r.r, r.body[r.got:])
	r.got += k
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	b := r.body
	r.got, r.body = 0, nil
	return b, nil
}

// Buffered returns how many bytes of further frames have been read from the connection and
// wait in the Reader's buffer.
func (r *Reader) Buffered() int { return r.r.Buffered() }

// AppendFrame appends the header for msg and msg itself to dst.
func AppendFrame(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// WriteFrame writes msg as one frame. It refuses a msg longer than limit (DefaultMaxFrameBytes
// when limit <= 0), since the peer would close the connection on receiving it.
func WriteFrame(w io.Writer, msg []byte, limit int) error {
	if limit <= 0 {
		limit = DefaultMaxFrameBytes
	}
	if len(msg) == 0 {
		return ErrEmptyFrame
	}
	if len(msg) > limit {
		return &FrameTooLargeError{Size: uint32(min(len(msg), int(^uint32(0)))), Limit: limit}
	}
	var hdr [HeaderLen]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(msg)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(msg)
	return err
}
