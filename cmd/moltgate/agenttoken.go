package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge/credential"
)

// runAgentToken issues or revokes the credential of an agent the gateway
// does not launch. The token goes alone to standard output, so that a
// script can take it (TOKEN=$(moltgate agent token ...)); what to do with
// it goes to standard error.
func runAgentToken(e *env, args []string) error {
	fs := newFlags(e, "agent token")
	dir := fs.String("dir", "", "gateway directory")
	id := fs.String("id", "", "agent id, of an agent added without --exec")
	ttl := fs.Duration("ttl", time.Hour, "how long the token waits for the agent's first connection (at most 720h)")
	revoke := fs.Bool("revoke", false, "revoke the agent's token and key instead: its next connection is refused and a running gateway ends the one it has")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if *id == "" {
		return usagef("--id is required")
	}
	store := &credential.Store{Dir: d.CredentialsDir(), Now: e.now}
	if *revoke {
		had, err := store.Revoke(*id)
		if err != nil {
			return &gateway.OptionError{Cmd: "agent token", Option: "--id", Msg: err.Error(), Err: err}
		}
		if !had {
			fmt.Fprintf(e.stdout, "Agent %s had no token or key to revoke\n", *id)
			return nil
		}
		fmt.Fprintf(e.stdout, "Revoked the token and key of agent %s; a running gateway disconnects it within seconds\n", *id)
		return nil
	}
	if *ttl < time.Second || *ttl > credential.MaxTTL {
		return usagef("--ttl %v must be between 1s and %v", *ttl, credential.MaxTTL)
	}
	agents, err := gateway.LoadAgents(d)
	if err != nil {
		return err
	}
	var a *gateway.LocalAgent
	for _, x := range agents {
		if x.ID == *id {
			a = x
		}
	}
	switch {
	case a == nil:
		return &gateway.OptionError{Cmd: "agent token", Option: "--id", Msg: fmt.Sprintf("--id %s: no such agent in %s; add it first without --exec: moltgate agent add --dir %s --id %s --capability C", *id, *dir, *dir, *id)}
	case len(a.Exec) > 0:
		return &gateway.OptionError{Cmd: "agent token", Option: "--id", Msg: fmt.Sprintf("--id %s: the gateway launches this agent (--exec) and hands it a token of its own; a token is for an agent added without --exec", *id)}
	}
	cfg, err := d.ReadConfig()
	if err != nil {
		return err
	}
	tok, err := store.Issue(*id, *ttl)
	if err != nil {
		return err
	}
	sock, err := filepath.Abs(cfg.CoreSocketPath(d))
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, tok)
	fmt.Fprintf(e.stderr, "This token admits agent %s once, within %v, and is not shown again. Give the agent:\n", *id, *ttl)
	fmt.Fprintf(e.stderr, "  OPENSENTIENCE_SOCKET=%s\n  OPENSENTIENCE_AGENT_ID=%s\n  OPENSENTIENCE_TOKEN=<the token>\n", sock, *id)
	fmt.Fprintln(e.stderr, "Its first connection is handed a key it reconnects with (the SDKs keep it in OPENSENTIENCE_KEY_FILE). A new token revokes the old one and its key.")
	return nil
}
