package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
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

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "demo")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	w := e.stdout
	now := e.now()
	codec := wire.NewCodec(wire.Limits{})
	step := 0
	say := func(format string, a ...any) {
		step++
		fmt.Fprintf(w, "\n%d. "+format+"\n", append([]any{step}, a...)...)
	}
	fmt.Fprintln(w, "moltgate demo: two organisations, a handshake, and signed, sealed messages")

	acme, err := newDemoOrg(codec, "acme", "alice", now)
	if err != nil {
		return err
	}
	globex, err := newDemoOrg(codec, "globex", "bob", now)
	if err != nil {
		return err
	}
	say("Two organisations create their keys; each certifies its gateway and one agent.")
	for _, o := range []*demoOrg{acme, globex} {
		fmt.Fprintf(w, "   %-7s org key %s\n", o.org.Name, o.org.Signing.Public())
		fmt.Fprintf(w, "           certifies %s and %s (signs with %s)\n", o.gw.Ref, o.agent.Ref, o.agent.Signing.Public())
	}

	say("They exchange org keys out of band and pin them: each now trusts the other's certificates.")
	acme.trust.Add("globex", globex.org.Signing.Public())
	globex.trust.Add("acme", acme.org.Signing.Public())

	sess, err := acme.handshakeWith(ctx, codec, globex)
	if err != nil {
		return err
	}
	say("acme's gateway opens a session with globex's: hello, hello_ack, verify, verify_response,\n"+
		"   session_established. Each side signs the other's fresh challenge bound to the transcript;\n"+
		"   the session keys come from a fresh X25519 exchange (forward secrecy).\n"+
		"   peer %s, version %s, trust level %s, capabilities %v,\n   classes %v, expires %s",
		sess.Peer().Ref(), sess.Version(), sess.Level(), sess.Capabilities(), sess.Classes(), sess.Expires().UTC().Format(time.RFC3339))

	params, _ := wire.ValueOf(map[string]any{"location": "Tokyo", "timeframe": "+1d"})
	query := acme.message(globex.agent.Ref, wire.OpQuery, wire.Conf, "", &wire.QueryPayload{Domain: "weather", Intent: "forecast", Params: params}, now)
	env, err := sess.SignAndSeal(query, acme.agent.Signing)
	if err != nil {
		return err
	}
	say("alice signs a confidential query for bob (Ed25519 over RFC 8785 canonical bytes);\n   her gateway seals it in the session (%s): %d bytes on the wire.", wire.AlgSession, len(env))

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
	say("globex's gateway opens it and checks everything before bob reads a word:\n" +
		"   a live session, a fresh counter, the ciphertext authenticates,\n" +
		"   signed by alice's key, her identity certificate chains to acme's pinned key")
	fmt.Fprintf(w, "   arrived at trust level %s; the query: domain=%s intent=%s params=%s\n", in.Level(), q.Domain, q.Intent, q.Params)

	data, _ := wire.ValueOf(map[string]any{"high_c": 12, "low_c": 5, "conditions": "partly-cloudy"})
	reply := globex.message(acme.agent.Ref, wire.OpRespond, wire.Conf, got.ID, &wire.RespondPayload{Status: "success", Data: data}, now)
	back, err := globex.sessions.Peer(acme.gw.Ref)
	if err != nil {
		return err
	}
	renv, err := back.SignAndSeal(reply, globex.agent.Signing)
	if err != nil {
		return err
	}
	rdec, err := codec.DecodeEnvelope(renv)
	if err != nil {
		return err
	}
	ans, _, err := acme.sessions.Open(rdec)
	if err != nil {
		return err
	}
	if err := acme.check(ans, now); err != nil {
		return err
	}
	say("bob answers in the same session; alice's gateway opens and verifies the reply:\n   %s", ans.Payload.(*wire.RespondPayload).Data)

	_, _, err = globex.sessions.Open(decoded)
	say("Someone records alice's envelope and plays it again. globex refuses it:\n   %s", refusal(err))

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
	say("alice sends another query; someone on the path changes one character of its ciphertext.\n   globex refuses it:\n   %s", refusal(err))

	carol, err := newDemoOrg(codec, "initech", "carol", now)
	if err != nil {
		return err
	}
	forwarded, err := globex.box.Seal(got.Raw(), carol.agent.Encryption.Public(), rand.Reader)
	if err != nil {
		return err
	}
	_, err = carol.open.Open(forwarded)
	say("bob re-seals alice's signed query to carol@initech, hoping she takes it as alice's word to her.\n   carol refuses it:\n   %s", refusal(err))

	mallory, err := newDemoOrg(codec, "evil", "mallory", now)
	if err != nil {
		return err
	}
	msess, err := mallory.handshakeWith(ctx, codec, globex)
	if err != nil {
		return err
	}
	spoof := mallory.message(globex.agent.Ref, wire.OpQuery, wire.Conf, "", &wire.QueryPayload{Domain: "payroll"}, now)
	senv, err := msess.SignAndSeal(spoof, mallory.agent.Signing)
	if err != nil {
		return err
	}
	sdec, _ := codec.DecodeEnvelope(senv)
	sm, min, err := globex.sessions.Open(sdec)
	if err == nil {
		if need := identity.Required(sm.Op, sm.Cls, sm.Cap); min.Level() < need.Level {
			err = wire.Errorf(wire.ErrAuthFailed, "", "a %s %s needs trust level %s; %s is only %s (its org key is not pinned)",
				sm.Cls, sm.Op, need.Level, sm.From.Ref(), min.Level())
		}
	}
	say("mallory@evil completes a handshake with globex too, with a certificate from its own org.\n"+
		"   globex has never pinned evil's key, so the session stays at level %s,\n   and mallory's confidential query is refused:\n   %s", msess.Level(), refusal(err))

	fmt.Fprintln(w, "\nDemo complete: the genuine messages were delivered; the replayed, tampered, forwarded and untrusted ones were refused.")
	return nil
}

// refusal renders the error a refusal produced; a nil error is a failure of
// the demo itself.
func refusal(err error) string {
	if err == nil {
		return "ACCEPTED (this is a bug)"
	}
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Error()
	}
	return err.Error()
}
