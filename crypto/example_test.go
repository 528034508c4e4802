package crypto_test

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// Alice signs a query for Bob, seals it to his X25519 key, and Bob opens
// it: the opener returns only a message that is addressed to him, sealed by
// its sender and correctly signed.
func Example() {
	codec := wire.NewCodec(wire.Limits{})
	alice, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "alice", Org: "acme"})
	bob, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "bob", Org: "globex"})

	m := &wire.Message{
		V: wire.Version, ID: "550e8400-e29b-41d4-a716-446655440000", TS: time.Now().UnixMilli(),
		Op: wire.OpQuery, From: alice.Sender(), To: bob.Ref, Cls: wire.Conf,
		Payload: &wire.QueryPayload{Domain: "weather", Intent: "forecast"},
	}
	env, err := crypto.SealMessage(codec, m, alice.Signing, crypto.NewBox(alice.Encryption, 0), bob.Encryption.Public())
	if err != nil {
		panic(err)
	}

	opener := &crypto.Opener{Codec: codec, Box: crypto.NewBox(bob.Encryption, 0), Accept: crypto.AcceptRef(bob.Ref)}
	got, err := opener.Open(env)
	if err != nil {
		panic(err)
	}
	fmt.Println(got.From.Ref(), got.Op, got.Payload.(*wire.QueryPayload).Domain)
	// Output: alice@acme query weather
}
