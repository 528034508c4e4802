package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/limit"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// Two organisations' agents find each other by capability, with verified
// attestations, over each transport.
func TestDirectoryCrossOrgDiscovery(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			globex.waitListed("echo@globex")
			acme.waitListed("client@acme")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "echo.text", Org: "globex"})
			if err != nil {
				t.Fatalf("acme discovers at globex: %v", err)
			}
			if got := resultIDs(t, out); strings.Join(got, ",") != "echo@globex" {
				lv, lerr := globex.s.store.Liveness(ctx, directory.ID{Agent: "echo", Org: "globex"})
				t.Fatalf("results %v\n%+v %v\n%s", got, lv, lerr, globex.logs())
			}
			v, _ := wire.Parse(out, 0)
			r := v.Get("results").Index(0)
			if u, _ := r.Get("endpoint").Str(); u != globex.s.registryConfig().Endpoint {
				t.Fatalf("endpoint %s", r)
			}
			// The agent's tool, registered over the local bridge, is a
			// capability too; the result is the registry's.
			if _, err := directory.VerifyAttestation(r, "globex", globex.s.self().Signing.Public(), time.Now()); err != nil {
				t.Fatal(err)
			}
			// And the other way.
			out, err = globex.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "acme"})
			if err != nil || strings.Join(resultIDs(t, out), ",") != "client@acme" {
				t.Fatalf("globex discovers at acme: %s, %v", out, err)
			}
			// The local directory, for local callers.
			out, err = globex.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "echo.text"})
			if err != nil || strings.Join(resultIDs(t, out), ",") != "echo@globex" {
				t.Fatalf("local discovery: %s, %v", out, err)
			}
		})
	}
}

func TestDirectoryRegisterOverHTTP(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	acme.waitListed("client@acme")
	ctx := context.Background()
	post := func(b []byte) (int, wire.Code, wire.Value) {
		t.Helper()
		st, _, body := acme.do("POST", "/registry/v1/register", b)
		c, data := acme.answerOf(body)
		return st, c, data
	}
	// globex's gateway registers an agent of globex in acme's registry.
	ext, cert := globex.orgAgent("ext")
	pr := testProfile("ext", "ext.work")
	pr.PublicKey = ext.Signing.Public()
	st, c, data := post(acme.signed(globex.s.self(), wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: cert}, false))
	if st != 200 || c != "" {
		t.Fatalf("peer registration: %d %s", st, c)
	}
	if _, err := directory.VerifyAttestation(data.Get("registry_attestation"), "acme", acme.s.self().Signing.Public(), time.Now()); err != nil {
		t.Fatalf("receipt: %v", err)
	}
	if _, err := acme.s.Registry().Lookup(ctx, directory.ID{Agent: "ext", Org: "globex"}, directory.Viewer{}); err != nil {
		t.Fatalf("registered peer agent: %v", err)
	}
	// The agent itself, sealed to acme's gateway (the reply comes back
	// sealed), renews.
	st, _, body := acme.do("POST", "/registry/v1/register", acme.sealedTo(ext, &wire.RegisterPayload{Action: "renew"}))
	op := &crypto.Opener{Codec: acme.s.codec, Box: crypto.NewBox(ext.Encryption, 0), Accept: crypto.AcceptRef(wire.Ref{Agent: "ext", Org: "globex"})}
	reply, err := op.Open(bytes.TrimSpace(body))
	if st != 200 || err != nil || reply.Op != wire.OpRespond || !reply.From.Key.Equal(acme.s.self().Signing.Public()) {
		t.Fatalf("sealed renew: %d %v", st, err)
	}
	// An agent of acme's own org, running elsewhere, registers itself.
	remote, rcert := acme.orgAgent("remote")
	st, c, _ = post(acme.signed(remote, wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: testProfile("", "remote.work"), IdentityCert: rcert}, false))
	if st != 200 || c != "" {
		t.Fatalf("own agent: %d %s", st, c)
	}
	// Refusals, each with its code and status.
	impostor, _ := globex.orgAgent("ext")
	bad := func(name string, b []byte, status int, want wire.Code) {
		t.Helper()
		st, c, _ := post(b)
		if st != status || c != want {
			t.Errorf("%s: %d %s, want %d %s", name, st, c, status, want)
		}
	}
	badCap := bytes.Replace(acme.signed(globex.s.self(), wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: testProfile("x", "ok.cap"), IdentityCert: cert}, false),
		[]byte(`"ok.cap"`), []byte(`"not a capability"`), 1)
	bad("bad capability", badCap, 400, wire.ErrInvalidProfile)
	badKey := bytes.Replace(acme.signed(globex.s.self(), wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: cert}, false),
		[]byte(`"public_key":"ed25519:`), []byte(`"public_key":"ed25519:AAAA`), 1)
	bad("bad key", badKey, 400, wire.ErrInvalidProfile)
	icert, _ := roster.Issuer(globex.s.self()).IssueIdentity(impostor.Public(), time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	bad("key conflict", acme.signed(impostor, wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: testProfile("", "ext.work"), IdentityCert: icert.Value()}, false), 409, wire.ErrRegistrationConflict)
	bad("ttl", acme.signed(ext, wire.OpRegister, &wire.RegisterPayload{Action: "renew", TTL: 10}, false), 400, wire.ErrInvalidProfile)
	ghost, _ := globex.orgAgent("ghost")
	bad("unknown agent", acme.signed(ghost, wire.OpRegister, &wire.RegisterPayload{Action: "renew"}, false), 404, wire.ErrAgentNotFound)
	stranger, err := identity.Generate(rand.Reader, wire.Ref{Agent: "bot", Org: "initech"})
	if err != nil {
		t.Fatal(err)
	}
	bad("untrusted org", acme.signed(stranger, wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: testProfile("", "x.y")}, false), 401, wire.ErrAuthFailed)
	// Lookups of what is not there.
	st, _, body = acme.do("GET", "/registry/v1/agents/nobody", nil)
	if c, _ := acme.answerOf(body); st != 404 || c != wire.ErrAgentNotFound {
		t.Errorf("unknown agent: %d %s", st, c)
	}
	st, _, body = acme.do("GET", "/registry/v1/agents/ext@globex", nil)
	if st != 200 || !bytes.Contains(body, []byte(`"attestation"`)) {
		t.Errorf("lookup: %d %s", st, body)
	}
	st, _, body = acme.do("GET", "/registry/v1/capabilities?prefix=ext", nil)
	if st != 200 || string(bytes.TrimSpace(body)) != `{"capabilities":[{"agents_count":1,"name":"ext.work"}]}` {
		t.Errorf("capabilities: %d %s", st, body)
	}
	st, _, body = acme.do("GET", "/registry/v1/capabilities?verified=bogus", nil)
	if c, _ := acme.answerOf(body); st != 400 || c != wire.ErrInvalidParam {
		t.Errorf("capabilities, verified=bogus: %d %s", st, body)
	}
	st, _, body = acme.do("POST", "/registry/v1/ping/client", []byte(`{"nonce":"n-1"}`))
	if st != 200 || !bytes.Contains(body, []byte(`"nonce":"n-1"`)) || !bytes.Contains(body, []byte(`"status":"alive"`)) {
		t.Errorf("ping: %d %s", st, body)
	}
	// Deregistration on the DELETE route.
	del := acme.signed(ext, wire.OpRegister, &wire.RegisterPayload{Action: "delete", Reason: "shutdown"}, false)
	if st, _, _ := acme.do("DELETE", "/registry/v1/agents/remote", del); st != 400 {
		t.Errorf("DELETE of another agent's path: %d", st)
	}
	if st, _, body := acme.do("DELETE", "/registry/v1/agents/ext@globex", del); st != 200 {
		t.Errorf("DELETE: %d %s", st, body)
	}
	if _, err := acme.s.Registry().Lookup(ctx, directory.ID{Agent: "ext", Org: "globex"}, directory.Viewer{Local: true}); err == nil {
		t.Error("deregistered agent still listed")
	}
}

// sealedTo seals a register message from a to g's gateway key.
func (g *testGateway) sealedTo(a *identity.Agent, p *wire.RegisterPayload) []byte {
	g.t.Helper()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpRegister,
		From: a.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: g.s.Org()}, Cls: wire.Pub, Payload: p}
	b, err := crypto.SealMessage(g.s.codec, m, a.Signing, crypto.NewBox(a.Encryption, 0), g.s.self().Encryption.Public())
	if err != nil {
		g.t.Fatal(err)
	}
	return b
}

// Each organisation is answered what it may see, and only an
// authenticated organisation counts as one.
func TestDirectoryPerPeerDisclosure(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	globex.waitListed("echo@globex")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	reg := func(id, vis string, allowed ...string) {
		a, cert := globex.orgAgent(id)
		pr := testProfile(id, "shared.cap")
		pr.Visibility, pr.AllowedOrgs, pr.PublicKey = vis, allowed, a.Signing.Public()
		if _, err := globex.s.registry.RegisterAsOrg(ctx, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: cert}); err != nil {
			t.Fatalf("register %s: %v", id, err)
		}
	}
	reg("pub", "public")
	reg("hidden", "unlisted")
	reg("secret", "private")
	reg("partners", "public", "acme")
	reg("others", "public", "initech")
	// acme, in a session with globex.
	out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "shared.cap", Org: "globex"})
	if err != nil || strings.Join(resultIDs(t, out), ",") != "partners@globex,pub@globex" {
		t.Fatalf("acme sees %s, %v", out, err)
	}
	// Unlisted by exact id; private never.
	if out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Query: json.RawMessage(`{"agent_id":"hidden"}`)}); err != nil || strings.Join(resultIDs(t, out), ",") != "hidden@globex" {
		t.Fatalf("unlisted by id: %s, %v", out, err)
	}
	_, err = acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Query: json.RawMessage(`{"agent_id":"secret"}`)})
	if pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("private by id: %v", err)
	}
	_, err = acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Query: json.RawMessage(`{"agent_id":"others"}`)})
	if pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("restricted to another org by id: %v", err)
	}
	// Anonymous, over HTTP.
	st, _, body := globex.do("POST", "/registry/v1/discover", []byte(`{"capability":"shared.cap"}`))
	if st != 200 || strings.Join(resultIDs(t, body), ",") != "pub@globex" {
		t.Fatalf("anonymous: %d %s", st, body)
	}
	// A signed discover that claims to be acme's, from a key acme never
	// certified, sees what anonymous callers see.
	liar, err := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	st, _, body = globex.do("POST", "/registry/v1/discover", globex.signed(liar, wire.OpDiscover, &wire.DiscoverPayload{Capability: "shared.cap"}, false))
	c, data := globex.answerOf(body)
	if st != 200 || c != "" || strings.Join(resultIDs(t, wire.AppendCanonical(nil, data)), ",") != "pub@globex" {
		t.Fatalf("claimed org: %d %s %s", st, c, data)
	}
	// acme's real org key, outside a session, is acme.
	st, _, body = globex.do("POST", "/registry/v1/discover", globex.signed(acme.s.self(), wire.OpDiscover, &wire.DiscoverPayload{Capability: "shared.cap"}, false))
	if _, data := globex.answerOf(body); st != 200 || strings.Join(resultIDs(t, wire.AppendCanonical(nil, data)), ",") != "partners@globex,pub@globex" {
		t.Fatalf("acme's key: %d %s", st, data)
	}
	// The capability counts of anonymous callers.
	_, _, body = globex.do("GET", "/registry/v1/capabilities?prefix=shared", nil)
	if string(bytes.TrimSpace(body)) != `{"capabilities":[{"agents_count":1,"name":"shared.cap"}]}` {
		t.Fatalf("anonymous capability counts: %s", body)
	}
}

// The client refuses results whose registry attestation does not verify.
func TestDirectoryClientRefusesForgedAttestation(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	globex.waitListed("echo@globex")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "echo.text", Org: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := wire.Parse(out, 0)
	peer := acme.s.peers.Get("globex").Peer()
	verify := func(data wire.Value) error {
		return registry.VerifyAttestations(data, peer.Org, peer.OrgKey, time.Now())
	}
	if err := verify(good); err != nil {
		t.Fatalf("genuine answer: %v", err)
	}
	r := good.Get("results").Index(0)
	for name, alt := range map[string]wire.Value{
		"endpoint":   r.With("endpoint", wire.StringValue("https://attacker.example/moltspeak/v0.1/message")),
		"public_key": r.With("public_key", wire.StringValue(acme.s.self().Signing.Public().String())),
		"expiry":     r.With("expires_at", wire.IntValue(time.Now().Add(1000*time.Hour).UnixMilli())),
		"signature":  r.With("attestation", r.Get("attestation").With("signature", good.Get("results").Index(0).Get("attestation").Get("key"))),
		"missing":    r.Without("attestation"),
	} {
		bad := good.With("results", wire.ArrayValue(alt))
		if err := verify(bad); pipeline.Code(err) != wire.ErrSignature {
			t.Errorf("%s altered: %v", name, err)
		}
	}
	// globex's registry attests with a key acme does not hold for it: the
	// whole answer is refused.
	rogue, err := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add("globex", rogue.Signing.Public())
	rc := globex.s.registryConfig()
	rc.Signer, rc.Trust = rogue, trust
	forger, err := registry.New(rc)
	if err != nil {
		t.Fatal(err)
	}
	globex.s.registry = forger
	_, err = acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "echo.text", Org: "globex"})
	if pipeline.Code(err) != wire.ErrSignature {
		t.Fatalf("forged attestation: %v, want E_SIGNATURE", err)
	}
}

func TestDirectoryDiscoveryRateLimit(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	rc := acme.s.registryConfig()
	rc.Discovery = limit.NewBuckets(0.001, 2, 16, time.Now)
	limited, err := registry.New(rc)
	if err != nil {
		t.Fatal(err)
	}
	acme.s.registry = limited
	for i := 0; i < 2; i++ {
		if st, _, body := acme.do("POST", "/registry/v1/discover", []byte(`{}`)); st != 200 {
			t.Fatalf("within the limit: %d %s", st, body)
		}
	}
	st, h, body := acme.do("POST", "/registry/v1/discover", []byte(`{}`))
	if c, _ := acme.answerOf(body); st != 429 || c != wire.ErrRateLimitDiscovery || h.Get("Retry-After") == "" {
		t.Fatalf("over the limit: %d %s %v", st, c, h)
	}
	// A peer is limited as its organisation.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = nil
	for i := 0; i < 3 && err == nil; i++ {
		_, err = globex.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "acme"})
	}
	if pipeline.Code(err) != wire.ErrRateLimitDiscovery {
		t.Fatalf("peer over the limit: %v", err)
	}
}

// Registry sync over the peer channel: acme pulls globex's entries, and
// refuses the forged ones a compromised globex registry holds.
func TestDirectorySync(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	globex.waitListed("echo@globex")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Forgeries written straight into globex's store, as a compromised
	// registry would hold them: an agent of an organisation acme does not
	// trust, and a globex agent whose registration no certificate backs.
	// (The one for acme's own organisation, which an honest registry does
	// not even send back, is refused too: see the directory's tests.)
	now := time.Now()
	forge := func(signer *identity.Agent, agent, org string) {
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: now.UnixMilli(), Op: wire.OpRegister,
			From: signer.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: "globex"}, Cls: wire.Pub,
			Payload: &wire.RegisterPayload{Action: "create", Profile: testProfile("", "forged.cap")}}
		b, err := crypto.Sign(globex.s.codec, m, signer.Signing)
		if err != nil {
			t.Fatal(err)
		}
		e := &directory.Entry{AgentID: agent, Org: org, PublicKey: signer.Signing.Public().String(), EncryptionKey: signer.Encryption.Public().String(),
			Endpoint: directory.Endpoint{URL: "https://agents.example/moltspeak/v0.1/message"}, Capabilities: []string{"forged.cap"},
			Visibility: directory.Public, ExpiresAt: now.Add(time.Hour), SignedAt: now, Registration: b}
		if _, err := globex.s.store.Put(ctx, e, directory.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stranger, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "bot", Org: "initech"})
	forge(stranger, "bot", "initech")
	uncertified, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "shadow", Org: "globex"})
	forge(uncertified, "shadow", "globex")

	stats, err := acme.s.registry.Sync(ctx, "globex")
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	if len(stats) != 1 || stats[0].Applied != 1 || stats[0].Refused != 2 {
		t.Fatalf("sync stats %+v", stats)
	}
	if !strings.Contains(acme.logs(), "registry sync refused an entry") {
		t.Error("refusals not logged")
	}
	// acme now lists echo@globex itself, attested by acme; not the forgeries.
	out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(resultIDs(t, out), ","); got != "client@acme,echo@globex" {
		t.Fatalf("acme's directory after sync: %s", got)
	}
	v, _ := wire.Parse(out, 0)
	for _, r := range v.Get("results").Elems() {
		if _, err := directory.VerifyAttestation(r.Value, "acme", acme.s.self().Signing.Public(), time.Now()); err != nil {
			t.Fatalf("acme's attestation: %v", err)
		}
	}
	// A second sync asks from where the first ended and changes nothing.
	if stats, err := acme.s.registry.Sync(ctx, ""); err != nil || stats[0].Applied != 0 {
		t.Fatalf("second sync: %+v, %v", stats, err)
	}
	// The liveness monitor pings globex's agent through the peer channel.
	acme.s.registry.MonitorOnce(ctx)
	rec, err := acme.s.Registry().Lookup(ctx, directory.ID{Agent: "echo", Org: "globex"}, directory.Viewer{})
	if err != nil || rec.Status != directory.StatusAlive || rec.Uptime30d == nil {
		t.Fatalf("monitored: %+v, %v", rec, err)
	}
	// Registry sync is for peers in a session: an anonymous query is refused.
	q := &wire.QueryPayload{Domain: "registry", Intent: "sync"}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpQuery,
		From: acme.s.self().Sender(), To: wire.Ref{Agent: RegistryAgent, Org: "globex"}, Cls: wire.Pub, Payload: q}
	m.From.EncKey = [32]byte{}
	b, err := crypto.Sign(globex.s.codec, m, acme.s.self().Signing)
	if err != nil {
		t.Fatal(err)
	}
	if st, _, body := globex.do("POST", "/moltspeak/v0.1/message", b); st != 401 {
		t.Fatalf("sync outside a session: %d %s", st, body)
	}
}

// A gateway syncs with each peer's registry as soon as the peer answers,
// not only on the schedule: a peer that starts later is retried.
func TestDirectoryCatchUp(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	// globex's ports refuse connections until it starts.
	addrs := [2]string{lb.HTTP.Addr().String(), lb.GRPC.Addr().String()}
	lb.HTTP.Close()
	lb.GRPC.Close()
	acme := start(t, da, la, TransportWebSocket, withSync)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(acme.logs(), "registry sync with a new peer failed; retrying"); {
		if time.Now().After(deadline) {
			t.Fatal("no first sync attempt while globex is down")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Asked to sync now, acme reports the failure on globex's line.
	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	raw, err := acme.s.registry.SyncDirectory(sctx, localbridge.SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// directory.sync's answer: a line per peer, with its error.
	var rep struct {
		Peers []struct {
			Peer  string             `json:"peer"`
			Error *wire.ErrorPayload `json:"error"`
		} `json:"peers"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Peers) != 1 || rep.Peers[0].Peer != "globex" || rep.Peers[0].Error == nil || rep.Peers[0].Error.Code != wire.ErrPeerUnavailable {
		t.Fatalf("sync while globex is down: %s", raw)
	}
	if _, err := acme.s.registry.SyncDirectory(sctx, localbridge.SyncRequest{Peer: "initech"}); pipeline.Code(err) != wire.ErrInvalidParam {
		t.Fatalf("sync with a stranger: %v", err)
	}
	if lb.HTTP, err = net.Listen("tcp", addrs[0]); err != nil {
		t.Skipf("globex's port was taken meanwhile: %v", err)
	}
	if lb.GRPC, err = net.Listen("tcp", addrs[1]); err != nil {
		t.Skipf("globex's port was taken meanwhile: %v", err)
	}
	// globex, configured as by default, syncs with acme as it starts: the
	// session it establishes tells acme that globex is up, and acme's
	// catch-up, waiting out its doubled wait, goes at once.
	start(t, db, lb, TransportWebSocket, withSync)
	acme.waitListed("echo@globex")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "echo.text"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(resultIDs(t, out), ","); got != "echo@globex" {
		t.Fatalf("acme discovers %q", got)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		n := acme.s.registry.PendingSyncs()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d syncs still pending after success", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stalledStore is a store whose reads wait for their context to end, as a
// database under load might, or, should nothing end it, for the test to end
// (released), so that only the request timeout can answer in time.
type stalledStore struct {
	directory.Store
	released <-chan struct{}
}

func (s stalledStore) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.released:
		return errors.New("the store was released at the end of the test: nothing ended the read")
	}
}

func (s stalledStore) Search(ctx context.Context, q *directory.Query) (directory.Page, error) {
	return directory.Page{}, s.wait(ctx)
}

func (s stalledStore) Get(ctx context.Context, id directory.ID, v directory.Viewer) (directory.Entry, error) {
	return directory.Entry{}, s.wait(ctx)
}

func (s stalledStore) Capabilities(ctx context.Context, q *directory.CapabilityQuery) ([]directory.CapabilityCount, error) {
	return nil, s.wait(ctx)
}

// The registry routes that answer anonymous callers are held to the
// request timeout, as the routes that take a message are: a caller cannot
// make the gateway wait on its storage for longer.
func TestDirectoryAnonymousRoutesAnswerInTime(t *testing.T) {
	d, ls := newTestDir(t, "acme")
	released := make(chan struct{})
	t.Cleanup(func() { close(released) })
	g := start(t, d, ls, TransportWebSocket, func(s *Server) {
		// It bounds the reading of a request too, TLS handshake
		// included: long enough for that on a loaded machine.
		s.cfg.Listen.RequestTimeout = Duration(2 * time.Second)
		rc := s.registryConfig()
		rc.Store = stalledStore{s.store, released}
		reg, err := registry.New(rc)
		if err != nil {
			t.Fatal(err)
		}
		s.registry = reg
	})
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/registry/v1/discover", `{"capability":"echo.text"}`},
		{"GET", "/registry/v1/agents/echo", ""},
		{"GET", "/registry/v1/capabilities", ""},
		{"POST", "/registry/v1/ping/echo", ""},
	} {
		// The store never answers: an answer at all is the request
		// timeout's (the client gives up after 20 s).
		st, _, body := g.do(r.method, r.path, []byte(r.body))
		if c, _ := g.answerOf(body); st != http.StatusGatewayTimeout || c != wire.ErrTimeout {
			t.Errorf("%s %s: %d %s, want 504 E_TIMEOUT", r.method, r.path, st, c)
		}
	}
}

// A peer that limits how fast this gateway asks is waited out, page by
// page, rather than the pull failing and starting again from the
// beginning each time.
func TestDirectorySyncWaitsOutRateLimit(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	globex.waitListed("echo@globex")
	// Only the first pull has a deadline, which its peer's wait is
	// weighed against; one budget for the whole test would also time the
	// registrations and the second pull, on a machine of any speed.
	ctx := t.Context()
	// Entries large enough that a page holds a few of them.
	const n = 24
	blob := wire.ObjectValue(wire.Member{Key: "blob", Value: wire.StringValue(strings.Repeat("ab", 7000))})
	for i := range n {
		pr := testProfile(fmt.Sprintf("pad%d", i), "pad.cap")
		pr.PublicKey, pr.Metadata, pr.Description = globex.s.self().Signing.Public(), blob, strings.Repeat("cd", 2000)
		if _, err := globex.s.registry.RegisterAsOrg(ctx, &wire.RegisterPayload{Action: "create", Profile: pr}); err != nil {
			t.Fatal(err)
		}
	}
	// A wait longer than the pull may take fails it, but what it applied
	// is not asked for again.
	globex.s.pipe.AgentLimit = limit.NewBuckets(0.001, 1, 16, time.Now)
	short, cancel := context.WithTimeout(ctx, time.Minute) // the peer asks for 1000s
	stats, err := acme.s.registry.Sync(short, "globex")
	cancel()
	if pipeline.Code(err) != wire.ErrRateLimit || stats[0].Applied == 0 {
		t.Fatalf("sync against a long wait: %+v, %v", stats, err)
	}
	first := stats[0].Applied
	globex.s.pipe.AgentLimit = limit.NewBuckets(5, 1, 16, time.Now)
	stats, err = acme.s.registry.Sync(ctx, "globex")
	if err != nil {
		t.Fatalf("sync: %+v, %v", stats, err)
	}
	if stats[0].Pages < 3 || stats[0].Applied != n+1-first || stats[0].Unchanged > first {
		t.Fatalf("sync stats %+v after %d applied", stats, first)
	}
}
