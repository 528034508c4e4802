package jsonrpc

import (
	"bufio"
	"bytes"
	"io"
)

// Reader reads newline-delimited messages.
type Reader struct {
	r     *bufio.Reader
	limit int
	buf   []byte
}

// NewReader returns a Reader for lines of at most limit bytes (DefaultMaxMessageBytes when
// limit <= 0), the newline excluded.
func NewReader(r io.Reader, limit int) *Reader {
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// ReadLine returns the next non-empty line without its newline; the slice is valid until the
// next call. A last line without a newline is returned before io.EOF. A line over the limit
// gives ErrMessageTooLarge, after which the Reader must not be used: the stream's framing is
// lost.
func (r *Reader) ReadLine() ([]byte, error) {
	if cap(r.buf) > 1<<20 {
		r.buf = nil // do not keep a large buffer for an idle connection
	}
	for {
		r.buf = r.buf[:0]
		for {
			frag, err := r.r.ReadSlice('\n')
			if len(r.buf)+len(frag) > r.limit+1 {
				return nil, ErrMessageTooLarge
			}
			r.buf = append(r.buf, frag...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if err == io.EOF && len(bytes.TrimSpace(r.buf)) > 0 {
					return r.buf, nil
				}
				return nil, err
			}
			break
		}
		line := bytes.TrimRight(r.buf, "\r\n")
		if len(line) > r.limit {
			return nil, ErrMessageTooLarge
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}
