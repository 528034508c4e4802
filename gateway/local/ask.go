package local

import (
	"context"
	"encoding/json"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// Discover answers directory.discover: this gateway's own directory, or a
// peer's, whose attestations are checked before anything is returned.
func (s *Room) Discover(ctx context.Context, req localbridge.DiscoverRequest) (json.RawMessage, error) {
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
	if err := s.cfg.Codec.ValidateStruct(p, "query"); err != nil {
		return nil, err
	}
	if req.Org == "" || req.Org == s.cfg.Org {
		hidden, _ := query.Get("include_hidden").Bool()
		v, err := s.cfg.Directory.DiscoverLocal(ctx, p, hidden)
		if err != nil {
			return nil, err
		}
		return wire.AppendCanonical(nil, v), nil
	}
	key, ok := s.peers.Key(req.Org)
	if !ok {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "org", "%s is not a peer of this gateway", req.Org)
	}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpDiscover,
		From: s.cfg.Signer.Current().Sender(), To: wire.Ref{Agent: pipeline.RegistryAgent, Org: req.Org}, Cls: wire.Pub, Payload: p}
	var out json.RawMessage
	err := s.callAsGateway(ctx, m, func(r *wire.Message) (bool, error) {
		rp, ok := r.Payload.(*wire.RespondPayload)
		if !ok {
			return false, nil
		}
		if err := s.cfg.Directory.VerifyAttestations(rp.Data, req.Org, key); err != nil {
			return true, err
		}
		out = wire.AppendCanonical(nil, rp.Data)
		return true, nil
	})
	return out, err
}

// callAsGateway sends m to its organisation's gateway in this gateway's
// own name, within the request timeout unless ctx ends sooner.
func (s *Room) callAsGateway(ctx context.Context, m *wire.Message, onMsg func(*wire.Message) (bool, error)) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.RequestTimeout)
		defer cancel()
	}
	// What the gateway sends in its own name may still carry a local
	// caller's text (a discovery query's requirements): the same gate.
	return s.peers.Send(ctx, m, s.cfg.Signer.Current().Signing, onMsg)
}

// Ping answers agent.ping for an agent of this organisation or a peer's.
func (s *Room) Ping(ctx context.Context, req localbridge.PingRequest) (json.RawMessage, error) {
	to, err := s.target(req.Agent)
	if err != nil {
		return nil, err
	}
	nonce := pipeline.NewMessageID(s.rand)
	if to.Org == s.cfg.Org {
		if _, ok := s.agents.Agent(to.Agent); !ok {
			return nil, wire.Errorf(wire.ErrAgentNotFound, "agent", "no agent %s", to)
		}
		v, _ := wire.ValueOf(s.Pong(to.Agent, nonce))
		return wire.AppendCanonical(nil, v), nil
	}
	if _, ok := s.peers.Key(to.Org); !ok {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "agent", "%s is not a peer of this gateway", to.Org)
	}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpPing,
		From: s.cfg.Signer.Current().Sender(), To: to, Cls: wire.Pub, Payload: &wire.PingPayload{Nonce: nonce}}
	var out json.RawMessage
	err = s.callAsGateway(ctx, m, func(r *wire.Message) (bool, error) {
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

// AskConsent answers consent.request: it sends a consent request from a
// local agent to a peer's agent and waits for the grant or the refusal,
// which a person at the peer decides. A grant's proof is checked before it
// is handed over: a consent token signed by the peer's organisation key,
// naming the asking agent as grantee, for what was asked.
func (s *Room) AskConsent(ctx context.Context, req localbridge.ConsentAsk) (localbridge.ConsentAnswer, error) {
	to, err := s.target(req.To)
	if err != nil {
		return localbridge.ConsentAnswer{}, err
	}
	if to.Org == s.cfg.Org {
		return localbridge.ConsentAnswer{}, wire.Errorf(wire.ErrInvalidParam, "to",
			"%s is this organisation's own agent: issue the consent with moltgate consent issue", to)
	}
	st, err := s.sender(req.From)
	if err != nil {
		return localbridge.ConsentAnswer{}, err
	}
	orgKey, ok := s.peers.Key(to.Org)
	if !ok {
		return localbridge.ConsentAnswer{}, wire.Errorf(wire.ErrAgentNotFound, "to.org", "%s is not a peer of this gateway (import it with moltgate peer import)", to.Org)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.RequestTimeout)
		defer cancel()
	}
	p := &wire.ConsentPayload{Action: "request", DataTypes: req.DataTypes, Purpose: req.Purpose, Duration: req.Duration, Human: req.Human}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpConsent,
		From: st.Identity.Sender(), To: to, Cls: wire.Int, Payload: p}
	var ans localbridge.ConsentAnswer
	err = s.peers.Send(ctx, m, st.Identity.Signing, func(r *wire.Message) (bool, error) {
		g, ok := r.Payload.(*wire.ConsentPayload)
		if !ok {
			return false, nil
		}
		ans = localbridge.ConsentAnswer{DataTypes: g.DataTypes, Purpose: g.Purpose, Duration: g.Duration, Human: g.Human, Reason: g.Reason}
		switch g.Action {
		case "deny":
			return true, nil
		case "grant":
			if err := CheckGrant(orgKey, st.Identity.Ref, req, g.Proof, s.now()); err != nil {
				return true, err
			}
			ans.Granted, ans.Proof = true, g.Proof
			return true, nil
		}
		return true, wire.Errorf(wire.ErrInvalidParam, "p.action", "%s answered a consent request with %q", to, g.Action)
	})
	return ans, err
}
