package bench

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// memStats is what a benchmark gateway reports of its memory when asked
// (SIGUSR1), after collecting garbage.
type memStats struct {
	Heap       uint64 `json:"heap_alloc"` // live objects, after a collection
	Stacks     uint64 `json:"stack_inuse"`
	RSS        uint64 `json:"rss"`
	Goroutines int    `json:"goroutines"`
	Seq        int    `json:"seq"`
}

// ReportMemory writes the process's memory to path, and a heap profile to
// path.heap, each time it receives SIGUSR1, until ctx ends.
func ReportMemory(ctx context.Context, path string) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		defer signal.Stop(sig)
		for seq := 1; ; seq++ {
			select {
			case <-sig:
			case <-ctx.Done():
				return
			}
			// Each collection at most halves a goroutine's oversized
			// stack, so stacks left large by earlier work keep shrinking
			// over several; collect until they stop, or a reading's
			// stacks could shrink by more than what it measures adds.
			var ms runtime.MemStats
			debug.FreeOSMemory()
			runtime.ReadMemStats(&ms)
			for range 8 {
				stacks := ms.StackInuse
				debug.FreeOSMemory()
				runtime.ReadMemStats(&ms)
				if ms.StackInuse >= stacks {
					break
				}
			}
			st := memStats{Heap: ms.HeapAlloc, Stacks: ms.StackInuse, RSS: rss(), Goroutines: runtime.NumGoroutine(), Seq: seq}
			if f, err := os.Create(path + ".heap"); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			b, _ := json.Marshal(st)
			tmp := path + ".tmp"
			if os.WriteFile(tmp, b, 0o600) == nil {
				os.Rename(tmp, path)
			}
		}
	}()
}

// rss is the resident set of this process.
func rss() uint64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// memory asks the gateway for its memory and waits for the answer.
func (c *child) memory(ctx context.Context) (memStats, error) {
	c.memSeq++
	c.cmd.Process.Signal(syscall.SIGUSR1)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var st memStats
		if b, err := os.ReadFile(c.memPath); err == nil && json.Unmarshal(b, &st) == nil && st.Seq >= c.memSeq {
			return st, nil
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return memStats{}, ctx.Err()
		}
	}
	return memStats{}, fmt.Errorf("gateway %s did not report its memory", c.org)
}

// settledMemory is the gateway's memory once its goroutines stop
// exiting: those of earlier work (workers linger for a while after their
// last message, handshakes end) would otherwise leave between two readings
// and hide what was added between them.
func (c *child) settledMemory(ctx context.Context) (memStats, error) {
	last, err := c.memory(ctx)
	for i := 0; err == nil && i < 20; i++ {
		select {
		case <-time.After(500 * time.Millisecond):
		case <-ctx.Done():
			return last, ctx.Err()
		}
		var st memStats
		if st, err = c.memory(ctx); err == nil {
			if st.Goroutines >= last.Goroutines {
				return st, nil
			}
			last = st
		}
	}
	return last, err
}

// IdleResult is the memory an idle WebSocket session costs the gateway
// that accepted it.
type IdleResult struct {
	Sessions      int     `json:"sessions"`
	Goroutines    float64 `json:"goroutines_per_session"`
	BytesPerHeap  float64 `json:"heap_and_stack_bytes_per_session"`
	StackPerSess  float64 `json:"of_which_stack_bytes"`
	BytesPerRSS   float64 `json:"rss_bytes_per_session"`
	TargetPerSess float64 `json:"target_bytes_per_session"`
}

// idleSessions opens n WebSocket sessions to globex's gateway as a third
// organisation that globex trusts, each with its own handshake, leaves them
// idle and measures how globex's memory grew: its heap and goroutine stacks
// after a collection, and its resident set.
func (b *bench) idleSessions(ctx context.Context, globex *child, n int) (IdleResult, error) {
	res := IdleResult{Sessions: n, TargetPerSess: 20 << 10}
	org, err := gateway.LoadOrg(b.idle, nil)
	if err != nil {
		return res, err
	}
	now := time.Now()
	cert, err := (&identity.Org{Name: org.Ref.Org, Signing: org.Signing}).IssueIdentity(org.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		return res, err
	}
	trust := identity.NewTrustStore()
	trust.Add(b.globexDoc.Org, b.globexDoc.OrgKey)
	hs := &handshake.Config{Identity: org, Cert: cert, Trust: trust, Codec: wire.NewCodec(wire.Limits{})}
	peer := handshake.Peer{Ref: wire.Ref{Agent: gateway.GatewayAgent, Org: b.globexDoc.Org}, Key: b.globexDoc.OrgKey}
	tlsCfg, err := pinnedTLS(b.globexDoc.TLSPin)
	if err != nil {
		return res, err
	}
	url := "ws" + strings.TrimPrefix(strings.TrimRight(b.globexDoc.Endpoint, "/"), "http") + "/moltspeak/v0.1/stream"
	dialer := websocket.Dialer{TLSClientConfig: tlsCfg, HandshakeTimeout: 5 * time.Second, ReadBufferSize: 1024, WriteBufferSize: 1024}

	before, err := globex.settledMemory(ctx)
	if err != nil {
		return res, err
	}
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for len(conns) < n {
		c, resp, err := dialer.DialContext(ctx, url, nil)
		if err != nil {
			return res, fmt.Errorf("idle session %d: %w", len(conns)+1, err)
		}
		resp.Body.Close()
		hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = handshake.NewInitiator(hs, peer).Run(hctx, wsHandshake{c})
		cancel()
		if err != nil {
			c.Close()
			// The gateway takes a few handshakes a second from one
			// address; wait for the next.
			var we *wire.Error
			if errors.As(err, &we) && we.Code == wire.ErrRateLimit {
				time.Sleep(120 * time.Millisecond)
				continue
			}
			return res, fmt.Errorf("idle session %d: %w", len(conns)+1, err)
		}
		c.SetReadDeadline(time.Time{})
		conns = append(conns, c)
	}
	after, err := globex.settledMemory(ctx)
	if err != nil {
		return res, err
	}
	res.Goroutines = float64(after.Goroutines-before.Goroutines) / float64(n)
	res.BytesPerHeap = (float64(after.Heap+after.Stacks) - float64(before.Heap+before.Stacks)) / float64(n)
	res.StackPerSess = (float64(after.Stacks) - float64(before.Stacks)) / float64(n)
	res.BytesPerRSS = (float64(after.RSS) - float64(before.RSS)) / float64(n)
	return res, nil
}

// wsHandshake carries the handshake on a WebSocket.
type wsHandshake struct{ c *websocket.Conn }

func (t wsHandshake) Send(ctx context.Context, b []byte) error {
	if d, ok := ctx.Deadline(); ok {
		t.c.SetWriteDeadline(d)
	}
	return t.c.WriteMessage(websocket.TextMessage, b)
}

func (t wsHandshake) Receive(ctx context.Context) ([]byte, error) {
	if d, ok := ctx.Deadline(); ok {
		t.c.SetReadDeadline(d)
	}
	_, b, err := t.c.ReadMessage()
	return b, err
}

// pinnedTLS accepts exactly the certificate whose public key hashes to pin
// ("sha256:" and base64), as a gateway checks its peers'.
func pinnedTLS(pin string) (*tls.Config, error) {
	want, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(pin, gateway.PinPrefix))
	if err != nil || len(want) != sha256.Size || !strings.HasPrefix(pin, gateway.PinPrefix) {
		return nil, errors.New("bad TLS pin")
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		InsecureSkipVerify: true, // replaced by the pin check
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return gateway.ErrPinMismatch
			}
			c, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return gateway.ErrPinMismatch
			}
			sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
			if subtle.ConstantTimeCompare(sum[:], want) != 1 {
				return gateway.ErrPinMismatch
			}
			return nil
		},
	}, nil
}
