package keys_test

import (
	"crypto/rand"
	"fmt"
	"strings"

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

// An operator reads the fingerprint of a peer's org key to the peer's
// operator, who compares it with the one their gateway prints.
func ExampleEd25519Public_Fingerprint() {
	k, _ := keys.ParseEd25519Public("ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
	fmt.Println(k.Fingerprint())
	fmt.Println(k.FingerprintMatches(strings.ToUpper(strings.ReplaceAll(k.Fingerprint(), " ", ":"))))
	// Output:
	// SHA256:21fe31df a154a261 626bf854 046fd227 1b7bed4b 6abe45aa 58877ef4 7f9721b9
	// true
}
