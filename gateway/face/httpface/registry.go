package httpface

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// The registry's HTTP routes, under /registry/v1/. Those that take a
// MoltSpeak message (register, a signed discover, a deregistration) run it
// through the pipeline like any message; the rest answer anonymous callers,
// who see public entries that do not restrict their audience (and
// unlisted ones by exact id), and are rate-limited per address.

// Registry answers the registry's routes for anonymous callers. Its
// errors are refusals (*wire.Error, or what pipeline.AsWire makes one of).
type Registry interface {
	// Allow takes a token of the discovery budget of the caller at
	// remote ("IP:port"), or says when to try again.
	Allow(remote string) error
	// Discover answers a discovery document as anonymous callers see it.
	Discover(ctx context.Context, p *wire.DiscoverPayload) (wire.Value, error)
	// Agent is one entry by its id, "agent" of this organisation or
	// "agent@org".
	Agent(ctx context.Context, id string) (wire.Value, error)
	// Capabilities are the capabilities anonymous callers can find agents
	// for, with counts.
	Capabilities(ctx context.Context, prefix string, verified bool) (wire.Value, error)
	// Ping says whether the agent of id is alive, repeating nonce.
	Ping(ctx context.Context, id, nonce string) (wire.Value, error)
}

// serveRegistryMessage is POST /registry/v1/register: a signed register
// message, bare or in an envelope. The answer is the registry's signed
// respond message, whose data holds expires_at and the attested record.
func (f *Face) serveRegistryMessage(w http.ResponseWriter, r *http.Request) {
	body, ok := f.readBody(w, r, pipeline.FaceHTTP, f.cfg.Pipeline.EnvelopeLimit())
	if !ok {
		return
	}
	f.handleRegistryBody(w, r, body)
}

// handleRegistryBody runs a registry route's message through the pipeline.
func (f *Face) handleRegistryBody(w http.ResponseWriter, r *http.Request, body []byte) {
	ctx, cancel := f.routeContext(r)
	defer cancel()
	WriteAnswer(w, f.cfg.Pipeline.Handle(ctx, pipeline.Origin{Face: pipeline.FaceHTTP, Remote: r.RemoteAddr}, body, nil))
}

// routeContext bounds a registry route by the request timeout. The server
// cancels a request's context only when its connection goes, and an
// anonymous caller must not make the gateway wait on its storage longer
// than a signed one can.
func (f *Face) routeContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithDeadline(r.Context(), f.deadline(r))
}

// serveDeregister is DELETE /registry/v1/agents/{id}: the body is the
// signed register message with action delete. A bare one must name the
// agent of the path.
func (f *Face) serveDeregister(w http.ResponseWriter, r *http.Request) {
	body, ok := f.readBody(w, r, pipeline.FaceHTTP, f.cfg.Pipeline.EnvelopeLimit())
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
			f.writeError(w, wire.Errorf(wire.ErrInvalidParam, "p.action", "DELETE takes the signed delete of the agent it names"))
			return
		}
	}
	f.handleRegistryBody(w, r, body)
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
func (f *Face) serveDiscover(w http.ResponseWriter, r *http.Request) {
	body, ok := f.readBody(w, r, pipeline.FaceHTTP, f.cfg.Pipeline.EnvelopeLimit())
	if !ok {
		return
	}
	v, err := wire.Parse(body, wire.MaxDepth)
	if err != nil {
		f.writeError(w, err)
		return
	}
	if !v.Get("moltspeak").IsAbsent() || !v.Get("op").IsAbsent() {
		f.handleRegistryBody(w, r, body)
		return
	}
	if err := f.cfg.Registry.Allow(r.RemoteAddr); err != nil {
		f.writeError(w, err)
		return
	}
	p := new(wire.DiscoverPayload)
	if err := wire.Bind(v, p, "p"); err != nil {
		f.writeError(w, err)
		return
	}
	ctx, cancel := f.routeContext(r)
	defer cancel()
	f.writeValue(w)(f.cfg.Registry.Discover(ctx, p))
}

// serveAgent is GET /registry/v1/agents/{id}: one entry by its exact id,
// "agent" of this organisation or "agent@org".
func (f *Face) serveAgent(w http.ResponseWriter, r *http.Request) {
	if err := f.cfg.Registry.Allow(r.RemoteAddr); err != nil {
		f.writeError(w, err)
		return
	}
	ctx, cancel := f.routeContext(r)
	defer cancel()
	f.writeValue(w)(f.cfg.Registry.Agent(ctx, r.PathValue("id")))
}

// serveCapabilities is GET /registry/v1/capabilities?prefix=P&verified=true:
// the capabilities anonymous callers can find agents for, with counts.
func (f *Face) serveCapabilities(w http.ResponseWriter, r *http.Request) {
	if err := f.cfg.Registry.Allow(r.RemoteAddr); err != nil {
		f.writeError(w, err)
		return
	}
	q := r.URL.Query()
	verified := false
	if text := q.Get("verified"); text != "" {
		var err error
		if verified, err = strconv.ParseBool(text); err != nil {
			f.writeError(w, wire.Errorf(wire.ErrInvalidParam, "verified", "want true or false"))
			return
		}
	}
	ctx, cancel := f.routeContext(r)
	defer cancel()
	f.writeValue(w)(f.cfg.Registry.Capabilities(ctx, q.Get("prefix"), verified))
}

// servePing is POST /registry/v1/ping/{id}: whether a listed agent is
// alive. The body may be {"nonce":"…"}, which the answer repeats.
func (f *Face) servePing(w http.ResponseWriter, r *http.Request) {
	if err := f.cfg.Registry.Allow(r.RemoteAddr); err != nil {
		f.writeError(w, err)
		return
	}
	body, ok := f.readBody(w, r, pipeline.FaceHTTP, 4096)
	if !ok {
		return
	}
	nonce := pipeline.NewMessageID(f.cfg.Rand)
	if v, err := wire.Parse(body, 4); err == nil {
		if n, ok := v.Get("nonce").Str(); ok && n != "" && len(n) <= 128 {
			nonce = n
		}
	}
	ctx, cancel := f.routeContext(r)
	defer cancel()
	f.writeValue(w)(f.cfg.Registry.Ping(ctx, r.PathValue("id"), nonce))
}

// writeValue answers a registry route with v, or with a signed error.
func (f *Face) writeValue(w http.ResponseWriter) func(v wire.Value, err error) {
	return func(v wire.Value, err error) {
		if err != nil {
			f.writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(wire.AppendCanonical(nil, v), '\n'))
	}
}

// writeError answers a registry route with a signed error message.
func (f *Face) writeError(w http.ResponseWriter, err error) {
	WriteAnswer(w, f.cfg.Pipeline.Refuse(nil, nil, err))
}
