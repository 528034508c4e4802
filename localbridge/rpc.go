package localbridge

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/internal/coalesce"
	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/internal/workers"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// Querier sends a local caller's query or tool call to an agent, of this organisation or
// another, and streams the reply: emit receives its pieces in order, and the result is the
// final answer. An error from emit means the caller is gone; Query should stop and return.
type Querier interface {
	Query(ctx context.Context, req QueryRequest, emit func(StreamEvent) error) (json.RawMessage, error)
}

// Discoverer answers directory.discover with the discovery response
// ({"results": [...], "total": n, "has_more": bool}).
type Discoverer interface {
	Discover(ctx context.Context, req DiscoverRequest) (json.RawMessage, error)
}

// Syncer answers directory.sync: it pulls peer registries now, and says what
// each pull did ({"peers": [...]}).
type Syncer interface {
	SyncDirectory(ctx context.Context, req SyncRequest) (json.RawMessage, error)
}

// Pinger answers agent.ping with the agent's pong payload.
type Pinger interface {
	Ping(ctx context.Context, req PingRequest) (json.RawMessage, error)
}

// ConsentIssuer answers consent.issue with a signed consent token.
type ConsentIssuer interface {
	IssueConsent(ctx context.Context, req ConsentRequest) (string, error)
}

// ConsentAsker answers consent.request: it asks a peer's agent for a
// consent and returns the grant or the refusal.
type ConsentAsker interface {
	AskConsent(ctx context.Context, req ConsentAsk) (ConsentAnswer, error)
}

// RPCConfig configures the JSON-RPC face. A method whose dependency is nil is not offered.
type RPCConfig struct {
	Query     Querier        // agent.query and agent.cancel
	Directory Discoverer     // directory.discover
	Sync      Syncer         // directory.sync
	Ping      Pinger         // agent.ping
	Consent   ConsentIssuer  // consent.issue
	Asker     ConsentAsker   // consent.request
	Approvals *Approvals     // tool.approve, approvals.list and the tool.request_approval notifications
	Events    *events.Stream // events.subscribe, events.unsubscribe and the event notifications

	// ErrorOutcome says how an error from the dependencies above is reported. Default:
	// OutcomeOf, which knows this package's errors; the gateway supplies one that knows its
	// own as well.
	ErrorOutcome func(error) Outcome

	// Logger receives the face's log; requests are logged by method only, never with their
	// parameters. Default: slog.Default().
	Logger *slog.Logger

	// ServerVersion is reported by initialize. Default: "moltgate".
	ServerVersion string

	// MaxMessageBytes bounds one message from a client; a longer one closes the connection.
	// Default: 10 MiB.
	MaxMessageBytes int

	// MaxBatch bounds the requests of one batch; a longer batch is refused whole (-32600,
	// under a null id). A line is bounded by MaxMessageBytes, but the answers to a batch of
	// small requests are not: each discovery may list a hundred entries. Default: 100.
	MaxBatch int

	// MaxQueries bounds the queries one connection runs at once; one more is refused (-32000,
	// E_RATE_LIMIT, recoverable). Default: 3, the IPC protocol's "max concurrent queries".
	MaxQueries int

	// RequestsPerSecond bounds the requests one connection sends a second (a batch counts
	// each of its requests). A client that keeps above it is read more slowly; a burst of up to
	// a second's worth goes at once. Negative: no limit. Default: 100, the IPC protocol's
	// rate limit.
	RequestsPerSecond int

	// SessionDir is where session.save keeps sessions, one file each (ID.json, mode 0600).
	// Default: empty, and session.save and session.load are not offered.
	SessionDir string

	// MaxRequests bounds the requests one connection has in progress at once; reading waits
	// while it is reached. Default: 32.
	MaxRequests int

	// WriteTimeout bounds one write to a client; a client that stops reading for longer is
	// disconnected. Default: 10s.
	WriteTimeout time.Duration

	// MaxConns bounds the connections held at once. One more is answered with an error
	// (-32000, E_RATE_LIMIT, under a null id) and closed: each costs the gateway a file
	// descriptor, and a connection stays until its client closes it. Default: 1024.
	MaxConns int

	// PeerUIDs lists the user ids whose processes may connect. Default: the gateway's own.
	PeerUIDs []uint32

	// Rand is the source of query ids. Default: crypto/rand.Reader.
	Rand io.Reader

	// Now tells the time: of approvals, of the queries a session keeps, and the pace of
	// RequestsPerSecond. Default: time.Now.
	Now func() time.Time
}

func (c RPCConfig) withDefaults() RPCConfig {
	if c.ErrorOutcome == nil {
		c.ErrorOutcome = OutcomeOf
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ServerVersion == "" {
		c.ServerVersion = "moltgate"
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = jsonrpc.DefaultMaxMessageBytes
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 100
	}
	if c.MaxQueries <= 0 {
		c.MaxQueries = 3
	}
	if c.RequestsPerSecond == 0 {
		c.RequestsPerSecond = 100
	}
	if c.MaxRequests <= 0 {
		c.MaxRequests = 32
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.MaxConns <= 0 {
		c.MaxConns = 1024
	}
	if len(c.PeerUIDs) == 0 {
		c.PeerUIDs = []uint32{uint32(os.Getuid())}
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// RPCServer is the JSON-RPC 2.0 face for local callers: the CLI, apps and terminals. It speaks
// newline-delimited JSON-RPC on a Unix socket (see ListenUnix) as the OpenAgent-Terminal IPC
// protocol does.
type RPCServer struct {
	cfg   RPCConfig
	log   *slog.Logger
	unsub func()

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*rpcConn]struct{}
	queries   map[string]*rpcQuery
	refusing  chan struct{} // refused connections being closed
	sessionMu sync.Mutex    // serialises the session files' reads and writes
	closed    bool
	wg        sync.WaitGroup
}

// NewRPCServer returns a face configured by cfg.
func NewRPCServer(cfg RPCConfig) *RPCServer {
	cfg = cfg.withDefaults()
	s := &RPCServer{
		cfg:       cfg,
		log:       cfg.Logger,
		listeners: make(map[net.Listener]struct{}),
		conns:     make(map[*rpcConn]struct{}),
		queries:   make(map[string]*rpcQuery),
		refusing:  make(chan struct{}, maxRefusing),
	}
	if cfg.Approvals != nil {
		s.unsub = cfg.Approvals.Subscribe(s.broadcast)
	}
	return s
}

// Serve accepts connections on l until Shutdown or Close, and then returns ErrServerClosed.
func (s *RPCServer) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	backoff := acceptBackoff{log: s.log, face: "rpc socket"}
	full := false // the face refuses connections, and said so in the log
	for {
		nc, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			if backoff.retry(err) {
				continue
			}
			return fmt.Errorf("accept rpc connection: %w", err)
		}
		backoff.accepted()
		if !s.peerAllowed(nc) {
			nc.Close()
			continue
		}
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n >= s.cfg.MaxConns {
			if !full {
				full = true
				s.log.Warn("rpc connection refused", "reason", "too many connections", "max_conns", s.cfg.MaxConns)
			}
			s.refuseConn(nc)
			continue
		}
		full = false
		nc = sockio.Wrap(nc)
		ctx, cancel := context.WithCancel(context.Background())
		c := &rpcConn{s: s, c: nc, ctx: ctx, cancel: cancel, sem: make(chan struct{}, s.cfg.MaxRequests), rate: newRateGate(s.cfg.RequestsPerSecond, s.cfg.Now)}
		c.q = coalesce.NewWriter(c.flush, coalesce.Options{Yield: true})
		c.lines = workers.New(ctx.Done(), rpcWorkerLinger, c.answer)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			cancel()
			nc.Close()
			return ErrServerClosed
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			c.serve()
		}()
	}
}

// maxRefusing bounds the refused connections held open at once (see refuseConn).
const maxRefusing = 64

// refuseConn tells a client the face holds all the connections it may, and closes its
// connection. The line fits in any socket's buffer, so the accept loop does not wait on it.
// The connection stays open for reading for up to a second, so that the client's first
// request is taken rather than refused with EPIPE before it reads why.
func (s *RPCServer) refuseConn(nc net.Conn) {
	e := jsonrpc.Errorf(jsonrpc.CodeAgentError, "the gateway holds too many local connections; close some and try again")
	e.Data, _ = json.Marshal(rpcErrorData{MoltSpeakCode: msRateLimit, Recoverable: true})
	if b, err := jsonrpc.Marshal(&jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: json.RawMessage("null"), Error: e}); err == nil {
		nc.SetWriteDeadline(time.Now().Add(time.Second))
		nc.Write(b)
	}
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		nc.Close()
		return
	}
	select {
	case s.refusing <- struct{}{}:
	default:
		nc.Close()
		return
	}
	uc.CloseWrite()
	go func() {
		defer func() { <-s.refusing }()
		defer nc.Close()
		nc.SetReadDeadline(time.Now().Add(time.Second))
		io.Copy(io.Discard, io.LimitReader(nc, 1<<20))
	}()
}

func (s *RPCServer) peerAllowed(nc net.Conn) bool {
	uc, ok := unixSocket(nc)
	if !ok {
		s.log.Warn("rpc connection refused", "reason", "not a unix socket connection")
		return false
	}
	uid, pid, err := peerCred(uc)
	if err != nil || !slices.Contains(s.cfg.PeerUIDs, uid) {
		s.log.Warn("rpc connection refused", "reason", "peer user id not allowed", "peer_uid", uid, "peer_pid", pid)
		return false
	}
	return true
}

// Shutdown stops accepting connections and waits for the running queries to finish, or for
// ctx to end; then it closes every connection.
func (s *RPCServer) Shutdown(ctx context.Context) error {
	s.stop()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		s.mu.Lock()
		n := len(s.queries)
		s.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-t.C:
			continue
		case <-ctx.Done():
		}
		break
	}
	s.closeConns()
	waited := make(chan struct{})
	go func() { s.wg.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close closes the face at once; running queries are cancelled.
func (s *RPCServer) Close() error {
	s.stop()
	s.closeConns()
	s.wg.Wait()
	return nil
}

func (s *RPCServer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		if s.unsub != nil {
			s.unsub()
		}
	}
	for l := range s.listeners {
		l.Close()
	}
}

func (s *RPCServer) closeConns() {
	s.mu.Lock()
	conns := make([]*rpcConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// broadcast shows approval events to the connections that asked for them.
func (s *RPCServer) broadcast(e ApprovalEvent) {
	var msg []byte
	resolved := e.Decision != ""
	if !resolved {
		msg = notification(NotifyRequestApproval, approvalInfo(e.Request, s.cfg.Now(), s.liveQuery(e.Request.CorrelationID)))
	} else {
		msg = notification(NotifyApprovalResolved, ApprovalResolved{ExecutionID: e.Request.ID, Status: e.Decision})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.queueApproval(e.Request.ID, resolved, msg)
	}
}

// liveQuery returns id if it names a running query of this face.
func (s *RPCServer) liveQuery(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.queries[id]; ok {
		return id
	}
	return ""
}
