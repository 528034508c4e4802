package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// The directory commands: register an agent with a registry, discover
// agents by capability, and list this gateway's own directory. discover and
// agents ask the running gateway over its local JSON-RPC socket; register
// sends a signed register message to the registry's HTTPS route.

func runRegister(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "register")
	dir := fs.String("dir", "", "gateway directory")
	agent := fs.String("agent", "", "the agent's id")
	action := fs.String("action", "create", "create, update, renew or delete")
	identityFile := fs.String("identity", "", "sign as the agent, with its identity file (default: the organisation's key signs)")
	keyText := fs.String("key", "", "the agent's ed25519: key (default: the local agent's, or the --identity file's)")
	encText := fs.String("enc-key", "", "the agent's x25519: key (default: as --key, else the gateway's)")
	endpoint := fs.String("endpoint", "", "where the agent's messages go (default: this gateway's message endpoint)")
	name := fs.String("name", "", "display name")
	description := fs.String("description", "", "what the agent does")
	var caps, allowed, tags stringList
	fs.Var(&caps, "capability", "capability the agent offers (repeatable)")
	fs.Var(&allowed, "allowed-org", "peer organisation that may see the entry (repeatable; default: every one)")
	fs.Var(&tags, "tag", "searchable tag (repeatable)")
	visibility := fs.String("visibility", "public", "public, unlisted or private")
	metadata := fs.String("metadata", "", "metadata as a JSON object")
	ttl := fs.Duration("ttl", 0, "how long the registration lasts (default: the registry's maximum)")
	registry := fs.String("registry", "", "organisation whose registry gets it (default: this gateway's)")
	asJSON := fs.Bool("json", false, "print the registry's answer as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if *agent == "" {
		return usagef("--agent is required")
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	o := gateway.RegisterOptions{
		Action: *action, Agent: *agent, Endpoint: *endpoint, Name: *name, Description: *description,
		Capabilities: caps, Visibility: *visibility, AllowedOrgs: allowed, Tags: tags, TTL: *ttl,
		Registry: *registry, Passphrase: pass, Now: e.now,
	}
	if *metadata != "" {
		o.Metadata = json.RawMessage(*metadata)
	}
	if *keyText != "" {
		if o.Key, err = keys.ParseEd25519Public(*keyText); err != nil {
			return usagef("--key: %v", err)
		}
	}
	if *encText != "" {
		if o.EncKey, err = keys.ParseX25519Public(*encText); err != nil {
			return usagef("--enc-key: %v", err)
		}
	}
	if *identityFile != "" {
		if o.Identity, err = loadIdentity(e, *identityFile); err != nil {
			return err
		}
	}
	switch o.Action {
	case "create", "update":
		if len(caps) == 0 {
			return usagef("--capability is required for %s", o.Action)
		}
	case "renew", "delete":
	default:
		return usagef("--action must be create, update, renew or delete")
	}
	res, err := gateway.Register(ctx, d, o)
	if err != nil {
		return err
	}
	if *asJSON {
		out := map[string]any{"registry": res.Registry, "action": res.Action, "agent": res.Agent}
		if res.Record != nil {
			out["expires_at"] = res.ExpiresAt.UnixMilli()
			out["record"] = res.Record
		}
		return printJSON(e.stdout, out)
	}
	if res.Action == "delete" {
		fmt.Fprintf(e.stdout, "Removed %s from the registry of %s\n", res.Agent, res.Registry)
		return nil
	}
	fmt.Fprintf(e.stdout, "Registered %s (%s) with the registry of %s until %s; attestation verified\n",
		res.Agent, res.Action, res.Registry, res.ExpiresAt.UTC().Format(time.RFC3339))
	return nil
}

func runDiscover(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "discover")
	dir := fs.String("dir", "", "gateway directory")
	var caps, anyCaps, orgs stringList
	fs.Var(&caps, "capability", "capability the agents must have (repeatable: all of them)")
	fs.Var(&anyCaps, "any", "capability of which the agents must have at least one (repeatable)")
	org := fs.String("org", "", "ask this peer organisation's registry (default: this gateway's)")
	fs.Var(&orgs, "filter-org", "only agents of this organisation (repeatable)")
	require := fs.String("require", "", `requirements on metadata, a JSON object such as '{"languages":{"includes":["en"]}}', @FILE to read it from FILE, or - to read it from standard input`)
	verified := fs.Bool("verified", false, "only agents whose identity their organisation attests")
	minUptime := fs.Float64("min-uptime", 0, "only agents up at least this share of the last 30 days (0 to 1)")
	sortBy := fs.String("sort", "", "score (default), uptime or recency")
	limit := fs.Int("limit", 0, fmt.Sprintf("results per page, 1 to %d (default 20)", localbridge.MaxDiscoverLimit))
	cursor := fs.String("cursor", "", "the next page of an earlier discover")
	id := fs.String("id", "", "look one agent up by its exact id (finds unlisted agents)")
	asJSON := fs.Bool("json", false, "print the registry's answer as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	limitGiven := false
	fs.Visit(func(f *flag.Flag) { limitGiven = limitGiven || f.Name == "limit" })
	switch {
	case len(caps) == 0 && len(anyCaps) == 0 && *id == "":
		return usagef("say what to discover: --capability C (or --any C, or --id AGENT)")
	case limitGiven && (*limit < 1 || *limit > localbridge.MaxDiscoverLimit):
		return usagef("--limit must be between 1 and %d (the next page: --cursor)", localbridge.MaxDiscoverLimit)
	case *org != "" && !wire.ValidName(*org):
		return usagef("--org must be an organisation name ([A-Za-z0-9_-], at most 128)")
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	q := map[string]any{}
	switch {
	case len(caps) == 1:
		q["capability"] = caps[0]
	case len(caps) > 1 || len(anyCaps) > 0:
		c := map[string]any{}
		if len(caps) > 0 {
			c["all"] = []string(caps)
		}
		if len(anyCaps) > 0 {
			c["any"] = []string(anyCaps)
		}
		q["capabilities"] = c
	}
	if *require != "" {
		req, err := readJSONArg(e, "--require", *require)
		if err != nil {
			return err
		}
		q["requirements"] = req
	}
	filters := map[string]any{}
	if *verified {
		filters["verified"] = true
	}
	if *minUptime != 0 {
		filters["min_uptime"] = *minUptime
	}
	if len(orgs) > 0 {
		filters["org"] = []string(orgs)
	}
	if len(filters) > 0 {
		q["filters"] = filters
	}
	for k, v := range map[string]string{"sort": *sortBy, "cursor": *cursor, "agent_id": *id} {
		if v != "" {
			q[k] = v
		}
	}
	if *limit != 0 {
		q["limit"] = *limit
	}
	ans, err := directoryQuery(ctx, d, *org, q)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e.stdout, ans)
	}
	return printResults(e.stdout, ans, false)
}

func runAgents(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "agents")
	dir := fs.String("dir", "", "gateway directory")
	var caps, orgs stringList
	fs.Var(&caps, "capability", "only agents with this capability (repeatable: all of them)")
	fs.Var(&orgs, "org", "only agents of this organisation (repeatable)")
	asJSON := fs.Bool("json", false, "print the entries as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	q := map[string]any{"include_hidden": true, "sort": "recency", "limit": 100}
	if len(caps) > 0 {
		q["capabilities"] = map[string]any{"all": []string(caps)}
	}
	if len(orgs) > 0 {
		q["filters"] = map[string]any{"org": []string(orgs)}
	}
	all := &discoverAnswer{Results: []json.RawMessage{}}
	for page := 0; page < 1000; page++ {
		ans, err := directoryQuery(ctx, d, "", q)
		if err != nil {
			return err
		}
		all.Results = append(all.Results, ans.Results...)
		all.Total = ans.Total
		if !ans.HasMore {
			break
		}
		q["cursor"] = ans.Cursor
	}
	if *asJSON {
		return printJSON(e.stdout, all)
	}
	return printResults(e.stdout, all, true)
}

// discoverAnswer is the discovery response.
type discoverAnswer struct {
	Results []json.RawMessage `json:"results"`
	Total   int               `json:"total"`
	HasMore bool              `json:"has_more"`
	Cursor  string            `json:"cursor,omitempty"`
}

// directoryQuery sends directory.discover to the running gateway of d: its
// own directory, or org's registry (whose attestations the gateway checks).
func directoryQuery(ctx context.Context, d gateway.Dir, org string, q map[string]any) (*discoverAnswer, error) {
	if org != "" {
		// The face reads the registry to ask from the document.
		q["org"] = org
	}
	doc, err := json.Marshal(q)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := dialGatewayAs(ctx, string(d), localbridge.ClientOptions{}, wire.ErrRegistryUnavailable)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	raw, err := c.Discover(ctx, localbridge.DiscoverRequest{Org: org, Query: doc})
	if err != nil {
		err = rpcFailure(err)
		var we *wire.Error
		if errors.As(err, &we) && we.Code == wire.ErrAgentNotFound && we.Field == "org" {
			return nil, &hinted{err, "import its peer document with moltgate peer import"}
		}
		return nil, err
	}
	ans := new(discoverAnswer)
	if err := json.Unmarshal(raw, ans); err != nil {
		return nil, fmt.Errorf("read the gateway's answer: %w", err)
	}
	return ans, nil
}

// record is what the tables show of a discovery result.
type record struct {
	AgentID      string   `json:"agent_id"`
	Org          string   `json:"org"`
	Endpoint     string   `json:"endpoint"`
	Capabilities []string `json:"capabilities"`
	Visibility   string   `json:"visibility"`
	Verified     bool     `json:"verified"`
	MatchScore   *float64 `json:"match_score"`
	Status       string   `json:"status"`
	Uptime       *float64 `json:"uptime_30d"`
	ExpiresAt    int64    `json:"expires_at"`
}

func printResults(w io.Writer, ans *discoverAnswer, inventory bool) error {
	if len(ans.Results) == 0 {
		fmt.Fprintln(w, "No agents found.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if inventory {
		fmt.Fprintln(tw, "AGENT\tVISIBILITY\tSTATUS\tUPTIME\tEXPIRES\tCAPABILITIES")
	} else {
		fmt.Fprintln(tw, "AGENT\tSCORE\tUPTIME\tVERIFIED\tCAPABILITIES\tENDPOINT")
	}
	for _, raw := range ans.Results {
		var r record
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("read a result: %w", err)
		}
		uptime := "-"
		if r.Uptime != nil {
			uptime = fmt.Sprintf("%.1f%%", *r.Uptime*100)
		}
		status := r.Status
		if status == "" {
			status = "-"
		}
		caps := strings.Join(r.Capabilities, ",")
		if inventory {
			fmt.Fprintf(tw, "%s@%s\t%s\t%s\t%s\t%s\t%s\n", r.AgentID, r.Org, r.Visibility, status, uptime,
				time.UnixMilli(r.ExpiresAt).UTC().Format(time.RFC3339), caps)
			continue
		}
		score := "-"
		if r.MatchScore != nil {
			score = fmt.Sprintf("%.2f", *r.MatchScore)
		}
		verified := "no"
		if r.Verified {
			verified = "yes"
		}
		fmt.Fprintf(tw, "%s@%s\t%s\t%s\t%s\t%s\t%s\n", r.AgentID, r.Org, score, uptime, verified, caps, r.Endpoint)
	}
	tw.Flush()
	switch {
	case ans.HasMore:
		fmt.Fprintf(w, "%d of %d; next page: --cursor %s\n", len(ans.Results), ans.Total, ans.Cursor)
	default:
		fmt.Fprintf(w, "%d of %d\n", len(ans.Results), ans.Total)
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// runSync has the running gateway pull its peers' registries now, rather
// than at the next directory.sync_interval.
func runSync(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "sync")
	dir := fs.String("dir", "", "gateway directory")
	peer := fs.String("peer", "", "pull only this peer organisation's registry (default: every peer)")
	asJSON := fs.Bool("json", false, "print the gateway's answer as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c, err := dialGateway(ctx, *dir, localbridge.ClientOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	raw, err := c.Sync(sctx, *peer)
	if err != nil {
		return rpcFailure(err)
	}
	var rep struct {
		Peers []struct {
			Peer      string             `json:"peer"`
			Applied   int                `json:"applied"`
			Unchanged int                `json:"unchanged"`
			Refused   int                `json:"refused"`
			Error     *wire.ErrorPayload `json:"error"`
		} `json:"peers"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		return fmt.Errorf("read the gateway's answer: %w", err)
	}
	if *asJSON {
		if err := printJSON(e.stdout, json.RawMessage(raw)); err != nil {
			return err
		}
	} else if len(rep.Peers) == 0 {
		fmt.Fprintln(e.stdout, "No peers to sync with (import one with moltgate peer import).")
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PEER\tAPPLIED\tUNCHANGED\tREFUSED\tRESULT")
		for _, p := range rep.Peers {
			result := "ok"
			if p.Error != nil {
				result = p.Error.Err().Error()
			} else if p.Refused > 0 {
				result = "ok; refused entries are in the gateway's log"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", p.Peer, p.Applied, p.Unchanged, p.Refused, result)
		}
		tw.Flush()
	}
	var failed []string
	var first *wire.ErrorPayload
	for _, p := range rep.Peers {
		if p.Error != nil {
			failed = append(failed, p.Peer)
			if first == nil {
				first = p.Error
			}
		}
	}
	if first != nil {
		return wire.Errorf(first.Code, "", "sync failed with %s", strings.Join(failed, ", "))
	}
	return nil
}
