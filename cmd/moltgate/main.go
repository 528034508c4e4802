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
//	moltgate peer export --dir DIR | peer import --dir DIR [--max-cls LEVEL] [--expect-fingerprint FP] < them.json
//	moltgate peer list --dir DIR [--json] | peer remove --dir DIR --org ORG
//	moltgate serve --dir DIR
//	moltgate key rotate --dir DIR [--overlap D] | tls rotate --dir DIR [--overlap D]
//	moltgate tls revoke --dir DIR --pin PIN | cert revoke --dir DIR (--digest sha256:… [--capability] | --cert FILE)
//	moltgate agent add --dir DIR --id AGENT --exec "CMD ARGS" [--capability C]... [--max-cls LEVEL] [--replace]
//	moltgate agent remove --dir DIR --id AGENT
//	moltgate agent revoke --dir DIR --id AGENT [--reason TEXT] | agent rotate --dir DIR --id AGENT
//	moltgate agent token --dir DIR --id AGENT [--ttl D] | agent token --dir DIR --id AGENT --revoke
//	moltgate register --dir DIR --agent ID --capability C... [--action create|update|renew|delete] [--registry ORG]
//	moltgate discover --dir DIR (--capability C... | --any C... | --id AGENT) [--org ORG] [--limit N] [--require JSON|@FILE|-] [--cursor C] [--json]
//	moltgate agents --dir DIR [--capability C] [--org ORG] [--json]
//	moltgate sync --dir DIR [--peer ORG] [--json]
//	moltgate call --dir DIR [--from AGENT] --to AGENT@ORG --tool NAME [--input JSON|@FILE|-] [--cls LEVEL] [--consent TOKEN] [--timeout D] [--jsonl]
//	moltgate call --dir DIR [--from AGENT] --to AGENT@ORG --message TEXT [--input JSON|@FILE|-] [--cls LEVEL] [--consent TOKEN] [--timeout D] [--jsonl]
//	moltgate ping --dir DIR AGENT@ORG
//	moltgate approvals --dir DIR [--json] [--watch] | approvals --dir DIR approve|deny ID
//	moltgate conformance init --dir TESTDIR [--org ORG] | conformance --dir TESTDIR --peer-doc FILE [--agent ID] [--json]
//	moltgate consent issue|verify|revoke (--dir DIR | --identity FILE) ...
//	moltgate consent request --dir DIR --to AGENT@ORG --types T,... --purpose P
//	moltgate pii scan [--jsonl | --json] < text
//	moltgate demo
//	moltgate bench [--duration 3s] [--concurrency 16] [--size 1024] [--transports websocket,grpc,http] [--runs N] [--json] [--doc FILE]
//
// A serving gateway takes up peer import, agent add (--replace changes an
// agent) and agent remove within seconds, and at once on SIGHUP: new
// agents are launched, changed ones updated or relaunched, removed ones
// stopped and withdrawn from the directory, without a restart. On SIGINT
// or SIGTERM it shuts down gracefully, first answering /readyz 503 for
// listen.drain_delay if a load balancer polls it; a second signal skips
// what is left of that delay.
//
// Each command's --help shows its synopsis and flags. Errors go to
// standard error as one line that starts with the command and the
// protocol error code; the exit status is 2 for a mistake on the command
// line, 130 or 143 for a command interrupted by SIGINT or SIGTERM, and 1
// otherwise.
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
	ctx, cancel := context.WithCancelCause(context.Background())
	again := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if s, ok := (<-sigs).(syscall.Signal); ok {
			cancel(&interruptedError{sig: s})
		}
		<-sigs
		close(again)
	}()
	code := run(ctx, &env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, now: time.Now, again: again, readSecret: terminalSecret(),
	}, os.Args[1:])
	signal.Stop(sigs)
	os.Exit(code)
}

// interruptedError is the cause of a command's context that a signal
// ended. A command that fails because of it exits as the shell reports a
// process the signal killed: 128 + the signal's number (130 for SIGINT,
// 143 for SIGTERM), so that a script can tell an interrupted command from
// a failed one.
type interruptedError struct{ sig syscall.Signal }

func (i *interruptedError) Error() string {
	switch i.sig {
	case syscall.SIGINT:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	}
	return i.sig.String()
}

func (i *interruptedError) exitCode() int { return 128 + int(i.sig) }

// env is what a command may touch of the outside world, so that tests can
// run commands in process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	// again is closed by a second SIGINT or SIGTERM, after the one that
	// ended the command's context: whoever sends it wants the command gone
	// sooner than it is winding down. nil: never.
	again <-chan struct{}
	// readSecret asks the person at the terminal for a secret, without
	// echo, after writing prompt to it. nil: standard input is not a
	// terminal, and nobody can be asked.
	readSecret func(prompt string) ([]byte, error)
}

type command struct {
	name string
	// synopses are the command's forms, one line each, without the
	// leading "moltgate ". A command with subcommands has one line per
	// subcommand, which starts with the command's name and the
	// subcommand's.
	synopses []string
	run      func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"version", []string{"version"}, runVersion},
		{"keygen", []string{"keygen --agent ID --org ORG --out FILE"}, runKeygen},
		{"sign", []string{"sign --identity FILE < msg.json"}, runSign},
		{"verify", []string{"verify [--key ed25519:…] < msg.json"}, runVerify},
		{"seal", []string{"seal --identity FILE --to x25519:… < msg.json"}, runSeal},
		{"open", []string{"open --identity FILE < envelope.json"}, runOpen},
		{"init", []string{"init --dir DIR --org ORG [--listen HOST:PORT]"}, runInit},
		{"peer", []string{
			"peer export --dir DIR > me.json",
			"peer import --dir DIR [--max-cls LEVEL] [--replace] [--expect-fingerprint FP] < them.json",
			"peer list --dir DIR [--json]",
			"peer remove --dir DIR --org ORG",
		}, runPeer},
		{"serve", []string{"serve --dir DIR"}, runServe},
		{"key", []string{"key rotate --dir DIR [--overlap D]"}, runKey},
		{"tls", []string{
			"tls rotate --dir DIR [--overlap D]",
			"tls revoke --dir DIR --pin PIN [--reason TEXT]",
		}, runTLS},
		{"cert", []string{"cert revoke --dir DIR (--digest sha256:… [--capability] | --cert FILE) [--reason TEXT]"}, runCert},
		{"agent", []string{
			"agent add --dir DIR --id AGENT --exec \"CMD ARGS\" [--capability C]... [--max-cls LEVEL] [--replace]",
			"agent remove --dir DIR --id AGENT",
			"agent revoke --dir DIR --id AGENT [--reason TEXT]",
			"agent rotate --dir DIR --id AGENT",
			"agent token --dir DIR --id AGENT [--ttl D] | agent token --dir DIR --id AGENT --revoke",
		}, runAgent},
		{"register", []string{"register --dir DIR --agent ID --capability C... [--action create|update|renew|delete] [--registry ORG] [--json]"}, runRegister},
		{"discover", []string{"discover --dir DIR (--capability C... | --any C... | --id AGENT) [--org ORG] [--limit N] [--require JSON|@FILE|-] [--cursor C] [--json]"}, runDiscover},
		{"agents", []string{"agents --dir DIR [--capability C] [--org ORG] [--json]"}, runAgents},
		{"sync", []string{"sync --dir DIR [--peer ORG] [--json]"}, runSync},
		{"demo", []string{"demo"}, runDemo},
		{"bench", []string{"bench [--duration 3s] [--concurrency 16] [--size 1024] [--transports websocket,grpc,http] [--runs N] [--json] [--doc FILE]"}, runBench},
		{"pii", []string{"pii scan [--jsonl | --json] < text"}, runPII},
		{"consent", []string{
			"consent issue (--dir DIR | --identity FILE) --grantee AGENT@ORG --purpose P --types T,... [--ttl D] [--granted-by WHO] [--one-time] [--no-storage] [--no-forward]",
			"consent verify [--dir DIR | --identity FILE | --trust ORG=KEY...] [--grantee AGENT@ORG] [--purpose P] [--types T,...] [--token TOKEN]",
			"consent revoke (--dir DIR | --revocations FILE) [--token TOKEN]",
			"consent request --dir DIR --to AGENT@ORG --types T,... --purpose P [--from AGENT] [--human WHO] [--duration D] [--timeout D]",
		}, runConsent},
		{"call", []string{
			"call --dir DIR [--from AGENT] --to AGENT@ORG --tool NAME [--input JSON|@FILE|-] [--cls LEVEL] [--consent TOKEN] [--timeout D] [--jsonl]",
			"call --dir DIR [--from AGENT] --to AGENT@ORG --message TEXT [--input JSON|@FILE|-] [--cls LEVEL] [--consent TOKEN] [--timeout D] [--jsonl]",
		}, runCall},
		{"ping", []string{"ping --dir DIR AGENT@ORG"}, runPing},
		{"audit", []string{
			"audit verify --dir DIR",
			"audit show --dir DIR [--since D] [--peer ORG] [--json]",
		}, runAudit},
		{"receipt", []string{"receipt verify --peer-doc FILE... < receipt.json"}, runReceipt},
		{"approvals", []string{
			"approvals --dir DIR [--json] [--watch]",
			"approvals --dir DIR approve|deny ID",
		}, runApprovals},
		{"conformance", []string{
			"conformance init --dir TESTDIR [--org ORG] [--endpoint URL] [--grpc HOST:PORT] [--tls-pin PIN]",
			"conformance --dir TESTDIR --peer-doc FILE|- [--agent ID] [--tool NAME] [--max-cls LEVEL] [--only PREFIX,...] [--known-failures CASE,...] [--list] [--json]",
		}, runConformance},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: moltgate <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		for _, s := range c.synopses {
			fmt.Fprintln(w, "  moltgate "+s)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "moltgate <command> --help tells more of one.")
}

// synopses returns the forms of the command or subcommand name ("call",
// "consent issue").
func synopses(name string) []string {
	cmd, _, _ := strings.Cut(name, " ")
	var out []string
	for _, c := range commands() {
		if c.name != cmd {
			continue
		}
		for _, s := range c.synopses {
			if s == name || strings.HasPrefix(s, name+" ") {
				out = append(out, s)
			}
		}
	}
	return out
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
		name := c.name
		var ne *namedError
		if errors.As(err, &ne) {
			name = ne.name
		}
		fmt.Fprintln(e.stderr, "moltgate "+name+": "+describe(err))
		var ue usageError
		var ie *interruptedError
		switch {
		case errors.As(err, &ue):
			return 2
		case errors.As(context.Cause(ctx), &ie):
			return ie.exitCode()
		}
		return 1
	}
	fmt.Fprintf(e.stderr, "moltgate: E_INVALID_PARAM: unknown command %q (run moltgate help)\n", args[0])
	return 2
}

// namedError is the failure of a subcommand, whose line of error names it
// ("moltgate consent issue: ...").
type namedError struct {
	name string
	err  error
}

func (n *namedError) Error() string { return n.err.Error() }

func (n *namedError) Unwrap() error { return n.err }

// describe renders err as one line that starts with an error code.
func describe(err error) string {
	var we *wire.Error
	if errors.As(err, &we) {
		line := we.Error()
		if we.Suggestion != nil {
			line += " (suggestion: " + we.Suggestion.String() + ")"
		}
		var h *hinted
		if errors.As(err, &h) {
			line += "; " + h.hint
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

// flagSet is a command's flags. A mistake in them is one line of error,
// as every other failure is, rather than the flag package's message and
// list of flags; --help shows the command's synopsis and flags on
// standard output.
type flagSet struct {
	*flag.FlagSet
	e    *env
	name string
}

// newFlags makes the flag set of the command or subcommand name; every
// command parses its flags with it, through parseFlags or parseWithArgs.
func newFlags(e *env, name string) *flagSet {
	fs := flag.NewFlagSet("moltgate "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, e: e, name: name}
}

// parse parses args and turns the flag package's errors into usage
// errors, after showing the help that -h or --help asks for.
func (fs *flagSet) parse(args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.help(fs.e.stdout)
		return err
	}
	return usagef("%v (see moltgate %s --help)", err, fs.name)
}

// help writes the command's synopsis and its flags.
func (fs *flagSet) help(w io.Writer) {
	lines := synopses(fs.name)
	if len(lines) == 0 {
		lines = []string{fs.name + " [flags]"}
	}
	printSynopses(w, lines)
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nflags:")
			first = false
		}
		kind, text := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if kind != "" {
			head += " " + kind
		}
		switch f.DefValue {
		case "", "0", "0s", "false":
		default:
			text += " (default " + f.DefValue + ")"
		}
		fmt.Fprintln(w, head)
		fmt.Fprintln(w, "      "+strings.ReplaceAll(text, "\n", "\n      "))
	})
}

func printSynopses(w io.Writer, lines []string) {
	for i, s := range lines {
		lead := "       moltgate "
		if i == 0 {
			lead = "usage: moltgate "
		}
		fmt.Fprintln(w, lead+s)
	}
}

func parseFlags(fs *flagSet, args []string) error {
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see moltgate %s --help)", fs.Arg(0), fs.name)
	}
	return nil
}

// isHelp reports whether arg asks for help rather than naming a subcommand.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// subcommand is one subcommand of a command.
type subcommand struct {
	name string
	run  func(args []string) error
}

// runSubcommand runs the subcommand of cmd that args name: with no
// subcommand or an unknown one it is a usage error, and with -h or --help
// it shows the synopses of them all. named says whether the subcommand's
// line of error names it; those whose errors already say it do not.
func runSubcommand(e *env, cmd string, args []string, named bool, subs ...subcommand) error {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	want := strings.Join(names, ", ")
	switch {
	case len(args) == 0:
		return usagef("%s needs a subcommand: %s (see moltgate %s --help)", cmd, want, cmd)
	case isHelp(args[0]):
		printSynopses(e.stdout, synopses(cmd))
		fmt.Fprintf(e.stdout, "\nmoltgate %s SUBCOMMAND --help tells more of one.\n", cmd)
		return flag.ErrHelp
	}
	for _, s := range subs {
		if s.name != args[0] {
			continue
		}
		err := s.run(args[1:])
		if err != nil && named {
			err = &namedError{name: cmd + " " + s.name, err: err}
		}
		return err
	}
	return usagef("unknown %s subcommand %q (want %s; see moltgate %s --help)", cmd, args[0], want, cmd)
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
