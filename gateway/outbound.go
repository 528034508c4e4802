package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

const (
	gateInbound  = classify.Inbound
	gateOutbound = classify.Outbound

	headerDeadline = "X-Moltgate-Deadline" // unix milliseconds
	contentNDJSON  = "application/x-ndjson"
)

var signMessage = crypto.Sign

// target parses "agent@org", or "agent" for one of this organisation's.
func (s *Server) target(to string) (wire.Ref, error) {
	if !strings.Contains(to, "@") {
		to += "@" + s.cfg.Org
	}
	r, err := wire.ParseRef(to)
	if err != nil {
		return wire.Ref{}, wire.Errorf(wire.ErrInvalidParam, "to", "want agent@org")
	}
	return r, nil
}

// sender picks the local agent a local caller speaks for.
func (s *Server) sender(from string) (*agentState, error) {
	if from == "" {
		if agents := s.localAgents(); len(agents) == 1 {
			for _, st := range agents {
				return st, nil
			}
		}
		return nil, wire.Errorf(wire.ErrInvalidParam, "from", "name the local agent to send as")
	}
	st := s.agent(from)
	if st == nil {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "from", "no local agent %s", from)
	}
	return st, nil
}

// Query sends a local caller's query or tool call (the JSON-RPC face's
// agent.query, and moltgate call) and streams the reply back.
func (s *Server) Query(ctx context.Context, req localbridge.QueryRequest, emit func(localbridge.StreamEvent) error) (res json.RawMessage, err error) {
	defer s.queryEvent(req, s.now(), &err)
	to, err := s.target(req.To)
	if err != nil {
		return nil, err
	}
	st, err := s.sender(req.From)
	if err != nil {
		return nil, err
	}
	ctx = withCallerTrace(ctx, req.TraceParent, req.TraceState)
	if req.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
		defer cancel()
	} else if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.Listen.RequestTimeout.D())
		defer cancel()
	}
	input := wire.ObjectValue()
	if len(req.Input) > 0 {
		v, err := wire.Parse(req.Input, 0)
		if err != nil {
			reason := err.Error()
			var we *wire.Error
			if errors.As(err, &we) {
				reason = we.Message
			}
			return nil, wire.Errorf(wire.ErrInvalidParam, "input", "not valid JSON: %s", reason)
		}
		if v.Kind() != wire.Object {
			return nil, wire.Errorf(wire.ErrInvalidParam, "input", "must be a JSON object")
		}
		input = v
	}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), From: st.id.Sender(), To: to, Cls: wire.Int}
	if req.Class != "" {
		c, ok := wire.ParseClass(req.Class)
		if !ok {
			return nil, wire.Errorf(wire.ErrInvalidParam, "cls", "must be one of pub, int, conf, pii, sec")
		}
		m.Cls = c
	}
	var tok *consent.Token
	if req.Consent != "" {
		if tok, err = s.attachConsent(m, req.Consent); err != nil {
			return nil, err
		}
	}
	if to.Org == s.cfg.Org {
		if err := s.checkLocalCall(ctx, m, st, tok); err != nil {
			return nil, err
		}
		return s.queryLocal(ctx, req, to, m.Cls, input, emit)
	}
	hops, err := s.local.NextHops(req.CorrelationID)
	if err != nil {
		return nil, err
	}
	if req.Tool != "" {
		m.Op = wire.OpTool
		m.Payload = &wire.ToolPayload{Action: "invoke", Tool: req.Tool, Input: input}
		m.Cap = []string{"tool.invoke"}
		m.Ext = capabilityExt(st)
	} else {
		if req.Message != "" {
			input = input.With("message", wire.StringValue(req.Message))
		}
		m.Op = wire.OpQuery
		m.Payload = &wire.QueryPayload{Domain: "general", Intent: "ask", Params: input}
	}
	if m.Ext.IsAbsent() && identity.Required(m.Op, m.Cls, m.Cap).Level == identity.Authorized {
		// A query of personal data or secrets needs level 4 at the peer as
		// a tool call does, and so the agent's capability certificates.
		m.Ext = capabilityExt(st)
	}
	m.Ext = local.WithHops(m.Ext, hops)
	if m.Ext, err = withContext(m.Ext, req.Context); err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = s.send(ctx, m, st, func(r *wire.Message) (bool, error) {
		switch p := r.Payload.(type) {
		case *wire.StreamPayload:
			// start and end frame the chunks; the respond that follows
			// ends the call.
			if emit == nil || p.Action != "chunk" {
				return false, nil
			}
			ev := localbridge.StreamEvent{Channel: p.Type}
			if str, ok := p.Data.Str(); ok {
				ev.Text = str
			} else if !p.Data.IsAbsent() {
				ev.Block = wire.AppendCanonical(nil, p.Data)
			}
			return false, emit(ev)
		case *wire.RespondPayload:
			if p.Status == "error" {
				return true, wire.Errorf(wire.ErrTaskFailed, "", "the call was cancelled or failed at %s", to)
			}
			out = wire.AppendCanonical(nil, p.Data)
			if p.Data.IsAbsent() {
				out = json.RawMessage("null")
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		s.cancelRemote(st, m.To, m.ID)
	}
	return out, err
}

// cancelRemote tells the organisation of to that the caller of call id
// gave up on it, so that the agent there stops: a task cancel naming the
// call, which the peer's gateway turns into core.tool.cancel. It goes in
// the background and at most once; the caller has its answer already, and
// a call that ended meanwhile is simply not found.
func (s *Server) cancelRemote(st *agentState, to wire.Ref, id string) {
	if s.closing.Load() {
		return // the peers' connections are closing too; their calls end with them
	}
	c := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpTask,
		From: st.id.Sender(), To: to, Cls: wire.Int, Payload: &wire.TaskPayload{Action: "cancel", TaskID: id}}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		ctx, cancel := context.WithTimeout(s.bgCtx, 5*time.Second)
		defer cancel()
		err := s.send(ctx, c, st, func(r *wire.Message) (bool, error) {
			_, ok := r.Payload.(*wire.RespondPayload)
			return ok, nil
		})
		if err != nil {
			s.log.Debug("cancel of a call not delivered", "peer", to.Org, "err", err.Error())
		}
	}()
}

// capabilityExt carries the org's capability certificates for the agent.
func capabilityExt(st *agentState) wire.Value {
	certs := make([]wire.Value, len(st.caps))
	for i, c := range st.caps {
		certs[i] = c.Value()
	}
	return wire.ObjectValue(wire.Member{Key: pipeline.ExtCapabilities, Value: wire.ObjectValue(wire.Member{Key: "certs", Value: wire.ArrayValue(certs...)})})
}

// attachConsent fills pii_meta from a consent token's claims, raises the
// class to pii, and returns the token parsed.
func (s *Server) attachConsent(m *wire.Message, token string) (*consent.Token, error) {
	tok, err := consent.Parse(token)
	if err != nil {
		return nil, wire.Errorf(wire.ErrConsent, "consent", "malformed consent token")
	}
	c := tok.Claims
	m.PIIMeta = &wire.PIIMeta{Types: c.DataTypes, Consent: &wire.Consent{GrantedBy: c.GrantedBy, Purpose: c.Purpose, Proof: token, Expires: c.Expires}}
	if m.Cls < wire.PII {
		m.Cls = wire.PII
	}
	return tok, nil
}

// send passes an outbound message through the gate and sends it to its
// organisation's gateway.
func (s *Server) send(ctx context.Context, m *wire.Message, st *agentState, onMsg func(*wire.Message) (bool, error)) error {
	ps, err := s.peerFor(m.To.Org)
	if err != nil {
		return err
	}
	return s.sendVia(ctx, ps, m, st.id.Signing, onMsg)
}

// peerFor is the peer of org, for a message a local caller sends there.
func (s *Server) peerFor(org string) (*peerState, error) {
	ps := s.peer(org)
	if ps == nil {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "to.org", "%s is not a peer of this gateway (import it with moltgate peer import)", org)
	}
	return ps, nil
}

// sendVia passes m, signed with sk, through the gate outbound and sends it
// to ps: every message for a peer goes this way, whoever it speaks for.
func (s *Server) sendVia(ctx context.Context, ps *peerState, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) (err error) {
	ctx, span := s.startPeerCall(ctx, m) // before the tree is made: the context is signed with the rest
	start := s.now()
	defer func() { s.outboundDone(ctx, span, m, s.now().Sub(start), err) }()
	t, err := s.prepareOutbound(ctx, m)
	if err != nil {
		return err
	}
	sess, _ := s.sessions.Peer(ps.ref)
	d := s.gate.CheckTree(ctx, m, t, gateOutbound, m.To.Org, pipeline.GateSession(sess, true, true))
	if !d.Allow {
		s.auditOut(ctx, m, d)
		s.pipe.LogBlock(m, gateOutbound, d)
		return d.Err
	}
	if err := s.checkForward(m, d.Types); err != nil {
		return err
	}
	// Recorded last, once nothing else can stop it: personal data is
	// recorded as transmitted before it leaves, and does not leave if
	// that cannot be recorded.
	if err := s.auditOut(ctx, m, d); err != nil {
		return err
	}
	return ps.call(ctx, s.cfg.Peers.Transport, m, sk, onMsg)
}

// queryLocal serves a local caller's request for an agent of this same
// organisation: nothing crosses the boundary, so it goes straight to the
// local bridge.
// checkLocalCall applies to a call between two agents of this
// organisation what applies inside it: nothing leaves, so there is no gate,
// but each agent's ceiling holds, and a consent given must be one this
// organisation issued to the agent called, for what it declares.
func (s *Server) checkLocalCall(ctx context.Context, m *wire.Message, st *agentState, tok *consent.Token) error {
	for _, agent := range []string{st.spec.ID, m.To.Agent} {
		if err := s.policy.AllowLocal(m.Cls, agent); err != nil {
			return err
		}
	}
	if tok == nil {
		return nil
	}
	if err := s.consents.Check(ctx, tok, consent.Request{Issuer: s.cfg.Org, Grantee: m.To, Purpose: tok.Purpose, Types: tok.DataTypes}); err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return we
		}
		return wire.Errorf(wire.ErrConsent, "consent", "consent refused: %v", err)
	}
	return nil
}

func (s *Server) queryLocal(ctx context.Context, req localbridge.QueryRequest, to wire.Ref, cls wire.Class, input wire.Value, emit func(localbridge.StreamEvent) error) (json.RawMessage, error) {
	st := s.agent(to.Agent)
	if st == nil {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "to", "no agent %s", to)
	}
	tool := req.Tool
	if tool == "" {
		if tool = st.spec.QueryTool; tool == "" {
			return nil, wire.Errorf(wire.ErrCapability, "to", "agent %s answers no queries", to.Agent)
		}
		if req.Message != "" {
			input = input.With("message", wire.StringValue(req.Message))
		}
	}
	var onChunk func(localbridge.Chunk) error
	if emit != nil {
		onChunk = func(c localbridge.Chunk) error {
			return emit(localbridge.StreamEvent{Text: c.Text, Block: c.JSON, Channel: c.Channel})
		}
	}
	res, err := s.core.Call(ctx, localbridge.CallRequest{Agent: st.spec.ID, Tool: tool, Input: wire.AppendCanonical(nil, input),
		Caller: localbridge.Caller{Type: "human", ID: "local"}, Class: cls.String(), Context: req.Context}, onChunk)
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}

// Discover answers directory.discover: this gateway's own directory, or a
// peer's, whose attestations are checked before anything is returned.
func (s *Server) Discover(ctx context.Context, req localbridge.DiscoverRequest) (json.RawMessage, error) {
	p := new(wire.DiscoverPayload)
	var query wire.Value
	if len(req.Query) > 0 {
		v, err := wire.Parse(req.Query, 0)
		if err != nil {
			return nil, wire.Errorf(wire.ErrInvalidParam, "query", "not JSON")
		}
		if v.Kind() == wire.Object {
			v = v.Without("org")
		}
		query = v
		if err := wire.Bind(v, p, "query"); err != nil {
			return nil, err
		}
	}
	if req.Capability != "" {
		p.Capability = req.Capability
	}
	if req.Limit > 0 {
		p.Limit = req.Limit
	}
	if err := s.codec.ValidateStruct(p, "query"); err != nil {
		return nil, err
	}
	if req.Org == "" || req.Org == s.cfg.Org {
		hidden, _ := query.Get("include_hidden").Bool()
		v, err := s.registry.DiscoverLocal(ctx, p, hidden)
		if err != nil {
			return nil, err
		}
		return wire.AppendCanonical(nil, v), nil
	}
	ps := s.peer(req.Org)
	if ps == nil {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "org", "%s is not a peer of this gateway", req.Org)
	}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpDiscover,
		From: s.org.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: req.Org}, Cls: wire.Pub, Payload: p}
	var out json.RawMessage
	err := s.callAsGateway(ctx, ps, m, func(r *wire.Message) (bool, error) {
		rp, ok := r.Payload.(*wire.RespondPayload)
		if !ok {
			return false, nil
		}
		if err := registry.VerifyAttestations(rp.Data, ps.p.Org, ps.p.OrgKey, s.now()); err != nil {
			return true, err
		}
		out = wire.AppendCanonical(nil, rp.Data)
		return true, nil
	})
	return out, err
}

func (s *Server) callAsGateway(ctx context.Context, ps *peerState, m *wire.Message, onMsg func(*wire.Message) (bool, error)) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.Listen.RequestTimeout.D())
		defer cancel()
	}
	// What the gateway sends in its own name may still carry a local
	// caller's text (a discovery query's requirements): the same gate.
	return s.sendVia(ctx, ps, m, s.org.Signing, onMsg)
}

// prepareOutbound gives a message for a peer the caller's deadline as its
// exp, then checks it and returns its tree. The deadline goes in first, so
// that the message checked, gated and signed is one and the same: signing
// finds it checked.
func (s *Server) prepareOutbound(ctx context.Context, m *wire.Message) (wire.Value, error) {
	if d, ok := ctx.Deadline(); ok && m.Exp == 0 {
		// exp is on the gateway's clock, as ts is; the deadline on the
		// process's.
		m.Exp = s.now().Add(time.Until(d)).UnixMilli()
	}
	return s.codec.CheckTree(m)
}

// Ping answers agent.ping for an agent of this organisation or a peer's.
func (s *Server) Ping(ctx context.Context, req localbridge.PingRequest) (json.RawMessage, error) {
	to, err := s.target(req.Agent)
	if err != nil {
		return nil, err
	}
	nonce := pipeline.NewMessageID(s.rand)
	if to.Org == s.cfg.Org {
		if s.agent(to.Agent) == nil {
			return nil, wire.Errorf(wire.ErrAgentNotFound, "agent", "no agent %s", to)
		}
		v, _ := wire.ValueOf(s.local.Pong(to.Agent, nonce))
		return wire.AppendCanonical(nil, v), nil
	}
	ps := s.peer(to.Org)
	if ps == nil {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "agent", "%s is not a peer of this gateway", to.Org)
	}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpPing,
		From: s.org.Sender(), To: to, Cls: wire.Pub, Payload: &wire.PingPayload{Nonce: nonce}}
	var out json.RawMessage
	err = s.callAsGateway(ctx, ps, m, func(r *wire.Message) (bool, error) {
		p, ok := r.Payload.(*wire.PongPayload)
		if !ok {
			return false, nil
		}
		if p.Nonce != nonce {
			return true, wire.Errorf(wire.ErrAuthFailed, "p.nonce", "pong answers another ping")
		}
		v, _ := wire.ValueOf(p)
		out = wire.AppendCanonical(nil, v)
		return true, nil
	})
	return out, err
}
