package local

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// The local bridge's host side: what local callers ask of the gateway
// (agent.query, agent.ping, directory.discover, consent.request), sent to a
// peer or served here.

// target parses "agent@org", or "agent" for one of this organisation's.
func (s *Room) target(to string) (wire.Ref, error) {
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
func (s *Room) sender(from string) (Agent, error) {
	if from == "" {
		if st, ok := s.agents.Only(); ok {
			return st, nil
		}
		return Agent{}, wire.Errorf(wire.ErrInvalidParam, "from", "name the local agent to send as")
	}
	st, ok := s.agents.Agent(from)
	if !ok {
		return Agent{}, wire.Errorf(wire.ErrAgentNotFound, "from", "no local agent %s", from)
	}
	return st, nil
}

// Query sends a local caller's query or tool call (the JSON-RPC face's
// agent.query, and moltgate call) and streams the reply back.
func (s *Room) Query(ctx context.Context, req localbridge.QueryRequest, emit func(localbridge.StreamEvent) error) (res json.RawMessage, err error) {
	if s.cfg.QueryDone != nil {
		defer s.cfg.QueryDone(req, s.now(), &err)
	}
	to, err := s.target(req.To)
	if err != nil {
		return nil, err
	}
	st, err := s.sender(req.From)
	if err != nil {
		return nil, err
	}
	ctx = s.observe.CallerTrace(ctx, req.TraceParent, req.TraceState)
	if req.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
		defer cancel()
	} else if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.RequestTimeout)
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
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), From: st.Identity.Sender(), To: to, Cls: wire.Int}
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
	hops, err := s.NextHops(req.CorrelationID)
	if err != nil {
		return nil, err
	}
	if req.Tool != "" {
		m.Op = wire.OpTool
		m.Payload = &wire.ToolPayload{Action: "invoke", Tool: req.Tool, Input: input}
		m.Cap = []string{"tool.invoke"}
		m.Ext = st.CapabilityExt()
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
		m.Ext = st.CapabilityExt()
	}
	m.Ext = WithHops(m.Ext, hops)
	if s.cfg.WithContext != nil {
		if m.Ext, err = s.cfg.WithContext(m.Ext, req.Context); err != nil {
			return nil, err
		}
	}
	var out json.RawMessage
	err = s.peers.Send(ctx, m, st.Identity.Signing, func(r *wire.Message) (bool, error) {
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
func (s *Room) cancelRemote(st Agent, to wire.Ref, id string) {
	c := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpTask,
		From: st.Identity.Sender(), To: to, Cls: wire.Int, Payload: &wire.TaskPayload{Action: "cancel", TaskID: id}}
	// Not when the gateway is closing: the peers' connections are closing
	// too, and their calls end with them.
	s.cfg.Background(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		err := s.peers.Send(ctx, c, st.Identity.Signing, func(r *wire.Message) (bool, error) {
			_, ok := r.Payload.(*wire.RespondPayload)
			return ok, nil
		})
		if err != nil {
			s.log.Debug("cancel of a call not delivered", "peer", to.Org, "err", err.Error())
		}
	})
}

// CapabilityExt is the ext that carries the org's capability certificates
// for the agent, as its calls to peers' tools do.
func (st Agent) CapabilityExt() wire.Value {
	certs := make([]wire.Value, len(st.Caps))
	for i, c := range st.Caps {
		certs[i] = c.Value()
	}
	return wire.ObjectValue(wire.Member{Key: pipeline.ExtCapabilities, Value: wire.ObjectValue(wire.Member{Key: "certs", Value: wire.ArrayValue(certs...)})})
}

// attachConsent fills pii_meta from a consent token's claims, raises the
// class to pii, and returns the token parsed.
func (s *Room) attachConsent(m *wire.Message, token string) (*consent.Token, error) {
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

// queryLocal serves a local caller's request for an agent of this same
// organisation: nothing crosses the boundary, so it goes straight to the
// local bridge.
// checkLocalCall applies to a call between two agents of this
// organisation what applies inside it: nothing leaves, so there is no gate,
// but each agent's ceiling holds, and a consent given must be one this
// organisation issued to the agent called, for what it declares.
func (s *Room) checkLocalCall(ctx context.Context, m *wire.Message, st Agent, tok *consent.Token) error {
	for _, agent := range []string{st.ID, m.To.Agent} {
		if err := s.cfg.Policy.AllowLocal(m.Cls, agent); err != nil {
			return err
		}
	}
	if tok == nil {
		return nil
	}
	if err := s.cfg.Consents.Check(ctx, tok, consent.Request{Issuer: s.cfg.Org, Grantee: m.To, Purpose: tok.Purpose, Types: tok.DataTypes}); err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return we
		}
		return wire.Errorf(wire.ErrConsent, "consent", "consent refused: %v", err)
	}
	return nil
}

func (s *Room) queryLocal(ctx context.Context, req localbridge.QueryRequest, to wire.Ref, cls wire.Class, input wire.Value, emit func(localbridge.StreamEvent) error) (json.RawMessage, error) {
	st, ok := s.agents.Agent(to.Agent)
	if !ok {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "to", "no agent %s", to)
	}
	tool := req.Tool
	if tool == "" {
		if tool = st.QueryTool; tool == "" {
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
	res, err := s.core.Call(ctx, localbridge.CallRequest{Agent: st.ID, Tool: tool, Input: wire.AppendCanonical(nil, input),
		Caller: localbridge.Caller{Type: "human", ID: "local"}, Class: cls.String(), Context: req.Context}, onChunk)
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}
