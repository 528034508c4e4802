package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// demoConsent is the data-protection part of `moltgate demo`: acme's gate blocks a message to
// globex that carries an e-mail address, acme issues a consent, the same data passes as a pii
// message, and once the consent is revoked it is blocked again. dir holds the revocation list.
func demoConsent(ctx context.Context, w io.Writer, dir string, now time.Time) error {
	orgKey, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		return err
	}
	trust := identity.NewTrustStore()
	trust.Add("acme", orgKey.Public())
	sc, err := pii.New(nil)
	if err != nil {
		return err
	}
	policy, err := classify.NewPolicy(classify.Config{
		Peers:  map[string]wire.Class{"globex": wire.PII},
		Agents: map[string]wire.Class{"alice": wire.PII},
	})
	if err != nil {
		return err
	}
	store, err := consent.OpenFile(filepath.Join(dir, "consent-revocations.jsonl"), &consent.FileOptions{Refresh: -1})
	if err != nil {
		return err
	}
	clock := func() time.Time { return now }
	gate, err := classify.NewGate(classify.GateConfig{Scanner: sc, Policy: policy, Now: clock,
		Consents: &consent.Verifier{Trust: trust, Revocations: store, Now: clock}})
	if err != nil {
		return err
	}
	codec := wire.NewCodec(wire.Limits{})
	bob := wire.Ref{Agent: "bob", Org: "globex"}
	send := func(cls wire.Class, meta *wire.PIIMeta) (classify.Decision, error) {
		params, err := wire.ValueOf(map[string]any{"attendee": "Please invite jane.doe@example.com to Friday's review."})
		if err != nil {
			return classify.Decision{}, err
		}
		m := &wire.Message{V: wire.Version, ID: newID(), TS: now.UnixMilli(), Op: wire.OpQuery,
			From: wire.Sender{Agent: "alice", Org: "acme"}, To: bob, Cls: cls, PIIMeta: meta,
			Payload: &wire.QueryPayload{Domain: "calendar", Intent: "invite", Params: params}}
		if err := codec.Check(m); err != nil {
			return classify.Decision{}, err
		}
		return gate.Check(ctx, m, classify.Outbound, "globex", nil), nil
	}
	show := func(d classify.Decision) {
		if d.Allow {
			fmt.Fprintf(w, "   allowed: %s; it will be sealed, never persisted, and logged masked\n", d.Types)
			return
		}
		fmt.Fprintf(w, "   blocked: %s %s", d.Err.Code, d.Err.Message)
		if s := d.Err.Suggestion; s != nil {
			fmt.Fprintf(w, " (suggestion: %s %v)", s.Action, s.DataTypes)
		}
		fmt.Fprintln(w)
		for _, f := range d.Findings {
			fmt.Fprintf(w, "   found %s at %s, bytes %d-%d (the value is never shown)\n", f.Type, f.Path, f.Start, f.End)
		}
	}

	fmt.Fprintln(w, "\n   alice@acme asks bob@globex to send an invitation; the request names an e-mail address.")
	d, err := send(wire.Conf, nil)
	if err != nil {
		return err
	}
	show(d)

	id, err := consent.NewID(rand.Reader)
	if err != nil {
		return err
	}
	tok, err := consent.Issue(orgKey, consent.Claims{ID: id, GrantedBy: "user:jane.doe", Grantee: bob.String(),
		Purpose: "scheduling", DataTypes: []string{"email"}, IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli()})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "   jane agrees; acme's key signs a consent for bob@globex, purpose scheduling, type email, one hour:\n   %.48s…\n", tok)
	meta := &wire.PIIMeta{Types: []string{"email"}, Consent: &wire.Consent{GrantedBy: "user:jane.doe", Purpose: "scheduling", Proof: tok}}
	if d, err = send(wire.PII, meta); err != nil {
		return err
	}
	show(d)

	if err := store.Revoke(ctx, id, now.Add(time.Hour)); err != nil {
		return err
	}
	fmt.Fprintln(w, "   jane withdraws her consent; acme revokes it.")
	if d, err = send(wire.PII, meta); err != nil {
		return err
	}
	show(d)
	return nil
}
