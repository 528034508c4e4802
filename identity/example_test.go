package identity_test

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// An organisation certifies its agent; a peer that pinned the
// organisation's key accepts the certificate.
func ExampleTrustStore_VerifyIdentity() {
	orgKey, _ := keys.GenerateEd25519(rand.Reader)
	acme := &identity.Org{Name: "acme", Signing: orgKey}
	alice, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "alice", Org: "acme"})

	now := time.Now()
	cert, _ := acme.IssueIdentity(alice.Public(), now, now.Add(24*time.Hour))

	peer := identity.NewTrustStore()
	fmt.Println(peer.VerifyIdentity(cert, now) != nil) // acme not pinned yet
	peer.Add("acme", orgKey.Public())
	fmt.Println(peer.VerifyIdentity(cert, now))
	// Output:
	// true
	// <nil>
}
