package handover_test

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/keys"
)

func ExampleOrgKey() {
	oldKey, _ := keys.GenerateEd25519(rand.Reader)
	newKey, _ := keys.GenerateEd25519(rand.Reader)
	newEnc, _ := keys.GenerateX25519(rand.Reader)
	now := time.Now()

	// acme rotates: the old key vouches for the new one, which takes
	// effect in a minute and overlaps the old for a day.
	s, err := handover.OrgKey("acme", oldKey, newKey, newEnc.Public(), now.Add(time.Minute), 24*time.Hour, now)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := s.Marshal()

	// A peer that pinned the old key accepts the new one.
	got, err := handover.Parse(b)
	if err == nil {
		err = got.Verify(oldKey.Public())
	}
	fmt.Println(err, got.New == newKey.Public().String())
	// Output: <nil> true
}
