package registry_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// A gateway publishes one of its local agents, and an anonymous caller
// finds it by id.
func Example() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "registry-example")
	defer os.RemoveAll(tmp)
	store, err := sqlitestore.Open(ctx, filepath.Join(tmp, "dir.db"), directory.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	org, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "acme"})
	calc, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "calc", Org: "acme"})
	trust := identity.NewTrustStore()
	trust.Add("acme", org.Signing.Public())
	s, err := registry.New(registry.Config{Store: store, Org: "acme", Signer: org, Trust: trust, MaxTTL: time.Hour,
		Endpoint: "https://acme.example/moltspeak/v0.1/message"})
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Now()
	cert, _ := (&identity.Org{Name: "acme", Signing: org.Signing}).IssueIdentity(calc.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	info := localbridge.AgentInfo{ID: "calc", Connected: true, Healthy: true, Tools: []localbridge.ToolInfo{{Name: "math.mul"}}}
	s.Publish(ctx, registry.LocalAgent{ID: "calc", Capabilities: []string{"math.add"},
		Key: calc.Signing.Public(), EncKey: calc.Encryption.Public(), Cert: cert.Value()}, info)
	v, err := s.LookupAnonymous(ctx, "calc@acme")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Get("agent_id"), v.Get("capabilities"))
	// Output: "calc" ["math.add","math.mul"]
}
