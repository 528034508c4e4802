package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// oneTimeCall is a pii call of the echo tool from s under a one-time
// consent that acme issued to echo@globex.
func oneTimeCall(t *testing.T, r *faceRig, s *sender, tok string) *wire.Message {
	t.Helper()
	m := s.tool("echo", `{"text":"write to jane.doe@example.com"}`, wire.PII)
	m.PIIMeta = &wire.PIIMeta{Types: []string{"email"}, Consent: &wire.Consent{GrantedBy: "user:jane", Purpose: "support", Proof: tok}}
	return m
}

func oneTimeToken(t *testing.T, r *faceRig) string {
	t.Helper()
	now := time.Now()
	tok, err := consent.Issue(r.acme.Signing, consent.Claims{ID: pipeline.NewMessageID(rand.Reader), GrantedBy: "user:jane", Grantee: "echo@globex",
		Purpose: "support", DataTypes: []string{"email"}, IssuedAt: now.Add(-time.Minute).UnixMilli(), Expires: now.Add(time.Hour).UnixMilli(),
		Constraints: &consent.Constraints{OneTime: true}})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestOneTimeConsentSpentOnce: a one-time consent serves one call; the
// second is refused E_CONSENT, while a reply under the first call's grant
// spends nothing.
func TestOneTimeConsentSpentOnce(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := r.dial(ctx, t, faceNames[2])
	defer c.close()
	c.t = t
	s := newSender(t, r.acme, "once")
	tok := oneTimeToken(t, r)
	if a := send(ctx, c, s, oneTimeCall(t, r, s, tok)); a.code() != "" || a.final.Op != wire.OpRespond {
		t.Fatalf("first use: %q %s", a.code(), a.final.Op)
	}
	if a := send(ctx, c, s, oneTimeCall(t, r, s, tok)); a.code() != wire.ErrConsent {
		t.Fatalf("second use: %q %s", a.code(), a.final.Op)
	}
	// Another one-time consent is good once more: what is spent is the
	// consent, not the sender's right.
	if a := send(ctx, c, s, oneTimeCall(t, r, s, oneTimeToken(t, r))); a.code() != "" {
		t.Fatalf("a fresh consent: %q", a.code())
	}
}

// TestOneTimeConsentAcrossReplicas: two replicas of globex on one
// PostgreSQL spend a one-time consent once between them.
func TestOneTimeConsentAcrossReplicas(t *testing.T) {
	dsn := pgtest.DSN(t)
	da, la := newTestDir(t, "acme")
	la.HTTP.Close()
	la.GRPC.Close()
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	usePostgres(t, db, dsn)
	replicaDir := copyDir(t, db)
	_, lr := newTestDir(t, "ports")
	rigs := make([]*faceRig, 2)
	for i, g := range []*testGateway{start(t, db, lb, TransportWebSocket), start(t, replicaDir, &Listeners{HTTP: lr.HTTP, GRPC: lr.GRPC}, TransportWebSocket)} {
		peers, err := LoadPeers(da, "acme")
		if err != nil || len(peers) != 1 {
			t.Fatalf("acme's peers: %v %v", peers, err)
		}
		p := peers[0]
		p.Endpoint, p.GRPC = "https://"+g.ls.HTTP.Addr().String(), g.ls.GRPC.Addr().String()
		r := &faceRig{t: t, g: g, peer: p, codec: wire.NewCodec(wire.Limits{})}
		if r.tls, err = pinnedClientTLS(p.TLSPin, nil); err != nil {
			t.Fatal(err)
		}
		r.http = &http.Client{Transport: &http.Transport{TLSClientConfig: r.tls.Clone(), ForceAttemptHTTP2: true}, Timeout: 30 * time.Second}
		t.Cleanup(r.http.CloseIdleConnections)
		gw, err := LoadOrg(da, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.acme = &identity.Org{Name: "acme", Signing: gw.Signing}
		now := time.Now()
		cert, err := r.acme.IssueIdentity(gw.Public(), now.Add(-time.Minute), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		trust := identity.NewTrustStore()
		trust.Add("globex", p.OrgKey)
		r.hs = &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Codec: r.codec, Capabilities: []string{"tool.invoke"}}
		rigs[i] = r
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newSender(t, rigs[0].acme, "once")
	tok := oneTimeToken(t, rigs[0])
	answer := func(r *faceRig) wire.Code {
		c := r.dial(ctx, t, faceNames[2])
		defer c.close()
		c.t = t
		a := send(ctx, c, s, oneTimeCall(t, r, s, tok))
		if a.code() == "" && a.final.Op != wire.OpRespond {
			t.Fatalf("answered %s", a.final.Op)
		}
		return a.code()
	}
	if code := answer(rigs[0]); code != "" {
		t.Fatalf("first use, at the first replica: %s\n%s", code, rigs[0].g.logs())
	}
	if code := answer(rigs[1]); code != wire.ErrConsent {
		t.Fatalf("second use, at the other replica: %q", code)
	}
}

// TestConsentConstraintsReachAgent: the agent called under a consent is
// told its constraints in the call's context, and an agent that received
// data under no_forward may not send data of its types to a third
// organisation, only back to the one that issued it.
func TestConsentConstraintsReachAgent(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := r.dial(ctx, t, faceNames[2])
	defer c.close()
	c.t = t
	s := newSender(t, r.acme, "limited")
	now := time.Now()
	tok, err := consent.Issue(r.acme.Signing, consent.Claims{ID: pipeline.NewMessageID(rand.Reader), GrantedBy: "user:jane", Grantee: "echo@globex",
		Purpose: "support", DataTypes: []string{"email"}, IssuedAt: now.Add(-time.Minute).UnixMilli(), Expires: now.Add(time.Hour).UnixMilli(),
		Constraints: &consent.Constraints{NoStorage: true, NoForward: true}})
	if err != nil {
		t.Fatal(err)
	}
	m := s.tool("echo", `{"text":"write to jane.doe@example.com","meta":true}`, wire.PII)
	m.PIIMeta = &wire.PIIMeta{Types: []string{"email"}, Consent: &wire.Consent{GrantedBy: "user:jane", Purpose: "support", Proof: tok}}
	a := send(ctx, c, s, m)
	if a.code() != "" || a.final.Op != wire.OpRespond {
		t.Fatalf("call: %q %s", a.code(), a.final.Op)
	}
	got := a.final.Payload.(*wire.RespondPayload).Data.Get("context").Get("moltgate.consent")
	noStorage, _ := got.Get("no_storage").Bool()
	noForward, _ := got.Get("no_forward").Bool()
	if purpose, _ := got.Get("purpose").Str(); !noStorage || !noForward || purpose != "support" {
		t.Fatalf("the agent was told %s", wire.AppendCanonical(nil, got))
	}
	to := func(org string) *wire.Message {
		return &wire.Message{From: wire.Sender{Agent: "echo", Org: "globex"}, To: wire.Ref{Agent: "x", Org: org}}
	}
	var we *wire.Error
	if err := r.g.s.holds.checkForward(to("initech"), []string{"email"}); !errors.As(err, &we) || we.Code != wire.ErrConsent {
		t.Fatalf("email to a third organisation: %v", err)
	}
	if err := r.g.s.holds.checkForward(to("acme"), []string{"email"}); err != nil {
		t.Fatalf("email back to acme: %v", err)
	}
	if err := r.g.s.holds.checkForward(to("initech"), []string{"phone"}); err != nil {
		t.Fatalf("a type the consent did not cover: %v", err)
	}
}
