package localbridge

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/localbridge/jsonrpc"
	"github.com/moltgate/moltgate/wire"
)

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

// toolCompleteNotification encodes a tool.complete directly, as tokenNotification does a
// stream.token: one goes out for every tool call. The bytes are json.Marshal's of a
// ToolComplete.
func toolCompleteNotification(queryID, tool, status string, durationMS int64) []byte {
	b := make([]byte, 0, 160+2*len(queryID)+len(tool))
	b = append(b, `{"jsonrpc":"2.0","method":"`+NotifyToolComplete+`","params":{"execution_id":`...)
	b = wire.AppendCanonical(b, wire.StringValue(queryID))
	b = append(b, `,"query_id":`...)
	b = wire.AppendCanonical(b, wire.StringValue(queryID))
	b = append(b, `,"tool":`...)
	b = wire.AppendCanonical(b, wire.StringValue(tool))
	b = append(b, `,"status":`...)
	b = wire.AppendCanonical(b, wire.StringValue(status))
	b = append(b, `,"result":{"duration_ms":`...)
	b = strconv.AppendInt(b, durationMS, 10)
	return append(b, "}}}\n"...)
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
	case len(q.TraceParent) > 256 || len(q.TraceState) > 512:
		return nil, invalidParams("traceparent", "traceparent is at most 256 bytes and tracestate 512"), nil
	case len(q.Context) > 0 && q.Context[0] != '{':
		q.Context = nil
	}
	q, jerr := c.withContext(q)
	if jerr != nil {
		return nil, jerr, nil
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
	defer rq.cancel()
	began := time.Now()
	tokens, blocks, output := 0, 0, false
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
		switch {
		case err != nil:
		case channel == "status" && q.Tool != "":
			err = c.notify(NotifyToolProgress, ToolProgress{ExecutionID: rq.id, QueryID: rq.id,
				Progress: ProgressNote{Status: "processing", Message: ev.Text}})
		case channel == "status":
			phase := "analyzing"
			if output {
				phase = "generating"
			}
			err = c.notify(NotifyThinking, Thinking{QueryID: rq.id, Phase: phase, Message: ev.Text})
		case channel == "stdout":
			output = true
		}
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
	if err == nil {
		if len(res) == 0 {
			res = json.RawMessage("{}")
		}
		if !jsonrpc.Valid(res) {
			err = errors.New("the reply's result is not valid JSON")
		}
	}
	status := sessionStatus(err, cancelled, s.cfg.ErrorOutcome)
	// The query is over before the client hears so: its place under MaxQueries is free for the
	// query a client sends on reading stream.complete, and agent.cancel from now on finds nothing.
	c.mu.Lock()
	c.session.remember(SessionQuery{QueryID: rq.id, To: q.To, Tool: q.Tool, Status: status, At: s.cfg.Now().Unix()})
	c.queries--
	c.mu.Unlock()
	s.mu.Lock()
	delete(s.queries, rq.id)
	s.mu.Unlock()
	if c.ctx.Err() != nil {
		return // the client is gone
	}
	if q.Tool != "" {
		// The tool call's end, before the query's: the result itself is stream.complete's.
		c.write(toolCompleteNotification(rq.id, q.Tool, status, meta.DurationMS))
	}
	if err == nil {
		if bytes.IndexByte(res, '\n') < 0 {
			c.write(completeNotification(rq.id, res, meta))
			return
		}
		// encoding/json compacts it onto one line
		c.notify(NotifyComplete, map[string]any{"query_id": rq.id, "status": OutcomeSuccess, "result": res, "metadata": meta})
		return
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

// ToolProgress is a tool.progress notification: a status note the agent streamed while its
// tool runs. The execution is the query's tool call, so its id is the query's.
type ToolProgress struct {
	ExecutionID string       `json:"execution_id"`
	QueryID     string       `json:"query_id"`
	Progress    ProgressNote `json:"progress"`
}

// ProgressNote is what a tool.progress says.
type ProgressNote struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// ToolComplete is a tool.complete notification.
type ToolComplete struct {
	ExecutionID string             `json:"execution_id"`
	QueryID     string             `json:"query_id"`
	Tool        string             `json:"tool"`
	Status      string             `json:"status"`
	Result      ToolCompleteResult `json:"result"`
}

// ToolCompleteResult is a tool.complete's result: the call's duration; its output is
// stream.complete's.
type ToolCompleteResult struct {
	DurationMS int64 `json:"duration_ms"`
}

// Thinking is an agent.thinking notification: a status note the agent streamed while it
// works on a query: "analyzing" before it has written output, "generating" after.
type Thinking struct {
	QueryID string `json:"query_id"`
	Phase   string `json:"phase"`
	Message string `json:"message"`
}
