// Package sockio reads and writes stream sockets with direct system calls.
//
// A read or write through package net tells the Go scheduler that its
// goroutine is entering a system call. If the process was idle until then,
// that wakes the runtime's monitor thread, which then polls every 20 µs for
// at least a millisecond before it backs off. A gateway under steady load goes
// idle between messages thousands of times a second, and each time it wakes
// the monitor pays that polling again: 7 % of a gateway's CPU in moltgate
// bench. Reads and writes on a non-blocking socket return at once, so they
// need not tell the scheduler anything. On Linux, Conn makes them directly
// and waits for readiness through the runtime's network poller, as package
// net does; elsewhere Wrap leaves connections as they are.
//
// Deadlines, Close and errors behave as package net's: errors.Is finds
// net.ErrClosed and os.ErrDeadlineExceeded, and a timeout is a net.Error.
//
// The monitor's polling is not only cost: between two processes alone on a
// machine passing one message back and forth, it keeps their threads from
// sleeping deeply, and without it each round trip takes longer
// (BenchmarkPingPongProcess). On a gateway's path, with four processes and
// many calls, direct calls made round trips both cheaper and faster; see
// docs/benchmarks.md.
package sockio

import (
	"context"
	"net"
)

// Listener wraps the connections a listener accepts (see Wrap).
type Listener struct{ net.Listener }

// Accept waits for the next connection and wraps it.
func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Wrap(c), nil
}

// Dialer dials as its net.Dialer does and wraps the connection (see Wrap).
type Dialer struct{ net.Dialer }

// DialContext connects to addr on network and wraps the connection.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return Wrap(c), nil
}
