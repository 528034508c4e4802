package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// consentRequest builds a consent request of s's to the echo agent.
func (s *sender) consentRequest(p *wire.ConsentPayload) *wire.Message {
	return s.message(wire.OpConsent, wire.Int, p)
}

// decideNext waits for the next consent request in the approvals queue and
// decides it.
func decideNext(t *testing.T, a *localbridge.Approvals, approve bool) localbridge.ApprovalRequest {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		for _, req := range a.Pending() {
			if req.Tool == "consent" {
				if err := a.Decide(req.ID, approve); err != nil {
					t.Fatal(err)
				}
				return req
			}
		}
	}
	t.Fatal("no consent request reached the approvals queue")
	return localbridge.ApprovalRequest{}
}

// TestConsentRequest: a peer's consent request waits for a person here.
// Granted, it is answered with a consent token this organisation signs for
// the requesting agent; refused or undecided, with a denial. Malformed
// requests and other actions are refused without asking anyone. Over
// every face.
func TestConsentRequest(t *testing.T) {
	r := newFaceRig(t)
	approvals := r.g.s.approvals
	globexKey := r.peer.OrgKey
	for _, face := range faceNames {
		t.Run(face, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := r.dial(ctx, t, face)
			defer c.close()
			c.t = t
			n := 0
			ask := func(p *wire.ConsentPayload, decide func()) faceAnswer {
				n++
				s := newSender(t, r.acme, fmt.Sprintf("asker%d-%s", n, face))
				c.as = s
				done := make(chan struct{})
				if decide != nil {
					go func() { defer close(done); decide() }()
				} else {
					close(done)
				}
				a := send(ctx, c, s, s.consentRequest(p))
				<-done
				return a
			}

			// Granted.
			var shown localbridge.ApprovalRequest
			a := ask(&wire.ConsentPayload{Action: "request", DataTypes: []string{"phone", "email"}, Purpose: "support",
				Duration: "24h", Human: "user:4711"}, func() { shown = decideNext(t, approvals, true) })
			if a.final == nil || a.final.Op != wire.OpConsent {
				t.Fatalf("granted: %s %+v", a.code(), a.final.Payload)
			}
			g := a.final.Payload.(*wire.ConsentPayload)
			grantee := fmt.Sprintf("asker%d-%s@acme", n, face)
			if g.Action != "grant" || g.Human != "user:4711" || g.Duration != "24h0m0s" || g.Proof == "" {
				t.Fatalf("grant %+v", g)
			}
			if shown.Agent != "echo" || shown.Risk.Level != localbridge.RiskHigh || !strings.Contains(shown.Description, grantee) ||
				!strings.Contains(shown.Description, "email") || shown.Caller.ID != grantee {
				t.Fatalf("the person was shown %+v", shown)
			}
			tok, err := consent.Parse(g.Proof)
			if err != nil {
				t.Fatal(err)
			}
			if !tok.Issuer.Equal(globexKey) || tok.Grantee != grantee || tok.Purpose != "support" || tok.GrantedBy != "user:4711" ||
				strings.Join(tok.DataTypes, ",") != "email,phone" {
				t.Fatalf("token claims %+v", tok.Claims)
			}
			if life := time.Duration(tok.Expires-tok.IssuedAt) * time.Millisecond; life != 24*time.Hour {
				t.Fatalf("token lasts %v", life)
			}
			// globex's own callers can send those types to the grantee
			// under it: its gate accepts it as globex's consent.
			if _, err := r.g.s.consents.Verify(ctx, g.Proof, consent.Request{Issuer: "globex", Grantee: wire.Ref{Agent: fmt.Sprintf("asker%d-%s", n, face), Org: "acme"},
				Purpose: "support", Types: []string{"email"}}); err != nil {
				t.Fatalf("globex's verifier refuses the token it granted: %v", err)
			}

			// Refused.
			a = ask(&wire.ConsentPayload{Action: "request", DataTypes: []string{"email"}, Purpose: "marketing"},
				func() { decideNext(t, approvals, false) })
			if d, ok := a.final.Payload.(*wire.ConsentPayload); !ok || d.Action != "deny" || d.Proof != "" || d.Reason == "" {
				t.Fatalf("refused: %s", a.raw)
			}

			// Refused without asking anyone.
			for _, bad := range []struct {
				p     *wire.ConsentPayload
				code  wire.Code
				field string
			}{
				{&wire.ConsentPayload{Action: "grant", DataTypes: []string{"email"}, Purpose: "x", Proof: "consent-token:x.y"}, wire.ErrInvalidParam, "p.action"},
				{&wire.ConsentPayload{Action: "revoke", Proof: "consent-token:x.y"}, wire.ErrInvalidParam, "p.action"},
				{&wire.ConsentPayload{Action: "request", Purpose: "x"}, wire.ErrMissingField, "p.data_types"},
				{&wire.ConsentPayload{Action: "request", DataTypes: []string{"email", "calendar"}, Purpose: "x"}, wire.ErrInvalidParam, "p.data_types[1]"},
				{&wire.ConsentPayload{Action: "request", DataTypes: []string{"email"}}, wire.ErrMissingField, "p.purpose"},
				{&wire.ConsentPayload{Action: "request", DataTypes: []string{"email"}, Purpose: "x", Duration: "forever"}, wire.ErrInvalidParam, "p.duration"},
				{&wire.ConsentPayload{Action: "request", DataTypes: []string{"email"}, Purpose: "x", Duration: "9000h"}, wire.ErrInvalidParam, "p.duration"},
			} {
				a := ask(bad.p, nil)
				if a.code() != bad.code || a.final.Payload.(*wire.ErrorPayload).Field != bad.field {
					t.Errorf("%+v: %s, want %s on %s", bad.p, a.raw, bad.code, bad.field)
				}
			}
			for _, req := range approvals.Pending() {
				t.Errorf("left waiting: %+v", req)
			}
		})
	}
}

// TestConsentRequestUndecided: a request nobody decides before the call's
// deadline is denied, and leaves nothing waiting.
func TestConsentRequestUndecided(t *testing.T) {
	r := newFaceRig(t)
	ctx, c, s := r.session(t, pipeline.FaceWS, "impatient")
	// The request's exp is its deadline, short so that the test does not
	// wait long for nobody. On a loaded machine the request may reach the
	// gateway after it: that is E_EXPIRED, and the request is sent again
	// with twice the time, until one arrives in time to be left undecided.
	wait := 500 * time.Millisecond
	var a faceAnswer
	for {
		m := s.consentRequest(&wire.ConsentPayload{Action: "request", DataTypes: []string{"email"}, Purpose: "support"})
		m.Exp = time.Now().Add(wait).UnixMilli()
		if a = send(ctx, c, s, m); a.code() != wire.ErrExpired || wait > 30*time.Second {
			break
		}
		wait *= 2
	}
	if d, ok := a.final.Payload.(*wire.ConsentPayload); !ok || d.Action != "deny" || !strings.Contains(d.Reason, "in time") {
		t.Fatalf("undecided: %s", a.raw)
	}
	if p := r.g.s.approvals.Pending(); len(p) != 0 {
		t.Fatalf("left waiting: %+v", p)
	}
}

// TestCheckGrant: the proof of a granted consent is handed to the local
// caller only if it is what was asked for, from whom it was asked.
func TestCheckGrant(t *testing.T) {
	d, ls := newTestDir(t, "acme", AddAgentOptions{ID: "client"})
	g := start(t, d, ls, TransportWebSocket)
	peerKey, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	grantee := wire.Ref{Agent: "client", Org: "acme"}
	ask := localbridge.ConsentAsk{To: "echo@globex", DataTypes: []string{"email", "phone"}, Purpose: "support"}
	now := time.Now()
	issue := func(key keys.Ed25519Private, mod func(*consent.Claims)) string {
		c := consent.Claims{ID: "3612d305-fecc-4a4e-bfc9-4e0ccaa0324e", GrantedBy: "user:4711", Grantee: grantee.String(),
			Purpose: "support", DataTypes: []string{"email", "phone"}, IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli()}
		if mod != nil {
			mod(&c)
		}
		tok, err := consent.Issue(key, c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if err := local.CheckGrant(peerKey.Public(), grantee, ask, issue(peerKey, nil), g.s.now()); err != nil {
		t.Fatalf("a proper grant: %v", err)
	}
	for name, proof := range map[string]string{
		"not a token":     "consent-token:e30.AAAA",
		"another issuer":  issue(otherKey, nil),
		"another grantee": issue(peerKey, func(c *consent.Claims) { c.Grantee = "someone@acme" }),
		"another purpose": issue(peerKey, func(c *consent.Claims) { c.Purpose = "marketing" }),
		"fewer types":     issue(peerKey, func(c *consent.Claims) { c.DataTypes = []string{"email"} }),
		"already expired": issue(peerKey, func(c *consent.Claims) {
			c.IssuedAt, c.Expires = now.Add(-2*time.Hour).UnixMilli(), now.Add(-time.Minute).UnixMilli()
		}),
	} {
		err := local.CheckGrant(peerKey.Public(), grantee, ask, proof, g.s.now())
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.ErrConsent || we.Field != "p.proof" {
			t.Errorf("%s: %v, want E_CONSENT on p.proof", name, err)
		}
	}
}
