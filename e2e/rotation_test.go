package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// pinOf reads the pin o holds for org, as its gateway last wrote it.
func pinOf(t *testing.T, o *org, org string) keys.Pin {
	t.Helper()
	s, err := keys.OpenPinStore(gateway.Dir(o.dir).PinsPath(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.Lookup(org)
	return p
}

// peerFileOf reads o's peer file of org as written on disk.
func peerFileOf(t *testing.T, o *org, org string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(gateway.Dir(o.dir).PeersDir(), org+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// waitFor polls cond until it holds, or fails the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// caller calls echo@globex from acme's client over and over until stopped,
// and keeps what failed.
type caller struct {
	mu     sync.Mutex
	ok     int
	failed []error
	stop   chan struct{}
	done   chan struct{}
}

func startCalling(ctx context.Context, c *localbridge.Client) *caller {
	return startCallingFrom(ctx, c, "client", "echo@globex")
}

// startCallingFrom is startCalling from the local agent from to the agent
// to of a peer, through c.
func startCallingFrom(ctx context.Context, c *localbridge.Client, from, to string) *caller {
	cl := &caller{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(cl.done)
		// Paced well below the agent's rate limit (50 a second by
		// default), so that every refusal is the rotation's.
		pace := time.NewTicker(40 * time.Millisecond)
		defer pace.Stop()
		for {
			select {
			case <-cl.stop:
				return
			case <-pace.C:
			}
			_, _, err := call(ctx, c, from, to, "echo", `{"text":"during the rotation"}`)
			cl.mu.Lock()
			if err != nil {
				cl.failed = append(cl.failed, err)
			} else {
				cl.ok++
			}
			cl.mu.Unlock()
		}
	}()
	return cl
}

func (cl *caller) succeeded() int {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.ok
}

// end stops the calls and returns how many succeeded and what failed.
func (cl *caller) end() (int, []error) {
	close(cl.stop)
	<-cl.done
	return cl.ok, cl.failed
}

// slowCall starts a call that runs for ms milliseconds at globex, and
// returns once it runs; its outcome comes on the channel.
func slowCall(t *testing.T, ctx context.Context, c *localbridge.Client, ms int) <-chan error {
	t.Helper()
	return slowCallFrom(t, ctx, c, "client", "echo@globex", ms)
}

// slowCallFrom is slowCall from the local agent from to the agent to of a
// peer, through c.
func slowCallFrom(t *testing.T, ctx context.Context, c *localbridge.Client, from, to string, ms int) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	running := make(chan struct{})
	go func() {
		var once sync.Once
		out, err := c.Query(ctx, localbridge.QueryRequest{From: from, To: to, Tool: "sleep", Input: json.RawMessage(`{"ms":` + strconv.Itoa(ms) + `}`)},
			func(localbridge.StreamEvent) error { once.Do(func() { close(running) }); return nil })
		if err == nil && !strings.Contains(string(out), `"slept_ms":`+strconv.Itoa(ms)) {
			err = &json.UnsupportedValueError{Str: string(out)}
		}
		once.Do(func() { close(running) })
		done <- err
	}()
	<-running
	return done
}

// handshakeAs runs a handshake with to as gateway@org of gw, certified by
// gw's own key, and returns the handshake's outcome.
func handshakeAs(t *testing.T, gw *identity.Agent, to *org) error {
	t.Helper()
	trust := identity.NewTrustStore()
	trust.Add(to.name, to.doc.OrgKey)
	trust.Add(gw.Ref.Org, gw.Signing.Public())
	now := time.Now()
	cert, err := (&identity.Org{Name: gw.Ref.Org, Signing: gw.Signing}).IssueIdentity(gw.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Codec: wire.NewCodec(wire.Limits{}), Rand: rand.Reader,
		Capabilities: []string{"query", "registry"}, Verifier: keys.NewVerifier(0)}
	client := to.https()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = handshake.NewInitiator(cfg, handshake.Peer{Ref: wire.Ref{Agent: gateway.GatewayAgent, Org: to.name}, Key: to.doc.OrgKey}).
		Run(ctx, overHTTPS(client, to.doc.Endpoint))
	return err
}

// overHTTPS carries a handshake's messages as POSTs to the message route
// of the gateway at endpoint.
func overHTTPS(client *http.Client, endpoint string) handshake.Transport {
	return handshake.RoundTrip(func(_ context.Context, b []byte) ([]byte, error) {
		resp, err := client.Post(endpoint+"/moltspeak/v0.1/message", "application/json", bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	})
}

// certifiedBy is a raw peer of from's organisation whose identity
// certificate orgKey issued.
func certifiedBy(t *testing.T, orgKey keys.Ed25519Private, from, to *org) *rawPeer {
	t.Helper()
	a, err := identity.Generate(rand.Reader, wire.Ref{Agent: "mallory", Org: from.name})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := certifiedAs(t, orgKey, a, from, to)
	return p
}

// certifiedAs is a raw peer speaking as a, with a new identity
// certificate orgKey issued, which it returns too.
func certifiedAs(t *testing.T, orgKey keys.Ed25519Private, a *identity.Agent, from, to *org) (*rawPeer, *identity.Cert) {
	t.Helper()
	now := time.Now()
	cert, err := (&identity.Org{Name: from.name, Signing: orgKey}).IssueIdentity(a.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ext := wire.ObjectValue(wire.Member{Key: "moltgate.identity", Value: wire.ObjectValue(wire.Member{Key: "cert", Value: cert.Value()})})
	return &rawPeer{t: t, to: to, agent: a, ext: ext, codec: wire.NewCodec(wire.Limits{}), client: to.https()}, cert
}

// restart stops o gracefully and starts it again.
func (o *org) restart() {
	o.t.Helper()
	o.signal(syscall.SIGTERM)
	if err := o.wait(60 * time.Second); err != nil {
		o.t.Fatalf("%s exited with %v", o.name, err)
	}
	o.start()
}

// warmPair opens the rotation tests: acme and globex over WebSocket,
// acme's local client, a context that ends after limit, and a first call
// from acme's agent to globex's made, so that a session is under way
// before anything rotates.
func warmPair(t *testing.T, limit time.Duration) (acme, globex *org, c *localbridge.Client, ctx context.Context) {
	t.Helper()
	needProcesses(t)
	acme, globex = pair(t, "websocket", nil)
	c = acme.client()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	if _, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"warm up"}`); err != nil {
		t.Fatal(err)
	}
	return acme, globex, c, ctx
}

// TestOrgKeyRotatedWhileCalling: globex rotates its org key while acme's
// agent calls it. The handover reaches acme with nobody acting there:
// acme's pin names the new key, and no call fails, the one in flight at
// the rotation included. globex restarts under the new key (the call in
// flight then finishes too), acme makes new sessions under it, and once
// the overlap is over the old key is refused: a handshake and a message
// certified under it.
func TestOrgKeyRotatedWhileCalling(t *testing.T) {
	acme, globex, c, ctx := warmPair(t, 3*time.Minute)
	old, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}

	calls := startCalling(ctx, c)
	slow := slowCall(t, ctx, acme.client(), 3000)
	const overlap = 12 * time.Second
	out := mg(t, "key", "rotate", "--dir", globex.dir, "--overlap", overlap.String())
	rotated := time.Now()
	nw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, nw.Signing.Public().Fingerprint()) {
		t.Fatalf("key rotate printed %s", out)
	}
	waitFor(t, 20*time.Second, "acme never took globex's handover", func() bool {
		p := pinOf(t, acme, "globex")
		return p.Next != nil && p.Next.Key.Equal(nw.Signing.Public()) && p.Key.Equal(old.Signing.Public())
	})
	if !strings.Contains(acme.log.String(), "peer handed its org key over") {
		t.Fatal("acme did not log the handover it took")
	}
	// The calls go on, under the old key, which the overlap keeps good.
	n := calls.succeeded()
	waitFor(t, 30*time.Second, "calls stopped after the handover", func() bool { return calls.succeeded() >= n+5 })
	if err := <-slow; err != nil {
		t.Fatalf("the call in flight at the rotation: %v", err)
	}
	ok, failed := calls.end()
	if len(failed) > 0 {
		t.Fatalf("%d of %d calls failed during the rotation, the first: %v", len(failed), ok+len(failed), failed[0])
	}
	t.Logf("%d calls during the rotation, none failed", ok)

	// globex takes its new key up at its next start. The call in flight
	// at the restart finishes.
	slow = slowCall(t, ctx, acme.client(), 1500)
	globex.restart()
	if err := <-slow; err != nil {
		t.Fatalf("the call in flight at the restart: %v", err)
	}
	calls = startCalling(ctx, c)
	n = calls.succeeded()
	waitFor(t, 30*time.Second, "no call got through after globex restarted under its new key", func() bool { return calls.succeeded() >= n+5 })
	if p := pinOf(t, acme, "globex"); !p.Key.Equal(nw.Signing.Public()) || p.Next != nil {
		t.Fatalf("acme's pin after globex presented its new key: %+v", p)
	}
	waitFor(t, 10*time.Second, "acme's peer file never named the new key", func() bool {
		return peerFileOf(t, acme, "globex")["org_key"] == nw.Signing.Public().String()
	})

	// After the overlap, the old key is refused.
	waitFor(t, overlap+30*time.Second, "acme's pin kept the old key after the overlap", func() bool {
		p := pinOf(t, acme, "globex")
		return p.Previous == nil && p.Next == nil && time.Since(rotated) > overlap
	})
	ok, failed = calls.end()
	if len(failed) > 0 {
		t.Fatalf("%d of %d calls under the new key failed, the first: %v", len(failed), ok+len(failed), failed[0])
	}
	if err := handshakeAs(t, old, acme); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Fatalf("a handshake under the old key after the overlap: %v", err)
	}
	thief := certifiedBy(t, old.Signing, globex, acme)
	if a := thief.post(thief.sealedPing("client")); a.code() != wire.ErrAuthFailed {
		t.Fatalf("a message certified by the old key after the overlap: %d %q", a.status, a.code())
	}
	if a := certifiedBy(t, nw.Signing, globex, acme); a.post(a.sealedPing("client")).reply.Op != wire.OpPong {
		t.Fatal("a message certified by the new key is refused")
	}
	stillServing(t, acme)
}

// TestTLSRotation: globex rotates its TLS certificate; acme takes the new
// pin from the statement globex's org key signed, accepts both pins while
// globex still serves the old certificate and after it restarts with the
// new one, and once the overlap is over refuses the old certificate.
func TestTLSRotation(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	oldPin := globex.doc.TLSPin
	certPEM, _ := os.ReadFile(gateway.Dir(globex.dir).TLSCertPath())
	keyPEM, _ := os.ReadFile(gateway.Dir(globex.dir).TLSKeyPath())
	const overlap = 10 * time.Second
	out := mg(t, "tls", "rotate", "--dir", globex.dir, "--overlap", overlap.String())
	rotated := time.Now()
	set, err := handover.LoadFile(gateway.Dir(globex.dir).HandoversPath())
	if err != nil || len(set.Handovers) != 1 {
		t.Fatalf("handovers: %v %v", set, err)
	}
	newPin := set.Handovers[0].New
	if !strings.Contains(out, newPin) {
		t.Fatalf("tls rotate printed %s", out)
	}
	waitFor(t, 20*time.Second, "acme never took globex's new pin", func() bool {
		f := peerFileOf(t, acme, "globex")
		return f["tls_pin"] == newPin && f["tls_pin_previous"] == oldPin
	})
	// globex still presents the old certificate: new connections take it.
	stillServing(t, acme)
	globex.restart()
	// Now it presents the new one.
	stillServing(t, acme)
	waitFor(t, overlap+30*time.Second, "acme kept the old pin after the overlap", func() bool {
		_, still := peerFileOf(t, acme, "globex")["tls_pin_previous"]
		return !still && time.Since(rotated) > overlap
	})
	stillServing(t, acme)
	// The old certificate, back at globex's address, is refused.
	globex.signal(syscall.SIGTERM)
	globex.wait(60 * time.Second)
	os.WriteFile(gateway.Dir(globex.dir).TLSCertPath(), certPEM, 0o644)
	os.WriteFile(gateway.Dir(globex.dir).TLSKeyPath(), keyPEM, 0o600)
	globex.start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err = call(ctx, acme.client(), "client", "echo@globex", "echo", `{"text":"to the old certificate"}`)
	if codeOf(err) != string(wire.ErrAuthFailed) || !strings.Contains(err.Error(), "tls_pin") && !strings.Contains(err.Error(), "pin") {
		t.Fatalf("a call to the old certificate after the overlap: %v", err)
	}
}

// TestForgedHandoverRefused: statements that do not hold under globex's
// pinned org key, sent by globex's gateway in a session, are refused and
// logged as security events; acme's pin stays, and calls go on.
func TestForgedHandoverRefused(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	gw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	forger, _ := keys.GenerateEd25519(rand.Reader)
	next, _ := keys.GenerateEd25519(rand.Reader)
	now := time.Now()
	// One hands over from the forger's own key, its signatures good.
	fromForger, err := handover.OrgKey("globex", forger, next, gw.Encryption.Public(), now, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	// One claims to hand over from globex's key, signed by the forger.
	claimed := *fromForger
	claimed.Old = gw.Signing.Public().String()
	sess, post := peerSession(t, globex, acme)
	for name, st := range map[string]*handover.Statement{"from another key": fromForger, "signed by another key": &claimed} {
		sv, _ := wire.ValueOf(st)
		m := &wire.Message{V: wire.Version, ID: newID(t), TS: time.Now().UnixMilli(), Op: wire.OpSecurityAlert,
			From: gw.Sender(), To: wire.Ref{Agent: gateway.GatewayAgent, Org: "acme"}, Cls: wire.Int,
			Payload: &wire.SecurityAlertPayload{AlertType: "key_rotation", Effective: st.Effective, ActionRequired: "update_pin", Handover: sv}}
		if r := inSession(t, sess, post, m, gw.Signing); errCode(r) != wire.ErrSignature {
			t.Fatalf("forged handover %s: %s %s", name, r.Op, errCode(r))
		}
	}
	if p := pinOf(t, acme, "globex"); !p.Key.Equal(gw.Signing.Public()) || p.Next != nil {
		t.Fatalf("a forged handover moved acme's pin: %+v", p)
	}
	// acme logs before it answers, but its log reaches this process
	// through a pipe, behind the answer at times.
	forged := func() int { return strings.Count(acme.log.String(), `"msg":"forged handover refused"`) }
	waitFor(t, 10*time.Second, "acme logged fewer than 2 forged handovers", func() bool { return forged() >= 2 })
	if got := forged(); got != 2 {
		t.Fatalf("acme logged %d forged handovers, want 2:\n%s", got, acme.log.String())
	}
	if !strings.Contains(acme.log.String(), `"level":"ERROR","msg":"forged handover refused"`) {
		t.Fatal("a forged handover is not logged at ERROR")
	}
	// Served on globex's registry, as if globex's directory were tampered
	// with, the forgery is refused on acme's pull too: the pin stays.
	set := &handover.Set{Handovers: []*handover.Statement{&claimed}}
	if err := set.WriteFile(gateway.Dir(globex.dir).HandoversPath()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "globex never pushed the tampered statement", func() bool {
		return strings.Count(acme.log.String(), `"msg":"forged handover refused"`) >= 3
	})
	if p := pinOf(t, acme, "globex"); !p.Key.Equal(gw.Signing.Public()) || p.Next != nil {
		t.Fatalf("a forged handover moved acme's pin: %+v", p)
	}
	stillServing(t, acme)
}
