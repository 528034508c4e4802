// Package local is the gateway's local room: what it answers for this
// organisation's own agents. A request the pipeline admitted for one of
// them becomes calls on the local bridge (tools, queries, tasks, pings),
// a peer's consent request goes to a person here through the approvals
// queue, and every reply goes back through the gate outbound before the
// gateway seals it. It also keeps the loop guard's table of the calls
// local agents are handling for peers, and issues this organisation's
// consent tokens.
package local

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// Agent is one of this organisation's agents as the room answers for it.
type Agent struct {
	// ID is its name in this organisation.
	ID string
	// QueryTool is the tool that answers its queries; "" for none.
	QueryTool string
	// Identity is its key pair: its replies and calls are signed with it.
	Identity *identity.Agent
	// Caps are the organisation's capability certificates for it, which
	// its calls to peers' tools carry.
	Caps []*identity.CapabilityCert
}

// Agents are the local agents the gateway holds.
type Agents interface {
	// Agent returns the agent of that id, and false if there is none.
	Agent(id string) (Agent, bool)
	// Only returns the one local agent, and false unless there is
	// exactly one: a local caller that names none speaks for it.
	Only() (Agent, bool)
}

// Peers are the gateway's peers, as local callers reach them.
type Peers interface {
	// Send passes m, signed with sk, through the gate outbound and sends
	// it to the gateway of m.To.Org, handing each message that comes back
	// to onMsg until it returns true or an error. An organisation that is
	// no peer is E_AGENT_NOT_FOUND.
	Send(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error
	// Key returns the org key held for peer org, and false if org is no
	// peer.
	Key(org string) (keys.Ed25519Public, bool)
}

// Directory is the gateway's registry, as local callers search it.
type Directory interface {
	// DiscoverLocal answers a discovery as a local caller sees the
	// directory; hidden adds unlisted and offline entries.
	DiscoverLocal(ctx context.Context, p *wire.DiscoverPayload, hidden bool) (wire.Value, error)
	// VerifyAttestations checks a peer's discovery answer against key,
	// the org key held for org.
	VerifyAttestations(data wire.Value, org string, key keys.Ed25519Public) error
}

// Observer records what the room does: the spans of its calls to agents,
// the audit trail of its replies, and the receipts of calls from peers.
type Observer interface {
	// BridgeCall starts the span of a call of agent's tool, and returns
	// the context to make it in, the trace context the agent is given as
	// the call's causation id, and what ends the span with the call's
	// outcome.
	BridgeCall(ctx context.Context, agent, tool string) (context.Context, string, func(error))
	// Outbound records the gate's decision on a reply. An error refuses a
	// reply the gate allowed: personal data that cannot be recorded as
	// transmitted does not leave.
	Outbound(ctx context.Context, r *wire.Message, d classify.Decision) error
	// Receipt starts, in r, the receipt of the peer's call it answers;
	// the Sealer then finishes it.
	Receipt(in *pipeline.Inbound, r *wire.Message) error
	// CallerTrace continues a local caller's trace context (W3C
	// traceparent and tracestate) in ctx.
	CallerTrace(ctx context.Context, parent, state string) context.Context
}

// Sealer seals a reply to an inbound message, signed by sk, the way the
// request came.
type Sealer interface {
	Seal(in *pipeline.Inbound, r *wire.Message, sk keys.Ed25519Private) ([]byte, error)
}

// Config is what New needs. Every field is required unless it says
// otherwise.
type Config struct {
	// Org is this gateway's organisation.
	Org string
	// Signer is gateway@org: its key signs the consent tokens the
	// organisation issues.
	Signer identity.Holder
	// Core is the local bridge the agents are connected to.
	Core *localbridge.Core
	// Agents are the agents the room answers for.
	Agents Agents
	// Pipe refuses what fails, and logs what the gate blocks.
	Pipe *pipeline.Pipeline
	// Seal seals the replies.
	Seal Sealer
	// Observe records what the room does. Default nothing.
	Observe Observer
	// Gate checks every reply outbound.
	Gate *classify.Gate
	// Grants carry a task's consent over to the answers about it.
	Grants classify.Grants
	// Scanner masks personal data and secrets in agents' error texts.
	Scanner *pii.Scanner
	// Approvals is the queue a person decides consent requests in.
	Approvals *localbridge.Approvals
	// QueryDone records a local caller's call once it is answered (the
	// gateway's event stream). Default none.
	QueryDone func(req localbridge.QueryRequest, start time.Time, err *error)
	// WithContext puts a local caller's context for the call into the ext
	// of the message that carries it to a peer, or refuses it. Default
	// ext alone.
	WithContext func(ext wire.Value, callerCtx json.RawMessage) (wire.Value, error)
	// Inbound records a peer's call of an agent once it is answered (the
	// gateway's event stream). Default none.
	Inbound func(m *wire.Message, start time.Time, ans *pipeline.Answer)
	// ExtContext adds to own, the context a call carries, what m's sender
	// put in its ext for the agent, or refuses it. Default own alone.
	ExtContext func(m *wire.Message, own json.RawMessage) (json.RawMessage, error)
	// CallContext is the context a call to agent carries for m (the
	// consent it comes under, say), or nil. Default none.
	CallContext func(m *wire.Message, agent string) json.RawMessage
	// Peers carry local callers' calls to peers.
	Peers Peers
	// Directory answers local callers' discovery.
	Directory Directory
	// Policy holds each agent's ceiling, which a call between two local
	// agents keeps.
	Policy *classify.Policy
	// Consents checks the consents local callers attach to calls between
	// local agents.
	Consents *consent.Verifier
	// Codec checks local callers' discovery queries.
	Codec *wire.Codec
	// Background runs f in the background, with a context that ends when
	// the gateway stops, unless the gateway is closing already. It carries
	// the cancel of a call a local caller gave up on to the peer.
	Background func(f func(ctx context.Context))
	// RequestTimeout bounds a call to an agent, besides the request's exp.
	RequestTimeout time.Duration
	// SessionTTL is how long a consent asked for "session" lasts.
	SessionTTL time.Duration
	// ChunkBytes is the largest stream chunk sent to a peer.
	ChunkBytes int
	// MaxHops is the longest chain of gateway crossings a call may belong
	// to (the loop guard).
	MaxHops int
	// Log receives the room's log. Default slog.Default().
	Log *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Rand is the source of ids. Default crypto/rand.
	Rand io.Reader
}

// Room answers for the local agents.
type Room struct {
	cfg       Config
	pipe      *pipeline.Pipeline
	core      *localbridge.Core
	agents    Agents
	seal      Sealer
	observe   Observer
	gate      *classify.Gate
	grants    classify.Grants
	scanner   *pii.Scanner
	approvals *localbridge.Approvals
	log       *slog.Logger
	now       func() time.Time
	rand      io.Reader
	peers     Peers
	calls     Calls // the calls local agents are handling for peers
}

// New builds the local room.
func New(cfg Config) *Room {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Observe == nil {
		cfg.Observe = unobserved{}
	}
	return &Room{cfg: cfg, pipe: cfg.Pipe, core: cfg.Core, agents: cfg.Agents, seal: cfg.Seal, observe: cfg.Observe, gate: cfg.Gate,
		grants: cfg.Grants, scanner: cfg.Scanner, approvals: cfg.Approvals, peers: cfg.Peers, log: cfg.Log, now: cfg.Now, rand: cfg.Rand}
}

// callContextOf is the context of the call m makes of agent.
func (s *Room) callContextOf(m *wire.Message, agent string) json.RawMessage {
	if s.cfg.CallContext == nil {
		return nil
	}
	return s.cfg.CallContext(m, agent)
}

// unobserved records nothing.
type unobserved struct{}

func (unobserved) BridgeCall(ctx context.Context, _, _ string) (context.Context, string, func(error)) {
	return ctx, "", func(error) {}
}
func (unobserved) Outbound(context.Context, *wire.Message, classify.Decision) error { return nil }
func (unobserved) Receipt(*pipeline.Inbound, *wire.Message) error                   { return nil }
func (unobserved) CallerTrace(ctx context.Context, _, _ string) context.Context     { return ctx }

// Calls returns the calls local agents are handling for peers.
func (s *Room) Calls() *Calls { return &s.calls }

// Answer turns a verified request for one of this organisation's agents
// into calls on the local bridge, and its results into replies:
//
//	tool invoke    core.tool.call of <agent>/<tool>; stream chunks come back as
//	               stream messages, the result as respond
//	tool list      respond with the agent's registered tools
//	query          core.tool.call of the agent's query tool
//	task create    an asynchronous call whose deadline becomes timeout_ms;
//	task status    answered from the call's state; task cancel cancels it
//	ping           pong from the agent's heartbeats
func (s *Room) Answer(ctx context.Context, in *pipeline.Inbound, emit func([]byte) error) (ans pipeline.Answer) {
	m := in.M
	st, ok := s.agents.Agent(m.To.Agent)
	if !ok {
		return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrAgentNotFound, "to.agent", "no agent %s at %s", m.To.Agent, s.cfg.Org))
	}
	if s.cfg.Inbound != nil {
		defer s.cfg.Inbound(m, s.now(), &ans)
	}
	ctx, cancel := s.callContext(ctx, m)
	defer cancel()
	if s.calls.Enter(m.ID, Call{Hops: pipeline.Hops(m), Org: m.From.Org, Cancel: cancel}) {
		defer s.calls.Leave(m.ID)
	}
	var (
		data wire.Value
		err  error
		op   = wire.OpRespond
	)
	switch p := m.Payload.(type) {
	case *wire.ToolPayload:
		if p.Action == "list" {
			data, err = s.toolList(m.To.Agent)
			break
		}
		data, err = s.callTool(ctx, in, st, p.Tool, p.Input, emit)
	case *wire.QueryPayload:
		tool := st.QueryTool
		if tool == "" {
			err = wire.Errorf(wire.ErrCapability, "to.agent", "agent %s answers no queries", m.To.Agent)
			break
		}
		input, _ := wire.ValueOf(p)
		data, err = s.callTool(ctx, in, st, tool, input, emit)
	case *wire.TaskPayload:
		return s.taskOp(ctx, in, st, p)
	case *wire.ConsentPayload:
		return s.consentOp(ctx, in, st, p)
	case *wire.PingPayload:
		return s.pong(in, st, p)
	default:
		err = wire.Errorf(wire.ErrInvalidParam, "op", "agents do not take %s messages", m.Op)
	}
	if err != nil {
		return s.callFailed(in, st, err)
	}
	r := m.Reply(op, &wire.RespondPayload{Status: "success", Data: data})
	return s.finish(ctx, in, st, r)
}

// callContext bounds a local call by the request's exp and the gateway's
// request timeout, whichever comes first.
func (s *Room) callContext(ctx context.Context, m *wire.Message) (context.Context, context.CancelFunc) {
	timeout := s.cfg.RequestTimeout
	if m.Exp != 0 {
		// exp is on the gateway's clock; the context's deadline on the
		// process's, so it is the time left that carries over.
		if left := time.UnixMilli(m.Exp).Sub(s.now()); left < timeout {
			timeout = left
		}
	}
	return context.WithTimeout(ctx, timeout) // ctx's own deadline still holds
}

// sealLocalReply fills in a reply from a local agent, passes it through the
// gate outbound, and seals it.
func (s *Room) sealLocalReply(ctx context.Context, in *pipeline.Inbound, st Agent, r *wire.Message) ([]byte, error) {
	return s.sealLocalReplyChecked(ctx, in, st, r, nil)
}

// sealLocalReplyChecked is sealLocalReply with the gate deciding on check,
// when given, in r's place: the same message with more in it.
func (s *Room) sealLocalReplyChecked(ctx context.Context, in *pipeline.Inbound, st Agent, r, check *wire.Message) ([]byte, error) {
	r.V, r.ID, r.TS, r.From = wire.Version, pipeline.NewMessageID(s.rand), s.now().UnixMilli(), st.Identity.Sender()
	gated := r
	if check != nil {
		check.V, check.ID, check.TS, check.From = r.V, r.ID, r.TS, r.From
		gated = check
	}
	d := s.gate.Check(ctx, gated, classify.Outbound, in.M.From.Org, pipeline.GateSession(in.Sess, true, true))
	if err := s.observe.Outbound(ctx, r, d); err != nil && d.Allow {
		return nil, err
	}
	if !d.Allow {
		s.pipe.LogBlock(r, classify.Outbound, d)
		if d.Reason == classify.ReasonPeerCeiling || d.Reason == classify.ReasonAgentCeiling {
			// The refusal goes to the peer, not to a local operator: the
			// rule, without this gateway's configuration and how to
			// change it.
			return nil, classify.RuleError(d.Reason, r.Cls)
		}
		return nil, d.Err
	}
	if err := s.observe.Receipt(in, r); err != nil {
		return nil, err
	}
	return s.seal.Seal(in, r, st.Identity.Signing)
}

// finish seals a local agent's final reply, or the refusal if the gate
// stops it.
func (s *Room) finish(ctx context.Context, in *pipeline.Inbound, st Agent, r *wire.Message) pipeline.Answer {
	body, err := s.sealLocalReply(ctx, in, st, r)
	if err != nil {
		return s.pipe.Refuse(in.M, in.Sess, err)
	}
	return pipeline.Answer{Body: body, Status: http.StatusOK}
}

// callFailed turns a failed local call into its reply: a cancelled call is
// a respond with status error; anything else an error message.
func (s *Room) callFailed(in *pipeline.Inbound, st Agent, err error) pipeline.Answer {
	var we *wire.Error
	if errors.As(err, &we) {
		return s.pipe.Refuse(in.M, in.Sess, we)
	}
	var le *localbridge.Error
	if errors.As(err, &le) && le.Code == localbridge.CodeUnknownTool {
		return s.pipe.Refuse(in.M, in.Sess, unknownTool(in.M))
	}
	o := localbridge.OutcomeOf(err)
	if o.Status == localbridge.OutcomeCancelled {
		data, _ := wire.ValueOf(map[string]string{"status": "cancelled"})
		r := in.M.Reply(wire.OpRespond, &wire.RespondPayload{Status: "error", Data: data})
		return s.finish(context.Background(), in, st, r)
	}
	// The agent's field is not a path the gateway made: it is masked
	// (agentError) rather than cut.
	return s.pipe.RefuseWith(in.M, in.Sess, s.agentError(o), func(f string) string { return f })
}

// agentError is the protocol error of a failed local call, with its
// message masked. An error goes back as cls pub, outside the gate, and may
// travel in the clear; but a failure's message is the agent's own text,
// which can hold what the gate exists to stop ("no account for
// jane@example.com", a connection string). Personal data and secrets in it
// become "[email]", "[secret]" and so on.
func (s *Room) agentError(o localbridge.Outcome) *wire.Error {
	we := outcomeError(o)
	we.Message = s.scanner.MaskString(we.Message)
	// The field is a path into the caller's input, whose keys are the
	// caller's text: masked the same way.
	we.Field = s.scanner.MaskString(we.Field)
	return we
}

// unknownTool is the refusal of a call of a tool the agent has not
// registered. Its field is where m named the tool: the generic outcome
// would say p.input.tool, a field of the input that need not exist. A query
// names no tool; the agent's record does, so that is not the caller's to
// mend.
func unknownTool(m *wire.Message) *wire.Error {
	fix := &wire.Suggestion{Action: wire.ActionRetry, Fix: `name one of the agent's tools; a tool message with action "list" lists them`}
	switch m.Payload.(type) {
	case *wire.ToolPayload:
		return &wire.Error{Code: wire.ErrInvalidParam, Field: "p.tool", Message: "the agent has no tool of that name", Suggestion: fix}
	case *wire.TaskPayload:
		return &wire.Error{Code: wire.ErrInvalidParam, Field: "p.type", Message: "the agent has no tool of that name", Suggestion: fix}
	}
	return &wire.Error{Code: wire.ErrTaskFailed, Message: "the agent's query tool is not available"}
}

// outcomeError makes the protocol error of a local call's outcome.
func outcomeError(o localbridge.Outcome) *wire.Error {
	c := wire.Code(o.Code)
	if !c.Known() {
		c = wire.ErrTaskFailed
	}
	field := ""
	if o.Field != "" {
		field = "p.input." + o.Field
	}
	msg := o.Message
	if msg == "" {
		msg = c.Text()
	}
	return &wire.Error{Code: c, Field: field, Message: msg}
}

// OutcomeOf tells the JSON-RPC face how the gateway's errors end a call.
func OutcomeOf(err error) localbridge.Outcome {
	if err == nil {
		return localbridge.Outcome{Status: localbridge.OutcomeSuccess} // without errors.As's allocation
	}
	var we *wire.Error
	if errors.As(err, &we) {
		o := localbridge.Outcome{Status: localbridge.OutcomeError, Code: string(we.Code), Field: we.Field,
			Recoverable: we.Code.Recoverable(), Message: we.Message}
		if sg := we.Payload().Suggestion; sg != nil {
			o.Suggestion, _ = json.Marshal(sg)
		}
		if we.Code == wire.ErrTimeout {
			o.Status = localbridge.OutcomeTimeout
		}
		return o
	}
	return localbridge.OutcomeOf(err)
}

func (s *Room) toolList(agent string) (wire.Value, error) {
	info, ok := s.core.Agent(agent)
	if !ok {
		return wire.Value{}, wire.Errorf(wire.ErrAgentNotFound, "to.agent", "no agent %s", agent)
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema,omitempty"`
		SideEffects bool            `json:"side_effects,omitempty"`
	}
	tools := make([]tool, 0, len(info.Tools))
	for _, t := range info.Tools {
		tools = append(tools, tool{t.Name, t.Description, t.InputSchema, t.SideEffects})
	}
	return wire.ValueOf(map[string]any{"tools": tools})
}

// pong answers a ping for a local agent from its heartbeats.
func (s *Room) pong(in *pipeline.Inbound, st Agent, p *wire.PingPayload) pipeline.Answer {
	r := in.M.Reply(wire.OpPong, s.Pong(st.ID, p.Nonce))
	return s.finish(context.Background(), in, st, r)
}

// Pong is a local agent's answer to a ping, from its heartbeats: offline
// when it is not connected.
func (s *Room) Pong(agent, nonce string) *wire.PongPayload {
	info, ok := s.core.Agent(agent)
	pp := &wire.PongPayload{Nonce: nonce, Status: "offline", CapabilitiesActive: []string{}}
	if !ok {
		return pp
	}
	switch {
	case info.Healthy:
		pp.Status = "alive"
	case info.Connected:
		pp.Status = "unhealthy"
	}
	pp.Load, pp.QueueDepth = info.Load, int64(info.Queued)
	if info.Healthy {
		pp.CapabilitiesActive = info.Capabilities()
	}
	return pp
}
