package registry

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// rig is a registry over a real SQLite store, with one local agent, calc.
type rig struct {
	s      *Service
	org    *identity.Agent
	calc   *identity.Agent
	locals *fixedLocals
}

// fixedLocals are local agents whose state the test sets.
type fixedLocals struct{ infos []localbridge.AgentInfo }

func (l *fixedLocals) Agents() []localbridge.AgentInfo { return l.infos }

func (l *fixedLocals) Pong(agent, nonce string) (*wire.PongPayload, bool) {
	for _, in := range l.infos {
		if in.ID == agent {
			return &wire.PongPayload{Nonce: nonce, Status: "alive", Load: in.Load, CapabilitiesActive: in.Capabilities()}, true
		}
	}
	return nil, false
}

func newRig(t *testing.T, edit func(*Config)) *rig {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "dir.db"), directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	org, err := identity.Generate(rand.Reader, wire.Ref{Agent: pipeline.GatewayAgent, Org: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	calc, err := identity.Generate(rand.Reader, wire.Ref{Agent: "calc", Org: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add("acme", org.Signing.Public())
	locals := &fixedLocals{}
	cfg := Config{Store: st, Org: "acme", Signer: org, Trust: trust, MaxTTL: time.Hour,
		Endpoint: "https://acme.example/moltspeak/v0.1/message", Locals: locals}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{s: s, org: org, calc: calc, locals: locals}
}

// publish publishes calc with its configured capability and the tools it
// registered.
func (r *rig) publish(t *testing.T, tools ...string) localbridge.AgentInfo {
	t.Helper()
	now := time.Now()
	cert, err := (&identity.Org{Name: "acme", Signing: r.org.Signing}).IssueIdentity(r.calc.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	info := localbridge.AgentInfo{ID: "calc", Connected: true, Healthy: true, Status: localbridge.StatusOK, Load: 0.25}
	for _, tool := range tools {
		info.Tools = append(info.Tools, localbridge.ToolInfo{Name: tool})
	}
	r.locals.infos = []localbridge.AgentInfo{info}
	r.s.Publish(context.Background(), LocalAgent{ID: "calc", Capabilities: []string{"math.add"},
		Key: r.calc.Signing.Public(), EncKey: r.calc.Encryption.Public(), Cert: cert.Value()}, info)
	return info
}

// A published local agent is listed with its configured capabilities and
// its tools, answers pings from its heartbeats, and is gone once withdrawn.
func TestPublishAndWithdraw(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	r.publish(t, "math.mul", "math.add")
	v, err := r.s.LookupAnonymous(ctx, "calc")
	if err != nil {
		t.Fatal(err)
	}
	caps := v.Get("capabilities")
	if caps.Len() != 2 || caps.Index(0).String() != `"math.add"` || caps.Index(1).String() != `"math.mul"` {
		t.Fatalf("capabilities %s, want math.add and math.mul once each", caps)
	}
	if u, _ := v.Get("endpoint").Str(); u != "https://acme.example/moltspeak/v0.1/message" {
		t.Fatalf("endpoint %q", u)
	}
	pong, err := r.s.PingAnonymous(ctx, "calc@acme", "n1")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := pong.Get("status").Str(); st != "alive" {
		t.Fatalf("pong %s", pong)
	}
	if n, _ := pong.Get("nonce").Str(); n != "n1" {
		t.Fatalf("pong %s does not repeat the nonce", pong)
	}
	r.s.Withdraw(ctx, "calc")
	if _, err := r.s.LookupAnonymous(ctx, "calc"); pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("withdrawn agent: %v, want E_AGENT_NOT_FOUND", err)
	}
	// Withdrawing what is not there is no error and changes nothing.
	r.s.Withdraw(ctx, "calc")
	if _, err := r.s.LookupAnonymous(ctx, "nobody@"); pipeline.Code(err) != wire.ErrInvalidParam {
		t.Fatalf("bad id: %v, want E_INVALID_PARAM", err)
	}
}

// An answer's attestations verify with the registry's key, and with no
// other; an altered result is refused with the whole answer.
func TestVerifyAttestations(t *testing.T) {
	r := newRig(t, nil)
	r.publish(t)
	ans, err := r.s.DiscoverLocal(context.Background(), &wire.DiscoverPayload{Capability: "math.add"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Get("results").Len() != 1 {
		t.Fatalf("discovery %s, want calc", ans)
	}
	now := time.Now()
	if err := VerifyAttestations(ans, "acme", r.org.Signing.Public(), now); err != nil {
		t.Fatalf("genuine answer: %v", err)
	}
	if err := VerifyAttestations(ans, "acme", r.calc.Signing.Public(), now); pipeline.Code(err) != wire.ErrSignature {
		t.Fatalf("another key: %v, want E_SIGNATURE", err)
	}
	res := ans.Get("results").Index(0)
	bad := ans.With("results", wire.ArrayValue(res.With("endpoint", wire.StringValue("https://attacker.example/m"))))
	err = VerifyAttestations(bad, "acme", r.org.Signing.Public(), now)
	if we := pipeline.AsWire(err); we.Code != wire.ErrSignature || we.Field[:len("results[0].")] != "results[0]." {
		t.Fatalf("altered endpoint: %v, want E_SIGNATURE at results[0]", err)
	}
	if err := VerifyAttestations(wire.ObjectValue(), "acme", r.org.Signing.Public(), now); pipeline.Code(err) != wire.ErrSchema {
		t.Fatalf("no results: %v, want E_SCHEMA", err)
	}
}

type countingLimit struct{ left int }

func (c *countingLimit) Allow(string) (bool, time.Duration) {
	if c.left == 0 {
		return false, 3 * time.Second
	}
	c.left--
	return true, 0
}

type count int

func (c *count) Inc() { *c++ }

// Anonymous callers spend the discovery budget; a refusal says when to
// come back and is counted.
func TestAnonymousDiscoveryLimit(t *testing.T) {
	var limited count
	r := newRig(t, func(c *Config) { c.Discovery, c.Limited = &countingLimit{left: 1}, &limited })
	if err := r.s.AllowAnonymous("192.0.2.1:4000"); err != nil {
		t.Fatal(err)
	}
	err := r.s.AllowAnonymous("192.0.2.1:4001")
	we := pipeline.AsWire(err)
	if we.Code != wire.ErrRateLimitDiscovery || we.Suggestion == nil || we.Suggestion.DelayMS != 3000 {
		t.Fatalf("over the limit: %+v", we)
	}
	if limited != 1 {
		t.Fatalf("%d refusals counted, want 1", limited)
	}
	if k := caller(directory.Viewer{}, "192.0.2.1:4001"); k != "addr:192.0.2.1" {
		t.Fatalf("anonymous key %q, want the host without its port", k)
	}
	if k := caller(directory.Viewer{Org: "globex"}, "192.0.2.1:4001"); k != "org:globex" {
		t.Fatalf("peer key %q, want its organisation", k)
	}
}

// A sync is wanted only when scheduled sync is on, and a peer forgotten
// is no longer waited for.
func TestWantSync(t *testing.T) {
	off := newRig(t, nil)
	off.s.WantSync("globex")
	if n := off.s.PendingSyncs(); n != 0 {
		t.Fatalf("sync off: %d pending", n)
	}
	on := newRig(t, func(c *Config) { c.SyncInterval = func() time.Duration { return time.Minute } })
	on.s.WantSync("globex")
	if n := on.s.PendingSyncs(); n != 1 {
		t.Fatalf("sync on: %d pending, want 1", n)
	}
	// globex is not a peer (no Peers): the catch-up drops it.
	on.s.catchUpOnce(context.Background())
	if n := on.s.PendingSyncs(); n != 0 {
		t.Fatalf("after catch-up with a stranger: %d pending", n)
	}
	on.s.WantSync("globex")
	on.s.Forget("globex")
	if n := on.s.PendingSyncs(); n != 0 {
		t.Fatalf("forgotten: %d pending", n)
	}
	if _, err := on.s.Sync(context.Background(), "globex"); pipeline.Code(err) != wire.ErrInvalidParam {
		t.Fatalf("sync with a stranger: %v, want E_INVALID_PARAM", err)
	}
}

func TestRetryAfter(t *testing.T) {
	ctx := context.Background()
	limited := wire.Errorf(wire.ErrRateLimit, "", "slow down").WithSuggestion(wire.Suggestion{Action: wire.ActionRetry, DelayMS: 1500})
	if d, ok := retryAfter(ctx, limited); !ok || d != 1500*time.Millisecond {
		t.Fatalf("rate limit: %v %v", d, ok)
	}
	if _, ok := retryAfter(ctx, wire.Errorf(wire.ErrPeerUnavailable, "", "down")); ok {
		t.Fatal("a peer that is down is not waited out")
	}
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, ok := retryAfter(short, limited); ok {
		t.Fatal("a wait past the deadline is not waited out")
	}
}

// PeerUp: a catch-up sync waiting out its wait after failures is due at
// once when the peer's gateway shows it is up; a peer not waited for is
// not synced for it.
func TestPeerUpMakesCatchUpDue(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := newRig(t, func(c *Config) {
		c.SyncInterval = func() time.Duration { return time.Minute }
		c.Now = func() time.Time { return now }
	})
	r.s.WantSync("globex")
	r.s.mu.Lock()
	r.s.pending["globex"].wait, r.s.pending["globex"].next = 16*time.Second, now.Add(16*time.Second)
	r.s.mu.Unlock()
	r.s.PeerUp("initech")
	r.s.PeerUp("globex")
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if p := r.s.pending["globex"]; p == nil || p.next.After(now) {
		t.Fatalf("globex's catch-up after PeerUp: %+v, want due now", p)
	}
	if _, ok := r.s.pending["initech"]; ok {
		t.Fatal("PeerUp of a peer not waited for asked for a sync")
	}
}
