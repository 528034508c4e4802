package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

func runApprovals(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "approvals")
	dir := fs.String("dir", "", "gateway directory")
	asJSON := fs.Bool("json", false, "list as JSON, one request per line")
	watch := fs.Bool("watch", false, "after listing, show requests and decisions as they come, until interrupted")
	rest, err := parseWithArgs(fs, args)
	if err != nil {
		return err
	}
	var decide string
	var id string
	switch {
	case len(rest) == 0:
	case len(rest) == 2 && (rest[0] == "approve" || rest[0] == "deny"):
		decide, id = rest[0], rest[1]
		if *watch || *asJSON {
			return usagef("--watch and --json list requests; they do not go with %s", decide)
		}
	default:
		return usagef("usage: moltgate approvals --dir DIR [--json] [--watch] | approve ID | deny ID")
	}

	var opts localbridge.ClientOptions
	notices := make(chan localbridge.ApprovalNotice, 64)
	if *watch {
		opts.OnApproval = func(n localbridge.ApprovalNotice) {
			select {
			case notices <- n:
			default: // a terminal that cannot keep up misses notices, not the gateway
			}
		}
	}
	c, err := dialGateway(ctx, *dir, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	if decide != "" {
		if err := c.Approve(rctx, id, decide == "approve"); err != nil {
			return rpcFailure(err)
		}
		verb := map[string]string{"approve": "Approved", "deny": "Denied"}[decide]
		fmt.Fprintf(e.stdout, "%s %s\n", verb, id)
		return nil
	}

	pending, err := c.Approvals(rctx)
	if err != nil {
		return rpcFailure(err)
	}
	seen := map[string]bool{}
	now := e.now()
	if !*asJSON && !*watch && len(pending) == 0 {
		fmt.Fprintln(e.stdout, "No calls are waiting for approval.")
	}
	for _, p := range pending {
		seen[p.ExecutionID] = true
		if err := showApproval(e, *dir, p, *asJSON, now); err != nil {
			return err
		}
	}
	if !*watch {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case n := <-notices:
			switch {
			case n.Request != nil && !seen[n.Request.ExecutionID]:
				seen[n.Request.ExecutionID] = true
				if err := showApproval(e, *dir, *n.Request, *asJSON, e.now()); err != nil {
					return err
				}
			case n.Resolved != nil:
				delete(seen, n.Resolved.ExecutionID)
				if *asJSON {
					if err := printLine(e, n.Resolved); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(e.stdout, "%s %s\n", n.Resolved.ExecutionID, n.Resolved.Status)
				}
			}
		}
	}
}

// showApproval prints one held call: as a line of JSON, or as a short
// paragraph for a person to decide on.
func showApproval(e *env, dir string, p localbridge.ApprovalInfo, asJSON bool, now time.Time) error {
	if asJSON {
		return printLine(e, p)
	}
	w := e.stdout
	caller := "local"
	if p.Caller != nil {
		caller = p.Caller.ID
	}
	left := p.ExpiresAt.Sub(now).Round(time.Second)
	fmt.Fprintf(w, "%s  %s/%s  risk %s  from %s  expires in %s\n", p.ExecutionID, p.Agent, p.Tool.Name, p.Risk.Level, caller, max(left, 0))
	if p.Classification != "" {
		fmt.Fprintf(w, "    class      %s\n", p.Classification)
	}
	fmt.Fprintf(w, "    arguments  %s\n", compactJSON(p.Arguments))
	for _, r := range p.Risk.Reasons {
		fmt.Fprintf(w, "    because    %s\n", r)
	}
	fmt.Fprintf(w, "    answer     moltgate approvals --dir %s approve|deny %s\n", dir, p.ExecutionID)
	return nil
}

func compactJSON(b json.RawMessage) string {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}
