package directory_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// An agent of acme registers with acme's registry, signed with its own key
// and certified by acme; a client discovers it by capability and checks the
// registry's attestation with the key it holds for acme.
func ExampleRegistry() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "registry")
	defer os.RemoveAll(dir)
	store, err := sqlitestore.Open(ctx, filepath.Join(dir, "dir.db"), directory.Options{})
	if err != nil {
		panic(err)
	}
	defer store.Close()

	// acme's org key runs its registry and certifies its agents.
	gw, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "acme"})
	trust := identity.NewTrustStore()
	trust.Add("acme", gw.Signing.Public())
	reg, err := directory.NewRegistry(directory.RegistryConfig{Store: store, Org: "acme", Key: gw.Signing, Trust: trust})
	if err != nil {
		panic(err)
	}

	// The agent registers itself.
	bot, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "calendar-bot", Org: "acme"})
	now := time.Now()
	cert, _ := (&identity.Org{Name: "acme", Signing: gw.Signing}).IssueIdentity(bot.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	codec := wire.NewCodec(wire.DefaultLimits())
	b, err := crypto.Sign(codec, &wire.Message{V: wire.Version, ID: "6f1c1c7e-6d3b-4b8e-9a43-1f3c0f1f2d9a", TS: now.UnixMilli(),
		Op: wire.OpRegister, From: bot.Sender(), To: wire.Ref{Agent: "registry", Org: "acme"}, Cls: wire.Pub,
		Payload: &wire.RegisterPayload{Action: "create", TTL: time.Hour.Milliseconds(), IdentityCert: cert.Value(),
			Profile: &wire.Profile{Endpoint: &wire.Endpoint{URL: "https://gw.acme.example/moltspeak/v0.1/message"},
				Capabilities: []string{"calendar.schedule"}}}}, bot.Signing)
	if err != nil {
		panic(err)
	}
	m, _ := codec.Decode(b)
	if _, err := reg.Register(ctx, m); err != nil {
		panic(err)
	}

	// Anyone discovers it; the answer is attested.
	ans, err := reg.Discover(ctx, &wire.DiscoverPayload{Capability: "calendar.schedule"}, directory.Viewer{}, false)
	if err != nil {
		panic(err)
	}
	for _, r := range ans.Value().Get("results").Elems() {
		a, err := directory.VerifyAttestation(r.Value, "acme", gw.Signing.Public(), time.Now())
		fmt.Println(a.AgentID, a.Org, a.Endpoint, err)
	}
	// Output:
	// calendar-bot acme https://gw.acme.example/moltspeak/v0.1/message <nil>
}
