package sockio

import (
	"io"
	"net"
	"os"
	"sync"
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

	// A read's buffer and outcome live here, not in a closure made per
	// call, so that reading allocates nothing: rmu keeps one read at a
	// time, as the socket's own read lock would. The same for writes.
	rmu    sync.Mutex
	rbuf   []byte
	rn     int
	rerrno syscall.Errno
	readFn func(fd uintptr) bool

	wmu     sync.Mutex
	wbuf    []byte
	wn      int
	werrno  syscall.Errno
	writeFn func(fd uintptr) bool
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
	w := &Conn{Conn: c, rc: rc}
	w.readFn, w.writeFn = w.readOnce, w.writeSome
	return w
}

// Read reads what the socket holds, waiting for data as net.Conn.Read does.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	c.rmu.Lock()
	c.rbuf, c.rn, c.rerrno = p, 0, 0
	err := c.rc.Read(c.readFn)
	n, errno := c.rn, c.rerrno
	c.rbuf = nil
	c.rmu.Unlock()
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

// readOnce reads into c.rbuf, reporting false if the socket has nothing yet.
func (c *Conn) readOnce(fd uintptr) bool {
	for {
		r, e := read(fd, c.rbuf)
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		c.rn, c.rerrno = r, e
		return true
	}
}

// Write writes all of p, waiting for room in the socket's buffer as
// net.Conn.Write does.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	c.wbuf, c.wn, c.werrno = p, 0, 0
	err := c.rc.Write(c.writeFn)
	n, errno := c.wn, c.werrno
	c.wbuf = nil
	c.wmu.Unlock()
	switch {
	case err != nil:
		return n, c.opError("write", err)
	case errno != 0:
		return n, c.opError("write", os.NewSyscallError("write", errno))
	}
	return n, nil
}

// writeSome writes what is left of c.wbuf, reporting false if the socket's
// buffer fills first.
func (c *Conn) writeSome(fd uintptr) bool {
	p := c.wbuf
	for c.wn < len(p) {
		chunk := min(len(p)-c.wn, maxRW)
		r, e := write(fd, p[c.wn:c.wn+chunk])
		switch e {
		case 0:
			c.wn += r
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.werrno = e
			return true
		}
	}
	return true
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
