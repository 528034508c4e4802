package roster

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// entries is the directory as the roster writes it: the entries published,
// by agent, and every write in order.
type entries struct {
	mu     sync.Mutex
	now    map[string]*Agent
	writes []string
}

func (e *entries) Publish(ctx context.Context, a *Agent, info localbridge.AgentInfo) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now[info.ID] = a
	e.writes = append(e.writes, "publish "+info.ID)
}

func (e *entries) Withdraw(ctx context.Context, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.now, id)
	e.writes = append(e.writes, "withdraw "+id)
}

func (e *entries) get(id string) *Agent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now[id]
}

func (e *entries) log() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.writes, ", ")
}

// rig is a roster of org "acme" over a real local bridge and ceilings, its
// agents' key files in a temporary directory.
type rig struct {
	t       *testing.T
	self    *identity.Agent
	keys    map[string]*identity.Agent
	dir     string
	records []*Record
	entries *entries
	policy  *classify.Policy
	bridge  *localbridge.Core
	clock   time.Time
	logs    *bytes.Buffer
	r       *Roster
}

func newRig(t *testing.T, withdrawAfter time.Duration, records ...*Record) *rig {
	t.Helper()
	self, err := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := classify.NewPolicy(classify.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := &rig{t: t, self: self, keys: map[string]*identity.Agent{}, dir: t.TempDir(), records: records,
		entries: &entries{now: map[string]*Agent{}}, policy: policy, clock: time.Now(), logs: &bytes.Buffer{}}
	for _, a := range records {
		g.newKey(a.ID)
	}
	log := slog.New(slog.NewTextHandler(g.logs, nil))
	g.bridge = localbridge.NewCore(localbridge.Config{Logger: log})
	t.Cleanup(func() { g.bridge.Close() })
	g.r, err = New(Config{
		Self:    func() *identity.Agent { return g.self },
		Records: func() ([]*Record, error) { return g.records, nil },
		Identity: func(id string) (*identity.Agent, error) {
			if k := g.keys[id]; k != nil {
				return k, nil
			}
			return nil, os.ErrNotExist
		},
		KeyPath:       func(id string) string { return filepath.Join(g.dir, id) },
		CertTTL:       30 * 24 * time.Hour,
		WithdrawAfter: withdrawAfter,
		Directory:     g.entries, Ceilings: policy,
		Log: log, Now: func() time.Time { return g.clock },
	}, records)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.r.Launch(g.bridge); err != nil {
		t.Fatal(err)
	}
	return g
}

// newKey makes agent id a new key pair, and writes its key file anew.
func (g *rig) newKey(id string) {
	g.t.Helper()
	k, err := identity.Generate(rand.Reader, wire.Ref{Agent: id, Org: "acme"})
	if err != nil {
		g.t.Fatal(err)
	}
	k.Encryption = g.self.Encryption // every local agent receives through the gateway
	g.keys[id] = k
	if err := os.WriteFile(filepath.Join(g.dir, id), []byte(time.Now().String()+k.Ref.String()), 0o600); err != nil {
		g.t.Fatal(err)
	}
}

func TestNewRefusesAKeyNotTheAgents(t *testing.T) {
	self, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "acme"})
	other, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "calc", Org: "globex"})
	_, err := New(Config{
		Self: func() *identity.Agent { return self }, Identity: func(string) (*identity.Agent, error) { return other, nil },
		KeyPath: func(string) string { return "" }, CertTTL: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, []*Record{{ID: "calc"}})
	if want := "agent calc: key file is for calc@globex"; err == nil || err.Error() != want {
		t.Errorf("New = %v, want %q", err, want)
	}
}

// Every agent's enc_key is the gateway's X25519 key in use, whatever its
// key file holds (key rotate writes the new one into the files before the
// gateway switches to it), and follows it when it turns over: the
// identity, its certificate and its directory entry name the new one.
func TestAgentsShareTheGatewaysEncKey(t *testing.T) {
	g := newRig(t, time.Minute, &Record{ID: "calc", MaxCls: wire.Conf, Capabilities: []string{"calc.add"}})
	own, err := identity.Generate(rand.Reader, wire.Ref{Agent: "calc", Org: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	g.keys["calc"] = own // a key file whose X25519 key is not the gateway's
	g.r, err = New(Config{
		Self: func() *identity.Agent { return g.self }, Identity: func(string) (*identity.Agent, error) { return own, nil },
		KeyPath: func(string) string { return "" }, CertTTL: time.Hour, Directory: g.entries, Ceilings: g.policy,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return g.clock },
	}, g.records)
	if err != nil {
		t.Fatal(err)
	}
	bridge := localbridge.NewCore(localbridge.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { bridge.Close() })
	if err := g.r.Launch(bridge); err != nil {
		t.Fatal(err)
	}
	wantEnc := func(when string, enc keys.X25519Public) {
		t.Helper()
		st := g.r.Agent("calc")
		switch {
		case !st.Identity.Encryption.Public().Equal(enc):
			t.Fatalf("%s: the agent's X25519 key is not the gateway's", when)
		case !st.Cert.EncKey.Equal(enc) || !st.Identity.Public().EncKey.Equal(enc):
			t.Fatalf("%s: the agent's certificate names %s, want the gateway's %s", when, st.Cert.EncKey, enc)
		case !st.Identity.Signing.Public().Equal(own.Signing.Public()):
			t.Fatalf("%s: the agent's signing key changed", when)
		}
	}
	wantEnc("at start", g.self.Encryption.Public())

	enc, err := keys.GenerateX25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	g.self = &identity.Agent{Ref: g.self.Ref, Signing: sk, Encryption: enc}
	if done := g.r.Recertify(context.Background(), g.clock); len(done) != 1 {
		t.Fatalf("Recertify certified %v", done)
	}
	wantEnc("after the gateway's key turned over", enc.Public())
	if !g.r.Agent("calc").Cert.Issuer.Equal(sk.Public()) {
		t.Fatal("the agent's certificate is not issued under the new org key")
	}
}

// A key file written again with the same signing key (key rotate writes
// the gateway's new X25519 key into every agent's file) leaves the agent
// as it is: the same identity and certificates, its entry not withdrawn.
func TestReloadKeepsAgentWhoseFileWasRewritten(t *testing.T) {
	g := newRig(t, time.Minute, &Record{ID: "calc", MaxCls: wire.Conf, Capabilities: []string{"calc.add"}})
	before := g.r.Agent("calc")
	writes := g.entries.log()
	enc, err := keys.GenerateX25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k := *g.keys["calc"]
	k.Encryption = enc
	g.keys["calc"] = &k
	if err := os.WriteFile(filepath.Join(g.dir, "calc"), []byte("rewritten with a new X25519 key, "+time.Now().String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := g.r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := g.r.Agent("calc")
	switch {
	case after.Identity != before.Identity || after.Cert != before.Cert:
		t.Fatal("an agent whose key file was written again with its key was loaded as a new one")
	case g.entries.log() != writes:
		t.Fatalf("the directory was written: %q, before %q", g.entries.log(), writes)
	case after.key.Same(before.key):
		t.Fatal("the key file's new stamp was not kept: every reload would read it again")
	}
}

func TestAgentsAreCertifiedByTheOrg(t *testing.T) {
	g := newRig(t, time.Minute, &Record{ID: "calc", MaxCls: wire.Conf})
	st := g.r.Agent("calc")
	if st == nil || g.r.Len() != 1 {
		t.Fatalf("Agent(calc) = %v, Len = %d", st, g.r.Len())
	}
	trust := identity.NewTrustStore()
	trust.Add("acme", g.self.Signing.Public())
	if err := trust.VerifyIdentity(st.Cert, g.clock); err != nil {
		t.Fatalf("the identity certificate does not verify under the org key: %v", err)
	}
	if len(st.Caps) != 1 {
		t.Fatalf("%d capability certificates, want tool.invoke alone", len(st.Caps))
	}
	if err := trust.VerifyCapability(st.Caps[0], st.Identity.Ref, st.Identity.Signing.Public(), "tool.invoke", g.clock); err != nil {
		t.Fatalf("the tool.invoke certificate does not verify under the org key: %v", err)
	}
	if _, ok := g.bridge.Agent("calc"); !ok {
		t.Fatal("Launch did not hand the agent to the local bridge")
	}
}

func TestReload(t *testing.T) {
	g := newRig(t, time.Minute, &Record{ID: "calc", MaxCls: wire.Conf, Capabilities: []string{"calc.add"}})
	ctx := context.Background()
	calc := g.r.Agent("calc")

	// Nothing changed: the same agent, no directory write.
	if err := g.r.Reload(ctx); err != nil || g.r.Agent("calc") != calc || g.entries.log() != "" {
		t.Fatalf("Reload of the same records: err %v, agent kept %v, writes %q", err, g.r.Agent("calc") == calc, g.entries.log())
	}

	// Added: its ceiling and the bridge.
	g.records = append(g.records, &Record{ID: "spell", MaxCls: wire.PII})
	g.newKey("spell")
	if err := g.r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if g.r.Agent("spell") == nil || g.policy.AgentCeiling("spell") != wire.PII {
		t.Fatalf("added agent: %v, ceiling %s", g.r.Agent("spell"), g.policy.AgentCeiling("spell"))
	}
	if _, ok := g.bridge.Agent("spell"); !ok {
		t.Fatal("the added agent is not in the local bridge")
	}

	// Changed: the same key and certificates under the new record, the
	// new ceiling, and the entry published again.
	g.records = []*Record{{ID: "calc", MaxCls: wire.Int, Capabilities: []string{"calc.add", "calc.sub"}}, g.records[1]}
	if err := g.r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	now := g.r.Agent("calc")
	if now == calc || now.Identity != calc.Identity || now.Cert != calc.Cert || len(now.Spec.Capabilities) != 2 {
		t.Fatalf("changed agent: %+v, was %+v", now, calc)
	}
	if g.policy.AgentCeiling("calc") != wire.Int || g.entries.get("calc") != now {
		t.Fatalf("changed agent: ceiling %s, entry %v", g.policy.AgentCeiling("calc"), g.entries.get("calc"))
	}

	// A new key file: a new agent, whose entry made under the old key is
	// withdrawn.
	g.newKey("calc")
	if err := g.r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if g.r.Agent("calc").Identity == calc.Identity || !strings.Contains(g.entries.log(), "withdraw calc") {
		t.Fatalf("rekeyed agent: same key %v, writes %q", g.r.Agent("calc").Identity == calc.Identity, g.entries.log())
	}

	// Removed: unknown at once, withdrawn, back to no ceiling, stopped.
	g.records = g.records[:1]
	if err := g.r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if g.r.Agent("spell") != nil || !strings.HasSuffix(g.entries.log(), "withdraw spell") || g.policy.AgentCeiling("spell") != wire.Pub {
		t.Fatalf("removed agent: %v, writes %q, ceiling %s", g.r.Agent("spell"), g.entries.log(), g.policy.AgentCeiling("spell"))
	}
	if _, ok := g.bridge.Agent("spell"); ok {
		t.Fatal("the removed agent is still in the local bridge")
	}

	// A key that does not load changes nothing.
	g.records = append(g.records, &Record{ID: "ghost"})
	before := g.r.All()
	if err := g.r.Reload(ctx); err == nil || !strings.Contains(err.Error(), "agent ghost") {
		t.Fatalf("Reload with a missing key = %v", err)
	}
	if g.r.Len() != len(before) || g.r.Agent("calc") != before["calc"] {
		t.Fatal("a failed Reload changed the table")
	}
}

func TestRenewReissuesHalfSpentCertificates(t *testing.T) {
	g := newRig(t, time.Minute, &Record{ID: "calc", Capabilities: []string{"calc.add"}})
	old := g.r.Agent("calc")
	g.r.Renew(context.Background(), g.clock.Add(14*24*time.Hour))
	if g.r.Agent("calc") != old {
		t.Fatal("certificates renewed before half their time")
	}
	g.clock = g.clock.Add(16 * 24 * time.Hour)
	g.r.Renew(context.Background(), g.clock)
	now := g.r.Agent("calc")
	if now == old || now.Identity != old.Identity || now.Cert.Expires <= old.Cert.Expires || now.Caps[0].Attestation.Expires <= old.Caps[0].Attestation.Expires {
		t.Fatalf("after half their time: %+v, was %+v", now, old)
	}
	if !strings.Contains(g.logs.String(), "agent certificates renewed") {
		t.Fatal("the renewal is not logged")
	}
}

// TestAwayAgentIsWithdrawnAndComesBack holds an agent the gateway does not
// launch to its life in the directory: withdrawn after WithdrawAfter away,
// its reports publish nothing while withdrawn, and it is published again
// when it connects.
func TestAwayAgentIsWithdrawnAndComesBack(t *testing.T) {
	g := newRig(t, 20*time.Millisecond, &Record{ID: "handy", Capabilities: []string{"greet"}},
		&Record{ID: "calc", Exec: []string{"/bin/true"}, Capabilities: []string{"calc.add"}})
	gone := localbridge.AgentInfo{ID: "handy", Status: localbridge.StatusOffline}
	g.r.Changed(gone)
	if g.entries.get("handy") == nil {
		t.Fatal("an agent just away is not published offline")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(g.entries.log(), "withdraw handy") {
		if time.Now().After(deadline) {
			t.Fatalf("not withdrawn: writes %q", g.entries.log())
		}
		time.Sleep(5 * time.Millisecond)
	}
	n := len(g.entries.log())
	g.r.Changed(gone)
	if g.entries.log()[n:] != "" {
		t.Fatalf("a report of a withdrawn agent wrote %q", g.entries.log()[n:])
	}
	g.r.Changed(localbridge.AgentInfo{ID: "handy", Connected: true, Status: localbridge.StatusOK})
	if !strings.HasSuffix(g.entries.log(), "publish handy") {
		t.Fatalf("not published again on connecting: writes %q", g.entries.log())
	}
	// An agent the gateway launches is never withdrawn for being away.
	g.r.Changed(localbridge.AgentInfo{ID: "calc", Status: localbridge.StatusOffline})
	g.r.away.mu.Lock()
	timed := g.r.away.timers["calc"] != nil
	g.r.away.mu.Unlock()
	if timed {
		t.Fatal("a launched agent is timed as away")
	}
}
