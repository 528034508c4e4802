package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
	"github.com/moltgate/moltgate/wire"
)

// The commands in this file are thin clients of a running gateway's JSON-RPC
// socket (DIR/run/rpc.sock): they hold no keys and do no protocol work.

// dialGateway connects to the JSON-RPC face of the gateway in dir.
func dialGateway(ctx context.Context, dir string, opts localbridge.ClientOptions) (*localbridge.Client, error) {
	return dialGatewayAs(ctx, dir, opts, wire.ErrPeerUnavailable)
}

// dialGatewayAs is dialGateway whose failure, when no gateway runs in dir,
// has the code down: the directory commands say the registry is
// unavailable.
func dialGatewayAs(ctx context.Context, dir string, opts localbridge.ClientOptions, down wire.Code) (*localbridge.Client, error) {
	d, err := requireDir(dir)
	if err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name, opts.Version = "moltgate", Version
	}
	start := fmt.Sprintf("(start it with moltgate serve --dir %s)", dir)
	sock := d.RPCSocket()
	if _, err := os.Stat(sock); err != nil {
		if err := notAGateway(d); err != nil {
			return nil, err
		}
		return nil, wire.Errorf(down, "", "no gateway is running in %s %s", dir, start)
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := localbridge.Dial(dctx, sock, opts)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		// A gateway that crashed leaves its socket behind.
		return nil, wire.Errorf(down, "", "no gateway answers in %s; its socket is left from one that stopped %s", dir, start)
	case err != nil:
		return nil, wire.Errorf(down, "", "cannot reach the gateway in %s: %v", dir, rpcFailure(err))
	}
	return c, nil
}

// notAGateway reports a directory that holds no gateway: most likely a
// typo in --dir, the caller's to fix, rather than a gateway to start.
func notAGateway(d gateway.Dir) error {
	if _, err := os.Stat(d.ConfigPath()); err != nil {
		return wire.Errorf(wire.ErrInvalidParam, "dir", "%s is not a gateway directory (make one with moltgate init --dir %s --org ORG)", string(d), string(d))
	}
	return nil
}

// rpcFailure turns an error of the JSON-RPC face into the protocol error it
// stands for, so that the command's one line of error starts with its code.
func rpcFailure(err error) error {
	var re *localbridge.RPCError
	if errors.As(err, &re) {
		c := wire.Code(re.MoltSpeakCode)
		if !c.Known() {
			c = codeOfRPC(re.Code)
		}
		we := &wire.Error{Code: c, Field: re.Field, Message: re.Message}
		if len(re.Suggestion) > 0 {
			var sg wire.Suggestion
			if json.Unmarshal(re.Suggestion, &sg) == nil && sg.Action != "" {
				we.Suggestion = &sg
			}
		}
		return we
	}
	var lost *jsonrpc.LostError
	switch {
	case errors.As(err, &lost):
		return wire.Errorf(wire.ErrPeerUnavailable, "", "the gateway ended the connection during the call")
	case errors.Is(err, context.DeadlineExceeded):
		return wire.Errorf(wire.ErrTimeout, "", "no answer before the deadline")
	case errors.Is(err, context.Canceled):
		// Only the command's own context ends that way: it was interrupted.
		return wire.Errorf(wire.ErrTaskFailed, "", "the request was cancelled")
	}
	return err
}

// codeOfRPC is the protocol code of a JSON-RPC error that names none.
func codeOfRPC(rpcCode int) wire.Code {
	switch rpcCode {
	case jsonrpc.CodeParseError:
		return wire.ErrParse
	case jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams:
		return wire.ErrInvalidParam
	case jsonrpc.CodeTimeout:
		return wire.ErrTimeout
	case jsonrpc.CodePermissionDenied:
		return wire.ErrCapability
	case jsonrpc.CodeInternalError:
		return wire.ErrInternal
	}
	return wire.ErrTaskFailed
}

// callerOf returns the local agent a call goes out as: from, with the
// organisation left out when it names this gateway's own (org). Left out,
// the gateway takes its only agent; with several, the caller must choose,
// and is told which there are.
func callerOf(d gateway.Dir, org, from string) (string, error) {
	if agent, o, ok := strings.Cut(from, "@"); ok {
		if o != org {
			return "", usagef("--from names a local agent of %s; %s is not one", org, from)
		}
		return agent, nil
	}
	if from != "" {
		return from, nil
	}
	// The records on disk are what the gateway runs within seconds of a
	// change; if they cannot be read, the gateway decides.
	agents, err := gateway.LoadAgents(d)
	if err != nil || len(agents) < 2 {
		return "", nil
	}
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = a.ID
	}
	return "", usagef("name the agent to call as with --from: this gateway has %s", strings.Join(ids, ", "))
}

// hinted is a failure together with what to do about it on this command
// line, for an error from the gateway that speaks of the protocol rather
// than of the command's flags.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + "; " + h.hint }

func (h *hinted) Unwrap() error { return h.err }

// answerMargin is how long the command line waits past a deadline that
// the gateway keeps, for the gateway's answer that the deadline passed.
const answerMargin = 5 * time.Second

// maxArgDepth bounds the nesting of a JSON object given on the command
// line (call's --input, discover's --require): it goes two levels down in
// its JSON-RPC request (the request, its params) and in the message the
// gateway makes of it (the message, its payload), and both bound the
// whole.
const maxArgDepth = min(jsonrpc.MaxDepth, wire.MaxDepth) - 2

// maxArgBytes bounds a JSON argument read from a file or standard input:
// the JSON-RPC face takes no longer a line.
const maxArgBytes = jsonrpc.DefaultMaxMessageBytes

// readJSONArg returns the JSON object that the flag name gives: the text
// of arg itself, the content of the file @FILE names, or standard input
// for "-". It holds the object to what the gateway takes, so that a
// mistake is the caller's to fix here, not a refusal from the gateway.
func readJSONArg(e *env, name, arg string) (json.RawMessage, error) {
	in := []byte(arg)
	switch {
	case arg == "-":
		b, err := readInput(e, maxArgBytes)
		if err != nil {
			return nil, err
		}
		in = b
	case strings.HasPrefix(arg, "@"):
		f, err := os.Open(arg[1:])
		if err != nil {
			return nil, usagef("%s: %v", name, err)
		}
		defer f.Close()
		b, err := readLimited(f, arg[1:], maxArgBytes)
		if err != nil {
			return nil, err
		}
		in = b
	}
	v, err := wire.Parse(in, maxArgDepth)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			detail := we.Message
			// A path as long as a deep nesting says less than the byte offset.
			if we.Field != "" && len(we.Field) <= 64 {
				detail = we.Field + ": " + detail
			}
			return nil, usagef("%s must be a JSON object: %s", name, detail)
		}
		return nil, usagef("%s must be a JSON object: %v", name, err)
	}
	if v.Kind() != wire.Object {
		return nil, usagef("%s must be a JSON object", name)
	}
	return json.RawMessage(bytes.TrimSpace(in)), nil
}

// callResult is the line moltgate call ends with: the respond payload.
// The stream's chunks came before it, as they arrived.
type callResult struct {
	Status string          `json:"status"`
	Data   json.RawMessage `json:"data"`
}

// callEvent is a line of moltgate call --jsonl: a chunk of the stream as
// it arrives, then one result or error line.
type callEvent struct {
	Type    string          `json:"type"` // chunk, result or error
	Channel string          `json:"channel,omitempty"`
	Text    *string         `json:"text,omitempty"`  // a text chunk, "" included
	Block   json.RawMessage `json:"block,omitempty"` // a structured chunk
	Status  string          `json:"status,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	Code    wire.Code       `json:"code,omitempty"`
	Field   string          `json:"field,omitempty"`
	Message string          `json:"message,omitempty"`
}

// streamPrinter writes a call's chunks as they arrive: as JSON lines, or
// as raw text, the stdout and partial_result channels' on standard output
// and the notes of the others (stderr, log, status) on standard error.
type streamPrinter struct {
	e     *env
	jsonl bool
	// open holds the writers whose last byte is not a newline, so that
	// the final line, or the error, starts a line of its own.
	open map[io.Writer]bool
}

func (p *streamPrinter) chunk(ev localbridge.StreamEvent) error {
	ch := ev.Channel
	if ch == "" {
		ch = "stdout"
	}
	if p.jsonl {
		out := callEvent{Type: "chunk", Channel: ch, Block: ev.Block}
		if len(ev.Block) == 0 {
			out.Text = &ev.Text
		}
		return printLine(p.e, out)
	}
	w := p.e.stdout
	if ch != "stdout" && ch != "partial_result" {
		w = p.e.stderr
	}
	text := ev.Text
	if len(ev.Block) > 0 {
		// A structured chunk is a line of JSON of its own.
		p.endLine(w)
		text = compactJSON(ev.Block) + "\n"
	}
	if text == "" {
		return nil
	}
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	p.open[w] = !strings.HasSuffix(text, "\n")
	return nil
}

// endLine ends the line the stream left open on w.
func (p *streamPrinter) endLine(w io.Writer) {
	if p.open[w] {
		io.WriteString(w, "\n")
		p.open[w] = false
	}
}

// end ends the lines left open, and with --jsonl prints err as the last
// line; it returns err.
func (p *streamPrinter) end(err error) error {
	p.endLine(p.e.stdout)
	p.endLine(p.e.stderr)
	if p.jsonl && err != nil {
		ev := callEvent{Type: "error", Code: wire.ErrTaskFailed, Message: err.Error()}
		var we *wire.Error
		if errors.As(err, &we) {
			ev.Code, ev.Field, ev.Message = we.Code, we.Field, we.Message
		}
		var h *hinted
		if errors.As(err, &h) {
			ev.Message += "; " + h.hint
		}
		printLine(p.e, ev)
	}
	return err
}

func runCall(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "call")
	dir := fs.String("dir", "", "gateway directory")
	from := fs.String("from", "", "local agent to call as, AGENT or AGENT@ORG of this gateway's organisation (default: the gateway's only agent)")
	to := fs.String("to", "", "agent to call, as agent@org (or agent, for one of this organisation's)")
	tool := fs.String("tool", "", "tool to invoke (required, unless --message sends a query instead)")
	input := fs.String("input", "", "the tool's input or the query's parameters: a JSON object, @FILE to read it from FILE, or - to read it from standard input (default {})")
	message := fs.String("message", "", "free text of a query to the agent's query tool, instead of a tool call (--tool)")
	cls := fs.String("cls", "", "classification of the request: pub, int, conf, pii or sec (default int; pii needs --consent)")
	consentTok := fs.String("consent", "", "consent token covering personal data in the input, as moltgate consent issue makes (implies --cls pii unless higher)")
	jsonl := fs.Bool("jsonl", false, "print each event as a line of JSON as it arrives: the stream's chunks, then the result or the error; "+
		"without it, text chunks are printed as they arrive (stdout and partial_result on standard output, stderr, log and status on standard error), then the result")
	timeout := fs.Duration("timeout", 0, "deadline of the call (default: the gateway's listen.request_timeout, 30s unless configured); "+
		"a peer also ends the call at its own request timeout (30s by default), so a longer --timeout is cut to that for an agent of another organisation")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	toolGiven := false
	fs.Visit(func(f *flag.Flag) { toolGiven = toolGiven || f.Name == "tool" })
	switch {
	case *to == "":
		return usagef("--to is required")
	case toolGiven && *tool == "":
		return usagef("--tool must name a tool")
	case *tool == "" && *message == "":
		return usagef("--tool is required (or --message TEXT, for a query to the agent's query tool)")
	case *tool != "" && *message != "":
		return usagef("--message is the text of a query and does not go with --tool; give the tool's input with --input")
	case *timeout < 0:
		return usagef("--timeout must not be negative")
	}
	if *cls != "" {
		c, ok := wire.ParseClass(*cls)
		switch {
		case !ok:
			return usagef("--cls must be pub, int, conf, pii or sec")
		case c == wire.PII && *consentTok == "":
			return usagef("--cls pii needs --consent TOKEN, a consent for the personal data (make one with moltgate consent issue)")
		}
	}
	req := localbridge.QueryRequest{To: *to, From: *from, Tool: *tool, Message: *message, Class: *cls, Consent: *consentTok}
	if *input != "" {
		in, err := readJSONArg(e, "--input", *input)
		if err != nil {
			return err
		}
		req.Input = in
	} else if *tool != "" || *message == "" {
		req.Input = json.RawMessage(`{}`)
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if err := notAGateway(d); err != nil {
		return err
	}
	cfg, err := gateway.LoadConfig(d.ConfigPath())
	if err != nil {
		return err
	}
	if req.From, err = callerOf(d, cfg.Org, *from); err != nil {
		return err
	}
	// The gateway ends the call at its deadline and says so; the command
	// waits that long and a margin for the answer, and no longer, so that
	// an answer that never comes cannot hold it forever.
	wait := cfg.Listen.RequestTimeout.D()
	if *timeout > 0 {
		req.TimeoutMS = max(timeout.Milliseconds(), 1)
		wait = *timeout
	}
	ctx, cancel := context.WithTimeout(ctx, wait+answerMargin)
	defer cancel()
	c, err := dialGateway(ctx, *dir, localbridge.ClientOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	p := &streamPrinter{e: e, jsonl: *jsonl, open: map[io.Writer]bool{}}
	out, err := c.Query(ctx, req, p.chunk)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// The client told the gateway to cancel the call on its way out.
			return p.end(wire.Errorf(wire.ErrTaskFailed, "", "the call was cancelled, %v; the gateway was told to stop it", context.Cause(ctx)))
		}
		err = rpcFailure(err)
		var we *wire.Error
		if errors.As(err, &we) && we.Code == wire.ErrConsent && *consentTok == "" {
			// The gateway's refusal names pii_meta, which this command fills from --consent.
			types := ""
			if we.Suggestion != nil && len(we.Suggestion.DataTypes) > 0 {
				types = " --types " + strings.Join(we.Suggestion.DataTypes, ",")
			}
			err = &hinted{err, "give --consent TOKEN (make one with moltgate consent issue" + types + ")"}
		}
		return p.end(err)
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	p.end(nil)
	if *jsonl {
		return printLine(e, callEvent{Type: "result", Status: "success", Data: out})
	}
	return printLine(e, callResult{Status: "success", Data: out})
}

// printLine writes v as one line of JSON.
func printLine(e *env, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := e.stdout.Write(b.Bytes())
	return err
}

func runPing(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "ping")
	dir := fs.String("dir", "", "gateway directory")
	agent := fs.String("agent", "", "agent to ping, as agent@org (or agent, for one of this organisation's), if not given as the argument AGENT@ORG")
	rest, err := parseWithArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 1:
		return usagef("unexpected argument %q", rest[1])
	case len(rest) == 1 && *agent != "":
		return usagef("name the agent once: as an argument or with --agent")
	case len(rest) == 1:
		*agent = rest[0]
	case *agent == "":
		return usagef("name the agent to ping: moltgate ping --dir DIR AGENT@ORG")
	}
	c, err := dialGateway(ctx, *dir, localbridge.ClientOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pong, err := c.Ping(pctx, *agent)
	if err != nil {
		return rpcFailure(err)
	}
	if err := printLine(e, pong); err != nil {
		return err
	}
	var p struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(pong, &p) != nil || !takesCalls(p.Status) {
		return wire.Errorf(wire.ErrPeerUnavailable, "", "agent %s is %s", *agent, orDefault(p.Status, "not answering"))
	}
	return nil
}

// takesCalls reports whether an agent whose pong says status is up: the
// statuses the directory counts as up. A degraded agent still gets calls;
// an unhealthy, busy or offline one does not.
func takesCalls(status string) bool {
	switch status {
	case "alive", "healthy", "degraded":
		return true
	}
	return false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// parseWithArgs parses flags that may come before or after positional
// arguments, and returns the positional ones.
func parseWithArgs(fs *flagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
