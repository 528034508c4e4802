package roster_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// printed is a directory that says what is written to it.
type printed struct{}

func (printed) Publish(ctx context.Context, a *roster.Agent, info localbridge.AgentInfo) {
	fmt.Println("publish", a.Spec.ID, a.Spec.Capabilities)
}

func (printed) Withdraw(ctx context.Context, id string) { fmt.Println("withdraw", id) }

func Example() {
	self, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "acme"})
	calc, _ := identity.Generate(rand.Reader, wire.Ref{Agent: "calc", Org: "acme"})
	calc.Encryption = self.Encryption // local agents receive through the gateway
	policy, _ := classify.NewPolicy(classify.Config{})
	records := []*roster.Record{{ID: "calc", MaxCls: wire.Conf, Capabilities: []string{"calc.add"}}}
	log := slog.New(slog.DiscardHandler)

	r, err := roster.New(roster.Config{
		Self:          func() *identity.Agent { return self },
		Records:       func() ([]*roster.Record, error) { return records, nil },
		Identity:      func(id string) (*identity.Agent, error) { return calc, nil },
		KeyPath:       func(id string) string { return "/nonexistent/" + id },
		CertTTL:       30 * 24 * time.Hour,
		WithdrawAfter: 2 * time.Minute,
		Directory:     printed{}, Ceilings: policy,
		Log: log,
	}, records)
	if err != nil {
		fmt.Println(err)
		return
	}
	bridge := localbridge.NewCore(localbridge.Config{Logger: log})
	defer bridge.Close()
	if err := r.Launch(bridge); err != nil {
		fmt.Println(err)
		return
	}
	a := r.Agent("calc")
	fmt.Println(a.Spec.ID, "certified by", a.Cert.Org, "for", a.Caps[0].Capability)

	// The record is removed on disk: Reload withdraws the entry.
	records = nil
	if err := r.Reload(context.Background()); err != nil {
		fmt.Println(err)
	}
	fmt.Println(r.Len(), "agents")
	// Output:
	// calc certified by acme for tool.invoke
	// withdraw calc
	// 0 agents
}
