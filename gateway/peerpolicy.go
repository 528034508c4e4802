package gateway

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/wire"
)

// PeerPolicyConfig overrides, for every peer ([peers.policy]) or for one
// ([peers.org.ORG]), how calls to peers handle failures. Every key left
// out keeps OSSA's default handling (peers.DefaultPolicy); one peer's
// table overrides [peers.policy] key by key.
type PeerPolicyConfig struct {
	// BreakerFailures is how many consecutive failures that count open
	// the peer's circuit breaker. Default 5; 1 to 1000.
	BreakerFailures *int `toml:"breaker_failures"`
	// BreakerCooldown is how long an open breaker fails calls at once
	// before it lets a trial call through. Default 1s; 100ms to 10m.
	BreakerCooldown *Duration `toml:"breaker_cooldown"`
	// BreakerMaxCooldown bounds the cool-down, which doubles each time a
	// trial fails. Default 32s; breaker_cooldown to 1h.
	BreakerMaxCooldown *Duration `toml:"breaker_max_cooldown"`
	// Retry overrides the handling of failures by OSSA class: TOOL_ERROR,
	// TOOL_TIMEOUT, RATE_LIMITED, STATE_ERROR or CIRCUIT_OPEN. Defaults in
	// peers.DefaultPolicy and docs/protocol.md.
	Retry map[string]RetryRuleConfig `toml:"retry"`
}

// RetryRuleConfig overrides the handling of one OSSA class of failure.
type RetryRuleConfig struct {
	// Retries is how many times a call that failed so is sent again.
	// Default: OSSA's (TOOL_ERROR 3, TOOL_TIMEOUT 2, RATE_LIMITED 3,
	// STATE_ERROR 1, CIRCUIT_OPEN 0); 0 to 10.
	Retries *int `toml:"retries"`
	// Backoff is the wait before the first retry, doubled before each
	// next one. Default 100ms (STATE_ERROR and CIRCUIT_OPEN 0s); 0s to 1m.
	Backoff *Duration `toml:"backoff"`
	// MaxBackoff bounds the wait, and a peer's retry_after: a longer one
	// fails the call at once, with it. Default 2s (RATE_LIMITED 5s,
	// STATE_ERROR and CIRCUIT_OPEN 0s); backoff to 10m.
	MaxBackoff *Duration `toml:"max_backoff"`
	// Breaker counts failures of the class toward opening the breaker.
	// Default true for TOOL_ERROR and CIRCUIT_OPEN, false otherwise.
	Breaker *bool `toml:"breaker"`
}

// PeerPolicy is how calls to the peer of org handle failures: OSSA's
// default handling, overridden by [peers.policy] and then by
// [peers.org.ORG].
func (c *PeersConfig) PeerPolicy(org string) peers.Policy {
	p := peers.DefaultPolicy()
	c.Policy.apply(&p)
	if o, ok := c.Org[org]; ok {
		o.apply(&p)
	}
	return p
}

func (c PeerPolicyConfig) apply(p *peers.Policy) {
	if c.BreakerFailures != nil {
		p.BreakerFailures = *c.BreakerFailures
	}
	if c.BreakerCooldown != nil {
		p.BreakerCooldown = c.BreakerCooldown.D()
	}
	if c.BreakerMaxCooldown != nil {
		p.BreakerMaxCooldown = c.BreakerMaxCooldown.D()
	}
	for name, rc := range c.Retry {
		o := wire.OSSACode(name)
		r := p.Rules[o]
		if rc.Retries != nil {
			r.Retries = *rc.Retries
		}
		if rc.Backoff != nil {
			r.Backoff = rc.Backoff.D()
		}
		if rc.MaxBackoff != nil {
			r.MaxBackoff = rc.MaxBackoff.D()
		}
		if rc.Breaker != nil {
			r.Breaker = *rc.Breaker
		}
		p.Rules[o] = r
	}
}

// checkPeerPolicies checks [peers.policy] and every [peers.org.ORG], each
// as it applies: over the defaults, and over [peers.policy].
func (c *PeersConfig) checkPeerPolicies() error {
	if err := c.Policy.check("peers.policy", c.PeerPolicy("")); err != nil {
		return err
	}
	orgs := make([]string, 0, len(c.Org))
	for org := range c.Org {
		orgs = append(orgs, org)
	}
	sort.Strings(orgs)
	for _, org := range orgs {
		key := "peers.org." + org
		if !wire.ValidName(org) {
			return &ConfigError{Key: key, Msg: "not an organisation name ([A-Za-z0-9_-]{1,128})"}
		}
		if err := c.Org[org].check(key, c.PeerPolicy(org)); err != nil {
			return err
		}
	}
	return nil
}

// check refuses a class that is never retried and any number out of its
// range in c, whose policy, merged, is p.
func (c PeerPolicyConfig) check(key string, p peers.Policy) error {
	bad := func(k, format string, a ...any) error {
		return &ConfigError{Key: key + "." + k, Msg: fmt.Sprintf(format, a...)}
	}
	if v := p.BreakerFailures; v < 1 || v > 1000 {
		return bad("breaker_failures", "must be between 1 and 1000; leave it out for the default 5")
	}
	if v := p.BreakerCooldown; v < 100*time.Millisecond || v > 10*time.Minute {
		return bad("breaker_cooldown", "must be between 100ms and 10m; leave it out for the default 1s")
	}
	if v := p.BreakerMaxCooldown; v < p.BreakerCooldown || v > time.Hour {
		return bad("breaker_max_cooldown", "must be between breaker_cooldown (%s) and 1h; leave it out for the default 32s", p.BreakerCooldown)
	}
	names := make([]string, 0, len(c.Retry))
	for name := range c.Retry {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o := wire.OSSACode(name)
		if !slices.Contains(peers.RetriedClasses, o) {
			classes := make([]string, len(peers.RetriedClasses))
			for i, rc := range peers.RetriedClasses {
				classes[i] = string(rc)
			}
			return bad("retry."+name, "not a class of failure that may be retried; use one of %s (the others are refusals a retry meets again)", strings.Join(classes, ", "))
		}
		r, def := p.Rules[o], peers.DefaultPolicy().Rules[o]
		k := "retry." + name + "."
		if r.Retries < 0 || r.Retries > 10 {
			return bad(k+"retries", "must be between 0 and 10; leave it out for the default %d", def.Retries)
		}
		if r.Backoff < 0 || r.Backoff > time.Minute {
			return bad(k+"backoff", "must be between 0s and 1m; leave it out for the default %s", def.Backoff)
		}
		if r.MaxBackoff < r.Backoff || r.MaxBackoff > 10*time.Minute {
			return bad(k+"max_backoff", "must be between backoff (%s) and 10m; leave it out for the default %s", r.Backoff, def.MaxBackoff)
		}
	}
	return nil
}
