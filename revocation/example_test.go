package revocation_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
)

func Example() {
	orgKey, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{7}, 32))
	agentKey, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{8}, 32))

	// globex revokes its agent echo's key.
	list, err := revocation.New("globex").Revoke(orgKey, time.Now(),
		revocation.Entry{Kind: revocation.KindAgentKey, Value: agentKey.Public().String(), Agent: "echo", Reason: "key leaked"})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := list.Marshal()

	// A peer that pinned globex's org key checks the list and looks keys up.
	got, err := revocation.Parse(b)
	if err == nil {
		err = got.Verify(orgKey.Public())
	}
	_, revoked := got.Find(revocation.KindAgentKey, agentKey.Public().String())
	fmt.Println(got.Serial, revoked, err)
	// Output: 1 true <nil>
}
