package keys_test

import (
	"crypto/rand"
	"fmt"

	"github.com/moltgate/moltgate/keys"
)

func Example() {
	sk, _ := keys.GenerateEd25519(rand.Reader)
	msg := []byte("hello")
	sig := sk.Sign(msg)

	// Keys travel as text and parse back strictly.
	pub, err := keys.ParseEd25519Public(sk.Public().String())
	if err != nil {
		panic(err)
	}
	fmt.Println(pub.Verify(msg, sig))
	fmt.Println(sk) // a private key never prints itself
	// Output:
	// true
	// ed25519:<private key redacted>
}
