package handshake_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// gateway makes an org, its gateway agent and the agent's certificate.
func gateway(org, agent string) (*identity.Org, *identity.Agent, *identity.Cert) {
	sk, _ := keys.GenerateEd25519(rand.Reader)
	o := &identity.Org{Name: org, Signing: sk}
	a, _ := identity.Generate(rand.Reader, wire.Ref{Agent: agent, Org: org})
	now := time.Now()
	cert, _ := o.IssueIdentity(a.Public(), now.Add(-time.Minute), now.Add(24*time.Hour))
	return o, a, cert
}

// Example shows the two sides of a handshake as gateway faces use them: the
// responder answers one request at a time (as over HTTP), the initiator
// runs the handshake through RoundTrip, and both then exchange sealed
// messages in the session.
func Example() {
	acme, alice, aliceCert := gateway("acme", "alice")
	globex, gw, gwCert := gateway("globex", "gw")
	trust := identity.NewTrustStore() // both sides trust both orgs here
	trust.Add(acme.Name, acme.Signing.Public())
	trust.Add(globex.Name, globex.Signing.Public())

	// globex: a Config, a Store of sessions and an Acceptor for handshakes.
	globexCfg := &handshake.Config{Identity: gw, Cert: gwCert, Trust: trust, Capabilities: []string{"query"}}
	globexSessions := handshake.NewStore(handshake.StoreConfig{})
	acceptor := handshake.NewAcceptor(globexCfg, globexSessions)
	// What globex's HTTP face does with a request body.
	post := func(ctx context.Context, body []byte) ([]byte, error) {
		reply, _, err := acceptor.Handle(ctx, body)
		return reply, err
	}

	// acme dials globex.
	acmeCfg := &handshake.Config{Identity: alice, Cert: aliceCert, Trust: trust, Capabilities: []string{"query", "task"}}
	hs := handshake.NewInitiator(acmeCfg, handshake.Peer{Ref: gw.Ref})
	sess, err := hs.Run(context.Background(), handshake.RoundTrip(post))
	if err != nil {
		panic(err)
	}
	fmt.Println("peer:", sess.Peer().Ref(), "level:", sess.Level(), "version:", sess.Version())
	fmt.Println("capabilities:", sess.Capabilities())

	// acme seals a confidential query in the session...
	q := &wire.Message{
		V: wire.Version, ID: "3f1e9a52-8f7c-4b1d-9a6e-2c5d8b7e4f10", TS: time.Now().UnixMilli(),
		Op: wire.OpQuery, From: alice.Sender(), To: gw.Ref, Cls: wire.Conf,
		Payload: &wire.QueryPayload{Domain: "weather", Intent: "forecast"},
	}
	sealed, err := sess.SignAndSeal(q, alice.Signing)
	if err != nil {
		panic(err)
	}
	// ...and globex's face finds the session by the envelope and opens it.
	env, err := wire.NewCodec(wire.Limits{}).DecodeEnvelope(sealed)
	if err != nil {
		panic(err)
	}
	m, in, err := globexSessions.Open(env)
	if err != nil {
		panic(err)
	}
	fmt.Println("globex got", m.Op, "from", m.From.Ref(), "at level", in.Level())

	// The same envelope again is a replay.
	_, _, err = globexSessions.Open(env)
	fmt.Println(err)
	// Output:
	// peer: gw@globex level: authenticated version: 0.1
	// capabilities: [query]
	// globex got query from alice@acme at level authenticated
	// E_REPLAY: envelope.counter: counter already used
}
