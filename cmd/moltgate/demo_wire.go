package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// demoOrg is one organisation of the demo: its key, trust store, gateway
// identity and one agent.
type demoOrg struct {
	org      *identity.Org
	trust    *identity.TrustStore
	gw       *identity.Agent
	gwCert   *identity.Cert
	agent    *identity.Agent
	cert     *identity.Cert
	box      *crypto.Box
	open     *crypto.Opener
	sessions *handshake.Store
}

func newDemoOrg(codec *wire.Codec, name, agent string, now time.Time) (*demoOrg, error) {
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		return nil, err
	}
	o := &demoOrg{org: &identity.Org{Name: name, Signing: sk}, trust: identity.NewTrustStore(),
		sessions: handshake.NewStore(handshake.StoreConfig{})}
	if o.gw, err = identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: name}); err != nil {
		return nil, err
	}
	if o.gwCert, err = o.org.IssueIdentity(o.gw.Public(), now.Add(-time.Minute), now.Add(24*time.Hour)); err != nil {
		return nil, err
	}
	if o.agent, err = identity.Generate(rand.Reader, wire.Ref{Agent: agent, Org: name}); err != nil {
		return nil, err
	}
	if o.cert, err = o.org.IssueIdentity(o.agent.Public(), now.Add(-time.Minute), now.Add(24*time.Hour)); err != nil {
		return nil, err
	}
	o.trust.Add(name, sk.Public())
	o.box = crypto.NewBox(o.agent.Encryption, 0)
	o.open = &crypto.Opener{Codec: codec, Box: o.box, Accept: crypto.AcceptRef(o.agent.Ref)}
	return o, nil
}

func (o *demoOrg) handshakeConfig(codec *wire.Codec) *handshake.Config {
	return &handshake.Config{Identity: o.gw, Cert: o.gwCert, Trust: o.trust, Codec: codec,
		Capabilities: []string{"query", "task", "tool.invoke"}}
}

// message builds a message from o's agent to another, carrying o's
// identity certificate in an extension so the receiver can check it.
func (o *demoOrg) message(to wire.Ref, op wire.Op, cls wire.Class, re string, payload any, now time.Time) *wire.Message {
	ext := wire.ObjectValue(wire.Member{Key: "moltgate.identity", Value: wire.ObjectValue(wire.Member{Key: "cert", Value: o.cert.Value()})})
	return &wire.Message{
		V: wire.Version, ID: newID(), TS: now.UnixMilli(), Op: op, From: o.agent.Sender(), To: to,
		Cls: cls, Re: re, Payload: payload, Ext: ext,
	}
}

// check verifies the identity certificate a message carries against o's
// trust store.
func (o *demoOrg) check(m *wire.Message, now time.Time) error {
	c, err := identity.ParseCert(m.Ext.Get("moltgate.identity").Get("cert"))
	if err != nil {
		return err
	}
	if err := o.trust.VerifyIdentity(c, now); err != nil {
		return err
	}
	if c.Ref() != m.From.Ref() || !c.Key.Equal(m.From.Key) {
		return wire.Errorf(wire.ErrAuthFailed, "from", "does not match the identity certificate")
	}
	return nil
}

// handshakeWith runs a handshake from o's gateway to peer's gateway over an
// in-memory transport, and stores the session on both sides.
func (o *demoOrg) handshakeWith(ctx context.Context, codec *wire.Codec, peer *demoOrg) (*handshake.Session, error) {
	a, b := handshake.Pipe()
	type result struct {
		s   *handshake.Session
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := handshake.NewResponder(peer.handshakeConfig(codec)).Run(ctx, b)
		done <- result{s, err}
	}()
	s, err := handshake.NewInitiator(o.handshakeConfig(codec), handshake.Peer{Ref: peer.gw.Ref}).Run(ctx, a)
	r := <-done
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	o.sessions.Add(s)
	peer.sessions.Add(r.s)
	return s, nil
}

// demoWire shows, message by message in memory, the checks behind what the
// gateways did: a session's envelope opened, then replayed, tampered with,
// and re-sealed to someone else. Its steps are numbered on from step.
func demoWire(ctx context.Context, w io.Writer, step int) error {
	now := time.Now()
	codec := wire.NewCodec(wire.Limits{})
	say := func(format string, a ...any) {
		step++
		fmt.Fprintf(w, "\n%d. "+format+"\n", append([]any{step}, a...)...)
	}
	fmt.Fprintln(w, "\nUnder the hood: the checks behind those answers, message by message, in memory, with the")
	fmt.Fprintln(w, "packages the gateway is built on (wire, crypto, handshake, identity).")

	acme, err := newDemoOrg(codec, "acme", "alice", now)
	if err != nil {
		return err
	}
	globex, err := newDemoOrg(codec, "globex", "bob", now)
	if err != nil {
		return err
	}
	acme.trust.Add("globex", globex.org.Signing.Public())
	globex.trust.Add("acme", acme.org.Signing.Public())
	sess, err := acme.handshakeWith(ctx, codec, globex)
	if err != nil {
		return err
	}
	params, _ := wire.ValueOf(map[string]any{"location": "Tokyo", "timeframe": "+1d"})
	query := acme.message(globex.agent.Ref, wire.OpQuery, wire.Conf, "", &wire.QueryPayload{Domain: "weather", Intent: "forecast", Params: params}, now)
	env, err := sess.SignAndSeal(query, acme.agent.Signing)
	if err != nil {
		return err
	}
	decoded, err := codec.DecodeEnvelope(env)
	if err != nil {
		return err
	}
	got, in, err := globex.sessions.Open(decoded)
	if err != nil {
		return err
	}
	if err := globex.check(got, now); err != nil {
		return err
	}
	q := got.Payload.(*wire.QueryPayload)
	say("alice@acme and bob@globex, their organisations' keys pinned on both sides, share a session.\n"+
		"   alice's confidential query, signed and sealed in it, is %d bytes on the wire. bob's side opens\n"+
		"   it: a live session, a fresh counter, the ciphertext authenticates, alice's signature verifies\n"+
		"   and her certificate chains to acme's pinned key (trust level %s): domain=%s intent=%s.",
		len(env), in.Level(), q.Domain, q.Intent)

	var refused []error
	_, _, err = globex.sessions.Open(decoded)
	refused = append(refused, err)
	say("Someone records alice's envelope and plays it again. bob's side refuses it:\n   %s", wireRefusal(err))

	second, err := sess.SignAndSeal(acme.message(globex.agent.Ref, wire.OpQuery, wire.Conf, "", &wire.QueryPayload{Domain: "weather", Intent: "alerts"}, now), acme.agent.Signing)
	if err != nil {
		return err
	}
	tampered := append([]byte(nil), second...)
	i := bytes.Index(tampered, []byte(`"ciphertext":"base64:`)) + 40
	if tampered[i] == 'A' {
		tampered[i] = 'B'
	} else {
		tampered[i] = 'A'
	}
	if tdec, derr := codec.DecodeEnvelope(tampered); derr != nil {
		err = derr
	} else {
		_, _, err = globex.sessions.Open(tdec)
	}
	refused = append(refused, err)
	say("alice sends another query; someone on the path changes one character of its ciphertext.\n"+
		"   bob's side refuses it:\n   %s", wireRefusal(err))

	carol, err := newDemoOrg(codec, "initech", "carol", now)
	if err != nil {
		return err
	}
	forwarded, err := globex.box.Seal(got.Raw(), carol.agent.Encryption.Public(), rand.Reader)
	if err != nil {
		return err
	}
	_, err = carol.open.Open(forwarded)
	refused = append(refused, err)
	say("bob re-seals alice's signed query to carol@initech, hoping she takes it as alice's word to her.\n"+
		"   carol refuses it:\n   %s", wireRefusal(err))
	for _, err := range refused {
		if err == nil {
			return errors.New("demo: a replayed, tampered or forwarded message was accepted")
		}
	}
	return nil
}

// wireRefusal renders the error a refusal produced; a nil error is a failure of
// the demo itself.
func wireRefusal(err error) string {
	if err == nil {
		return "ACCEPTED (this is a bug)"
	}
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Error()
	}
	return err.Error()
}
