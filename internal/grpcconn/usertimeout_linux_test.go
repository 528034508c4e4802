package grpcconn

import (
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/moltgate/moltgate/internal/sockio"
)

func userTimeoutOf(t *testing.T, c net.Conn) time.Duration {
	t.Helper()
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	raw.Control(func(fd uintptr) { v, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT) })
	if gerr != nil {
		t.Fatal(gerr)
	}
	return time.Duration(v) * time.Millisecond
}

// The gRPC face's connections, accepted and dialled, keep the
// TCP_USER_TIMEOUT grpc-go would set on connections of package net.
func TestGRPCConnectionsHaveUserTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gl := Listener{Listener: sockio.Listener{Listener: l}}
	defer gl.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := gl.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	var d sockio.Dialer
	c, err := d.DialContext(t.Context(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := userTimeoutOf(t, c); got != 0 {
		t.Fatalf("a fresh connection already has a user timeout of %v", got)
	}
	if err := SetUserTimeout(c, PingTimeout); err != nil {
		t.Fatal(err)
	}
	if got := userTimeoutOf(t, c); got != PingTimeout {
		t.Fatalf("dialled: user timeout %v, want %v", got, PingTimeout)
	}
	s := <-accepted
	if s == nil {
		t.FailNow()
	}
	defer s.Close()
	if _, ok := s.(*sockio.Conn); !ok {
		t.Fatalf("accepted %T, want a *sockio.Conn", s)
	}
	if got := userTimeoutOf(t, s); got != PingTimeout {
		t.Fatalf("accepted: user timeout %v, want %v", got, PingTimeout)
	}
}

func TestUserTimeoutLeavesUnixSocketsAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := SetUserTimeout(sockio.Wrap(c), time.Second); err != nil {
		t.Fatalf("on a Unix socket: %v", err)
	}
}
