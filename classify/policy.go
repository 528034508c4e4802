package classify

import (
	"fmt"
	"slices"
	"sync"

	"github.com/moltgate/moltgate/wire"
)

// Config sets the ceilings: the highest level that may be sent to or received from each peer
// organisation and each local agent.
type Config struct {
	// PeerDefault is the ceiling of an imported peer organisation that has none of its own
	// (`moltgate peer import` without --max-cls). Default int.
	PeerDefault wire.Class
	// AgentDefault is the ceiling of a configured local agent that has none of its own
	// (`moltgate agent add` without --max-cls). Default conf.
	AgentDefault wire.Class
	// Peers are the imported peer organisations and their ceilings; a zero ceiling means
	// PeerDefault. A peer that is not listed (nor added with SetPeer) gets pub only.
	Peers map[string]wire.Class
	// Agents are the configured local agents and their ceilings; a zero ceiling means
	// AgentDefault. An agent that is not listed (nor added with SetAgent) gets pub only.
	Agents map[string]wire.Class
}

// Policy holds the ceilings. It is safe for concurrent use; SetPeer and SetAgent take effect
// for every later check.
type Policy struct {
	peerDefault, agentDefault wire.Class

	mu     sync.RWMutex
	peers  map[string]wire.Class
	agents map[string]wire.Class
}

// NewPolicy builds a Policy from cfg.
func NewPolicy(cfg Config) (*Policy, error) {
	p := &Policy{peerDefault: cfg.PeerDefault, agentDefault: cfg.AgentDefault,
		peers: map[string]wire.Class{}, agents: map[string]wire.Class{}}
	if p.peerDefault == 0 {
		p.peerDefault = wire.Int
	}
	if p.agentDefault == 0 {
		p.agentDefault = wire.Conf
	}
	if !p.peerDefault.Valid() || !p.agentDefault.Valid() {
		return nil, fmt.Errorf("classify: invalid default ceiling")
	}
	for org, c := range cfg.Peers {
		if err := p.SetPeer(org, c); err != nil {
			return nil, err
		}
	}
	for agent, c := range cfg.Agents {
		if err := p.SetAgent(agent, c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func set(mu *sync.RWMutex, m map[string]wire.Class, what, name string, c, def wire.Class) error {
	if !wire.ValidName(name) {
		return fmt.Errorf("classify: %s %q is not a valid name", what, name)
	}
	if c == 0 {
		c = def
	}
	if !c.Valid() {
		return fmt.Errorf("classify: %s %s: invalid ceiling %d", what, name, c)
	}
	mu.Lock()
	m[name] = c
	mu.Unlock()
	return nil
}

// SetPeer sets the ceiling of peer organisation org (zero: the default).
func (p *Policy) SetPeer(org string, max wire.Class) error {
	return set(&p.mu, p.peers, "peer", org, max, p.peerDefault)
}

// SetAgent sets the ceiling of local agent id (zero: the default).
func (p *Policy) SetAgent(agent string, max wire.Class) error {
	return set(&p.mu, p.agents, "agent", agent, max, p.agentDefault)
}

// RemovePeer forgets org: it is back to pub only.
func (p *Policy) RemovePeer(org string) {
	p.mu.Lock()
	delete(p.peers, org)
	p.mu.Unlock()
}

// RemoveAgent forgets agent: it is back to pub only.
func (p *Policy) RemoveAgent(agent string) {
	p.mu.Lock()
	delete(p.agents, agent)
	p.mu.Unlock()
}

// PeerCeiling is the highest level that may cross to or from org.
func (p *Policy) PeerCeiling(org string) wire.Class {
	p.mu.RLock()
	c, ok := p.peers[org]
	p.mu.RUnlock()
	if !ok {
		return wire.Pub
	}
	return c
}

// AgentCeiling is the highest level that local agent may send or receive.
func (p *Policy) AgentCeiling(agent string) wire.Class {
	p.mu.RLock()
	c, ok := p.agents[agent]
	p.mu.RUnlock()
	if !ok {
		return wire.Pub
	}
	return c
}

// Allow decides whether a message of level c may cross between local agent and peer
// organisation org, given the levels the receiving side's hello listed (supported; nil when
// no hello applies). It returns nil or an E_CLASSIFICATION error that names the rule.
func (p *Policy) Allow(c wire.Class, org, agent string, supported []wire.Class) error {
	r := p.allow(c, org, agent, supported)
	if r == 0 {
		return nil
	}
	return classErr(r, c)
}

func (p *Policy) allow(c wire.Class, org, agent string, supported []wire.Class) Reason {
	switch {
	case !c.Valid():
		return ReasonInvalidClass
	case c > p.PeerCeiling(org):
		return ReasonPeerCeiling
	case c > p.AgentCeiling(agent):
		return ReasonAgentCeiling
	case supported != nil && !slices.Contains(supported, c):
		return ReasonUnsupported
	}
	return 0
}

// AllowLocal decides whether local agent may send or receive a message of
// level c inside this organisation, where no peer's ceiling applies. A
// refusal names the agent's ceiling and how to raise it, for an operator.
func (p *Policy) AllowLocal(c wire.Class, agent string) error {
	switch {
	case !c.Valid():
		return classErr(ReasonInvalidClass, c)
	case c > p.AgentCeiling(agent):
		return p.explain(classErr(ReasonAgentCeiling, c), ReasonAgentCeiling, c, "", agent)
	}
	return nil
}

// RuleError is the refusal of a message of class c by ceiling or class rule
// r as a peer may be told it: the rule alone, without the local
// configuration that the refusals for local callers explain.
func RuleError(r Reason, c wire.Class) *wire.Error { return classErr(r, c) }

func classErr(r Reason, c wire.Class) *wire.Error {
	msg := ""
	switch r {
	case ReasonInvalidClass:
		msg = "no valid classification"
	case ReasonPeerCeiling:
		msg = fmt.Sprintf("%s is above the ceiling set for the peer organisation", c)
	case ReasonAgentCeiling:
		msg = fmt.Sprintf("%s is above the ceiling set for the local agent", c)
	case ReasonUnsupported:
		msg = fmt.Sprintf("%s is not among the classes the receiving side's hello listed", c)
	case ReasonNotSealed:
		msg = fmt.Sprintf("%s must arrive encrypted", c)
	case ReasonSecret:
		msg = "secret material (keys, tokens, passwords) may only travel as sec"
	default:
		msg = "classification refused"
	}
	return &wire.Error{Code: wire.ErrClassification, Field: "cls", Message: msg}
}

// explain adds to err, a refusal of a message of level c by rule r, the
// ceiling that refused it and the setting that raises it, for an operator.
func (p *Policy) explain(err *wire.Error, r Reason, c wire.Class, org, agent string) *wire.Error {
	switch r {
	case ReasonPeerCeiling:
		err.Message = fmt.Sprintf("%s is above the ceiling of peer organisation %s (%s)", c, org, p.PeerCeiling(org))
		err.Suggestion = &wire.Suggestion{Action: wire.ActionRetry,
			Fix: fmt.Sprintf("send at most %s, or, if %s may have %s, import its peer document again with --max-cls %s", p.PeerCeiling(org), org, c, c)}
	case ReasonAgentCeiling:
		err.Message = fmt.Sprintf("%s is above the ceiling of local agent %s (%s)", c, agent, p.AgentCeiling(agent))
		err.Suggestion = &wire.Suggestion{Action: wire.ActionRetry,
			Fix: fmt.Sprintf("send at most %s, or, if %s may handle %s, raise max_cls in agents/%s.json (a running gateway takes it up within seconds)", p.AgentCeiling(agent), agent, c, agent)}
	}
	return err
}
