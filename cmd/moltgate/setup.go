package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge/credential"
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func requireDir(dir string) (gateway.Dir, error) {
	if dir == "" {
		return "", usagef("--dir is required")
	}
	return gateway.Dir(dir), nil
}

func runInit(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "init")
	dir := fs.String("dir", "", "directory for the gateway")
	org := fs.String("org", "", "this gateway's organisation")
	listen := fs.String("listen", "127.0.0.1:7443", "HOST:PORT of the HTTPS face (gRPC listens on the next port)")
	plaintext := fs.Bool("plaintext-keys", false, "store the org key unencrypted without asking (default: encrypted with a passphrase from "+keys.PassphraseEnv+", "+keys.PassphraseFileEnv+" or, on a terminal, asked for)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if *org == "" {
		return usagef("--org is required")
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	if pass == nil && !*plaintext && e.readSecret != nil {
		if pass, err = askPassphrase(e); err != nil {
			return err
		}
	}
	res, err := gateway.Init(d, gateway.InitOptions{Org: *org, Listen: *listen, Passphrase: pass, Now: e.now()})
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "Initialised gateway for %s in %s\n", *org, *dir)
	fmt.Fprintf(w, "  org key   %s\n  enc key   %s\n  TLS pin   %s\n", res.OrgKey, res.EncKey, res.TLSPin)
	fmt.Fprintf(w, "  listens   %s (HTTPS), %s (gRPC)\n", res.Config.Listen.Address, res.Config.Listen.GRPC)
	if pass != nil {
		fmt.Fprintf(w, "  keys      encrypted at rest; serve and the other commands read the passphrase from %s or %s\n", keys.PassphraseEnv, keys.PassphraseFileEnv)
	} else {
		fmt.Fprintf(w, "  keys      IN PLAINTEXT in %s (mode 0600): set %s or %s, or run init on a terminal, to encrypt them\n",
			d.OrgKeyPath(), keys.PassphraseEnv, keys.PassphraseFileEnv)
	}
	fmt.Fprintf(w, "\nNext steps:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  moltgate peer export --dir %s > %s.json\t# give this to partner organisations\n", *dir, *org)
	fmt.Fprintf(tw, "  moltgate peer import --dir %s < partner.json\t# trust a partner organisation\n", *dir)
	tw.Flush()
	fmt.Fprintf(w, "  moltgate agent add --dir %s --id AGENT --exec \"CMD ARGS\" --capability C\n", *dir)
	fmt.Fprintf(w, "  moltgate serve --dir %s\n", *dir)
	return nil
}

func runPeer(ctx context.Context, e *env, args []string) error {
	// The lines of error keep the command's name alone: the gateway
	// package's errors name the subcommand ("agent add: ...").
	return runSubcommand(e, "peer", args, false,
		subcommand{"export", func(args []string) error { return runPeerExport(e, args) }},
		subcommand{"import", func(args []string) error { return runPeerImport(e, args) }},
		subcommand{"list", func(args []string) error { return runPeerList(e, args) }},
		subcommand{"remove", func(args []string) error { return runPeerRemove(e, args) }},
	)
}

func runPeerExport(e *env, args []string) error {
	fs := newFlags(e, "peer export")
	dir := fs.String("dir", "", "gateway directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	doc, err := gateway.ExportPeer(d, pass, e.now())
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(doc))
	return nil
}

func runPeerImport(e *env, args []string) error {
	fs := newFlags(e, "peer import")
	dir := fs.String("dir", "", "gateway directory")
	maxCls := fs.String("max-cls", "", "highest classification exchanged with this peer (default from the config: int)")
	replace := fs.Bool("replace", false, "accept a new org key for an organisation already imported")
	expect := fs.String("expect-fingerprint", "", "refuse the document unless its org key has this fingerprint (agreed out of band)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	doc, err := io.ReadAll(io.LimitReader(e.stdin, 64<<10))
	if err != nil {
		return err
	}
	p, err := gateway.ImportPeer(d, doc, gateway.ImportOptions{MaxCls: *maxCls, Replace: *replace, ExpectFingerprint: *expect, Now: e.now()})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Trusting %s: org key %s, endpoint %s, up to %s\n", p.Org, p.OrgKey, p.Endpoint, p.MaxCls)
	fmt.Fprintf(e.stdout, "  fingerprint %s\n", p.OrgKey.Fingerprint())
	if *expect == "" {
		fmt.Fprintf(e.stdout, "Compare the fingerprint with the one %s's operator reads from moltgate init or peer export, by another channel; moltgate peer remove --org %s undoes the import.\n", p.Org, p.Org)
	}
	fmt.Fprintln(e.stdout, "A running gateway takes this up within seconds (or at once on SIGHUP).")
	return nil
}

func runAgent(ctx context.Context, e *env, args []string) error {
	// The lines of error keep the command's name alone: the gateway
	// package's errors name the subcommand ("agent add: ...").
	return runSubcommand(e, "agent", args, false,
		subcommand{"add", func(args []string) error { return runAgentAdd(e, args) }},
		subcommand{"remove", func(args []string) error { return runAgentRemove(e, args) }},
		subcommand{"revoke", func(args []string) error { return runAgentRevoke(e, "revoke", args) }},
		subcommand{"rotate", func(args []string) error { return runAgentRevoke(e, "rotate", args) }},
		subcommand{"token", func(args []string) error { return runAgentToken(e, args) }},
	)
}

func runAgentAdd(e *env, args []string) error {
	fs := newFlags(e, "agent add")
	dir := fs.String("dir", "", "gateway directory")
	id := fs.String("id", "", "agent id")
	execLine := fs.String("exec", "", "command that starts the agent (empty: admitted with a provisioned token)")
	var caps stringList
	fs.Var(&caps, "capability", "capability the agent offers (repeatable)")
	maxCls := fs.String("max-cls", "", "highest classification the agent may send or receive (default from the config: conf)")
	queryTool := fs.String("query-tool", "", "tool that answers query messages")
	approval := fs.Bool("approval", false, "hold every call for approval by a local human")
	visibility := fs.String("visibility", "public", "directory visibility: public, unlisted or private")
	replace := fs.Bool("replace", false, "rewrite the record of an agent already added (every setting as given here), keeping its key")
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
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	a, err := gateway.AddAgent(d, gateway.AddAgentOptions{ID: *id, Exec: *execLine, Capabilities: caps, MaxCls: *maxCls,
		QueryTool: *queryTool, Approval: *approval, Visibility: *visibility, Passphrase: pass, Replace: *replace})
	if err != nil {
		return err
	}
	if *replace {
		fmt.Fprintf(e.stdout, "Replaced agent %s (up to %s)\n", a.ID, a.MaxCls)
		fmt.Fprintln(e.stdout, "A running gateway applies the change within seconds (or at once on SIGHUP); a new --exec restarts the agent.")
		warnCommand(e, a.ID, a.Exec)
		return nil
	}
	fmt.Fprintf(e.stdout, "Added agent %s (up to %s)\n", a.ID, a.MaxCls)
	fmt.Fprintln(e.stdout, "A running gateway starts it within seconds (or at once on SIGHUP); otherwise moltgate serve does.")
	warnCommand(e, a.ID, a.Exec)
	return nil
}

// warnCommand says, without failing, when the program of an agent's command
// is not there to start: an agent may be added before it is installed, but
// a typo would otherwise only show as launch failures in the gateway's log.
// A relative path is left alone: it is resolved where moltgate serve runs.
func warnCommand(e *env, id string, argv []string) {
	if len(argv) == 0 {
		return
	}
	prog := argv[0]
	if !filepath.IsAbs(prog) && strings.ContainsRune(prog, filepath.Separator) {
		return
	}
	if _, err := exec.LookPath(prog); err != nil {
		cause := errors.Unwrap(err) // the exec.Error names prog already
		var pe *fs.PathError
		if errors.As(cause, &pe) {
			cause = pe.Err
		}
		fmt.Fprintf(e.stderr, "moltgate agent add: warning: the command of agent %s cannot be run from here (%s: %v); the gateway will not start it until it can\n", id, prog, cause)
	}
}

func runAgentRemove(e *env, args []string) error {
	fs := newFlags(e, "agent remove")
	dir := fs.String("dir", "", "gateway directory")
	id := fs.String("id", "", "agent id")
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
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	r, err := gateway.RevokeAgent(d, gateway.RevokeOptions{ID: *id, Reason: "removed", Remove: true, Passphrase: pass, Now: e.now()})
	if err != nil {
		return err
	}
	// An agent added again under this id starts without the old one's credential.
	if _, err := (&credential.Store{Dir: d.CredentialsDir()}).Revoke(r.Agent); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Removed agent %s and its key\n", r.Agent)
	if !r.OldKey.IsZero() {
		fmt.Fprintf(e.stdout, "Revoked its key %s (revocation list serial %d)\n", r.OldKey, r.Serial)
	}
	fmt.Fprintln(e.stdout, "A running gateway stops it and withdraws its directory entry within seconds (or at once on SIGHUP).")
	return nil
}
