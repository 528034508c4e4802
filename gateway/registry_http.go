package gateway

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// The registry's HTTP routes, under /registry/v1/. Those that take a
// MoltSpeak message (register, a signed discover, a deregistration) run it
// through the pipeline like any message; the rest answer anonymous callers,
// who see public entries that do not restrict their audience (and
// unlisted ones by exact id), and are rate-limited per address.

// serveRegistryMessage is POST /registry/v1/register: a signed register
// message, bare or in an envelope. The answer is the registry's signed
// respond message, whose data holds expires_at and the attested record.
func (s *Server) serveRegistryMessage(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r, pipeline.FaceHTTP, s.pipe.EnvelopeLimit())
	if !ok {
		return
	}
	s.handleRegistryBody(w, r, body)
}

// handleRegistryBody runs a registry route's message through the pipeline.
func (s *Server) handleRegistryBody(w http.ResponseWriter, r *http.Request, body []byte) {
	ctx, cancel := s.routeContext(r)
	defer cancel()
	s.writeAnswer(w, s.pipe.Handle(ctx, pipeline.Origin{Face: pipeline.FaceHTTP, Remote: r.RemoteAddr}, body, nil))
}

// routeContext bounds a registry route by the request timeout. The server
// cancels a request's context only when its connection goes, and an
// anonymous caller must not make the gateway wait on its storage longer
// than a signed one can.
func (s *Server) routeContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithDeadline(r.Context(), s.deadline(r))
}

// serveDeregister is DELETE /registry/v1/agents/{id}: the body is the
// signed register message with action delete. A bare one must name the
// agent of the path.
func (s *Server) serveDeregister(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r, pipeline.FaceHTTP, s.pipe.EnvelopeLimit())
	if !ok {
		return
	}
	if v, err := wire.Parse(body, wire.MaxDepth); err == nil && v.Get("moltspeak").IsAbsent() {
		p := v.Get("p")
		agent, _ := p.Get("profile").Get("agent_id").Str()
		if agent == "" {
			agent, _ = v.Get("from").Get("agent").Str()
		}
		org, _ := v.Get("from").Get("org").Str()
		if a, _ := p.Get("action").Str(); a != "delete" || !sameAgent(r.PathValue("id"), agent, org) {
			s.writeJSONError(w, wire.Errorf(wire.ErrInvalidParam, "p.action", "DELETE takes the signed delete of the agent it names"))
			return
		}
	}
	s.handleRegistryBody(w, r, body)
}

func sameAgent(path, agent, org string) bool {
	if a, o, ok := strings.Cut(path, "@"); ok {
		return a == agent && o == org
	}
	return path == agent
}

// serveDiscover is POST /registry/v1/discover. A signed discover message
// (bare or enveloped) goes through the pipeline and is answered as its
// sender's authenticated organisation may see; the plain discovery
// document, unsigned, sees what anonymous callers see.
func (s *Server) serveDiscover(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r, pipeline.FaceHTTP, s.pipe.EnvelopeLimit())
	if !ok {
		return
	}
	v, err := wire.Parse(body, wire.MaxDepth)
	if err != nil {
		s.writeJSONError(w, err)
		return
	}
	if !v.Get("moltspeak").IsAbsent() || !v.Get("op").IsAbsent() {
		s.handleRegistryBody(w, r, body)
		return
	}
	if err := s.allowDiscovery(s.caller(directory.Viewer{}, r.RemoteAddr)); err != nil {
		s.writeJSONError(w, err)
		return
	}
	p := new(wire.DiscoverPayload)
	if err := wire.Bind(v, p, "p"); err != nil {
		s.writeJSONError(w, err)
		return
	}
	if err := s.codec.ValidateStruct(p, "p"); err != nil {
		s.writeJSONError(w, err)
		return
	}
	ctx, cancel := s.routeContext(r)
	defer cancel()
	ans, err := s.registry.reg.Discover(ctx, p, directory.Viewer{}, false)
	if err != nil {
		s.writeJSONError(w, err)
		return
	}
	writeJSON(w, ans.Value())
}

// serveAgent is GET /registry/v1/agents/{id}: one entry by its exact id,
// "agent" of this organisation or "agent@org".
func (s *Server) serveAgent(w http.ResponseWriter, r *http.Request) {
	if err := s.allowDiscovery(s.caller(directory.Viewer{}, r.RemoteAddr)); err != nil {
		s.writeJSONError(w, err)
		return
	}
	id, err := s.pathID(r.PathValue("id"))
	if err != nil {
		s.writeJSONError(w, err)
		return
	}
	ctx, cancel := s.routeContext(r)
	defer cancel()
	rec, err := s.registry.reg.Lookup(ctx, id, directory.Viewer{})
	if err != nil {
		s.writeJSONError(w, err)
		return
	}
	v, _ := wire.ValueOf(rec)
	writeJSON(w, v)
}

func (s *Server) pathID(p string) (directory.ID, error) {
	if !strings.Contains(p, "@") {
		p += "@" + s.cfg.Org
	}
	id, err := directory.ParseID(p)
	if err != nil {
		return id, wire.Errorf(wire.ErrInvalidParam, "id", "want agent or agent@org")
	}
	return id, nil
}

// serveCapabilities is GET /registry/v1/capabilities?prefix=P&verified=true:
// the capabilities anonymous callers can find agents for, with counts.
func (s *Server) serveCapabilities(w http.ResponseWriter, r *http.Request) {
	if err := s.allowDiscovery(s.caller(directory.Viewer{}, r.RemoteAddr)); err != nil {
		s.writeJSONError(w, err)
		return
	}
	q := r.URL.Query()
	verified := false
	if text := q.Get("verified"); text != "" {
		var err error
		if verified, err = strconv.ParseBool(text); err != nil {
			s.writeJSONError(w, wire.Errorf(wire.ErrInvalidParam, "verified", "want true or false"))
			return
		}
	}
	ctx, cancel := s.routeContext(r)
	defer cancel()
	v, err := s.registry.reg.Capabilities(ctx, q.Get("prefix"), verified, directory.Viewer{})
	if err != nil {
		s.writeJSONError(w, err)
		return
	}
	writeJSON(w, v)
}

// servePing is POST /registry/v1/ping/{id}: whether a listed agent is
// alive. For this organisation's agents the answer comes from their
// heartbeats now; for others, from the latest observation on record. The
// body may be {"nonce":"…"}, which the answer repeats.
func (s *Server) servePing(w http.ResponseWriter, r *http.Request) {
	if err := s.allowDiscovery(s.caller(directory.Viewer{}, r.RemoteAddr)); err != nil {
		s.writeJSONError(w, err)
		return
	}
	body, ok := s.readBody(w, r, pipeline.FaceHTTP, 4096)
	if !ok {
		return
	}
	nonce := pipeline.NewMessageID(s.rand)
	if v, err := wire.Parse(body, 4); err == nil {
		if n, ok := v.Get("nonce").Str(); ok && n != "" && len(n) <= 128 {
			nonce = n
		}
	}
	id, err := s.pathID(r.PathValue("id"))
	if err != nil {
		s.writeJSONError(w, err)
		return
	}
	ctx, cancel := s.routeContext(r)
	defer cancel()
	rec, err := s.registry.reg.Lookup(ctx, id, directory.Viewer{})
	if err != nil {
		s.writeJSONError(w, err)
		return
	}
	pp := &wire.PongPayload{Nonce: nonce, Status: "offline", CapabilitiesActive: []string{}}
	if id.Org == s.cfg.Org && s.agent(id.Agent) != nil {
		pp = s.pongPayload(id.Agent, nonce)
	} else if rec.Status != "" {
		pp.Status = string(rec.Status)
		if lv, err := s.store.Liveness(ctx, id); err == nil {
			pp.Load, pp.QueueDepth = lv.Load, int64(lv.QueueDepth)
			if lv.CapabilitiesActive != nil {
				pp.CapabilitiesActive = lv.CapabilitiesActive
			}
		}
	}
	v, _ := wire.ValueOf(pp)
	if rec.LastSeen > 0 {
		v = v.With("last_seen", wire.IntValue(rec.LastSeen))
	}
	writeJSON(w, v)
}

func writeJSON(w http.ResponseWriter, v wire.Value) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(wire.AppendCanonical(nil, v), '\n'))
}

// writeJSONError answers a registry route with a signed error message.
func (s *Server) writeJSONError(w http.ResponseWriter, err error) {
	s.writeAnswer(w, s.pipe.Refuse(nil, nil, err))
}
