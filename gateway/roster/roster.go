// Package roster is the gateway's table of its own agents: the local
// agents it runs or admits, each with its key pair and the identity and
// capability certificates the organisation issues it. It reads their
// records (at open, and again on every reload), has the organisation
// certify their keys and renews the certificates before they run out,
// hands the agents to the local bridge, and keeps each agent's directory
// entry in step with what the local bridge reports of it: published while
// it is there, withdrawn when it is removed, or when an agent the gateway
// does not launch stays away too long.
//
// Calls read the table without a lock: it is a map that is never changed
// once stored, and a change is a new map.
package roster

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/filestamp"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// Bridge is the local bridge the agents connect to.
type Bridge interface {
	// AddAgent admits a new agent, and launches it if it has a command.
	AddAgent(spec localbridge.AgentSpec) error
	// UpdateAgent applies a changed agent's configuration, relaunching it
	// if its command changed.
	UpdateAgent(spec localbridge.AgentSpec) (relaunched bool, err error)
	// RemoveAgent stops an agent and forgets it.
	RemoveAgent(id string) error
	// Agent returns what the bridge knows of agent id now.
	Agent(id string) (localbridge.AgentInfo, bool)
}

// Directory is where the agents' entries are published.
type Directory interface {
	// Publish writes a's entry as the local bridge reports it in info.
	Publish(ctx context.Context, a *Agent, info localbridge.AgentInfo)
	// Withdraw removes agent id's entry.
	Withdraw(ctx context.Context, id string)
}

// Ceilings are the classification ceilings of the agents.
type Ceilings interface {
	SetAgent(id string, max wire.Class) error
	RemoveAgent(id string)
	AgentCeiling(id string) wire.Class
}

// Config is what New needs. Every field is required unless it says
// otherwise.
type Config struct {
	// Self is gateway@org, read at each use: the organisation's key
	// issues the agents' certificates, and every agent's enc_key is the
	// gateway's X25519 key.
	Self func() *identity.Agent
	// Records reads the agents' records (DIR/agents) again, checked, for
	// Reload.
	Records func() ([]*Record, error)
	// Identity reads agent id's key file. Its error is returned as it is
	// when Named says it names the file already, and wrapped with the
	// agent's id otherwise.
	Identity func(id string) (*identity.Agent, error)
	// KeyPath is where agent id's key file is: an agent whose key file
	// changed is a new agent.
	KeyPath func(id string) string
	// Named reports whether err already names the file it is about.
	// Default: no error does.
	Named func(err error) bool
	// CertTTL is how long the certificates issued are valid for.
	CertTTL time.Duration
	// WithdrawAfter is how long an agent the gateway does not launch may
	// stay disconnected before its entry is withdrawn.
	WithdrawAfter time.Duration
	// Directory is where the entries are published.
	Directory Directory
	// Ceilings are the agents' classification ceilings.
	Ceilings Ceilings
	// Reported is told what the local bridge reports of an agent (the
	// event stream). Default none.
	Reported func(localbridge.AgentInfo)
	// Withdrawn is told of an entry withdrawn for an agent away too long
	// (the event stream). Default none.
	Withdrawn func(id string)
	// Closing reports whether the gateway is shutting down, when no entry
	// is withdrawn any more for an agent away. Default never.
	Closing func() bool
	// Log receives what the roster does. Required.
	Log *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Roster is the table of the local agents.
type Roster struct {
	cfg    Config
	bridge Bridge // set by Launch
	// agents holds the agents by id. The map is never changed once
	// stored: Reload and Renew store a new one.
	agents atomic.Pointer[map[string]*Agent]
	// mu serialises Reload and Renew, which make the next map from the
	// current one.
	mu sync.Mutex
	// publishMu orders directory writes, so that an entry withdrawn for a
	// removed agent is not written again by a late report of the local
	// bridge.
	publishMu sync.Mutex
	away      away // agents started elsewhere while disconnected
}

// Agent is one local agent as the roster holds it. It is not changed once
// stored: a new configuration is a new Agent.
type Agent struct {
	// Spec is the agent's record.
	Spec *Record
	// Identity is its key pair.
	Identity *identity.Agent
	// Cert is its identity certificate, issued by the organisation.
	Cert *identity.Cert
	// Caps are what the organisation certifies it may ask of peers.
	Caps []*identity.CapabilityCert
	key  filestamp.Stamp // of the key file Identity was read from
}

// New reads the keys of the agents of records, the records as the gateway
// read them when it opened, and has the organisation certify them; a key
// that does not load is an error. The agents reach the local bridge with
// Launch.
func New(cfg Config, records []*Record) (*Roster, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Named == nil {
		cfg.Named = func(error) bool { return false }
	}
	if cfg.Reported == nil {
		cfg.Reported = func(localbridge.AgentInfo) {}
	}
	if cfg.Withdrawn == nil {
		cfg.Withdrawn = func(string) {}
	}
	if cfg.Closing == nil {
		cfg.Closing = func() bool { return false }
	}
	r := &Roster{cfg: cfg}
	now := cfg.Now()
	agents := make(map[string]*Agent, len(records))
	for _, a := range records {
		st, err := r.load(a, now)
		if err != nil {
			return nil, err
		}
		agents[a.ID] = st
	}
	r.agents.Store(&agents)
	return r, nil
}

// Launch hands every agent to the local bridge b, which launches those it
// runs and reports each through Changed; Reload hands it those added
// later. Every agent is in the table before the bridge hears of any,
// since its reports read the table from another goroutine.
func (r *Roster) Launch(b Bridge) error {
	r.bridge = b
	for _, st := range r.sorted() {
		if err := b.AddAgent(st.Spec.bridgeSpec()); err != nil {
			return fmt.Errorf("agent %s: %w", st.Spec.ID, err)
		}
	}
	return nil
}

// Agent returns the local agent id, or nil.
func (r *Roster) Agent(id string) *Agent { return (*r.agents.Load())[id] }

// All returns the local agents by id. The map must not be changed.
func (r *Roster) All() map[string]*Agent { return *r.agents.Load() }

// Len is how many local agents there are.
func (r *Roster) Len() int { return len(*r.agents.Load()) }

// load reads a local agent's keys and has the org certify them.
func (r *Roster) load(a *Record, now time.Time) (*Agent, error) {
	key := filestamp.Of(r.cfg.KeyPath(a.ID))
	id, err := r.cfg.Identity(a.ID)
	if err != nil && r.cfg.Named(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", a.ID, err)
	}
	self := r.cfg.Self()
	if id.Ref.Org != self.Ref.Org || id.Ref.Agent != a.ID {
		return nil, fmt.Errorf("agent %s: key file is for %s", a.ID, id.Ref)
	}
	st := &Agent{Spec: a, Identity: sharing(id, self), key: key}
	if err := r.certify(st, now); err != nil {
		return nil, fmt.Errorf("agent %s: %w", a.ID, err)
	}
	return st, nil
}

// sharing is id with the gateway's X25519 key, which every local agent
// shares: the gateway opens what is sealed to its agents. The key an
// agent's key file holds is not read (key rotate writes the gateway's new
// key into the agents' files before the gateway switches to it), so that
// an agent's enc_key is always the gateway's in use.
func sharing(id, self *identity.Agent) *identity.Agent {
	if id.Encryption.Equal(self.Encryption) {
		return id
	}
	return &identity.Agent{Ref: id.Ref, Signing: id.Signing, Encryption: self.Encryption}
}

// Issuer is the organisation as it issues certificates: gateway@org's
// name and signing key.
func Issuer(self *identity.Agent) *identity.Org {
	return &identity.Org{Name: self.Ref.Org, Signing: self.Signing}
}

// certify has the org issue st's identity and capability certificates,
// valid for CertTTL from now.
func (r *Roster) certify(st *Agent, now time.Time) error {
	org := Issuer(r.cfg.Self())
	exp := now.Add(r.cfg.CertTTL)
	cert, err := org.IssueIdentity(st.Identity.Public(), now.Add(-time.Minute), exp)
	if err != nil {
		return err
	}
	// The org certifies that its agents may invoke peers' tools; the peer
	// still decides, by its ceilings and policies, what they may reach.
	var caps []*identity.CapabilityCert
	for _, c := range []string{"tool.invoke"} {
		cc, err := org.IssueCapability(st.Identity.Ref, st.Identity.Signing.Public(), c, now.Add(-time.Minute), exp)
		if err != nil {
			return err
		}
		caps = append(caps, cc)
	}
	st.Cert, st.Caps = cert, caps
	LogIssued(r.cfg.Log, cert, caps)
	return nil
}

// sorted is the agents in the order of their ids.
func (r *Roster) sorted() []*Agent {
	all := r.All()
	out := make([]*Agent, 0, len(all))
	for _, st := range all {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec.ID < out[j].Spec.ID })
	return out
}
