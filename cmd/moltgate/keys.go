package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func runKeygen(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keygen")
	agent := fs.String("agent", "", "agent id ([A-Za-z0-9_-]{1,128})")
	org := fs.String("org", "", "organisation ([A-Za-z0-9_-]{1,128})")
	out := fs.String("out", "", "identity file to write (mode 0600)")
	force := fs.Bool("force", false, "replace an existing identity file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *agent == "" || *org == "" || *out == "" {
		return usagef("--agent, --org and --out are required")
	}
	if !wire.ValidName(*agent) || !wire.ValidName(*org) {
		return usagef("--agent and --org must match [A-Za-z0-9_-]{1,128}")
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	id, err := identity.Generate(rand.Reader, wire.Ref{Agent: *agent, Org: *org})
	if err != nil {
		return err
	}
	if err := id.Save(*out, keys.WriteOptions{Passphrase: pass, Overwrite: *force}); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(id.Public(), "", "  ")
	fmt.Fprintln(e.stdout, string(b))
	return nil
}

// loadIdentity reads an identity file, unlocking it with the passphrase
// from the environment if it is encrypted.
func loadIdentity(e *env, path string) (*identity.Agent, error) {
	if path == "" {
		return nil, usagef("--identity is required")
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return nil, err
	}
	return identity.Load(path, pass)
}
