package receipt_test

import (
	"bytes"
	"fmt"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
)

func Example() {
	acme, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{1}, 32))
	globex, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{2}, 32))
	digest := "sha256:" + fmt.Sprintf("%064x", 0)

	// globex answered two calls from acme: the receipts' bodies went back
	// with the replies, and it signs both in one batch.
	var rs []*receipt.Receipt
	var leaves []merkle.Hash
	for _, reply := range []string{"7c1f9b8f-2d3e-4f40-9bac-1d2e3f4a5b6c", "8d2a0c90-3e4f-4051-8cbd-2e3f4a5b6c7d"} {
		r := &receipt.Receipt{Type: receipt.Type, Caller: "assistant@acme", Callee: "echo@globex",
			RequestID: "6b0f8a7e-1c2d-4e3f-8a9b-0c1d2e3f4a5b", ReplyID: reply,
			RequestDigest: digest, ReplyDigest: digest, Outcome: receipt.OutcomeSuccess, TS: 1800000000000}
		leaf, err := r.Leaf()
		if err != nil {
			fmt.Println(err)
			return
		}
		rs, leaves = append(rs, r), append(leaves, leaf)
	}
	proofs, _ := receipt.SignBatch(globex, "globex", receipt.RoleCallee, 1800000000005, leaves)
	// acme checks each proof and countersigns both, in a batch of its own.
	counter, _ := receipt.SignBatch(acme, "acme", receipt.RoleCaller, 1800000000012, leaves)
	for i, r := range rs {
		r.CalleeProof, r.CallerProof = &proofs[i], &counter[i]
	}
	// Anyone with both org keys (from the peer documents) verifies one
	// receipt alone.
	keyOf := func(org string) (keys.Ed25519Public, bool) {
		switch org {
		case "acme":
			return acme.Public(), true
		case "globex":
			return globex.Public(), true
		}
		return keys.Ed25519Public{}, false
	}
	fmt.Println(rs[1].Verify(keyOf))
	// Output: <nil>
}
