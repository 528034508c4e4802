package receipt_test

import (
	"bytes"
	"fmt"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/receipt"
)

func Example() {
	acme, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{1}, 32))
	globex, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{2}, 32))
	digest := "sha256:" + fmt.Sprintf("%064x", 0)

	// globex answered a call from acme and signs the receipt.
	r := &receipt.Receipt{Caller: "assistant@acme", Callee: "echo@globex",
		RequestID: "6b0f8a7e-1c2d-4e3f-8a9b-0c1d2e3f4a5b", ReplyID: "7c1f9b8f-2d3e-4f40-9bac-1d2e3f4a5b6c",
		RequestDigest: digest, ReplyDigest: digest, Outcome: receipt.OutcomeSuccess, TS: 1800000000000}
	if err := r.Sign(globex); err != nil {
		fmt.Println(err)
		return
	}
	// acme checks it and countersigns.
	if err := r.Countersign(acme); err != nil {
		fmt.Println(err)
		return
	}
	// Anyone with both org keys (from the peer documents) verifies it.
	keyOf := func(org string) (keys.Ed25519Public, bool) {
		switch org {
		case "acme":
			return acme.Public(), true
		case "globex":
			return globex.Public(), true
		}
		return keys.Ed25519Public{}, false
	}
	fmt.Println(r.Verify(keyOf))
	// Output: <nil>
}
