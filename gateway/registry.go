package gateway

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// publishAgent keeps a local agent's directory entry in step with what the
// local bridge knows: its registered tools (as capabilities) and the
// configured ones, and its liveness.
func (s *Server) publishAgent(info localbridge.AgentInfo) {
	st := s.agents[info.ID]
	if st == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.bgCtx, 10*time.Second)
	defer cancel()
	now := s.now()
	caps := append(slices.Clone(st.spec.Capabilities), info.Capabilities()...)
	slices.Sort(caps)
	caps = slices.Compact(caps)
	if len(caps) == 0 {
		// Nothing to find it by yet: it is published once it registers
		// tools (or has configured capabilities).
		return
	}
	ttl := s.cfg.Directory.MaxTTL.D()
	profile := &wire.Profile{
		AgentID: info.ID, Name: info.ID,
		Endpoint:  &wire.Endpoint{URL: s.cfg.Listen.Advertise + "/moltspeak/v0.1/message", Transport: "https"},
		PublicKey: st.id.Signing.Public(), EncryptionKey: st.id.Encryption.Public(),
		Capabilities: caps, Visibility: st.spec.Visibility,
	}
	reg := &wire.Message{V: wire.Version, ID: newMessageID(s.rand), TS: now.UnixMilli(), Op: wire.OpRegister,
		From: st.id.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: s.cfg.Org}, Cls: wire.Pub,
		Payload: &wire.RegisterPayload{Action: "create", Profile: profile, TTL: ttl.Milliseconds()}}
	signed, err := s.signAs(reg, st)
	if err != nil {
		s.log.Error("cannot sign a registration", "agent", info.ID, "err", err.Error())
		return
	}
	e := &directory.Entry{
		AgentID: info.ID, Org: s.cfg.Org, Name: info.ID,
		Endpoint:  directory.Endpoint{URL: profile.Endpoint.URL, Transport: "https"},
		PublicKey: st.id.Signing.Public().String(), EncryptionKey: st.id.Encryption.Public().String(),
		Capabilities: caps, Visibility: directory.Visibility(st.spec.Visibility), Verified: true,
		ExpiresAt: now.Add(ttl), SignedAt: time.UnixMilli(reg.TS), Registration: signed,
	}
	if _, err := s.store.Put(ctx, e, directory.PutOptions{}); err != nil {
		if errors.Is(err, directory.ErrConflict) {
			// The agent was added again with a new key; the org that
			// holds both is the authority for the rotation.
			old, gerr := s.store.Get(ctx, e.ID(), directory.Viewer{Local: true})
			if gerr == nil {
				_, err = s.store.Put(ctx, e, directory.PutOptions{RotateFrom: old.PublicKey})
			}
		}
		if err != nil {
			s.log.Error("cannot publish agent", "agent", info.ID, "err", err.Error())
		}
	}
	status := directory.Status("offline")
	switch {
	case info.Healthy:
		status = "alive"
	case info.Connected:
		status = "unhealthy"
	}
	hb := directory.Heartbeat{At: now, Status: status, Load: min(info.Load, 1), QueueDepth: info.Queued}
	if info.Healthy {
		hb.CapabilitiesActive = info.Capabilities()
	}
	if err := s.store.RecordLiveness(ctx, e.ID(), hb); err != nil {
		s.log.Warn("cannot record liveness", "agent", info.ID, "err", err.Error())
	}
}

func (s *Server) signAs(m *wire.Message, st *agentState) ([]byte, error) {
	return signMessage(s.codec, m, st.id.Signing)
}

// registryOp answers the directory's operations from a peer.
func (s *Server) registryOp(ctx context.Context, in *inbound) answer {
	m := in.m
	switch p := m.Payload.(type) {
	case *wire.DiscoverPayload:
		viewer := directory.Viewer{}
		if in.peer != nil {
			viewer.Org = m.From.Org
		}
		if ok, wait := s.discoverLimit.allow(m.From.Ref().String()); !ok {
			s.metrics.rateLimit.WithLabelValues("discovery").Inc()
			return s.refuse(m, in.sess, withRetry(wire.Errorf(wire.ErrRateLimitDiscovery, "", "too many discovery queries"), wait))
		}
		res, err := s.discover(ctx, p, viewer)
		if err != nil {
			return s.refuse(m, in.sess, err)
		}
		r := m.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: res})
		return s.registryReply(in, r)
	case *wire.PingPayload:
		r := m.Reply(wire.OpPong, &wire.PongPayload{Nonce: p.Nonce, Status: "alive", Load: s.load(),
			QueueDepth: int64(s.flight.count()), CapabilitiesActive: s.hsCfg.Capabilities})
		return s.registryReply(in, r)
	case *wire.RegisterPayload:
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrCapability, "op", "this gateway's directory lists the agents of %s only", s.cfg.Org))
	}
	return s.refuse(m, in.sess, wire.Errorf(wire.ErrInvalidParam, "op", "the registry does not take %s messages", m.Op))
}

func (s *Server) registryReply(in *inbound, r *wire.Message) answer {
	r.V, r.ID, r.TS, r.From = wire.Version, newMessageID(s.rand), s.now().UnixMilli(), s.org.Sender()
	r.From.Agent = RegistryAgent
	// The registry speaks with the org key.
	body, err := s.reply(in, r, s.org.Signing)
	if err != nil {
		return s.refuse(in.m, in.sess, err)
	}
	return answer{body: body, status: http.StatusOK}
}

func (s *Server) load() float64 {
	return float64(s.flight.count()) / float64(s.cfg.Limits.MaxInFlight)
}

// discover searches the directory for a viewer and renders the results in
// the discovery protocol's form, each with the registry's attestation.
func (s *Server) discover(ctx context.Context, p *wire.DiscoverPayload, viewer directory.Viewer) (wire.Value, error) {
	q := &directory.Query{Capability: p.Capability, Limit: p.Limit, Cursor: p.Cursor, Viewer: viewer}
	if p.Capabilities != nil {
		q.All, q.Any = p.Capabilities.All, p.Capabilities.Any
	}
	if !p.Requirements.IsAbsent() {
		req, err := directory.ParseRequirements(wire.AppendCanonical(nil, p.Requirements))
		if err != nil {
			return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p.requirements", "%v", err)
		}
		q.Requirements = req
	}
	if f := p.Filters; f != nil {
		q.Verified = f.Verified != nil && *f.Verified
		q.MinUptime, q.Orgs = f.MinUptime, f.Org
	}
	if p.Sort != "" {
		srt, err := directory.ParseSort(p.Sort)
		if err != nil {
			return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p.sort", "%v", err)
		}
		q.Sort = srt
	}
	if p.AgentID != "" {
		e, err := s.store.Get(ctx, directory.ID{Agent: p.AgentID, Org: s.cfg.Org}, viewer)
		if err != nil {
			return wire.Value{}, wire.Errorf(wire.ErrAgentNotFound, "p.agent_id", "no such agent")
		}
		return wire.ValueOf(map[string]any{"results": []any{s.attested(&e, 1, nil, nil)}, "total": 1, "has_more": false})
	}
	if err := q.Validate(); err != nil {
		return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p", "%v", err)
	}
	page, err := s.store.Search(ctx, q)
	if err != nil {
		return wire.Value{}, wire.Errorf(wire.ErrRegistryUnavailable, "", "directory search failed")
	}
	results := make([]any, 0, len(page.Results))
	for i := range page.Results {
		r := &page.Results[i]
		results = append(results, s.attested(&r.Entry, r.MatchScore, r.CapabilitiesMatched, r.Liveness))
	}
	out := map[string]any{"results": results, "total": page.Total, "has_more": page.Next != ""}
	if page.Next != "" {
		out["cursor"] = page.Next
	}
	return wire.ValueOf(out)
}

// attested renders an entry with the registry's signature over its
// canonical form.
func (s *Server) attested(e *directory.Entry, score float64, matched []string, lv *directory.Liveness) map[string]any {
	core := map[string]any{
		"agent_id": e.AgentID, "org": e.Org, "public_key": e.PublicKey, "encryption_key": e.EncryptionKey,
		"endpoint": e.Endpoint.URL, "capabilities": e.Capabilities,
		"registered_at": e.RegisteredAt.UnixMilli(), "expires_at": e.ExpiresAt.UnixMilli(),
	}
	v, _ := wire.ValueOf(core)
	sig := s.org.Signing.Sign(wire.AppendCanonical(nil, v))
	out := map[string]any{}
	for k, x := range core {
		out[k] = x
	}
	out["name"] = e.Name
	out["match_score"] = score
	if matched != nil {
		out["capabilities_matched"] = matched
	}
	if lv != nil {
		out["uptime_30d"] = lv.Uptime30d
	}
	out["attestation"] = map[string]any{"registry": s.cfg.Org, "key": s.org.Signing.Public().String(), "signature": sig.String()}
	return out
}
