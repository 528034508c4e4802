package sockio

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/benchcpu"
)

// pair returns both ends of a connection on network ("tcp" or "unix"),
// wrapped or as package net made them.
func pair(t testing.TB, network string, wrap bool) (client, server net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var ln net.Listener = l
	d := &net.Dialer{}
	dial := d.DialContext
	if wrap {
		ln = Listener{Listener: l}
		dial = (&Dialer{}).DialContext
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	client, err = dial(t.Context(), network, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.FailNow()
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	if _, ok := client.(*Conn); ok != wrap {
		t.Fatalf("dialled connection wrapped: %v, want %v", ok, wrap)
	}
	if _, ok := server.(*Conn); ok != wrap {
		t.Fatalf("accepted connection wrapped: %v, want %v", ok, wrap)
	}
	return client, server
}

// eachWay runs f on TCP and Unix sockets, wrapped and not: every behaviour
// asserted of Conn is asserted of package net's own connections too.
func eachWay(t *testing.T, f func(t *testing.T, client, server net.Conn)) {
	for _, network := range []string{"tcp", "unix"} {
		for _, wrap := range []bool{false, true} {
			t.Run(network+"/"+impl(wrap), func(t *testing.T) {
				c, s := pair(t, network, wrap)
				f(t, c, s)
			})
		}
	}
}

func TestLargeWriteArrivesWhole(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		// Far more than the socket buffers hold: the writer must wait for
		// room again and again.
		want := make([]byte, 16<<20)
		rand.Read(want)
		errc := make(chan error, 1)
		go func() {
			n, err := c.Write(want)
			if err == nil && n != len(want) {
				err = io.ErrShortWrite
			}
			c.Close()
			errc <- err
		}()
		got, err := io.ReadAll(readSlowly{s})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if err := <-errc; err != nil {
			t.Fatalf("write: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
		}
	})
}

// readSlowly reads in small pieces, so the writer finds the buffer full.
type readSlowly struct{ r io.Reader }

func (r readSlowly) Read(p []byte) (int, error) { return r.r.Read(p[:min(len(p), 1500)]) }

func TestReadAfterPeerClosedIsEOF(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		if _, err := c.Write([]byte("last")); err != nil {
			t.Fatal(err)
		}
		c.Close()
		got, err := io.ReadAll(s)
		if err != nil || string(got) != "last" {
			t.Fatalf("ReadAll = %q, %v; want \"last\", nil", got, err)
		}
		if n, err := s.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Fatalf("Read after EOF = %d, %v", n, err)
		}
	})
}

func TestEmptyReadAndWrite(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		if n, err := c.Write(nil); n != 0 || err != nil {
			t.Fatalf("Write(nil) = %d, %v", n, err)
		}
		if n, err := s.Read(nil); n != 0 || err != nil {
			t.Fatalf("Read(nil) = %d, %v", n, err)
		}
	})
}

func TestReadDeadline(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		s.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := s.Read(make([]byte, 8))
		assertTimeout(t, "read", err)
		// The deadline passed is still passed: no wait at all.
		_, err = s.Read(make([]byte, 8))
		assertTimeout(t, "read", err)
		// Cleared, the connection reads again.
		s.SetReadDeadline(time.Time{})
		go c.Write([]byte("x"))
		if n, err := s.Read(make([]byte, 8)); n != 1 || err != nil {
			t.Fatalf("Read after the deadline was cleared = %d, %v", n, err)
		}
	})
}

func TestWriteDeadline(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		// Nobody reads s: the buffers fill and the write waits until the
		// deadline, having written part.
		big := make([]byte, 64<<20)
		c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		n, err := c.Write(big)
		assertTimeout(t, "write", err)
		if n <= 0 || n >= 64<<20 {
			t.Fatalf("Write wrote %d bytes before its deadline", n)
		}
	})
}

func assertTimeout(t *testing.T, op string, err error) {
	t.Helper()
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err = %v, want os.ErrDeadlineExceeded", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err = %v, not a net.Error timeout", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != op {
		t.Fatalf("err = %#v, want a *net.OpError of %q", err, op)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		errc := make(chan error, 1)
		go func() {
			_, err := s.Read(make([]byte, 8))
			errc <- err
		}()
		time.Sleep(10 * time.Millisecond)
		s.Close()
		select {
		case err := <-errc:
			if !errors.Is(err, net.ErrClosed) {
				t.Fatalf("Read on a closed connection: %v, want net.ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Read still blocked after Close")
		}
		if _, err := s.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Write on a closed connection: %v, want net.ErrClosed", err)
		}
	})
}

func TestResetIsASyscallError(t *testing.T) {
	for _, wrap := range []bool{false, true} {
		c, s := pair(t, "tcp", wrap)
		// Closing with unread data and a zero linger sends a reset.
		tc, ok := s.(*net.TCPConn)
		if u, wrapped := s.(*Conn); wrapped {
			tc, ok = u.Unwrap().(*net.TCPConn)
		}
		if !ok {
			t.Fatalf("%T is not a TCP connection", s)
		}
		tc.SetLinger(0)
		if _, err := c.Write([]byte("unread")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
		s.Close()
		_, err := c.Read(make([]byte, 8))
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("wrap=%v: Read after a reset: %v, want ECONNRESET", wrap, err)
		}
		var se *os.SyscallError
		if !errors.As(err, &se) || se.Syscall != "read" {
			t.Fatalf("wrap=%v: err = %#v, want an *os.SyscallError of read", wrap, err)
		}
	}
}

func TestCloseWrite(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Read(make([]byte, 8)); err != io.EOF {
			t.Fatalf("Read after the peer's CloseWrite: %v, want io.EOF", err)
		}
		// The other way still works.
		if _, err := s.Write([]byte("still")); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 5)
		if _, err := io.ReadFull(c, got); err != nil || string(got) != "still" {
			t.Fatalf("read %q, %v after CloseWrite", got, err)
		}
	})
}

func TestWrapLeavesOthersAlone(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a {
		t.Error("Wrap changed a net.Pipe")
	}
	dir := t.TempDir()
	pc, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, "g"), Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if Wrap(pc) != net.Conn(pc) {
		t.Error("Wrap changed a datagram socket")
	}
}

// BenchmarkPingPong sends 2 KiB each way between two goroutines over a Unix
// socket, the way a gateway talks to its local agent.
func BenchmarkPingPong(b *testing.B) {
	for _, wrap := range []bool{false, true} {
		b.Run(impl(wrap), func(b *testing.B) {
			c, s := pair(b, "unix", wrap)
			go echo(s)
			pingPong(b, c)
		})
	}
}

// BenchmarkPingPongProcess is BenchmarkPingPong with the echo in another
// process, as a gateway's agent is: each side goes idle while the other
// works. Two processes alone on a machine are the case where direct system
// calls lose (see the package comment). The CPU time per round trip is this
// process's alone.
func BenchmarkPingPongProcess(b *testing.B) {
	for _, wrap := range []bool{false, true} {
		b.Run(impl(wrap), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "echo")
			cmd := exec.Command(os.Args[0], "-test.run=^TestEchoProcess$")
			cmd.Env = append(os.Environ(), "SOCKIO_ECHO="+path, fmt.Sprintf("SOCKIO_WRAP=%v", wrap))
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			// The echo process says "ready" once it listens.
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
				b.Fatalf("echo process: %q, %v", line, err)
			}
			var c net.Conn
			if wrap {
				c, err = (&Dialer{}).DialContext(b.Context(), "unix", path)
			} else {
				c, err = (&net.Dialer{}).DialContext(b.Context(), "unix", path)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			pingPong(b, c)
		})
	}
}

// TestEchoProcess is the echo of BenchmarkPingPongProcess when run as its
// child; otherwise it does nothing.
func TestEchoProcess(t *testing.T) {
	path := os.Getenv("SOCKIO_ECHO")
	if path == "" {
		t.Skip("the echo process of BenchmarkPingPongProcess")
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SOCKIO_WRAP") == "true" {
		l = Listener{Listener: l}
	}
	fmt.Println("ready")
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	echo(c)
}

// impl names the implementation a test or benchmark runs.
func impl(wrap bool) string {
	if wrap {
		return "sockio"
	}
	return "net"
}

// pingSize is what each side of a ping-pong sends: about a signed request.
const pingSize = 2048

// pingPong sends pingSize bytes on c and reads as many back, b.N times.
func pingPong(b *testing.B, c net.Conn) {
	buf := make([]byte, pingSize)
	b.SetBytes(2 * pingSize)
	defer benchcpu.Start(b)()
	for b.Loop() {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// echo sends back what it reads on c, pingSize bytes at a time, until c ends.
func echo(c net.Conn) {
	buf := make([]byte, pingSize)
	for {
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		if _, err := c.Write(buf); err != nil {
			return
		}
	}
}

// A write to a connection its peer has closed fails with EPIPE or
// ECONNRESET, as through package net, and the SIGPIPE it raises does not
// end the process.
func TestWriteAfterPeerClosed(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		s.Close()
		var err error
		for i := 0; i < 100 && err == nil; i++ {
			_, err = c.Write(make([]byte, 4096))
			time.Sleep(time.Millisecond)
		}
		if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("writing to a closed peer: %v, want EPIPE or ECONNRESET", err)
		}
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Op != "write" {
			t.Fatalf("err = %#v, want a *net.OpError of write", err)
		}
	})
}

// Writes from many goroutines at once each arrive whole, never interleaved
// with another's, as package net promises.
func TestConcurrentWritesStayWhole(t *testing.T) {
	eachWay(t, func(t *testing.T, c, s net.Conn) {
		const writers, each, size = 8, 50, 10000
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				rec := bytes.Repeat([]byte{byte('a' + w)}, size)
				for range each {
					if _, err := c.Write(rec); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		go func() { wg.Wait(); c.Close() }()
		got, err := io.ReadAll(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != writers*each*size {
			t.Fatalf("read %d bytes, want %d", len(got), writers*each*size)
		}
		for i := 0; i < len(got); i += size {
			if rec := got[i : i+size]; bytes.Count(rec, rec[:1]) != size {
				t.Fatalf("record at %d is interleaved", i)
			}
		}
	})
}
