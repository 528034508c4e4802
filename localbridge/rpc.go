package localbridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/internal/coalesce"
	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/internal/workers"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
	"github.com/moltgate/moltgate/wire"
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
	Query     Querier       // agent.query and agent.cancel
	Directory Discoverer    // directory.discover
	Sync      Syncer        // directory.sync
	Ping      Pinger        // agent.ping
	Consent   ConsentIssuer // consent.issue
	Asker     ConsentAsker  // consent.request
	Approvals *Approvals    // tool.approve, approvals.list and the tool.request_approval notifications

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

	// MaxQueries bounds the queries one connection runs at once. Default: 64.
	MaxQueries int

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

	// Now tells the time. Default: time.Now.
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
		c.MaxQueries = 64
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
		c := &rpcConn{s: s, c: nc, ctx: ctx, cancel: cancel, sem: make(chan struct{}, s.cfg.MaxRequests)}
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

func notification(method string, params any) []byte {
	p, err := jsonrpc.MarshalValue(params)
	if err != nil {
		return nil
	}
	b, _ := jsonrpc.Marshal(jsonrpc.Request{JSONRPC: jsonrpc.Version, Method: method, Params: p})
	return b
}

// tokenNotification encodes a stream.token notification directly: one is
// sent for every piece of every streamed reply, and encoding/json (a map,
// then the request around it) cost as much as the rest of the face. The
// bytes are what json.Marshal of the same notification gives, keys in the
// same order.
func tokenNotification(queryID, text string, index int, channel string) []byte {
	b := make([]byte, 0, 128+len(text)+len(queryID))
	b = append(b, `{"jsonrpc":"2.0","method":"`+NotifyToken+`","params":{"index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"metadata":{"channel":`...)
	b = wire.AppendCanonical(b, wire.StringValue(channel))
	b = append(b, `,"type":"text"},"query_id":`...)
	b = wire.AppendCanonical(b, wire.StringValue(queryID))
	b = append(b, `,"token":`...)
	b = wire.AppendCanonical(b, wire.StringValue(text))
	return append(b, "}}\n"...)
}

// blockNotification encodes a stream.block directly, as tokenNotification
// does a stream.token; content must be valid JSON on one line.
func blockNotification(queryID string, n int, content json.RawMessage, channel string) []byte {
	b := make([]byte, 0, 192+len(content)+2*len(queryID))
	b = append(b, `{"jsonrpc":"2.0","method":"`+NotifyBlock+`","params":{"block":{"content":`...)
	b = append(b, content...)
	b = append(b, `,"format":"json","metadata":{"channel":`...)
	b = wire.AppendCanonical(b, wire.StringValue(channel))
	b = append(b, `},"type":"tool_output"},"block_id":`...)
	b = wire.AppendCanonical(b, wire.StringValue(blockID(queryID, n)))
	b = append(b, `,"query_id":`...)
	b = wire.AppendCanonical(b, wire.StringValue(queryID))
	return append(b, "}}\n"...)
}

func blockID(queryID string, n int) string { return queryID + "-b" + strconv.Itoa(n) }

// completeNotification encodes a successful query's stream.complete directly,
// for the same reason as tokenNotification: through encoding/json the result
// was compacted and checked a second time, and the map around it reflected
// on. result must be valid JSON; it is written as it is. The bytes are those
// of json.Marshal of the same notification but for HTML escaping, which
// JSON does not need.
func completeNotification(queryID string, result json.RawMessage, meta queryMeta) []byte {
	b := make([]byte, 0, 192+len(result)+len(queryID))
	b = append(b, `{"jsonrpc":"2.0","method":"`+NotifyComplete+`","params":{"metadata":{"blocks":`...)
	b = strconv.AppendInt(b, int64(meta.Blocks), 10)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, meta.DurationMS, 10)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(meta.Tokens), 10)
	b = append(b, `},"query_id":`...)
	b = wire.AppendCanonical(b, wire.StringValue(queryID))
	b = append(b, `,"result":`...)
	b = append(b, result...)
	b = append(b, `,"status":"`+OutcomeSuccess+`"}}`+"\n"...)
	return b
}

// queryMeta is the metadata of a query's stream.complete.
type queryMeta struct {
	Blocks     int   `json:"blocks"`
	DurationMS int64 `json:"duration_ms"`
	Tokens     int   `json:"tokens"`
}

// rpcQuery is one running agent.query.
type rpcQuery struct {
	id        string
	conn      *rpcConn
	cancel    context.CancelFunc
	cancelled atomic.Bool
}

// rpcConn is one client connection.
type rpcConn struct {
	s      *RPCServer
	c      net.Conn
	ctx    context.Context // ends with the connection
	cancel context.CancelFunc
	sem    chan struct{}
	lines  *workers.Pool[rpcLine]
	wg     sync.WaitGroup   // lines being answered
	q      *coalesce.Writer // what is written to the client

	mu          sync.Mutex
	initialized bool
	approvals   chan []byte     // nil unless the client asked for approval notifications
	announced   map[string]bool // held calls this client was told of and not yet of their end
	queries     int
	closeOnce   sync.Once
}

func (c *rpcConn) close() {
	c.closeOnce.Do(func() {
		c.cancel()
		c.c.Close()
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
	})
}

func (c *rpcConn) serve() {
	defer c.close()
	defer c.q.Sync() // the answers go out before the connection closes
	r := jsonrpc.NewReader(c.c, c.s.cfg.MaxMessageBytes)
	defer c.wg.Wait()
	for {
		line, err := r.ReadLine()
		if err != nil {
			if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
				c.respond(false, []*jsonrpc.Response{{JSONRPC: jsonrpc.Version, ID: json.RawMessage("null"),
					Error: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the message exceeds %d bytes", c.s.cfg.MaxMessageBytes)}})
			}
			return
		}
		reqs, errs, batch := jsonrpc.Parse(line)
		if batch && len(reqs)+len(errs) > c.s.cfg.MaxBatch {
			c.respond(false, []*jsonrpc.Response{{JSONRPC: jsonrpc.Version, ID: json.RawMessage("null"),
				Error: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the batch holds more than %d requests", c.s.cfg.MaxBatch)}})
			continue
		}
		// initialize is answered before the next line is read, so that requests pipelined
		// behind it find the connection initialised.
		if !batch && len(reqs) == 1 && reqs[0].Method == MethodInitialize {
			runAfters(c.handle(reqs, errs, batch))
			continue
		}
		select {
		case c.sem <- struct{}{}:
		case <-c.ctx.Done():
			return
		}
		c.wg.Add(1)
		c.lines.Go(rpcLine{reqs, errs, batch})
	}
}

// rpcLine is one line's requests, parsed.
type rpcLine struct {
	reqs  []*jsonrpc.Request
	errs  []*jsonrpc.Response
	batch bool
}

// rpcWorkerLinger is how long a connection's worker goroutine waits for the
// next line before it exits (see package workers).
const rpcWorkerLinger = 2 * time.Second

// answer answers a line taken in, then runs what follows.
func (c *rpcConn) answer(l rpcLine) {
	// The request is done once answered: a query's exchange that
	// follows counts against MaxQueries, not MaxRequests, and a
	// connection that closes does not wait for it.
	afters := c.handle(l.reqs, l.errs, l.batch)
	<-c.sem
	c.wg.Done()
	runAfters(afters)
}

// handle answers the requests of one line and returns what must follow the answers.
func (c *rpcConn) handle(reqs []*jsonrpc.Request, errs []*jsonrpc.Response, batch bool) []func() {
	responses := errs
	var afters []func()
	checked := true // every result came from MarshalValue
	for _, r := range reqs {
		result, rerr, after := c.dispatch(r)
		if after != nil {
			afters = append(afters, after)
		}
		if r.IsNotification() {
			continue
		}
		resp := &jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: r.ID, Error: rerr}
		if rerr == nil {
			_, isRaw := result.(json.RawMessage)
			checked = checked && !isRaw
			raw, err := jsonrpc.Result(result)
			if err != nil {
				resp.Error = jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error")
			} else {
				resp.Result = raw
			}
		}
		responses = append(responses, resp)
	}
	if !batch && len(responses) == 1 && checked {
		if b, err := jsonrpc.MarshalResponse(responses[0]); err == nil {
			c.write(b)
		}
		return afters
	}
	c.respond(batch, responses)
	return afters
}

// runAfters runs what must follow the answers of a line: a query's whole
// exchange, for one. The last runs on the calling goroutine, which has
// nothing else to do, and any others of a batch beside it.
func runAfters(afters []func()) {
	for i, f := range afters {
		if i == len(afters)-1 {
			f()
		} else {
			go f()
		}
	}
}

func (c *rpcConn) respond(batch bool, responses []*jsonrpc.Response) {
	if len(responses) == 0 {
		return
	}
	var v any = responses[0]
	if batch {
		v = responses
	}
	b, err := jsonrpc.Marshal(v)
	if err != nil {
		return
	}
	c.write(b)
}

// write sends one line. Lines sent while a write is in progress go out together in the
// next; a client that does not take them within WriteTimeout is disconnected.
func (c *rpcConn) write(b []byte) error { return c.q.Write(b) }

func (c *rpcConn) flush(buf []byte, _ []int) error {
	c.c.SetWriteDeadline(time.Now().Add(c.s.cfg.WriteTimeout))
	if _, err := c.c.Write(buf); err != nil {
		go c.close()
		return err
	}
	return nil
}

func (c *rpcConn) notify(method string, params any) error {
	b := notification(method, params)
	if b == nil {
		return errors.New("encode notification")
	}
	return c.write(b)
}

// queueApproval hands an approval notification to the connection's sender without waiting:
// a slow terminal loses notifications (approvals.list still shows everything pending) rather
// than holding up the gateway. Each held call is announced once, and its end only if it was.
func (c *rpcConn) queueApproval(id string, resolved bool, msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.approvals == nil || msg == nil || c.announced[id] == !resolved {
		return
	}
	select {
	case c.approvals <- msg:
		if resolved {
			delete(c.announced, id)
		} else {
			c.announced[id] = true
		}
	default:
		c.s.log.Warn("approval notification dropped: the client reads too slowly")
	}
}

func (c *rpcConn) sendApprovals(ch chan []byte) {
	for {
		select {
		case msg := <-ch:
			if c.write(msg) != nil {
				return
			}
		case <-c.ctx.Done():
			return
		}
	}
}

func (c *rpcConn) dispatch(r *jsonrpc.Request) (any, *jsonrpc.Error, func()) {
	if r.Method == MethodInitialize {
		return c.initialize(r)
	}
	c.mu.Lock()
	ready := c.initialized
	c.mu.Unlock()
	if !ready {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the connection is not initialized: call initialize first"), nil
	}
	s := c.s
	switch {
	case r.Method == MethodQuery && s.cfg.Query != nil:
		return c.query(r)
	case r.Method == MethodCancel && s.cfg.Query != nil:
		res, err := c.cancelQuery(r)
		return res, err, nil
	case r.Method == MethodApprove && s.cfg.Approvals != nil:
		res, err := c.approve(r)
		return res, err, nil
	case r.Method == MethodApprovalsList && s.cfg.Approvals != nil:
		now := s.cfg.Now()
		list := []ApprovalInfo{}
		for _, a := range s.cfg.Approvals.Pending() {
			list = append(list, approvalInfo(a, now, s.liveQuery(a.CorrelationID)))
		}
		return map[string]any{"pending": list}, nil, nil
	case r.Method == MethodDiscover && s.cfg.Directory != nil:
		res, err := c.discover(r)
		return res, err, nil
	case r.Method == MethodSync && s.cfg.Sync != nil:
		res, err := c.sync(r)
		return res, err, nil
	case r.Method == MethodPing && s.cfg.Ping != nil:
		res, err := c.ping(r)
		return res, err, nil
	case r.Method == MethodConsentIssue && s.cfg.Consent != nil:
		res, err := c.issueConsent(r)
		return res, err, nil
	case r.Method == MethodConsentAsk && s.cfg.Asker != nil:
		res, err := c.askConsent(r)
		return res, err, nil
	case r.Method == MethodContextUpdate:
		return map[string]bool{"ok": true}, nil, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found"), nil
}

// methods lists what this face offers.
func (s *RPCServer) methods() (methods, caps []string) {
	methods = []string{MethodInitialize}
	caps = []string{}
	if s.cfg.Query != nil {
		methods = append(methods, MethodQuery, MethodCancel)
		caps = append(caps, "streaming", "blocks")
	}
	if s.cfg.Ping != nil {
		methods = append(methods, MethodPing)
	}
	if s.cfg.Approvals != nil {
		methods = append(methods, MethodApprove, MethodApprovalsList)
		caps = append(caps, "tool_approval")
	}
	if s.cfg.Directory != nil {
		methods = append(methods, MethodDiscover)
		caps = append(caps, "directory")
	}
	if s.cfg.Sync != nil {
		methods = append(methods, MethodSync)
	}
	if s.cfg.Consent != nil {
		methods = append(methods, MethodConsentIssue)
		caps = append(caps, "consent")
	}
	if s.cfg.Asker != nil {
		methods = append(methods, MethodConsentAsk)
	}
	return methods, caps
}

func (c *rpcConn) initialize(r *jsonrpc.Request) (any, *jsonrpc.Error, func()) {
	var p InitializeParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err, nil
	}
	if p.ProtocolVersion != "" && !strings.HasPrefix(p.ProtocolVersion, "1.") && p.ProtocolVersion != "1" {
		e := invalidParams("protocol_version", "unsupported protocol version")
		e.Data, _ = json.Marshal(map[string]any{"field": "protocol_version", "supported": []string{RPCProtocolVersion}})
		return nil, e, nil
	}
	methods, caps := c.s.methods()
	var after func()
	c.mu.Lock()
	c.initialized = true
	subscribe := slices.Contains(p.Capabilities, "tool_approval") && c.s.cfg.Approvals != nil && c.approvals == nil
	if subscribe {
		ch := make(chan []byte, 64)
		c.approvals, c.announced = ch, make(map[string]bool)
		after = func() { go c.sendApprovals(ch) }
	}
	c.mu.Unlock()
	if subscribe {
		// What waits already is shown too; a request also being broadcast is sent once.
		now := c.s.cfg.Now()
		for _, a := range c.s.cfg.Approvals.Pending() {
			c.queueApproval(a.ID, false, notification(NotifyRequestApproval, approvalInfo(a, now, c.s.liveQuery(a.CorrelationID))))
		}
	}
	return InitializeResult{
		Status:          "ready",
		ProtocolVersion: RPCProtocolVersion,
		ServerInfo:      ClientInfo{Name: "moltgate", Version: c.s.cfg.ServerVersion},
		Capabilities:    caps,
		Methods:         methods,
	}, nil, after
}

var (
	addressPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}(@[A-Za-z0-9_-]{1,128})?$`)
	namePattern    = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	capPattern     = regexp.MustCompile(`^[A-Za-z0-9*][A-Za-z0-9._*-]{0,127}$`)
	typePattern    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	classes        = []string{"pub", "int", "conf", "pii", "sec", "public", "internal", "confidential", "secret"}
)

// decodeParams decodes named parameters. Unknown members are ignored, as the IPC protocol's
// clients send more than any one server uses.
func decodeParams(raw json.RawMessage, v any) *jsonrpc.Error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return invalidParams("", "params must be an object")
	}
	if err := jsonrpc.Unmarshal(raw, v); err != nil {
		if jsonrpc.IsTypeError(err) {
			return invalidParams(jsonrpc.FieldOf(err), "a parameter has the wrong type")
		}
		return invalidParams("", "params cannot be read")
	}
	return nil
}

func invalidParams(field, msg string) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	if field != "" {
		e.Data, _ = json.Marshal(map[string]string{"field": field})
	}
	return e
}

// RPCErrorCode maps a MoltSpeak error code to the face's JSON-RPC error code:
//
//	E_PARSE, E_VERSION, E_SCHEMA, E_MISSING_FIELD, E_INVALID_PARAM,
//	E_TOO_LARGE, E_CAPABILITY_UNKNOWN, E_INVALID_PROFILE               -32602 invalid params
//	E_AUTH_FAILED, E_SIGNATURE, E_CAPABILITY, E_CONSENT,
//	E_CLASSIFICATION, E_VISIBILITY_DENIED, E_REPLAY, E_EXPIRED         -32005 permission denied
//	E_TIMEOUT                                                          -32003 timeout
//	E_TASK_FAILED                                                      -32002 tool error
//	E_INTERNAL                                                         -32603 internal error
//	anything else (E_AGENT_NOT_FOUND, E_RATE_LIMIT, E_PEER_UNAVAILABLE,
//	E_REGISTRY_UNAVAILABLE, E_SESSION_EXPIRED, ...)                    -32000 agent error
//
// A cancelled call is -32004, whatever its code.
func RPCErrorCode(moltspeakCode string) int {
	switch moltspeakCode {
	case "E_PARSE", "E_VERSION", "E_SCHEMA", "E_MISSING_FIELD", "E_INVALID_PARAM", "E_TOO_LARGE", "E_CAPABILITY_UNKNOWN", "E_INVALID_PROFILE":
		return jsonrpc.CodeInvalidParams
	case "E_AUTH_FAILED", "E_SIGNATURE", "E_CAPABILITY", "E_CONSENT", "E_CLASSIFICATION", "E_VISIBILITY_DENIED", "E_REPLAY", "E_EXPIRED":
		return jsonrpc.CodePermissionDenied
	case "E_TIMEOUT":
		return jsonrpc.CodeTimeout
	case "E_TASK_FAILED":
		return jsonrpc.CodeToolError
	case "E_INTERNAL":
		return jsonrpc.CodeInternalError
	}
	return jsonrpc.CodeAgentError
}

// rpcErrorData is the data of the face's errors: what a MoltSpeak-aware client needs.
type rpcErrorData struct {
	MoltSpeakCode string          `json:"moltspeak_code,omitempty"`
	Field         string          `json:"field,omitempty"`
	Recoverable   bool            `json:"recoverable,omitempty"`
	Status        string          `json:"status,omitempty"`
	Suggestion    json.RawMessage `json:"suggestion,omitempty"`
}

func (s *RPCServer) errorFor(err error) *jsonrpc.Error {
	o := s.cfg.ErrorOutcome(err)
	code := RPCErrorCode(o.Code)
	switch o.Status {
	case OutcomeCancelled:
		code = jsonrpc.CodeCancelled
	case OutcomeTimeout:
		code = jsonrpc.CodeTimeout
	}
	msg := o.Message
	if msg == "" {
		msg = "the request failed"
	}
	e := &jsonrpc.Error{Code: code, Message: msg}
	e.Data, _ = json.Marshal(rpcErrorData{MoltSpeakCode: o.Code, Field: o.Field, Recoverable: o.Recoverable, Status: o.Status, Suggestion: o.Suggestion})
	return e
}

func (c *rpcConn) query(r *jsonrpc.Request) (any, *jsonrpc.Error, func()) {
	s := c.s
	var q QueryRequest
	if err := decodeParams(r.Params, &q); err != nil {
		return nil, err, nil
	}
	switch {
	case !addressPattern.MatchString(q.To):
		return nil, invalidParams("to", "to must name an agent as agent@org"), nil
	case q.From != "" && !namePattern.MatchString(q.From):
		return nil, invalidParams("from", "from must name a local agent"), nil
	case q.Tool != "" && !toolNamePattern.MatchString(q.Tool):
		return nil, invalidParams("tool", "tool is not a valid tool name"), nil
	case len(q.Input) > 0 && q.Input[0] != '{':
		return nil, invalidParams("input", "input must be an object"), nil
	case q.Tool == "" && q.Message == "" && len(q.Input) == 0:
		return nil, invalidParams("message", "a query needs a message, an input or a tool"), nil
	case q.Class != "" && !slices.Contains(classes, q.Class):
		return nil, invalidParams("cls", "cls must be pub, int, conf, pii or sec"), nil
	case q.TimeoutMS < 0 || q.TimeoutMS > int64(24*time.Hour/time.Millisecond):
		return nil, invalidParams("timeout_ms", "timeout_ms must be between 0 and one day"), nil
	case len(q.Consent) > 16<<10:
		return nil, invalidParams("consent", "the consent token is too long"), nil
	case len(q.CorrelationID) > 256:
		return nil, invalidParams("correlation_id", "correlation_id is at most 256 bytes"), nil
	case len(q.Context) > 0 && q.Context[0] != '{':
		q.Context = nil
	}
	c.mu.Lock()
	if c.queries >= s.cfg.MaxQueries {
		c.mu.Unlock()
		e := jsonrpc.Errorf(jsonrpc.CodeAgentError, "too many queries on this connection")
		e.Data, _ = json.Marshal(rpcErrorData{MoltSpeakCode: msRateLimit, Recoverable: true})
		return nil, e, nil
	}
	c.queries++
	c.mu.Unlock()

	var b [9]byte
	if _, err := io.ReadFull(s.cfg.Rand, b[:]); err != nil {
		c.mu.Lock()
		c.queries--
		c.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error"), nil
	}
	q.QueryID = "q-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithCancel(c.ctx)
	if q.TimeoutMS > 0 {
		cancel()
		ctx, cancel = context.WithTimeout(c.ctx, time.Duration(q.TimeoutMS)*time.Millisecond)
	}
	rq := &rpcQuery{id: q.QueryID, conn: c, cancel: cancel}
	s.mu.Lock()
	s.queries[rq.id] = rq
	s.wg.Add(1)
	s.mu.Unlock()
	// The query runs once its query_id has been answered, so that no
	// notification of it comes first.
	return queryStarted{QueryID: rq.id, Status: "processing"}, nil, func() {
		defer s.wg.Done()
		c.runQuery(ctx, rq, q)
	}
}

// queryStarted is agent.query's answer: the query runs, and what it sends
// follows as notifications.
type queryStarted struct {
	QueryID string `json:"query_id"`
	Status  string `json:"status"`
}

// runQuery streams one query's reply as notifications and ends it with stream.complete.
func (c *rpcConn) runQuery(ctx context.Context, rq *rpcQuery, q QueryRequest) {
	s := c.s
	defer func() {
		rq.cancel()
		s.mu.Lock()
		delete(s.queries, rq.id)
		s.mu.Unlock()
		c.mu.Lock()
		c.queries--
		c.mu.Unlock()
	}()
	began := time.Now()
	tokens, blocks := 0, 0
	emit := func(ev StreamEvent) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		channel := ev.Channel
		if len(ev.Block) > 0 {
			blocks++
			if jsonrpc.Valid(ev.Block) && bytes.IndexByte(ev.Block, '\n') < 0 {
				return c.write(blockNotification(rq.id, blocks, ev.Block, channel))
			}
			return c.notify(NotifyBlock, map[string]any{
				"query_id": rq.id,
				"block_id": blockID(rq.id, blocks),
				"block":    map[string]any{"type": "tool_output", "format": "json", "content": ev.Block, "metadata": map[string]string{"channel": channel}},
			})
		}
		if channel == "" {
			channel = "stdout"
		}
		err := c.write(tokenNotification(rq.id, ev.Text, tokens, channel))
		tokens++
		return err
	}
	var res json.RawMessage
	var err error
	if ctx.Err() == nil {
		res, err = s.cfg.Query.Query(ctx, q, emit)
	} else {
		err = ctx.Err()
	}
	meta := queryMeta{DurationMS: time.Since(began).Milliseconds(), Tokens: tokens, Blocks: blocks}
	cancelled := rq.cancelled.Load()
	// The query is over before the client hears so: agent.cancel from now on finds nothing.
	s.mu.Lock()
	delete(s.queries, rq.id)
	s.mu.Unlock()
	if c.ctx.Err() != nil {
		return // the client is gone
	}
	if err == nil {
		if len(res) == 0 {
			res = json.RawMessage("{}")
		}
		switch {
		case !jsonrpc.Valid(res):
			err = errors.New("the reply's result is not valid JSON")
		case bytes.IndexByte(res, '\n') < 0:
			c.write(completeNotification(rq.id, res, meta))
			return
		default: // encoding/json compacts it onto one line
			c.notify(NotifyComplete, map[string]any{"query_id": rq.id, "status": OutcomeSuccess, "result": res, "metadata": meta})
			return
		}
	}
	status := s.cfg.ErrorOutcome(err).Status
	if cancelled {
		status = OutcomeCancelled
	}
	if status != OutcomeCancelled {
		e := s.errorFor(err)
		c.notify(NotifyError, map[string]any{"query_id": rq.id, "error": e})
	}
	c.notify(NotifyComplete, map[string]any{"query_id": rq.id, "status": status, "metadata": meta})
}

func (c *rpcConn) cancelQuery(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p struct {
		QueryID string `json:"query_id"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	rq := c.s.queries[p.QueryID]
	c.s.mu.Unlock()
	if rq == nil {
		return nil, invalidParams("query_id", "no running query has that id")
	}
	rq.cancelled.Store(true)
	rq.cancel()
	return map[string]any{"cancelled": true, "query_id": rq.id}, nil
}

func (c *rpcConn) approve(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p struct {
		ExecutionID string `json:"execution_id"`
		Approved    *bool  `json:"approved"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Approved == nil {
		return nil, invalidParams("approved", "approved is required")
	}
	if err := c.s.cfg.Approvals.Decide(p.ExecutionID, *p.Approved); err != nil {
		return nil, invalidParams("execution_id", "no pending approval has that execution_id")
	}
	status := DecisionDenied
	if *p.Approved {
		status = DecisionApproved
	}
	c.s.log.Info("tool call decided", "execution_id", p.ExecutionID, "status", status)
	return map[string]string{"status": status, "execution_id": p.ExecutionID}, nil
}

// MaxDiscoverLimit bounds the results of one directory.discover: one page
// of the registry.
const MaxDiscoverLimit = 100

func (c *rpcConn) discover(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p DiscoverRequest
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.Capability != "" && !capPattern.MatchString(p.Capability):
		return nil, invalidParams("capability", "capability is not a valid capability name")
	case p.Org != "" && !namePattern.MatchString(p.Org):
		return nil, invalidParams("org", "org is not a valid organisation name")
	case p.Limit < 0 || p.Limit > MaxDiscoverLimit:
		return nil, invalidParams("limit", fmt.Sprintf("limit must be between 1 and %d", MaxDiscoverLimit))
	}
	p.Query = r.Params
	if len(p.Query) == 0 {
		p.Query = json.RawMessage("{}")
	}
	res, err := c.s.cfg.Directory.Discover(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return res, nil
}

func (c *rpcConn) sync(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p SyncRequest
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Peer != "" && !namePattern.MatchString(p.Peer) {
		return nil, invalidParams("peer", "peer is not a valid organisation name")
	}
	res, err := c.s.cfg.Sync.SyncDirectory(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return res, nil
}

func (c *rpcConn) ping(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p PingRequest
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if !addressPattern.MatchString(p.Agent) {
		return nil, invalidParams("agent", "agent must name an agent as agent@org")
	}
	res, err := c.s.cfg.Ping.Ping(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return res, nil
}

func (c *rpcConn) askConsent(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p ConsentAsk
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	switch {
	case !strings.Contains(p.To, "@") || !addressPattern.MatchString(p.To):
		return nil, invalidParams("to", "to must name an agent as agent@org")
	case p.From != "" && (strings.Contains(p.From, "@") || !addressPattern.MatchString(p.From)):
		return nil, invalidParams("from", "from must name a local agent")
	case p.Purpose == "" || len(p.Purpose) > 256:
		return nil, invalidParams("purpose", "purpose is required, at most 256 bytes")
	case len(p.DataTypes) == 0 || len(p.DataTypes) > 16:
		return nil, invalidParams("data_types", "data_types lists one to 16 types")
	case len(p.Human) > 256 || len(p.Duration) > 64:
		return nil, invalidParams("human", "human or duration is too long")
	}
	for _, t := range p.DataTypes {
		if !typePattern.MatchString(t) {
			return nil, invalidParams("data_types", "a data type is not a valid name")
		}
	}
	ans, err := c.s.cfg.Asker.AskConsent(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return ans, nil
}

func (c *rpcConn) issueConsent(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p struct {
		ConsentRequest
		TTL        string `json:"ttl"`
		TTLSeconds int64  `json:"ttl_seconds"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	req := p.ConsentRequest
	switch {
	case !strings.Contains(req.Grantee, "@") || !addressPattern.MatchString(req.Grantee):
		return nil, invalidParams("grantee", "grantee must name an agent as agent@org")
	case req.Purpose == "" || len(req.Purpose) > 128:
		return nil, invalidParams("purpose", "purpose is required, at most 128 bytes")
	case len(req.DataTypes) == 0 || len(req.DataTypes) > 32:
		return nil, invalidParams("data_types", "data_types lists one to 32 types")
	case len(req.GrantedBy) > 256:
		return nil, invalidParams("granted_by", "granted_by is too long")
	}
	for _, t := range req.DataTypes {
		if !typePattern.MatchString(t) {
			return nil, invalidParams("data_types", "a data type is not a valid name")
		}
	}
	switch {
	case p.TTL != "" && p.TTLSeconds != 0:
		return nil, invalidParams("ttl", "give ttl or ttl_seconds, not both")
	case p.TTL != "":
		d, err := time.ParseDuration(p.TTL)
		if err != nil {
			return nil, invalidParams("ttl", "ttl is not a duration such as 1h")
		}
		req.TTL = d
	case p.TTLSeconds != 0:
		// A count past the longest ttl is refused as it is: multiplied into a Duration, a
		// huge one wraps around to one that passes.
		req.TTL = MaxConsentTTL + 1
		if p.TTLSeconds <= int64(MaxConsentTTL/time.Second) {
			req.TTL = time.Duration(p.TTLSeconds) * time.Second
		}
	default:
		req.TTL = time.Hour
	}
	if err := CheckConsentTTL(req.TTL); err != nil {
		return nil, invalidParams("ttl", "ttl "+err.Error())
	}
	tok, err := c.s.cfg.Consent.IssueConsent(c.ctx, req)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return map[string]string{"token": tok}, nil
}
