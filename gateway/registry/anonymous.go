package registry

import (
	"context"
	"strings"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// What the registry's HTTP routes answer anonymous callers: they see public
// entries that do not restrict their audience (and unlisted ones by exact
// id), and are rate-limited per address. The routes that take a message go
// through the pipeline instead, to Answer.

// AllowAnonymous takes a token of the discovery budget of the address
// remote ("host:port" or "host"), or says how long to wait.
func (s *Service) AllowAnonymous(remote string) error {
	return s.allowDiscovery(caller(directory.Viewer{}, remote))
}

// DiscoverAnonymous answers a plain discovery document.
func (s *Service) DiscoverAnonymous(ctx context.Context, p *wire.DiscoverPayload) (wire.Value, error) {
	if err := s.cfg.Codec.ValidateStruct(p, "p"); err != nil {
		return wire.Value{}, err
	}
	ans, err := s.reg.Discover(ctx, p, directory.Viewer{}, false)
	if err != nil {
		return wire.Value{}, err
	}
	return ans.Value(), nil
}

// LookupAnonymous answers one entry by its exact id, "agent" of this
// organisation or "agent@org".
func (s *Service) LookupAnonymous(ctx context.Context, id string) (wire.Value, error) {
	did, err := s.parseID(id)
	if err != nil {
		return wire.Value{}, err
	}
	rec, err := s.reg.Lookup(ctx, did, directory.Viewer{})
	if err != nil {
		return wire.Value{}, err
	}
	v, _ := wire.ValueOf(rec)
	return v, nil
}

// CapabilitiesAnonymous answers the capabilities anonymous callers can
// find agents for, with counts; prefix and verified filter them.
func (s *Service) CapabilitiesAnonymous(ctx context.Context, prefix string, verified bool) (wire.Value, error) {
	return s.reg.Capabilities(ctx, prefix, verified, directory.Viewer{})
}

// PingAnonymous answers whether a listed agent is alive. For this
// organisation's agents the answer comes from their heartbeats now; for
// others, from the latest observation on record. The answer repeats nonce,
// or a fresh one when it is "".
func (s *Service) PingAnonymous(ctx context.Context, id, nonce string) (wire.Value, error) {
	if nonce == "" {
		nonce = pipeline.NewMessageID(s.cfg.Rand)
	}
	did, err := s.parseID(id)
	if err != nil {
		return wire.Value{}, err
	}
	rec, err := s.reg.Lookup(ctx, did, directory.Viewer{})
	if err != nil {
		return wire.Value{}, err
	}
	pp := &wire.PongPayload{Nonce: nonce, Status: "offline", CapabilitiesActive: []string{}}
	local, ok := (*wire.PongPayload)(nil), false
	if did.Org == s.cfg.Org {
		local, ok = s.cfg.Locals.Pong(did.Agent, nonce)
	}
	if ok {
		pp = local
	} else if rec.Status != "" {
		pp.Status = string(rec.Status)
		if lv, err := s.cfg.Store.Liveness(ctx, did); err == nil {
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
	return v, nil
}

// parseID reads "agent" (of this organisation) or "agent@org".
func (s *Service) parseID(p string) (directory.ID, error) {
	if !strings.Contains(p, "@") {
		p += "@" + s.cfg.Org
	}
	id, err := directory.ParseID(p)
	if err != nil {
		return id, wire.Errorf(wire.ErrInvalidParam, "id", "want agent or agent@org")
	}
	return id, nil
}
