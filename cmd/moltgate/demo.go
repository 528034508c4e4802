package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// demoOrg is one organisation of the demo: its key, trust store and agent.
type demoOrg struct {
	org   *identity.Org
	trust *identity.TrustStore
	agent *identity.Agent
	cert  *identity.Cert
	box   *crypto.Box
	open  *crypto.Opener
}

func newDemoOrg(codec *wire.Codec, name, agent string, now time.Time) (*demoOrg, error) {
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		return nil, err
	}
	o := &demoOrg{org: &identity.Org{Name: name, Signing: sk}, trust: identity.NewTrustStore()}
	if o.agent, err = identity.Generate(rand.Reader, wire.Ref{Agent: agent, Org: name}); err != nil {
		return nil, err
	}
	if o.cert, err = o.org.IssueIdentity(o.agent.Public(), now, now.Add(24*time.Hour)); err != nil {
		return nil, err
	}
	o.trust.Add(name, sk.Public())
	o.box = crypto.NewBox(o.agent.Encryption, 0)
	o.open = &crypto.Opener{Codec: codec, Box: o.box, Accept: crypto.AcceptRef(o.agent.Ref)}
	return o, nil
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
	if c.Ref() != m.From.Ref() || !c.Key.Equal(m.From.Key) || !c.EncKey.Equal(m.From.EncKey) {
		return wire.Errorf(wire.ErrAuthFailed, "from", "does not match the identity certificate")
	}
	return nil
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
	fmt.Fprintln(w, "moltgate demo: two organisations exchange a signed, sealed message")

	acme, err := newDemoOrg(codec, "acme", "alice", now)
	if err != nil {
		return err
	}
	globex, err := newDemoOrg(codec, "globex", "bob", now)
	if err != nil {
		return err
	}
	say("Two organisations create their keys, and each certifies one agent.")
	for _, o := range []*demoOrg{acme, globex} {
		fmt.Fprintf(w, "   %-7s org key %s\n", o.org.Name, o.org.Signing.Public())
		fmt.Fprintf(w, "           certifies %s: signs with %s, receives on %s\n", o.agent.Ref, o.agent.Signing.Public(), o.agent.Encryption.Public())
	}

	say("They exchange org keys out of band and pin them: each now trusts the other's certificates.")
	acme.trust.Add("globex", globex.org.Signing.Public())
	globex.trust.Add("acme", acme.org.Signing.Public())

	params, _ := wire.ValueOf(map[string]any{"location": "Tokyo", "timeframe": "+1d"})
	query := acme.message(globex.agent.Ref, wire.OpQuery, wire.Conf, "", &wire.QueryPayload{Domain: "weather", Intent: "forecast", Params: params}, now)
	env, err := crypto.SealMessage(codec, query, acme.agent.Signing, acme.box, globex.agent.Encryption.Public())
	if err != nil {
		return err
	}
	say("alice signs a confidential query for bob (Ed25519 over RFC 8785 canonical bytes)\n   and seals it to bob's X25519 key (%s): %d bytes on the wire.", wire.AlgBox, len(env))

	got, err := globex.open.Open(env)
	if err != nil {
		return err
	}
	if err := globex.check(got, now); err != nil {
		return err
	}
	q := got.Payload.(*wire.QueryPayload)
	say("bob opens it and checks everything before reading a word:\n" +
		"   addressed to bob@globex: yes\n" +
		"   sealed with the sender's own key: yes\n" +
		"   signature by alice's key: valid\n" +
		"   alice's identity certificate: signed by acme's pinned key, unexpired")
	fmt.Fprintf(w, "   the query: domain=%s intent=%s params=%s\n", q.Domain, q.Intent, q.Params)

	data, _ := wire.ValueOf(map[string]any{"high_c": 12, "low_c": 5, "conditions": "partly-cloudy"})
	reply := globex.message(acme.agent.Ref, wire.OpRespond, wire.Conf, got.ID, &wire.RespondPayload{Status: "success", Data: data}, now)
	renv, err := crypto.SealMessage(codec, reply, globex.agent.Signing, globex.box, acme.agent.Encryption.Public())
	if err != nil {
		return err
	}
	ans, err := acme.open.Open(renv)
	if err != nil {
		return err
	}
	if err := acme.check(ans, now); err != nil {
		return err
	}
	say("bob answers the same way; alice opens and verifies the reply:\n   %s", ans.Payload.(*wire.RespondPayload).Data)

	// Change one character inside the ciphertext to another base64 letter,
	// so the envelope still parses and only the authenticator can tell.
	tampered := append([]byte(nil), env...)
	i := bytes.Index(tampered, []byte(`"ciphertext":"base64:`)) + 40
	if tampered[i] == 'A' {
		tampered[i] = 'B'
	} else {
		tampered[i] = 'A'
	}
	_, err = globex.open.Open(tampered)
	say("Someone on the path changes one character of the ciphertext. bob refuses it:\n   %s", refusal(err))

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
	spoof := mallory.message(globex.agent.Ref, wire.OpQuery, wire.Conf, "", &wire.QueryPayload{Domain: "payroll"}, now)
	senv, err := crypto.SealMessage(codec, spoof, mallory.agent.Signing, mallory.box, globex.agent.Encryption.Public())
	if err != nil {
		return err
	}
	sm, err := globex.open.Open(senv)
	if err == nil {
		err = globex.check(sm, now)
	}
	say("mallory@evil sends bob a well-formed, signed query with a certificate from its own org.\n   globex has never pinned evil's key, so bob refuses it:\n   %s", refusal(err))

	fmt.Fprintln(w, "\nDemo complete: the genuine message was delivered; the tampered, forwarded and untrusted ones were refused.")
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
