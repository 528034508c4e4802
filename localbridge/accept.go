package localbridge

import (
	"errors"
	"log/slog"
	"net"
	"syscall"
	"time"
)

// acceptBackoff paces a face's accept loop through failures that pass by themselves. A process
// out of file descriptors (EMFILE, ENFILE) gets them back as connections close, on this face
// or another; ending the face for it would stop the whole gateway for what a burst of clients
// did. The HTTPS and gRPC faces wait the same way.
type acceptBackoff struct {
	log   *slog.Logger
	face  string
	delay time.Duration
}

// retry reports whether err is such a failure, after waiting for the next try: 5 ms at first,
// doubling up to a second. The first failure of a run is logged.
func (b *acceptBackoff) retry(err error) bool {
	if !transientAccept(err) {
		return false
	}
	if b.delay == 0 {
		b.log.Warn("cannot accept a connection; retrying", "face", b.face, "err", err.Error())
	}
	b.delay = min(max(2*b.delay, 5*time.Millisecond), time.Second)
	time.Sleep(b.delay)
	return true
}

// accepted ends a run of failures.
func (b *acceptBackoff) accepted() { b.delay = 0 }

// transientAccept reports whether an error from Accept leaves the listener usable.
func transientAccept(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.EINTR, syscall.EAGAIN:
		return true
	}
	return false
}
