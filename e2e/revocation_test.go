package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// enforceWithin is how soon a peer must enforce a revocation.
const enforceWithin = 60 * time.Second

// asAgent is a raw peer that signs as an existing agent of from, with an
// identity certificate of from's org key for that agent's key, as a thief
// holding the agent's key could.
func asAgent(t *testing.T, from, to *org, a *identity.Agent) *rawPeer {
	t.Helper()
	gw, err := gateway.LoadOrg(gateway.Dir(from.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	cert, err := (&identity.Org{Name: from.name, Signing: gw.Signing}).IssueIdentity(a.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ext := wire.ObjectValue(wire.Member{Key: "moltgate.identity", Value: wire.ObjectValue(wire.Member{Key: "cert", Value: cert.Value()})})
	return &rawPeer{t: t, to: to, agent: a, ext: ext, codec: wire.NewCodec(wire.Limits{}), client: to.https()}
}

// pingOf is a ping from p's agent to agent at p's target.
func (p *rawPeer) pingOf(agent string) *wire.Message {
	return &wire.Message{V: wire.Version, ID: newID(p.t), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: p.agent.Sender(), To: wire.Ref{Agent: agent, Org: p.to.name}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "e2e"}, Ext: p.ext}
}

// sealedPing is pingOf sealed to the target gateway outside a session.
func (p *rawPeer) sealedPing(agent string) []byte {
	p.t.Helper()
	b, err := crypto.SealMessage(p.codec, p.pingOf(agent), p.agent.Signing, crypto.NewBox(p.agent.Encryption, 0), p.to.doc.EncKey)
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

// peerSession opens a session with to as from's gateway, with from's org
// key, as from's gateway would.
func peerSession(t *testing.T, from, to *org) (*handshake.Session, func([]byte) []byte) {
	t.Helper()
	gw, err := gateway.LoadOrg(gateway.Dir(from.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add(to.name, to.doc.OrgKey)
	trust.Add(from.name, gw.Signing.Public())
	now := time.Now()
	cert, err := (&identity.Org{Name: from.name, Signing: gw.Signing}).IssueIdentity(gw.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Codec: wire.NewCodec(wire.Limits{}), Rand: rand.Reader,
		Capabilities: []string{"query", "registry"}, Verifier: keys.NewVerifier(0)}
	client := to.https()
	post := func(body []byte) []byte {
		t.Helper()
		resp, err := client.Post(to.doc.Endpoint+"/moltspeak/v0.1/message", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := handshake.NewInitiator(cfg, handshake.Peer{Ref: wire.Ref{Agent: gateway.GatewayAgent, Org: to.name}, Key: to.doc.OrgKey}).
		Run(ctx, handshake.RoundTrip(func(_ context.Context, b []byte) ([]byte, error) { return post(b), nil }))
	if err != nil {
		t.Fatalf("handshake with %s: %v", to.name, err)
	}
	return sess, post
}

// inSession sends m, signed with sk, in sess and opens the answer.
func inSession(t *testing.T, sess *handshake.Session, post func([]byte) []byte, m *wire.Message, sk keys.Ed25519Private) *wire.Message {
	t.Helper()
	b, err := sess.SignAndSeal(m, sk)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.TrimSpace(post(b))
	codec := wire.NewCodec(wire.Limits{})
	env, err := codec.DecodeEnvelope(out)
	if err != nil {
		t.Fatalf("answer: %v: %.300s", err, out)
	}
	if env.Algorithm == wire.AlgSession {
		r, err := sess.Open(env)
		if err != nil {
			t.Fatalf("open answer: %v", err)
		}
		return r
	}
	return env.Message // a refusal outside the session: the session is gone
}

func errCode(m *wire.Message) wire.Code {
	if m != nil && m.Op == wire.OpError {
		return m.Payload.(*wire.ErrorPayload).Code
	}
	return ""
}

// listed is one agent as o's directory lists it (moltgate agents --json).
type listed struct {
	Name          string `json:"name"`
	Org           string `json:"org"`
	PublicKey     string `json:"public_key"`
	EncryptionKey string `json:"encryption_key"`
}

// directoryListed is every entry o's directory lists for agent@org.
func directoryListed(t *testing.T, o *org, org, agent string) []listed {
	t.Helper()
	var out struct {
		Results []listed `json:"results"`
	}
	raw := mg(t, "agents", "--dir", o.dir, "--org", org, "--json")
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("agents --json: %v: %s", err, raw)
	}
	var ls []listed
	for _, a := range out.Results {
		if a.Name == agent && a.Org == org {
			ls = append(ls, a)
		}
	}
	return ls
}

// directoryKeys is the signing keys o's directory lists for agent@org.
func directoryKeys(t *testing.T, o *org, org, agent string) []string {
	t.Helper()
	var ks []string
	for _, a := range directoryListed(t, o, org, agent) {
		ks = append(ks, a.PublicKey)
	}
	return ks
}

// TestAgentRevokedAtPeer: an agent revoked at globex is refused by acme
// within a minute, in a session and outside one, and its entry with the
// revoked key leaves acme's directory; globex's other traffic goes on.
func TestAgentRevokedAtPeer(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	old, err := gateway.LoadAgentIdentity(gateway.Dir(globex.dir), "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	thief := asAgent(t, globex, acme, old)
	if a := thief.post(thief.sealedPing("client")); a.reply == nil || a.reply.Op != wire.OpPong {
		t.Fatalf("before revocation: %d %q", a.status, a.code())
	}
	sess, post := peerSession(t, globex, acme)
	if r := inSession(t, sess, post, thief.pingOf("client"), old.Signing); r.Op != wire.OpPong {
		t.Fatalf("before revocation, in a session: %s %s", r.Op, errCode(r))
	}
	mg(t, "sync", "--dir", acme.dir, "--peer", "globex")
	if ks := directoryKeys(t, acme, "globex", "echo"); len(ks) != 1 || ks[0] != old.Signing.Public().String() {
		t.Fatalf("acme's directory before: %v", ks)
	}

	start := time.Now()
	out := mg(t, "agent", "revoke", "--dir", globex.dir, "--id", "echo", "--reason", "key leaked")
	if !strings.Contains(out, "serial 1") {
		t.Fatalf("agent revoke printed %s", out)
	}
	for {
		a := thief.post(thief.sealedPing("client"))
		if a.code() == wire.ErrAuthFailed {
			break
		}
		if time.Since(start) > enforceWithin {
			t.Fatalf("acme still answers the revoked key after %v: %d %q", enforceWithin, a.status, a.code())
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("acme refused the revoked key %v after the revocation", time.Since(start).Round(time.Millisecond))
	// The session that carried the agent's messages is over; a new one
	// is made, and refuses the key too.
	if r := inSession(t, sess, post, thief.pingOf("client"), old.Signing); r.Op != wire.OpError {
		t.Fatalf("the old session still carries messages: %s", r.Op)
	}
	sess2, post2 := peerSession(t, globex, acme)
	if r := inSession(t, sess2, post2, thief.pingOf("client"), old.Signing); errCode(r) != wire.ErrAuthFailed {
		t.Fatalf("revoked key in a new session: %s %s", r.Op, errCode(r))
	}
	for _, k := range directoryKeys(t, acme, "globex", "echo") {
		if k == old.Signing.Public().String() {
			t.Fatal("acme's directory still lists the revoked key")
		}
	}
	var list struct {
		Peers []struct {
			Org              string `json:"org"`
			RevocationSerial *int64 `json:"revocation_serial"`
		} `json:"peers"`
	}
	if err := json.Unmarshal([]byte(waitPeerSerial(t, acme, 1)), &list); err != nil || len(list.Peers) != 1 {
		t.Fatalf("peer list: %v", err)
	}
	stillServing(t, acme)
}

// waitPeerSerial waits until peer list at o shows revocation serial n for
// its one peer, and returns its JSON.
func waitPeerSerial(t *testing.T, o *org, n int64) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		raw := mg(t, "peer", "list", "--dir", o.dir, "--json")
		var l struct {
			Serving bool `json:"serving"`
			Peers   []struct {
				RevocationSerial *int64 `json:"revocation_serial"`
			} `json:"peers"`
		}
		if json.Unmarshal([]byte(raw), &l) == nil && l.Serving && len(l.Peers) == 1 && l.Peers[0].RevocationSerial != nil && *l.Peers[0].RevocationSerial == n {
			return raw
		}
		if time.Now().After(deadline) {
			t.Fatalf("peer list never showed serial %d: %s", n, raw)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestStoppedPeerLearnsRevocation: acme is down while globex revokes an
// agent; on its first contact after restart, acme refuses the agent.
func TestStoppedPeerLearnsRevocation(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	old, err := gateway.LoadAgentIdentity(gateway.Dir(globex.dir), "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	acme.signal(syscall.SIGTERM)
	acme.wait(30 * time.Second)
	mg(t, "agent", "revoke", "--dir", globex.dir, "--id", "echo")
	acme.start()
	thief := asAgent(t, globex, acme, old)
	if a := thief.post(thief.sealedPing("client")); a.code() != wire.ErrAuthFailed {
		t.Fatalf("first contact after restart: %d %q", a.status, a.code())
	}
	stillServing(t, acme)
}

// TestForgedRevocationRefused: a security_alert from globex's gateway in a
// session, whose list another key signed, is refused, and nothing is
// revoked.
func TestForgedRevocationRefused(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	echo, err := gateway.LoadAgentIdentity(gateway.Dir(globex.dir), "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	forger, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	l, err := revocation.New("globex").Revoke(forger, time.Now(), revocation.Entry{Kind: revocation.KindAgentKey, Value: echo.Signing.Public().String(), Agent: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	lv, _ := wire.ValueOf(l)
	gw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, post := peerSession(t, globex, acme)
	m := &wire.Message{V: wire.Version, ID: newID(t), TS: time.Now().UnixMilli(), Op: wire.OpSecurityAlert,
		From: gw.Sender(), To: wire.Ref{Agent: gateway.GatewayAgent, Org: "acme"}, Cls: wire.Int,
		Payload: &wire.SecurityAlertPayload{AlertType: "key_revocation", AffectedAgent: "echo", Effective: time.Now().UnixMilli(),
			ActionRequired: "terminate_sessions", RevocationList: lv}}
	if r := inSession(t, sess, post, m, gw.Signing); errCode(r) != wire.ErrSignature {
		t.Fatalf("forged list: %s %s", r.Op, errCode(r))
	}
	thief := asAgent(t, globex, acme, echo)
	if a := thief.post(thief.sealedPing("client")); a.reply == nil || a.reply.Op != wire.OpPong {
		t.Fatalf("a forged list revoked the key: %d %q", a.status, a.code())
	}
	// Served on the registry, the forged list is refused as well.
	resp, err := acme.https().Get(acme.doc.Endpoint + "/registry/v1/revocations")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /registry/v1/revocations: %d", resp.StatusCode)
	}
}

// TestImportExpectFingerprint: peer import prints the fingerprint of what
// it trusts, and refuses a document whose key has another.
func TestImportExpectFingerprint(t *testing.T) {
	needProcesses(t)
	acme, globex := newOrg(t, "acme"), newOrg(t, "globex")
	doc := []byte(mg(t, "peer", "export", "--dir", globex.dir))
	wrong := acme.doc.OrgKey.Fingerprint()
	_, stderr, err := mgRun(doc, "peer", "import", "--dir", acme.dir, "--expect-fingerprint", wrong)
	if err == nil || !strings.Contains(stderr, "E_AUTH_FAILED") || !strings.Contains(stderr, "nothing was trusted") {
		t.Fatalf("wrong fingerprint: %v %s", err, stderr)
	}
	if out := mg(t, "peer", "list", "--dir", acme.dir); !strings.Contains(out, "trusts no peer") {
		t.Fatalf("peer list after a refused import: %s", out)
	}
	right := strings.ToLower(strings.ReplaceAll(globex.doc.OrgKey.Fingerprint(), " ", ""))
	out, stderr, err := mgRun(doc, "peer", "import", "--dir", acme.dir, "--expect-fingerprint", right)
	if err != nil || !strings.Contains(out, globex.doc.OrgKey.Fingerprint()) {
		t.Fatalf("right fingerprint: %v %s %s", err, out, stderr)
	}
	if out := mg(t, "peer", "list", "--dir", acme.dir); !strings.Contains(out, globex.doc.OrgKey.Fingerprint()) {
		t.Fatalf("peer list: %s", out)
	}
	mg(t, "peer", "remove", "--dir", acme.dir, "--org", "globex")
	if out := mg(t, "peer", "list", "--dir", acme.dir); !strings.Contains(out, "trusts no peer") {
		t.Fatalf("peer list after remove: %s", out)
	}
}
