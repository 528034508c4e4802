package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// Authorisation across organisations, as a stranger, a former peer or a
// trusted peer that misbehaves would try it.

// certified gives s the identity certificate its org would give it,
// carried outside a session in ext["moltgate.identity"].
func certified(t *testing.T, org *identity.Org, s *sender) *sender {
	t.Helper()
	now := time.Now()
	c, err := org.IssueIdentity(s.id.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ext := s.ext
	if ext.IsAbsent() {
		ext = wire.ObjectValue()
	}
	ext = ext.With(pipeline.ExtIdentity, wire.ObjectValue(wire.Member{Key: "cert", Value: c.Value()}))
	return &sender{id: s.id, ext: ext}
}

// TestOutsideSessionOrgMustBeShown: outside a session, naming a peer's
// organisation in from.org shows nothing; only the peer's org key, or a
// key it certified, does. A stranger that merely names acme gets what any
// stranger gets: public registry queries, and nothing of acme's.
func TestOutsideSessionOrgMustBeShown(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := r.dial(ctx, t, pipeline.FaceHTTP)
	defer c.close()
	c.t = t

	bare := func(s *sender, m *wire.Message) faceAnswer {
		t.Helper()
		m.Ext = s.ext
		c.as = s
		b, err := crypto.Sign(r.codec, m, s.id.Signing)
		if err != nil {
			t.Fatal(err)
		}
		return c.send(ctx, b, m.ID)
	}
	query := func(s *sender) *wire.Message {
		return s.message(wire.OpQuery, wire.Pub, &wire.QueryPayload{Domain: "general", Intent: "ask",
			Params: wire.ObjectValue(wire.Member{Key: "text", Value: wire.StringValue("who are you")})})
	}

	// A key acme never certified, naming acme.
	eve := &sender{id: newSender(t, r.acme, "eve").id}
	for name, m := range map[string]*wire.Message{"ping": eve.ping(), "query": query(eve)} {
		if a := bare(eve, m); a.code() != wire.ErrAuthFailed {
			t.Errorf("%s from a key acme never certified: %q %s, want E_AUTH_FAILED", name, a.code(), a.final.Op)
		}
	}
	// An agent whose key acme certified is acme's.
	alice := certified(t, r.acme, &sender{id: newSender(t, r.acme, "alice").id})
	if a := bare(alice, alice.ping()); a.code() != "" || a.final.Op != wire.OpPong {
		t.Fatalf("ping from a certified key: %q %s", a.code(), a.final.Op)
	}
	// A certificate for another key does not lend its org.
	mallory := &sender{id: newSender(t, r.acme, "alice").id, ext: alice.ext}
	if a := bare(mallory, mallory.ping()); a.code() != wire.ErrAuthFailed {
		t.Fatalf("ping under another key's certificate: %q %s", a.code(), a.final.Op)
	}
	// acme's gateway, under acme's org key, is acme.
	gw := &sender{id: r.hs.Identity}
	if a := bare(gw, gw.ping()); a.code() != "" || a.final.Op != wire.OpPong {
		t.Fatalf("ping from acme's org key: %q %s", a.code(), a.final.Op)
	}
	// A public registry query is answered for anyone, naming acme or not.
	m := eve.ping()
	m.To = wire.Ref{Agent: RegistryAgent, Org: "globex"}
	if a := bare(eve, m); a.code() != "" || a.final.Op != wire.OpPong {
		t.Fatalf("registry ping from a stranger: %q %s", a.code(), a.final.Op)
	}
}

// pendingID waits for the one call g has in flight to a peer and returns
// its id.
func pendingID(t *testing.T, g *testGateway) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ids := g.s.peers.Waiting(); len(ids) > 0 {
			return ids[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no call in flight")
	return ""
}

// postAs seals r, signed with sk, in the session from's gateway holds with
// to's, and posts it to to's HTTP face as a peer's late reply would come.
func postAs(t *testing.T, ctx context.Context, from, to *testGateway, r *wire.Message, sk keys.Ed25519Private) int {
	t.Helper()
	// The responder keeps the session once session_established, the
	// initiator's last word, has reached it.
	sess, err := from.s.sessions.Peer(wire.Ref{Agent: GatewayAgent, Org: to.s.cfg.Org})
	for deadline := time.Now().Add(10 * time.Second); err != nil && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		sess, err = from.s.sessions.Peer(wire.Ref{Agent: GatewayAgent, Org: to.s.cfg.Org})
	}
	if err != nil {
		t.Fatal(err)
	}
	env, err := sess.SignAndSeal(r, sk)
	if err != nil {
		t.Fatal(err)
	}
	ps := from.s.peers.Get(to.s.cfg.Org)
	resp, err := ps.Post(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestReplyToAnotherAgent: a peer's reply is the answer of the local agent
// that made the call, and is checked against that agent's ceiling. A peer
// that addresses it to another of this organisation's agents, one with a
// higher ceiling, does not get past the caller's.
func TestReplyToAnotherAgent(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "low", MaxCls: "int"}, AddAgentOptions{ID: "high", MaxCls: "conf"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	done := make(chan error, 1)
	var out json.RawMessage
	go func() {
		var err error
		out, err = acme.s.local.Query(ctx, localbridge.QueryRequest{From: "low", To: "echo@globex", Tool: "sleep", Input: json.RawMessage(`{"ms":1000}`), Class: "int"}, nil)
		done <- err
	}()
	id := pendingID(t, acme)
	data, _ := wire.ValueOf(map[string]string{"text": "confidential"})
	r := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpRespond, Re: id,
		From: globex.s.roster.Agent("echo").Identity.Sender(), To: wire.Ref{Agent: "high", Org: "acme"}, Cls: wire.Conf,
		Payload: &wire.RespondPayload{Status: "success", Data: data}}
	postAs(t, ctx, globex, acme, r, globex.s.roster.Agent("echo").Identity.Signing)
	// Not the call's answer: it goes on, and ends with the real one.
	if err := <-done; err != nil || strings.Contains(string(out), "confidential") {
		t.Fatalf("low, whose ceiling is int, got %s %v, want the answer of its own call", out, err)
	}
	if !strings.Contains(acme.logs(), "dropped a reply addressed to another than its caller") {
		t.Fatal("the misaddressed reply was not logged")
	}
}

// pingVia pings echo@globex as client@acme through old, the peer a call
// began on, handing what comes back to onMsg (nil: the first answer ends
// the call).
func pingVia(ctx context.Context, acme *testGateway, old *peers.Remote, onMsg func(*wire.Message) (bool, error)) error {
	client := acme.s.roster.Agent("client").Identity
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: client.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "n"}}
	if onMsg == nil {
		onMsg = func(*wire.Message) (bool, error) { return true, nil }
	}
	return acme.s.peers.SendVia(ctx, old, m, client.Signing, onMsg)
}

// TestFormerPeerGetsNoNewCall: a call under way when its peer is removed
// may fail over, or find its session gone, and try again. It must not try
// again with the peer it started with: that one is no longer trusted, and a
// handshake with it would make a session, and carry the call, to an
// organisation this gateway has stopped trusting.
func TestFormerPeerGetsNoNewCall(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			old := acme.s.peers.Get("globex")
			if err := pingVia(ctx, acme, old, nil); err != nil {
				t.Fatalf("call while globex is a peer: %v", err)
			}
			if err := os.Remove(filepath.Join(acme.dir.PeersDir(), "globex.json")); err != nil {
				t.Fatal(err)
			}
			if err := acme.s.ReloadPeers(ctx); err != nil {
				t.Fatal(err)
			}
			// Handshakes globex completes are counted by its log, not by
			// the sessions it holds: the first call's session may end at any
			// moment now (acme's connection to it closes), which says
			// nothing of a new one.
			const established = `"msg":"session established"`
			before := strings.Count(globex.logs(), established)
			err := pingVia(ctx, acme, old, nil)
			if err == nil {
				t.Fatal("a call went to a former peer")
			}
			if _, err := acme.s.sessions.Peer(wire.Ref{Agent: GatewayAgent, Org: "globex"}); err == nil {
				t.Fatal("acme holds a session with a former peer")
			}
			if n := strings.Count(globex.logs(), established); n != before {
				t.Fatalf("the former peer established %d sessions after it was removed: a handshake was made with it", n-before)
			}
			// Nor does a connection made anew on it, as a renewal under way
			// would make one, keep a session.
			if derr := old.Handshake(ctx, tr); derr == nil {
				t.Fatal("a connection to a former peer was made and kept")
			}
			if _, err := acme.s.sessions.Peer(wire.Ref{Agent: GatewayAgent, Org: "globex"}); err == nil {
				t.Fatal("acme holds a session with a former peer")
			}
		})
	}
}

// TestReimportedPeerTakesTheCall: a call under way when its peer is
// imported again (a key rotated under a handover, a new pin, peer import
// --replace) goes on under the peer as it is imported now, rather than
// failing: it has not reached the peer under what was trusted before. A
// removed peer fails it (TestFormerPeerGetsNoNewCall).
func TestReimportedPeerTakesTheCall(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, _ := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			old := acme.s.peers.Get("globex")
			if err := pingVia(ctx, acme, old, nil); err != nil {
				t.Fatalf("call while globex is a peer: %v", err)
			}
			// Imported again as a reload imports a changed peer: a new
			// Remote in the table, the old one's connections retired.
			next, err := acme.s.peers.Prepare(old.Peer())
			if err != nil {
				t.Fatal(err)
			}
			acme.s.peers.Put(next)
			var answered bool
			err = pingVia(ctx, acme, old, func(m *wire.Message) (bool, error) {
				answered = m.Op == wire.OpPong
				return true, nil
			})
			if err != nil || !answered {
				t.Fatalf("a call begun before globex was imported again: %v (pong %v)", err, answered)
			}
		})
	}
}

// TestReplacedKeyHandshakeUnderWay: acme's peer document is imported again
// with another org key (peer import --replace: the old key was lost, say)
// while a handshake under the old key is under way. The handshake's last
// step comes after the reload; the session it would make is under a key
// acme no longer has, and nothing sent in it is taken.
func TestReplacedKeyHandshakeUnderWay(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rekeyed, _ := newTestDir(t, "acme")
	doc, err := ExportPeer(rekeyed, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := &faceClient{t: t, r: r, face: pipeline.FaceHTTP}
	n := 0
	tr := handshake.RoundTrip(func(ctx context.Context, msg []byte) ([]byte, error) {
		if n++; n == 3 { // session_established
			if _, err := ImportPeer(r.g.dir, doc, ImportOptions{MaxCls: "pii", Replace: true}); err != nil {
				t.Fatal(err)
			}
			if err := r.g.s.ReloadPeers(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return c.exchange(ctx, msg)
	})
	before := r.g.s.sessions.Len()
	sess, err := handshake.NewInitiator(r.hs, handshake.Peer{Ref: wire.Ref{Agent: GatewayAgent, Org: "globex"}, Key: r.peer.OrgKey}).Run(ctx, tr)
	if n := r.g.s.sessions.Len(); n != before {
		t.Fatalf("globex holds %d sessions, had %d: one under acme's replaced key", n, before)
	}
	if err != nil {
		return // refused at its last step
	}
	c.sess = sess
	s := newSender(t, r.acme, "late")
	c.as = s
	m := s.ping()
	if a := c.send(ctx, sealed(t, c, s, m), m.ID); a.code() == "" {
		t.Fatalf("a message in a session under acme's replaced key was answered: %s", a.final.Op)
	}
	if _, err := r.g.s.sessions.Get(sess.ID()); err == nil {
		t.Fatal("globex keeps a session under acme's replaced key")
	}
}

// TestTaskIDsAreEachOrgs: task ids are chosen by whoever creates the task,
// and two organisations may choose the same. Each task is its own
// organisation's, and so is the chain of calls it belongs to: a task that
// another organisation created first under the same id, at the loop
// guard's limit, does not lend acme's task its hops (which would refuse
// every call acme's task makes), nor the other way round.
func TestTaskIDsAreEachOrgs(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// initech, a second peer of globex's.
	di, _ := newTestDir(t, "initech")
	doc, err := ExportPeer(di, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPeer(r.g.dir, doc, ImportOptions{MaxCls: "pii"}); err != nil {
		t.Fatal(err)
	}
	if err := r.g.s.ReloadPeers(ctx); err != nil {
		t.Fatal(err)
	}
	gw, err := LoadOrg(di, nil)
	if err != nil {
		t.Fatal(err)
	}
	initech := &identity.Org{Name: "initech", Signing: gw.Signing}
	cert, err := initech.IssueIdentity(gw.Public(), time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	acmeHS := r.hs
	r.hs = &handshake.Config{Identity: gw, Cert: cert, Trust: acmeHS.Trust, Codec: r.codec, Capabilities: acmeHS.Capabilities}
	ci := r.dial(ctx, t, pipeline.FaceWS)
	r.hs = acmeHS
	defer ci.close()
	ca := r.dial(ctx, t, pipeline.FaceWS)
	defer ca.close()
	ci.t, ca.t = t, t

	sleep, _ := wire.Parse([]byte(`{"ms":3000}`), 0)
	b := newSender(t, initech, "b")
	ci.as = b
	m := b.task(&wire.TaskPayload{Action: "create", TaskID: "nightly", Type: "sleep", Params: sleep})
	m.Ext = local.WithHops(m.Ext, 4)
	taskState(t, send(ctx, ci, b, m))
	a := newSender(t, r.acme, "a")
	ca.as = a
	taskState(t, send(ctx, ca, a, a.task(&wire.TaskPayload{Action: "create", TaskID: "nightly", Type: "sleep", Params: sleep})))

	held := map[string]int64{}
	for _, e := range r.g.s.local.Calls().Held() {
		held[e.Org] = e.Hops
	}
	if held["acme"] != 1 || held["initech"] != 4 {
		t.Fatalf("the loop guard holds the tasks' chains as %v, want acme at 1 and initech at 4", held)
	}
}

// TestLateConsentAnswer: a person takes longer to decide a consent request
// than the HTTP face holds a request, so over HTTP the answer comes as a
// message of its own, naming the request in re. It is the request's
// answer, as a late respond is; and a grant that answers nothing this
// gateway asked is refused.
func TestLateConsentAnswer(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	acme := start(t, da, la, TransportHTTP)
	globex := start(t, db, lb, TransportHTTP, func(s *Server) { s.cfg.Peers.ReplyWait = Duration(100 * time.Millisecond) })
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	type result struct {
		ans localbridge.ConsentAnswer
		err error
	}
	done := make(chan result, 1)
	go func() {
		ans, err := acme.s.local.AskConsent(ctx, localbridge.ConsentAsk{From: "client", To: "echo@globex", DataTypes: []string{"email"}, Purpose: "support"})
		done <- result{ans, err}
	}()
	time.Sleep(500 * time.Millisecond) // past the reply wait: the answer will come later
	decideNext(t, globex.s.approvals, true)
	res := <-done
	if res.err != nil || !res.ans.Granted || res.ans.Proof == "" {
		t.Fatalf("consent granted after the reply wait: %+v %v", res.ans, res.err)
	}

	// A grant nobody asked for.
	r := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpConsent, Re: pipeline.NewMessageID(rand.Reader),
		From: globex.s.roster.Agent("echo").Identity.Sender(), To: wire.Ref{Agent: "client", Org: "acme"}, Cls: wire.Int,
		Payload: &wire.ConsentPayload{Action: "grant", DataTypes: []string{"email"}, Purpose: "support", Proof: res.ans.Proof}}
	if st := postAs(t, ctx, globex, acme, r, globex.s.roster.Agent("echo").Identity.Signing); st == http.StatusOK || st == http.StatusAccepted {
		t.Fatalf("a grant that answers nothing asked was taken: %d", st)
	}
}
