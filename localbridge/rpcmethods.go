package localbridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// MaxDiscoverLimit bounds the results of one directory.discover: one page
// of the registry.
const MaxDiscoverLimit = 100

func (c *rpcConn) discover(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p DiscoverRequest
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.Capability != "" && !capPattern.MatchString(p.Capability):
		return nil, invalidParams("capability", "capability is not a valid capability name")
	case p.Org != "" && !namePattern.MatchString(p.Org):
		return nil, invalidParams("org", "org is not a valid organisation name")
	case p.Limit < 0 || p.Limit > MaxDiscoverLimit:
		return nil, invalidParams("limit", fmt.Sprintf("limit must be between 1 and %d", MaxDiscoverLimit))
	}
	p.Query = r.Params
	if len(p.Query) == 0 {
		p.Query = json.RawMessage("{}")
	}
	res, err := c.s.cfg.Directory.Discover(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return res, nil
}

func (c *rpcConn) sync(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p SyncRequest
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Peer != "" && !namePattern.MatchString(p.Peer) {
		return nil, invalidParams("peer", "peer is not a valid organisation name")
	}
	res, err := c.s.cfg.Sync.SyncDirectory(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return res, nil
}

func (c *rpcConn) ping(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p PingRequest
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if !addressPattern.MatchString(p.Agent) {
		return nil, invalidParams("agent", "agent must name an agent as agent@org")
	}
	res, err := c.s.cfg.Ping.Ping(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return res, nil
}

func (c *rpcConn) askConsent(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p ConsentAsk
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	switch {
	case !strings.Contains(p.To, "@") || !addressPattern.MatchString(p.To):
		return nil, invalidParams("to", "to must name an agent as agent@org")
	case p.From != "" && (strings.Contains(p.From, "@") || !addressPattern.MatchString(p.From)):
		return nil, invalidParams("from", "from must name a local agent")
	case p.Purpose == "" || len(p.Purpose) > 256:
		return nil, invalidParams("purpose", "purpose is required, at most 256 bytes")
	case len(p.DataTypes) == 0 || len(p.DataTypes) > 16:
		return nil, invalidParams("data_types", "data_types lists one to 16 types")
	case len(p.Human) > 256 || len(p.Duration) > 64:
		return nil, invalidParams("human", "human or duration is too long")
	}
	for _, t := range p.DataTypes {
		if !typePattern.MatchString(t) {
			return nil, invalidParams("data_types", "a data type is not a valid name")
		}
	}
	ans, err := c.s.cfg.Asker.AskConsent(c.ctx, p)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return ans, nil
}

func (c *rpcConn) issueConsent(r *jsonrpc.Request) (any, *jsonrpc.Error) {
	var p struct {
		ConsentRequest
		TTL        string `json:"ttl"`
		TTLSeconds int64  `json:"ttl_seconds"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	req := p.ConsentRequest
	switch {
	case !strings.Contains(req.Grantee, "@") || !addressPattern.MatchString(req.Grantee):
		return nil, invalidParams("grantee", "grantee must name an agent as agent@org")
	case req.Purpose == "" || len(req.Purpose) > 128:
		return nil, invalidParams("purpose", "purpose is required, at most 128 bytes")
	case len(req.DataTypes) == 0 || len(req.DataTypes) > 32:
		return nil, invalidParams("data_types", "data_types lists one to 32 types")
	case len(req.GrantedBy) > 256:
		return nil, invalidParams("granted_by", "granted_by is too long")
	}
	for _, t := range req.DataTypes {
		if !typePattern.MatchString(t) {
			return nil, invalidParams("data_types", "a data type is not a valid name")
		}
	}
	switch {
	case p.TTL != "" && p.TTLSeconds != 0:
		return nil, invalidParams("ttl", "give ttl or ttl_seconds, not both")
	case p.TTL != "":
		d, err := time.ParseDuration(p.TTL)
		if err != nil {
			return nil, invalidParams("ttl", "ttl is not a duration such as 1h")
		}
		req.TTL = d
	case p.TTLSeconds != 0:
		// A count past the longest ttl is refused as it is: multiplied into a Duration, a
		// huge one wraps around to one that passes.
		req.TTL = MaxConsentTTL + 1
		if p.TTLSeconds <= int64(MaxConsentTTL/time.Second) {
			req.TTL = time.Duration(p.TTLSeconds) * time.Second
		}
	default:
		req.TTL = time.Hour
	}
	if err := CheckConsentTTL(req.TTL); err != nil {
		return nil, invalidParams("ttl", "ttl "+err.Error())
	}
	tok, err := c.s.cfg.Consent.IssueConsent(c.ctx, req)
	if err != nil {
		return nil, c.s.errorFor(err)
	}
	return map[string]string{"token": tok}, nil
}
