// Command moltgate is the moltgate gateway and its tools: keys, signing,
// sealing, setting up and running a gateway, the directory, calls to remote
// agents, consent tokens, a narrated demo and an end-to-end benchmark.
//
// Usage:
//
//	moltgate version
//	moltgate keygen --agent ID --org ORG --out FILE
//	moltgate sign --identity FILE < msg.json
//	moltgate verify [--key ed25519:…] < msg.json
//	moltgate seal --identity FILE --to x25519:… < msg.json
//	moltgate open --identity FILE < envelope.json
//	moltgate init --dir DIR --org ORG [--listen HOST:PORT]
//	moltgate peer export --dir DIR | peer import --dir DIR [--max-cls LEVEL] < them.json
//	moltgate serve --dir DIR
//	moltgate agent add --dir DIR --id AGENT --exec "CMD ARGS" [--capability C]... [--max-cls LEVEL] [--replace]
//	moltgate agent remove --dir DIR --id AGENT
//	moltgate register --dir DIR --agent ID --capability C... [--action create|update|renew|delete] [--registry ORG]
//	moltgate discover --dir DIR --capability C [--org ORG] [--limit N] [--json]
//	moltgate agents --dir DIR [--capability C] [--org ORG] [--json]
//	moltgate sync --dir DIR [--peer ORG] [--json]
//	moltgate call --dir DIR [--from AGENT] --to AGENT@ORG --tool NAME --input JSON [--consent TOKEN]
//	moltgate ping --dir DIR AGENT@ORG
//	moltgate approvals --dir DIR [--json] [--watch] | approvals --dir DIR approve|deny ID
//	moltgate consent issue|verify|revoke (--dir DIR | --identity FILE) ...
//	moltgate consent request --dir DIR --to AGENT@ORG --types T,... --purpose P
//	moltgate pii scan [--jsonl] < text
//	moltgate demo
//	moltgate bench [--duration 3s] [--concurrency 16] [--size 1024] [--transports websocket,grpc,http] [--runs N] [--json] [--doc FILE]
//
// A serving gateway takes up peer import, agent add (--replace changes an
// agent) and agent remove within seconds, and at once on SIGHUP: new
// agents are launched, changed ones updated or relaunched, removed ones
// stopped and withdrawn from the directory, without a restart.
//
// Errors go to standard error as one line that starts with the protocol
// error code, and the exit status is non-zero.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, now: time.Now,
	}, os.Args[1:])
	stop()
	os.Exit(code)
}

// env is what a command may touch of the outside world, so that tests can
// run commands in process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
}

type command struct {
	name  string
	usage string
	run   func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"version", "version", runVersion},
		{"keygen", "keygen --agent ID --org ORG --out FILE", runKeygen},
		{"sign", "sign --identity FILE < msg.json", runSign},
		{"verify", "verify [--key ed25519:…] < msg.json", runVerify},
		{"seal", "seal --identity FILE --to x25519:… < msg.json", runSeal},
		{"open", "open --identity FILE < envelope.json", runOpen},
		{"init", "init --dir DIR --org ORG [--listen HOST:PORT]", runInit},
		{"peer", "peer export --dir DIR | peer import --dir DIR [--max-cls LEVEL] < them.json", runPeer},
		{"serve", "serve --dir DIR", runServe},
		{"agent", "agent add --dir DIR --id AGENT --exec \"CMD ARGS\" [--capability C]... [--max-cls LEVEL] [--replace] | agent remove --dir DIR --id AGENT", runAgent},
		{"register", "register --dir DIR --agent ID --capability C... [--action create|update|renew|delete] [--registry ORG] [--json]", runRegister},
		{"discover", "discover --dir DIR --capability C [--org ORG] [--limit N] [--json]", runDiscover},
		{"agents", "agents --dir DIR [--capability C] [--org ORG] [--json]", runAgents},
		{"sync", "sync --dir DIR [--peer ORG] [--json]", runSync},
		{"demo", "demo", runDemo},
		{"bench", "bench [--duration 3s] [--concurrency 16] [--size 1024] [--transports websocket,grpc,http] [--runs N] [--json] [--doc FILE]", runBench},
		{"pii", "pii scan [--jsonl] < text", runPII},
		{"consent", "consent issue|verify|revoke (--dir DIR | --identity FILE) ... | consent request --dir DIR --to AGENT@ORG ...", runConsent},
		{"call", "call --dir DIR [--from AGENT] --to AGENT@ORG --tool NAME --input JSON [--cls LEVEL] [--consent TOKEN] [--timeout D]", runCall},
		{"ping", "ping --dir DIR AGENT@ORG", runPing},
		{"approvals", "approvals --dir DIR [--json] [--watch] | approvals --dir DIR approve|deny ID", runApprovals},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: moltgate <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintln(w, "  moltgate "+c.usage)
	}
}

func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		if err == nil {
			return 0
		}
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(e.stderr, "moltgate "+c.name+": "+describe(err))
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(e.stderr, "moltgate: E_INVALID_PARAM: unknown command %q (run moltgate help)\n", args[0])
	return 2
}

// describe renders err as one line that starts with an error code.
func describe(err error) string {
	var we *wire.Error
	if errors.As(err, &we) {
		line := we.Error()
		if we.Suggestion != nil {
			line += " (suggestion: " + we.Suggestion.String() + ")"
		}
		return oneLine.Replace(line)
	}
	code := wire.ErrInternal
	var ue usageError
	var ce *gateway.ConfigError
	var oe *gateway.OptionError
	var mm *keys.MismatchError
	var ee *keys.EnvError
	switch {
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &oe), errors.As(err, &ee),
		errors.Is(err, gateway.ErrNotInitialised):
		code = wire.ErrInvalidParam
	case errors.As(err, &mm):
		code = wire.ErrAuthFailed
	case errors.Is(err, keys.ErrPermissions), errors.Is(err, keys.ErrPassphrase):
		code = wire.ErrAuthFailed
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrExist), errors.Is(err, fs.ErrPermission):
		code = wire.ErrInvalidParam
	}
	return string(code) + ": " + oneLine.Replace(err.Error())
}

// oneLine keeps an error on its line: some drivers indent the causes they
// list on lines of their own.
var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// newFlags makes a flag set whose errors come back as usage errors.
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("moltgate "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "version")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "moltgate %s (MoltSpeak %s)\n", Version, wire.Version)
	return nil
}

// Version is the release of this binary.
const Version = "0.1.0"
