package orgkey_test

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func certified(sk keys.Ed25519Private, enc keys.X25519Private) orgkey.Set {
	self := &identity.Agent{Ref: wire.Ref{Agent: "gateway", Org: "globex"}, Signing: sk, Encryption: enc}
	now := time.Now()
	cert, _ := (&identity.Org{Name: "globex", Signing: sk}).IssueIdentity(self.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	return orgkey.Set{Self: self, Cert: cert}
}

// A gateway reads its key per use; a rotation swaps it while it serves.
func Example() {
	enc, _ := keys.GenerateX25519(rand.Reader)
	first, _ := keys.GenerateEd25519(rand.Reader)
	src, err := orgkey.New(certified(first, enc))
	if err != nil {
		panic(err)
	}
	var holder identity.Holder = src // what signs in the gateway's name
	before := holder.Current()

	next, _ := keys.GenerateEd25519(rand.Reader)
	old, err := src.Update(func(cur orgkey.Set) (orgkey.Set, error) {
		set := certified(next, enc)
		cur.Self, cur.Cert = set.Self, set.Cert
		return cur, nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(old.Self == before, holder.Current().Signing.Public().Equal(next.Public()))
	// Output: true true
}
