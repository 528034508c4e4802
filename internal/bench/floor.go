package bench

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/internal/coalesce"
	"github.com/moltgate/moltgate/internal/sockio"
)

// The floor is what moving a round trip's bytes through the same four
// processes and three hops costs when nothing else is done to them: the
// load generator writes each request on a Unix socket to a relay in place
// of acme's gateway, which passes the bytes over TLS on loopback TCP to a
// relay in place of globex's, which passes them on a Unix socket to an
// echo process in place of the agent; the reply comes back the same way.
// Each relay is a plain copy in both directions (read what has arrived,
// write it on): no framing, no goroutine per message, no parsing. The
// callers share one connection per 16, with the same kind of writer and
// reader as the JSON-RPC client of the main phases, so the floor counts
// the system calls, thread wake-ups and TLS records of the path and
// nothing of moltgate's own work. Measured in the same run as the
// gateways, it is the machine's own limit for this shape of path: no
// gateway on it can use less CPU per round trip than the relays, nor the
// four processes less than the floor's total.

// floorCert writes a self-signed certificate for 127.0.0.1 and its key to
// dir as cert.pem and key.pem: the TLS between the two relays.
func floorCert(dir string) error {
	_, err := gateway.WriteTLSCert(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), "bench floor", []string{"127.0.0.1"}, time.Now())
	return err
}

// AddressError is an address of the floor's processes that is not one.
type AddressError struct {
	Addr    string
	Problem string // what follows the address in the message
}

func (e *AddressError) Error() string { return fmt.Sprintf("bench: address %q%s", e.Addr, e.Problem) }

// floorListen listens on addr: "unix:PATH", or "tls:HOST:PORT" with the
// certificate in certDir.
func floorListen(addr, certDir string) (net.Listener, error) {
	kind, where, _ := strings.Cut(addr, ":")
	switch kind {
	case "unix":
		l, err := net.Listen("unix", where)
		if err != nil {
			return nil, err
		}
		return sockio.Listener{Listener: l}, nil
	case "tls":
		cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "cert.pem"), filepath.Join(certDir, "key.pem"))
		if err != nil {
			return nil, fmt.Errorf("load the floor's TLS certificate: %w", err)
		}
		l, err := net.Listen("tcp", where)
		if err != nil {
			return nil, err
		}
		return tls.NewListener(sockio.Listener{Listener: l}, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}), nil
	}
	return nil, &AddressError{Addr: addr, Problem: " is neither unix:PATH nor tls:HOST:PORT"}
}

// floorDial connects to addr (as floorListen takes it), trying again for
// up to 10 s while nothing listens there yet.
func floorDial(ctx context.Context, addr, certDir string) (net.Conn, error) {
	kind, where, _ := strings.Cut(addr, ":")
	var dial func(ctx context.Context) (net.Conn, error)
	switch kind {
	case "unix":
		var d sockio.Dialer
		dial = func(ctx context.Context) (net.Conn, error) { return d.DialContext(ctx, "unix", where) }
	case "tls":
		pemBytes, err := os.ReadFile(filepath.Join(certDir, "cert.pem"))
		if err != nil {
			return nil, err
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pemBytes) {
			return nil, errors.New("the floor's TLS certificate does not parse")
		}
		host, _, err := net.SplitHostPort(where)
		if err != nil {
			return nil, &AddressError{Addr: addr, Problem: ": " + err.Error()}
		}
		cfg := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS13, ServerName: host}
		var d sockio.Dialer
		dial = func(ctx context.Context) (net.Conn, error) {
			c, err := d.DialContext(ctx, "tcp", where)
			if err != nil {
				return nil, err
			}
			tc := tls.Client(c, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				c.Close()
				return nil, err
			}
			return tc, nil
		}
	default:
		return nil, &AddressError{Addr: addr, Problem: " is neither unix:PATH nor tls:HOST:PORT"}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		c, err := dial(ctx)
		if err == nil {
			return c, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connect to %s: %w", addr, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Relay is what `moltgate bench relay` runs: for each connection taken on
// in it opens one to out and copies bytes both ways until either end
// closes, until ctx ends. Addresses are unix:PATH or tls:HOST:PORT, with
// the certificate in certDir; a failure to connect onward is written to
// errs.
func Relay(ctx context.Context, in, out, certDir string, errs io.Writer) error {
	l, err := floorListen(in, certDir)
	if err != nil {
		return err
	}
	return serveFloor(ctx, l, relayTo(ctx, out, certDir, errs))
}

// relayTo handles a connection taken by a relay: it opens one to out and
// copies bytes both ways until either end closes. A failure to connect is
// reported on errs.
func relayTo(ctx context.Context, out, certDir string, errs io.Writer) func(net.Conn) {
	return func(c net.Conn) {
		defer c.Close()
		d, err := floorDial(ctx, out, certDir)
		if err != nil {
			fmt.Fprintln(errs, err)
			return
		}
		defer d.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			relayBytes(c, d)
			// Nothing more can reach the caller: both connections end
			// now, or a write on its way out to the echo, which is
			// waiting to write back what no one reads, waits for ever.
			c.Close()
			d.Close()
		}()
		relayBytes(d, c)
		<-done
	}
}

// Echo is what `moltgate bench echo` runs: it listens on in (unix:PATH)
// and writes back whatever each connection sends, until ctx ends.
func Echo(ctx context.Context, in string) error {
	l, err := floorListen(in, "")
	if err != nil {
		return err
	}
	return serveFloor(ctx, l, echoBytes)
}

// echoBytes writes back whatever c sends, until it closes.
func echoBytes(c net.Conn) {
	defer c.Close()
	relayBytes(c, c)
}

// serveFloor runs handle for each connection l takes until ctx ends.
func serveFloor(ctx context.Context, l net.Listener, handle func(net.Conn)) error {
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			handle(c)
		}()
	}
}

// relayBytes copies from src to dst until either fails: each read's bytes
// in one write, as they came.
func relayBytes(dst io.Writer, src io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if c, ok := dst.(interface{ CloseWrite() error }); ok {
				c.CloseWrite()
			}
			return
		}
	}
}

// floorConn is the load generator's end of the floor: calls share it as
// they share a JSON-RPC connection, each frame (length, call id, payload)
// queued on a coalescing writer and its echo handed back by one reader.
type floorConn struct {
	c       net.Conn
	w       *coalesce.Writer
	next    atomic.Uint64
	payload []byte // what follows each frame's header

	mu      sync.Mutex
	pending map[uint64]chan struct{}
	err     error
}

// floorHeader is the bytes before a frame's payload: its length (of what
// follows the length) and the call's id.
const floorHeader = 4 + 8

// newFloorConn starts reading c; its frames are size bytes, header
// included.
func newFloorConn(c net.Conn, size int) *floorConn {
	f := &floorConn{c: c, pending: make(map[uint64]chan struct{}), payload: make([]byte, max(size-floorHeader, 0))}
	f.w = coalesce.NewWriter(func(buf []byte, _ []int) error {
		_, err := c.Write(buf)
		return err
	}, coalesce.Options{Yield: true})
	go f.read()
	return f
}

func (f *floorConn) read() {
	r := bufio.NewReaderSize(f.c, 64<<10)
	var hdr [floorHeader]byte
	var err error
	for {
		if _, err = io.ReadFull(r, hdr[:]); err != nil {
			break
		}
		n := int(binary.BigEndian.Uint32(hdr[:4])) - 8
		if n < 0 {
			err = errors.New("floor: a frame shorter than its header")
			break
		}
		if _, err = r.Discard(n); err != nil {
			break
		}
		id := binary.BigEndian.Uint64(hdr[4:])
		f.mu.Lock()
		ch := f.pending[id]
		delete(f.pending, id)
		f.mu.Unlock()
		if ch != nil {
			ch <- struct{}{}
		}
	}
	f.mu.Lock()
	f.err = err
	for id, ch := range f.pending {
		delete(f.pending, id)
		close(ch)
	}
	f.mu.Unlock()
}

// call sends a frame and waits for its echo, which the reader signals on
// ch.
func (f *floorConn) call(ctx context.Context, ch chan struct{}) error {
	id := f.next.Add(1)
	f.mu.Lock()
	if f.err != nil {
		f.mu.Unlock()
		return f.err
	}
	f.pending[id] = ch
	f.mu.Unlock()
	forget := func() {
		f.mu.Lock()
		delete(f.pending, id)
		f.mu.Unlock()
	}
	err := f.w.Append(func(dst []byte) ([]byte, error) {
		dst = binary.BigEndian.AppendUint32(dst, uint32(8+len(f.payload)))
		dst = binary.BigEndian.AppendUint64(dst, id)
		return append(dst, f.payload...), nil
	}, nil)
	if err != nil {
		forget()
		return err
	}
	select {
	case _, ok := <-ch:
		if !ok {
			return fmt.Errorf("floor: the connection ended: %v", f.err)
		}
		return nil
	case <-ctx.Done():
		forget()
		return ctx.Err()
	}
}

// floorCalls gives worker w a round trip of a frame over one of conns.
func floorCalls(conns []*floorConn) func(w int) roundTrip {
	return func(w int) roundTrip {
		fc := conns[w%len(conns)]
		ch := make(chan struct{}, 1)
		return func(ctx context.Context) error { return fc.call(ctx, ch) }
	}
}

// floorProc is one process of the floor.
type floorProc struct {
	cmd  *exec.Cmd
	done chan error
}

func startFloorProc(exe, logPath string, args ...string) (*floorProc, error) {
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	cmd := exec.Command(exe, append([]string{"bench"}, args...)...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start bench %s: %w", args[0], err)
	}
	p := &floorProc{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

func (p *floorProc) stop() {
	p.cmd.Process.Kill()
	<-p.done
}

// floor measures the floor's round trips with one caller, with
// --concurrency callers, and paced at each of rates (round trips a second:
// the rates the gateways carried), size bytes each way.
func (b *bench) floor(ctx context.Context, size int, rates []float64) ([]Phase, error) {
	dir := filepath.Join(b.root, "floor")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := floorCert(dir); err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	echoAddr, midAddr, inAddr := "unix:"+filepath.Join(dir, "echo.sock"), "tls:"+ports[0], "unix:"+filepath.Join(dir, "in.sock")
	logPath := filepath.Join(dir, "floor.log")
	var procs []*floorProc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	for _, args := range [][]string{
		{"echo", "--in", echoAddr},
		{"relay", "--in", midAddr, "--out", echoAddr, "--tls", dir},
		{"relay", "--in", inAddr, "--out", midAddr, "--tls", dir},
	} {
		p, err := startFloorProc(b.exe, logPath, args...)
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
	}
	var conns []*floorConn
	defer func() {
		for _, c := range conns {
			c.c.Close()
		}
	}()
	for range (b.o.Concurrency + 15) / 16 {
		c, err := floorDial(ctx, inAddr, "")
		if err != nil {
			return nil, err
		}
		conns = append(conns, newFloorConn(c, size))
	}
	// The relays open their onward connections when the first bytes come.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = conns[0].call(wctx, make(chan struct{}, 1))
	cancel()
	if err != nil {
		b, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("the floor's processes do not answer: %w\n%s", err, b)
	}
	b.say("floor: warming up")
	calls := floorCalls(conns)
	window(ctx, b.o.Concurrency, min(b.o.Duration/2, time.Second), func() {}, roundTrips(calls))
	pids := [3][]int{{procs[2].cmd.Process.Pid}, {procs[1].cmd.Process.Pid}, {procs[0].cmd.Process.Pid}}
	var out []Phase
	specs := []phaseSpec{
		{"round_trip", 1, 0, roundTrips(calls), 2},
		{"round_trip", b.o.Concurrency, 0, roundTrips(calls), 2},
	}
	for _, rate := range rates {
		specs = append(specs, phaseSpec{"paced", pacedCallers, rate, paced(calls, rate/pacedCallers), 2})
	}
	for _, sp := range specs {
		b.say("floor: %s, %d callers, %v", sp.kind, sp.callers, b.o.Duration)
		var c0, c1 [4]time.Duration
		first := true
		l := window(ctx, sp.callers, b.o.Duration, func() {
			if first {
				c0, first = clocks(pids), false
			} else {
				c1 = clocks(pids)
			}
		}, sp.work)
		if l.ops == 0 {
			return nil, fmt.Errorf("floor, %s with %d callers: no round trip completed (errors %v)", sp.kind, sp.callers, l.errs)
		}
		out = append(out, newPhase("floor", sp.kind, sp.callers, sp.rate, sp.msgs, l, c0, c1))
	}
	return out, nil
}
