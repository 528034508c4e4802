package directory

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/moltgate/moltgate/wire"
)

// Record is one entry as a registry answers it: in discovery results, in
// lookups and in register receipts. The attested fields are covered by the
// registry's Attestation (see VerifyAttestation); the rest is information.
type Record struct {
	AgentID       string          `json:"agent_id"`
	Org           string          `json:"org"`
	Name          string          `json:"name,omitempty"`
	Description   string          `json:"description,omitempty"`
	Endpoint      string          `json:"endpoint"`
	Transport     string          `json:"transport,omitempty"`
	WebSocket     string          `json:"websocket,omitempty"`
	PublicKey     string          `json:"public_key"`
	EncryptionKey string          `json:"encryption_key,omitempty"`
	Capabilities  []string        `json:"capabilities"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
	Tags          []string        `json:"tags,omitempty"`
	Visibility    Visibility      `json:"visibility"`
	// AllowedOrgs is shown to local viewers only: a peer does not learn
	// who else an entry is disclosed to.
	AllowedOrgs []string `json:"allowed_orgs,omitempty"`
	Verified    bool     `json:"verified"`

	// Search only.
	MatchScore          *float64 `json:"match_score,omitempty"`
	CapabilitiesMatched []string `json:"capabilities_matched,omitempty"`

	// Liveness, when the agent was observed.
	Status    Status   `json:"status,omitempty"`
	Uptime30d *float64 `json:"uptime_30d,omitempty"`
	LastSeen  int64    `json:"last_seen,omitempty"`

	RegisteredAt int64       `json:"registered_at"`
	UpdatedAt    int64       `json:"updated_at"`
	ExpiresAt    int64       `json:"expires_at"`
	Attestation  Attestation `json:"attestation"`
}

// Record renders e for viewer v, with liveness lv (nil if unknown), and
// attests it.
func (r *Registry) Record(e *Entry, v Viewer, lv *Liveness) Record {
	a := AttestedOf(e)
	rec := Record{
		AgentID: e.AgentID, Org: e.Org, Name: e.Name, Description: e.Description,
		Endpoint: e.Endpoint.URL, Transport: e.Endpoint.Transport, WebSocket: e.Endpoint.WebSocket,
		PublicKey: e.PublicKey, EncryptionKey: e.EncryptionKey, Capabilities: a.Capabilities,
		Metadata: e.Metadata, Tags: e.Tags, Visibility: e.Visibility, Verified: e.Verified,
		RegisteredAt: a.RegisteredAt, UpdatedAt: e.UpdatedAt.UnixMilli(), ExpiresAt: a.ExpiresAt,
		Attestation: r.attest(&a),
	}
	if v.Local {
		rec.AllowedOrgs = e.AllowedOrgs
	}
	if lv != nil {
		u := lv.Uptime30d
		rec.Status, rec.Uptime30d, rec.LastSeen = lv.Status, &u, lv.LastSeen.UnixMilli()
	}
	return rec
}

// Answer is a discovery response: {"results":[…],"total":n,"has_more":b},
// with "cursor" for the next page when there is one.
type Answer struct {
	Results []Record `json:"results"`
	Total   int      `json:"total"`
	HasMore bool     `json:"has_more"`
	Cursor  string   `json:"cursor,omitempty"`
}

// Value returns the answer as JSON.
func (a *Answer) Value() wire.Value {
	v, err := wire.ValueOf(a)
	if err != nil {
		// Records hold validated text only.
		panic("directory: render answer: " + err.Error())
	}
	return v
}

// QueryFrom turns a discover payload into a Query (without its Viewer).
// Faults are E_INVALID_PARAM naming the payload's field.
func QueryFrom(p *wire.DiscoverPayload) (*Query, error) {
	q := &Query{Capability: p.Capability, Limit: p.Limit, Cursor: p.Cursor}
	if p.Capabilities != nil {
		q.All, q.Any = p.Capabilities.All, p.Capabilities.Any
	}
	if !p.Requirements.IsAbsent() {
		req, err := ParseRequirements(wire.AppendCanonical(nil, p.Requirements))
		if err != nil {
			return nil, queryError(err)
		}
		q.Requirements = req
	}
	if f := p.Filters; f != nil {
		q.Verified = f.Verified != nil && *f.Verified
		q.MinUptime, q.Orgs = f.MinUptime, f.Org
	}
	srt, err := ParseSort(p.Sort)
	if err != nil {
		return nil, queryError(err)
	}
	q.Sort = srt
	if err := q.Validate(); err != nil {
		return nil, queryError(err)
	}
	return q, nil
}

func queryError(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return wire.Errorf(wire.ErrInvalidParam, "p."+fe.Field, "%s", fe.Reason)
	}
	return storeError(err)
}

// Discover answers a discover payload for viewer v. With p.agent_id it
// looks one agent up by its exact id, which finds unlisted entries too (in
// the registry's own organisation, or the one organisation filters.org
// names); an agent the viewer may not see is E_AGENT_NOT_FOUND, as if it
// did not exist. Otherwise it searches; includeHidden is the local
// inventory (Query.IncludeHidden). Anonymous discovery through a proxy
// (the specification's "anonymous": true) is not offered: asking for it is
// E_INVALID_PARAM rather than an answer that reveals identities. An entry
// that holds personal data or secrets is left out of an answer to anyone
// but a local viewer, and out of its total (see publishable).
func (r *Registry) Discover(ctx context.Context, p *wire.DiscoverPayload, v Viewer, includeHidden bool) (*Answer, error) {
	if p.Anonymous {
		return nil, wire.Errorf(wire.ErrInvalidParam, "p.anonymous", "this registry does not offer anonymous discovery")
	}
	if p.AgentID != "" {
		org := r.cfg.Org
		if p.Filters != nil && len(p.Filters.Org) == 1 {
			org = p.Filters.Org[0]
		}
		rec, err := r.Lookup(ctx, ID{Agent: p.AgentID, Org: org}, v)
		if err != nil {
			if code(err) == wire.ErrAgentNotFound {
				return nil, wire.Errorf(wire.ErrAgentNotFound, "p.agent_id", "no such agent in this registry")
			}
			return nil, err
		}
		return &Answer{Results: []Record{rec}, Total: 1}, nil
	}
	q, err := QueryFrom(p)
	if err != nil {
		return nil, err
	}
	q.Viewer, q.IncludeHidden = v, includeHidden && v.Local
	page, err := r.store.Search(ctx, q)
	if err != nil {
		return nil, queryError(err)
	}
	ans := &Answer{Results: make([]Record, 0, len(page.Results)), Total: page.Total, HasMore: page.Next != "", Cursor: page.Next}
	for i := range page.Results {
		res := &page.Results[i]
		if !v.Local && !r.publishable(&res.Entry, false) {
			ans.Total--
			continue
		}
		rec := r.Record(&res.Entry, v, res.Liveness)
		score := res.MatchScore
		rec.MatchScore, rec.CapabilitiesMatched = &score, res.CapabilitiesMatched
		ans.Results = append(ans.Results, rec)
	}
	return ans, nil
}

// Lookup returns the record of agent id if v may see it, else
// E_AGENT_NOT_FOUND; an entry that holds personal data or secrets only a
// local viewer may see.
func (r *Registry) Lookup(ctx context.Context, id ID, v Viewer) (Record, error) {
	e, err := r.store.Get(ctx, id, v)
	if err != nil {
		return Record{}, storeError(err)
	}
	if !v.Local && !r.publishable(&e, false) {
		return Record{}, storeError(ErrNotFound)
	}
	var lv *Liveness
	if l, err := r.store.Liveness(ctx, id); err == nil {
		lv = &l
	}
	return r.Record(&e, v, lv), nil
}

// Capabilities lists the capabilities v can find agents for, those that
// start with prefix, with agent counts:
//
//	{"capabilities":[{"name":"calendar.check","agents_count":127},…]}
func (r *Registry) Capabilities(ctx context.Context, prefix string, verified bool, v Viewer) (wire.Value, error) {
	if len(prefix) > MaxCapabilityLen {
		return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "prefix", "longer than %d bytes", MaxCapabilityLen)
	}
	for i := 0; i < len(prefix); i++ {
		if !nameByte(prefix[i]) && prefix[i] != '.' {
			return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "prefix", "want the start of a capability name")
		}
	}
	list, err := r.store.Capabilities(ctx, &CapabilityQuery{Prefix: prefix, Verified: verified, Viewer: v})
	if err != nil {
		return wire.Value{}, storeError(err)
	}
	items := make([]wire.Value, len(list))
	for i, c := range list {
		items[i] = wire.ObjectValue(
			wire.Member{Key: "name", Value: wire.StringValue(c.Name)},
			wire.Member{Key: "agents_count", Value: wire.IntValue(int64(c.Agents))})
	}
	return wire.ObjectValue(wire.Member{Key: "capabilities", Value: wire.ArrayValue(items...)}), nil
}

// RecordPong records an agent's answer to a ping as a liveness
// observation. The pong's "busy" counts as degraded; a load above 1 is
// taken as 1.
func (r *Registry) RecordPong(ctx context.Context, id ID, p *wire.PongPayload) error {
	st := Status(p.Status)
	if p.Status == "busy" {
		st = StatusDegraded
	}
	hb := Heartbeat{At: r.now(), Status: st, Load: min(max(p.Load, 0), 1), QueueDepth: int(p.QueueDepth)}
	if st.Up() {
		hb.CapabilitiesActive = p.CapabilitiesActive
	}
	if err := hb.Validate(); err != nil {
		return wire.Errorf(wire.ErrInvalidParam, "p", "%v", err)
	}
	return storeError0(r.store.RecordLiveness(ctx, id, hb))
}

// RecordUnreachable records that a ping to agent id got no answer.
func (r *Registry) RecordUnreachable(ctx context.Context, id ID) error {
	return storeError0(r.store.RecordLiveness(ctx, id, Heartbeat{At: r.now(), Status: StatusOffline}))
}

func storeError0(err error) error {
	if err == nil {
		return nil
	}
	return storeError(err)
}

func code(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}
