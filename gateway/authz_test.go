package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
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
	ext = ext.With(extIdentity, wire.ObjectValue(wire.Member{Key: "cert", Value: c.Value()}))
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
	c := r.dial(ctx, t, faceHTTP)
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
