package grpcconn

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// SetUserTimeout sets TCP_USER_TIMEOUT on c, a TCP connection: data left
// unacknowledged for d closes it. grpc-go sets it on the connections it is
// given when keepalives are on, but only on a *net.TCPConn, and the gateway
// gives it connections with direct socket calls (internal/sockio).
func SetUserTimeout(c net.Conn, d time.Duration) error {
	sc, ok := c.(syscall.Conn)
	if !ok || c.LocalAddr().Network() != "tcp" {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d/time.Millisecond))
	}); err != nil {
		return err
	}
	return serr
}
