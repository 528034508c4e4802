package localbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// RPCError is an error from the JSON-RPC face.
type RPCError struct {
	Code          int    // the JSON-RPC error code, -32700 to -32005
	Message       string // safe text
	MoltSpeakCode string // the MoltSpeak code behind it, such as "E_TIMEOUT"; empty if none
	Field         string // the offending parameter or input field, if known
	Recoverable   bool
	Status        string // for a query: "error", "timeout" or "cancelled"
	// Suggestion is the MoltSpeak recovery hint, if any: the raw JSON of
	// the error payload's suggestion.
	Suggestion json.RawMessage
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("%d %s", e.Code, e.Message)
	if e.MoltSpeakCode != "" {
		s = e.MoltSpeakCode + ": " + s
	}
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	return s
}

func rpcError(err error) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return err
	}
	e := &RPCError{Code: je.Code, Message: je.Message}
	var d rpcErrorData
	if len(je.Data) > 0 && jsonrpc.Unmarshal(je.Data, &d) == nil {
		e.MoltSpeakCode, e.Field, e.Recoverable, e.Status, e.Suggestion = d.MoltSpeakCode, d.Field, d.Recoverable, d.Status, d.Suggestion
	}
	return e
}

// ClientOptions configures a Client.
type ClientOptions struct {
	// Name and Version identify the client in initialize. Default: "moltgate-client", "".
	Name, Version string

	// OnApproval, if set, subscribes the connection to approval notifications. It is called
	// for every call held for approval and every resolution, from the goroutine that reads the
	// connection, and must not block.
	OnApproval func(ApprovalNotice)

	// MaxMessageBytes bounds one message from the server. Default: 10 MiB.
	MaxMessageBytes int
}

// ApprovalNotice is one approval notification: a held call, or the end of its wait.
type ApprovalNotice struct {
	Request  *ApprovalInfo     // set for tool.request_approval
	Resolved *ApprovalResolved // set for tool.approval_resolved
}

// Client is a local caller's connection to the JSON-RPC face, the one the moltgate command's
// call, discover, ping and approvals subcommands use.
type Client struct {
	conn   *jsonrpc.Conn
	opts   ClientOptions
	server InitializeResult

	mu      sync.Mutex
	queries map[string]*clientQuery
}

type clientQuery struct {
	events chan *queryNotice
	done   chan struct{}
}

// queryNotice is a query's notification (stream.token, stream.block,
// stream.error, stream.complete): the reading goroutine decodes its params
// once, query_id and all, and the query's caller takes them as they are.
// One without a method says the query's agent.query request failed, and
// err why.
type queryNotice struct {
	method string
	err    error // the params did not decode (only QueryID is set), or agent.query failed

	QueryID  string                   `json:"query_id"`
	Token    string                   `json:"token"`
	Metadata struct{ Channel string } `json:"metadata"`
	Block    struct {
		Content  json.RawMessage          `json:"content"`
		Metadata struct{ Channel string } `json:"metadata"`
	} `json:"block"`
	Error  *jsonrpc.Error  `json:"error"`
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
}

// Dial connects to the face at path and initializes the connection.
func Dial(ctx context.Context, path string, opts ClientOptions) (*Client, error) {
	var d sockio.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("connect to gateway: %w", err)
	}
	return NewClient(ctx, nc, opts)
}

// NewClient initializes a connection to the face over nc.
func NewClient(ctx context.Context, nc net.Conn, opts ClientOptions) (*Client, error) {
	if opts.Name == "" {
		opts.Name = "moltgate-client"
	}
	c := &Client{opts: opts, queries: make(map[string]*clientQuery)}
	c.conn = jsonrpc.NewConn(nc, opts.MaxMessageBytes, c.notified)
	params := InitializeParams{ProtocolVersion: RPCProtocolVersion, ClientInfo: ClientInfo{Name: opts.Name, Version: opts.Version}, Capabilities: []string{"streaming", "blocks"}}
	if opts.OnApproval != nil {
		params.Capabilities = append(params.Capabilities, "tool_approval")
	}
	if err := c.conn.Call(ctx, MethodInitialize, params, &c.server); err != nil {
		c.conn.Close()
		return nil, fmt.Errorf("initialize: %w", rpcError(err))
	}
	return c, nil
}

// Server returns what the face said of itself in initialize.
func (c *Client) Server() InitializeResult { return c.server }

// Close closes the connection; running queries are cancelled by the face.
func (c *Client) Close() error { return c.conn.Close() }

// notified routes a notification, on the reading goroutine. Stream events wait for their
// query to take them, which holds back the face when the caller reads slowly.
func (c *Client) notified(method string, params json.RawMessage) {
	switch method {
	case NotifyRequestApproval, NotifyApprovalResolved:
		if c.opts.OnApproval == nil {
			return
		}
		var n ApprovalNotice
		if method == NotifyRequestApproval {
			n.Request = &ApprovalInfo{}
			if jsonrpc.Unmarshal(params, n.Request) != nil {
				return
			}
		} else {
			n.Resolved = &ApprovalResolved{}
			if jsonrpc.Unmarshal(params, n.Resolved) != nil {
				return
			}
		}
		c.opts.OnApproval(n)
	case NotifyToken, NotifyBlock, NotifyError, NotifyComplete:
		n := new(queryNotice)
		err := jsonrpc.Unmarshal(params, n)
		if err != nil {
			// The query it names still hears that it was malformed.
			var id struct {
				QueryID string `json:"query_id"`
			}
			if jsonrpc.Unmarshal(params, &id) != nil {
				return
			}
			n = &queryNotice{QueryID: id.QueryID, err: err}
		}
		n.method = method
		c.mu.Lock()
		q := c.queries[n.QueryID]
		c.mu.Unlock()
		if q == nil {
			return
		}
		select {
		case q.events <- n:
		case <-q.done:
		}
	}
}

// Query sends agent.query and streams the reply to onEvent, which may be nil. It returns the
// result once the face reports stream.complete. When ctx ends the query is cancelled at the
// face. Failures from the face are *RPCError values.
func (c *Client) Query(ctx context.Context, req QueryRequest, onEvent func(StreamEvent) error) (json.RawMessage, error) {
	q := &clientQuery{events: make(chan *queryNotice, 64), done: make(chan struct{})}
	// The query's id comes with the face's response, which the reading
	// goroutine takes without waking this one: the caller wakes for the
	// query's events (for a quick query, only for stream.complete). id is
	// guarded by c.mu, and so is q.done's closing, so that a response that
	// comes after the caller gave up is cancelled at the face, and one
	// that came before is cancelled here.
	var id string
	// On the way out the query is cancelled at the face unless it completed
	// there (or was never taken).
	completed := false
	defer func() {
		c.mu.Lock()
		close(q.done)
		qid := id
		if qid != "" {
			delete(c.queries, qid)
		}
		c.mu.Unlock()
		if qid != "" && !completed {
			c.cancel(qid)
		}
	}()
	err := c.conn.Send(MethodQuery, req, func(raw json.RawMessage, err error) {
		if err == nil {
			var r struct {
				QueryID string `json:"query_id"`
			}
			if jsonrpc.Unmarshal(raw, &r) != nil || r.QueryID == "" {
				err = errors.New("agent.query answered without a query_id")
			} else {
				c.mu.Lock()
				select {
				case <-q.done:
					c.mu.Unlock()
					go c.cancel(r.QueryID) // on another goroutine: this one reads the answer
				default:
					id = r.QueryID
					c.queries[id] = q
					c.mu.Unlock()
				}
				return
			}
		}
		select {
		case q.events <- &queryNotice{err: err}:
		case <-q.done:
		}
	})
	if err != nil {
		return nil, rpcError(err)
	}
	var streamErr *RPCError
	// take handles one event; done says the query is over, with out and err.
	take := func(p *queryNotice) (out json.RawMessage, err error, done bool) {
		if p.method == "" {
			return nil, rpcError(p.err), true
		}
		if p.err != nil {
			return nil, fmt.Errorf("read %s: %w", p.method, p.err), true
		}
		switch p.method {
		case NotifyToken:
			if onEvent != nil {
				err = onEvent(StreamEvent{Text: p.Token, Channel: p.Metadata.Channel})
			}
		case NotifyBlock:
			if onEvent != nil {
				err = onEvent(StreamEvent{Block: p.Block.Content, Channel: p.Block.Metadata.Channel})
			}
		case NotifyError:
			if p.Error != nil {
				streamErr, _ = rpcError(p.Error).(*RPCError)
			}
		case NotifyComplete:
			completed = true
			switch p.Status {
			case OutcomeSuccess:
				return p.Result, nil, true
			case OutcomeCancelled:
				return nil, &RPCError{Code: jsonrpc.CodeCancelled, Message: "the query was cancelled", Status: OutcomeCancelled}, true
			}
			if streamErr == nil {
				streamErr = &RPCError{Code: jsonrpc.CodeAgentError, Message: "the query failed"}
			}
			streamErr.Status = p.Status
			return nil, streamErr, true
		}
		return nil, err, err != nil
	}
	for {
		select {
		case p := <-q.events:
			if out, err, done := take(p); done {
				return out, err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.conn.Done():
			completed = true // nothing is left at the face to cancel
			// The reading goroutine queued every event it read before the
			// connection ended; select may have chosen the end first, and
			// what streamed must still reach the caller, in order.
			for drained := false; !drained; {
				select {
				case p := <-q.events:
					if out, err, done := take(p); done {
						return out, err
					}
				default:
					drained = true
				}
			}
			return nil, fmt.Errorf("connection to gateway lost: %w", c.conn.Err())
		}
	}
}

// cancel asks the face to stop a query the caller no longer waits for.
func (c *Client) cancel(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.conn.Call(ctx, MethodCancel, map[string]string{"query_id": id}, nil)
}

// Cancel cancels a running query by id, from any connection.
func (c *Client) Cancel(ctx context.Context, queryID string) error {
	return rpcError(c.conn.Call(ctx, MethodCancel, map[string]string{"query_id": queryID}, nil))
}

// Discover sends directory.discover. req.Query, when set, is sent as the whole discovery
// document; otherwise the common fields are.
func (c *Client) Discover(ctx context.Context, req DiscoverRequest) (json.RawMessage, error) {
	var params any = req
	if len(req.Query) > 0 {
		params = req.Query
	}
	var out json.RawMessage
	if err := c.conn.Call(ctx, MethodDiscover, params, &out); err != nil {
		return nil, rpcError(err)
	}
	return out, nil
}

// Sync sends directory.sync: the gateway pulls the registry of peer, or of
// every peer when peer is "", and says what each pull did.
func (c *Client) Sync(ctx context.Context, peer string) (json.RawMessage, error) {
	var out json.RawMessage
	if err := c.conn.Call(ctx, MethodSync, SyncRequest{Peer: peer}, &out); err != nil {
		return nil, rpcError(err)
	}
	return out, nil
}

// Ping sends agent.ping and returns the pong payload.
func (c *Client) Ping(ctx context.Context, agent string) (json.RawMessage, error) {
	var out json.RawMessage
	if err := c.conn.Call(ctx, MethodPing, PingRequest{Agent: agent}, &out); err != nil {
		return nil, rpcError(err)
	}
	return out, nil
}

// IssueConsent sends consent.issue and returns the token.
func (c *Client) IssueConsent(ctx context.Context, req ConsentRequest) (string, error) {
	params := struct {
		ConsentRequest
		TTL string `json:"ttl,omitempty"`
	}{ConsentRequest: req}
	if req.TTL > 0 {
		params.TTL = req.TTL.String()
	}
	var out struct {
		Token string `json:"token"`
	}
	if err := c.conn.Call(ctx, MethodConsentIssue, params, &out); err != nil {
		return "", rpcError(err)
	}
	return out.Token, nil
}

// AskConsent sends consent.request: it asks a peer's agent for a consent,
// and returns once the peer has granted or refused it.
func (c *Client) AskConsent(ctx context.Context, req ConsentAsk) (ConsentAnswer, error) {
	var out ConsentAnswer
	if err := c.conn.Call(ctx, MethodConsentAsk, req, &out); err != nil {
		return ConsentAnswer{}, rpcError(err)
	}
	return out, nil
}

// Approvals lists the calls waiting for approval, oldest first.
func (c *Client) Approvals(ctx context.Context) ([]ApprovalInfo, error) {
	var out struct {
		Pending []ApprovalInfo `json:"pending"`
	}
	if err := c.conn.Call(ctx, MethodApprovalsList, nil, &out); err != nil {
		return nil, rpcError(err)
	}
	return out.Pending, nil
}

// Approve answers a held call.
func (c *Client) Approve(ctx context.Context, executionID string, approved bool) error {
	return rpcError(c.conn.Call(ctx, MethodApprove, map[string]any{"execution_id": executionID, "approved": approved}, nil))
}
