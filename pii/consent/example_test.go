package consent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

func Example() {
	orgKey, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{7}, 32))
	now := time.UnixMilli(1_767_222_000_000)

	// acme's gateway issues a consent: globex's calendar agent may receive e-mail addresses
	// for calendar-sync, for one hour.
	token, err := consent.Issue(orgKey, consent.Claims{
		ID: "8a6e0804-2bd0-4672-b79d-d97027f9071a", GrantedBy: "user:jane", Grantee: "calendar@globex",
		Purpose: "calendar-sync", DataTypes: []string{"email"},
		IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli(),
	})
	if err != nil {
		panic(err)
	}

	trust := identity.NewTrustStore()
	trust.Add("acme", orgKey.Public())
	v := &consent.Verifier{Trust: trust, Now: func() time.Time { return now }}
	req := consent.Request{Issuer: "acme", Grantee: wire.Ref{Agent: "calendar", Org: "globex"},
		Purpose: "calendar-sync", Types: []string{"email"}}
	claims, err := v.Verify(context.Background(), token, req)
	fmt.Println(claims.GrantedBy, err)

	// A phone number as well needs a consent that covers it.
	req.Types = []string{"email", "phone"}
	_, err = v.Verify(context.Background(), token, req)
	var we *wire.Error
	errors.As(err, &we)
	fmt.Println(we.Code, we.Suggestion.Action, we.Suggestion.DataTypes, errors.Is(err, consent.ErrTypes))
	// Output:
	// user:jane <nil>
	// E_CONSENT request_consent [phone] true
}
