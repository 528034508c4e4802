package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/moltgate/moltgate/conformance"
	"github.com/moltgate/moltgate/wire"
)

// runConformance runs the conformance suite against a gateway, or with
// init makes the test organisation it runs as.
func runConformance(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "init" {
		return runConformanceInit(e, args[1:])
	}
	fs := newFlags(e, "conformance")
	dir := fs.String("dir", "", "the test organisation's directory, made by moltgate conformance init")
	docPath := fs.String("peer-doc", "", "the gateway's peer document (moltgate peer export), or - for standard input")
	agent := fs.String("agent", "echo", "an agent of the gateway that the test organisation may call")
	tool := fs.String("tool", "echo", "a tool of that agent that takes {\"text\": string} and succeeds")
	maxCls := fs.String("max-cls", "int", "the ceiling the gateway imported the test organisation with")
	only := fs.String("only", "", "run only the cases whose names start with one of these comma-separated prefixes")
	known := fs.String("known-failures", "", "comma-separated cases expected to fail: reported as XFAIL, and as a failure (XPASS) once they pass")
	list := fs.Bool("list", false, "print the names of the cases and exit")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *list {
		for _, n := range conformance.Names() {
			fmt.Fprintln(e.stdout, n)
		}
		return nil
	}
	if *dir == "" || *docPath == "" {
		return usagef("--dir and --peer-doc are required (see moltgate conformance --help)")
	}
	cls, ok := wire.ParseClass(*maxCls)
	if !ok {
		return usagef("--max-cls: %q is not one of pub, int, conf, pii, sec", *maxCls)
	}
	var doc []byte
	var err error
	if *docPath == "-" {
		doc, err = io.ReadAll(io.LimitReader(e.stdin, 64<<10))
	} else {
		doc, err = os.ReadFile(*docPath)
	}
	if err != nil {
		return wire.Errorf(wire.ErrInvalidParam, "peer-doc", "%v", err)
	}
	rep, err := conformance.Run(ctx, conformance.Config{Dir: *dir, PeerDoc: doc, Agent: *agent, Tool: *tool, MaxCls: cls,
		Only: splitList(*only), KnownFailures: splitList(*known)})
	if err != nil {
		return err
	}
	if *asJSON {
		err = rep.WriteJSON(e.stdout)
	} else {
		err = rep.WriteText(e.stdout)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		return wire.Errorf(wire.ErrTaskFailed, "", "%d of %d cases failed against %s", rep.Failed, len(rep.Results), rep.Target)
	}
	return nil
}

func runConformanceInit(e *env, args []string) error {
	fs := newFlags(e, "conformance init")
	dir := fs.String("dir", "", "a new directory for the test organisation")
	org := fs.String("org", "conformance", "the test organisation's name")
	endpoint := fs.String("endpoint", "", "the endpoint its peer document gives (default http://127.0.0.1:9; it serves nothing)")
	grpcAddr := fs.String("grpc", "", "the gRPC address its peer document gives (default 127.0.0.1:9)")
	pin := fs.String("tls-pin", "", "the TLS pin that goes with an https --endpoint")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--dir is required (see moltgate conformance init --help)")
	}
	if _, err := conformance.Init(*dir, conformance.InitOptions{Org: *org, Endpoint: *endpoint, GRPC: *grpcAddr,
		TLSPin: *pin, Now: e.now}); err != nil {
		return err
	}
	doc := filepath.Join(*dir, "peer.json")
	fmt.Fprintf(e.stdout, "Made the test organisation %s in %s. On the gateway under test, trust it and know an agent to call:\n", *org, *dir)
	fmt.Fprintf(e.stdout, "  moltgate peer import --dir GATEWAY_DIR < %s\n", doc)
	fmt.Fprintf(e.stdout, "Then, with that gateway's peer document:\n")
	fmt.Fprintf(e.stdout, "  moltgate conformance --dir %s --peer-doc gateway.json [--agent echo] [--tool echo]\n", *dir)
	return nil
}

func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
