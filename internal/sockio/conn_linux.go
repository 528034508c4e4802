package sockio

import (
	"io"
	"net"
	"os"
	"syscall"
)

// maxRW bounds one system call, as package net does: larger reads and
// writes are split.
const maxRW = 1 << 30

// Conn is a TCP or Unix stream socket of package net whose Read and Write are
// direct system calls. Everything else is the wrapped connection's.
type Conn struct {
	net.Conn
	rc syscall.RawConn
}

// Wrap returns c with direct reads and writes if it is a *net.TCPConn or a
// *net.UnixConn of type stream, and c itself otherwise.
func Wrap(c net.Conn) net.Conn {
	var rc syscall.RawConn
	var err error
	switch s := c.(type) {
	case *net.TCPConn:
		rc, err = s.SyscallConn()
	case *net.UnixConn:
		if s.LocalAddr().Network() != "unix" {
			return c
		}
		rc, err = s.SyscallConn()
	default:
		return c
	}
	if err != nil {
		return c
	}
	return &Conn{Conn: c, rc: rc}
}

// Read reads what the socket holds, waiting for data as net.Conn.Read does.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, e := read(fd, p)
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			n, errno = r, e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p, waiting for room in the socket's buffer as
// net.Conn.Write does.
func (c *Conn) Write(p []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			chunk := min(len(p)-n, maxRW)
			r, e := write(fd, p[n:n+chunk])
			switch e {
			case 0:
				n += r
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, c.opError("write", err)
	case errno != 0:
		return n, c.opError("write", os.NewSyscallError("write", errno))
	}
	return n, nil
}

// CloseWrite shuts down the writing side of the socket.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return &net.OpError{Op: "close", Net: c.LocalAddr().Network(), Addr: c.RemoteAddr(), Err: syscall.EINVAL}
}

// SyscallConn gives the raw socket, for options such as TCP_USER_TIMEOUT.
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return c.rc, nil }

// Unwrap returns the connection c wraps.
func (c *Conn) Unwrap() net.Conn { return c.Conn }

// opError shapes err as package net's own Read and Write do, replacing the
// "raw-read" or "raw-write" operation the raw connection reports.
func (c *Conn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
