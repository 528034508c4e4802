package classify_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

func ExampleGate_Check() {
	orgKey, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{1}, 32))
	trust := identity.NewTrustStore()
	trust.Add("acme", orgKey.Public())
	now := time.UnixMilli(1_767_222_000_000)

	sc, _ := pii.New(nil)
	policy, _ := classify.NewPolicy(classify.Config{
		Peers:  map[string]wire.Class{"globex": wire.PII},
		Agents: map[string]wire.Class{"alice": wire.PII},
	})
	gate, _ := classify.NewGate(classify.GateConfig{Scanner: sc, Policy: policy,
		Consents: &consent.Verifier{Trust: trust, Now: func() time.Time { return now }}})

	codec := wire.NewCodec(wire.Limits{})
	send := func(cls wire.Class, meta *wire.PIIMeta) classify.Decision {
		params, _ := wire.ValueOf(map[string]any{"note": "Invite ann.lee@example.org to the review."})
		m := &wire.Message{V: wire.Version, ID: "3f0e4a57-58c5-4a6e-9b0f-2d7c2a64b1c9", TS: now.UnixMilli(),
			Op: wire.OpQuery, From: wire.Sender{Agent: "alice", Org: "acme"}, To: wire.Ref{Agent: "bob", Org: "globex"},
			Cls: cls, Payload: &wire.QueryPayload{Domain: "calendar", Params: params}, PIIMeta: meta}
		if err := codec.Check(m); err != nil {
			panic(err)
		}
		return gate.Check(context.Background(), m, classify.Outbound, "globex", nil)
	}

	d := send(wire.Int, nil)
	fmt.Println(d.Allow, d.Err.Code, d.Err.Suggestion.Action, d.Err.Suggestion.DataTypes, d.Findings[0].Type, d.Findings[0].Path)

	tok, _ := consent.Issue(orgKey, consent.Claims{ID: "8a6e0804-2bd0-4672-b79d-d97027f9071a", GrantedBy: "user:ann",
		Grantee: "bob@globex", Purpose: "scheduling", DataTypes: []string{"email"},
		IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli()})
	d = send(wire.PII, &wire.PIIMeta{Types: []string{"email"},
		Consent: &wire.Consent{GrantedBy: "user:ann", Purpose: "scheduling", Proof: tok}})
	fmt.Println(d.Allow, d.Handling.Encrypt, d.Handling.Log)
	// Output:
	// false E_CONSENT request_consent [email] email p.params.note
	// true true masked
}

func ExampleNewRedactor() {
	sc, _ := pii.New(nil)
	plain := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})
	log := slog.New(classify.NewRedactor(plain, sc))
	log.Info("forwarding reply to ann.lee@example.org", "api_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "bytes", 512)
	// Output:
	// level=INFO msg="forwarding reply to [email]" api_key=[secret] bytes=512
}
