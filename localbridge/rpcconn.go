package localbridge

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/internal/coalesce"
	"github.com/moltgate/moltgate/internal/workers"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

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
	rate   *rateGate        // used by serve only

	mu          sync.Mutex
	initialized bool
	approvals   chan []byte     // nil unless the client asked for approval notifications
	announced   map[string]bool // held calls this client was told of and not yet of their end
	queries     int
	session     connSession
	events      *events.Subscription // the event stream, once subscribed
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
		if c.rate.take(c.ctx, max(len(reqs)+len(errs), 1)) != nil {
			return
		}
		if batch && len(reqs)+len(errs) > c.s.cfg.MaxBatch {
			c.respond(false, []*jsonrpc.Response{{JSONRPC: jsonrpc.Version, ID: json.RawMessage("null"),
				Error: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the batch holds more than %d requests", c.s.cfg.MaxBatch)}})
			continue
		}
		// initialize is answered before the next line is read, so that requests pipelined
		// behind it find the connection initialised; so are context.update and session.load,
		// so that the queries behind them carry the context they set.
		if !batch && len(reqs) == 1 && inOrder(reqs[0].Method) {
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

// inOrder reports whether a request of method is answered before the next line is read.
func inOrder(method string) bool {
	switch method {
	case MethodInitialize, MethodContextUpdate, MethodSessionLoad:
		return true
	}
	return false
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
	case r.Method == MethodEventsSubscribe && s.cfg.Events != nil:
		return c.eventsSubscribe(r)
	case r.Method == MethodEventsUnsubscribe && s.cfg.Events != nil:
		res, err := c.eventsUnsubscribe(r)
		return res, err, nil
	case r.Method == MethodContextUpdate:
		res, err := c.contextUpdate(r)
		return res, err, nil
	case r.Method == MethodSessionSave && s.cfg.SessionDir != "":
		res, err := c.sessionSave(r)
		return res, err, nil
	case r.Method == MethodSessionLoad && s.cfg.SessionDir != "":
		res, err := c.sessionLoad(r)
		return res, err, nil
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
	methods = append(methods, MethodContextUpdate)
	caps = append(caps, "context_aware")
	if s.cfg.Events != nil {
		methods = append(methods, MethodEventsSubscribe, MethodEventsUnsubscribe)
		caps = append(caps, "events")
	}
	if s.cfg.SessionDir != "" {
		methods = append(methods, MethodSessionSave, MethodSessionLoad)
		caps = append(caps, "session_persistence")
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
