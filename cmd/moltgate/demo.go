package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/internal/demoagent"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// runDemo is `moltgate demo`: two organisations, acme and globex, each run a
// real gateway (in this process, on loopback, with its own directory and
// SQLite store), and each gateway launches a local agent, which is this
// program again (`moltgate demo agent NAME`, not listed in the usage). The
// demo narrates registration and discovery, the handshake, a signed and
// sealed tool call with streamed output, personal data blocked and then
// allowed with a consent, a secret blocked, an untrusted organisation
// refused and a rate limit, then stops everything and removes its files.
func runDemo(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "agent" {
		return runDemoAgent(ctx, args[1:])
	}
	fs := newFlags(e, "demo")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// Socket paths are limited to about 100 bytes, so the directory is a
	// short one under the system's temporary directory.
	root, err := os.MkdirTemp("", "mgdemo")
	if err != nil {
		return err
	}
	d := &demo{w: e.stdout, root: root}
	err = d.run(ctx)
	if serr := d.stopAll(); serr != nil && err == nil {
		err = serr
	}
	if rerr := os.RemoveAll(root); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(d.w, "   The three gateways shut down gracefully, their agents stopped with them, and the")
	fmt.Fprintln(d.w, "   temporary directory is gone.")
	if err := demoWire(ctx, d.w, d.step); err != nil {
		return err
	}
	fmt.Fprintln(d.w, "\nDemo complete: every genuine call was delivered, and every refusal came with its code.")
	return nil
}

// runDemoAgent is `moltgate demo agent NAME`: a demo agent, as the demo's
// gateways launch it.
func runDemoAgent(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usagef("demo agent NAME")
	}
	a, err := demoagent.New(args[0])
	if err != nil {
		return usageError{err.Error()}
	}
	return a.Run(ctx)
}

type demo struct {
	w    io.Writer
	root string
	step int

	acme, globex, initech *demoGateway
	token                 string    // the consent acme issued
	consentUsed           time.Time // when a gateway last looked the consent up
}

func (d *demo) say(format string, a ...any) {
	d.step++
	fmt.Fprintf(d.w, "\n%d. "+format+"\n", append([]any{d.step}, a...)...)
}

func (d *demo) line(format string, a ...any) {
	fmt.Fprintf(d.w, "   "+format+"\n", a...)
}

func (d *demo) stopAll() error {
	var errs []error
	// Callers first, so that the gateway they call has no connection of
	// theirs left to wait for.
	for _, g := range []*demoGateway{d.initech, d.acme, d.globex} {
		if g != nil {
			if err := g.stop(); err != nil {
				errs = append(errs, fmt.Errorf("stop %s: %w", g.org, err))
			}
		}
	}
	return errors.Join(errs...)
}

// rel names a path under the demo's directory.
func (d *demo) rel(p string) string {
	if r, err := filepath.Rel(d.root, p); err == nil {
		return r
	}
	return p
}

// demoDeadline bounds the whole demo. No step has a deadline of its own:
// each waits for the event it narrates, so a busy machine makes the demo
// slower, not wrong.
const demoDeadline = 5 * time.Minute

func (d *demo) run(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, demoDeadline)
	defer cancel()
	err := d.steps(ctx)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the demo did not finish within %v (is the machine overloaded?): %w", demoDeadline, err)
	}
	return err
}

func (d *demo) steps(ctx context.Context) error {
	fmt.Fprintln(d.w, "moltgate demo: two organisations, acme and globex, each run a moltgate gateway on this machine.")
	for _, step := range []func(context.Context) error{
		d.setUp, d.register, d.discover, d.toolCall, d.personalData, d.secret, d.untrusted, d.rateLimit, d.revoke,
	} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	d.say("Clean-up.")
	return nil
}

func (d *demo) setUp(ctx context.Context) error {
	var err error
	if d.acme, err = newDemoGateway(d.root, "acme"); err != nil {
		return err
	}
	if d.globex, err = newDemoGateway(d.root, "globex"); err != nil {
		return err
	}
	d.say("acme and globex each set up a gateway (moltgate init): an org key, a self-signed TLS\n" +
		"   certificate, a configuration, and a SQLite file for its directory.")
	for _, g := range []*demoGateway{d.acme, d.globex} {
		c := g.made.Config
		d.line("%-7s %s (gRPC %s), org key %.20s…, directory %s", g.org, c.Listen.Advertise, c.Listen.GRPC,
			g.made.OrgKey, d.rel(filepath.Join(g.dir.DataDir(), "moltgate.db")))
	}
	for _, p := range [][2]*demoGateway{{d.acme, d.globex}, {d.globex, d.acme}} {
		if _, err := p[0].trust(p[1], "pii"); err != nil {
			return err
		}
	}
	d.line("They exchange signed peer documents (moltgate peer export | peer import --max-cls pii):")
	d.line("each pins the other's org key and TLS certificate, and allows it classes up to pii.")
	if err := d.globex.setConfig(
		[2]string{"agent_per_second = 50.0", "agent_per_second = 2.0"},
		[2]string{"agent_burst = 100", "agent_burst = 6"},
	); err != nil {
		return err
	}
	d.line("globex lets each remote agent make 2 calls a second, in bursts of up to 6 ([rate] in its moltgate.toml).")
	// By default a gateway waits out a peer's rate limit and retries (OSSA's
	// RATE_LIMITED: 3 retries); the demo shows the refusal itself.
	if err := d.acme.setConfig([2]string{`reply_wait = "10s"`, "reply_wait = \"10s\"\n[peers.org.globex.retry.RATE_LIMITED]\nretries = 0"}); err != nil {
		return err
	}
	d.line("acme hands globex's rate limits back to its callers rather than retrying them ([peers.org.globex.retry.RATE_LIMITED] retries = 0).")
	return nil
}

func (d *demo) register(ctx context.Context) error {
	agents := []struct {
		g    *demoGateway
		id   string
		caps []string
	}{
		{d.globex, demoagent.ConciergeID, []string{"weather.forecast", "calendar.invite"}},
		{d.acme, demoagent.AssistantID, []string{"text.summarise"}},
	}
	for _, a := range agents {
		cmd, err := agentCommand(a.id)
		if err != nil {
			return err
		}
		if _, err := gateway.AddAgent(a.g.dir, gateway.AddAgentOptions{ID: a.id, Exec: cmd, Capabilities: a.caps, MaxCls: "pii"}); err != nil {
			return err
		}
	}
	for _, g := range []*demoGateway{d.acme, d.globex} {
		if err := g.start(); err != nil {
			return err
		}
	}
	d.say("Registration. Each gateway starts and launches its local agent (moltgate agent add --exec) as a\n" +
		"   child process. The agent finds the gateway's OpenSentience socket (run/core.sock) and a single-use\n" +
		"   token in its environment, proves itself, and registers its tools. The gateway publishes it in its\n" +
		"   directory, signed by the agent's key: its tools become capabilities.")
	for _, a := range agents {
		tools, err := a.g.awaitAgent(ctx, a.id)
		if err != nil {
			return err
		}
		entry, err := a.g.awaitEntry(ctx, a.id, a.caps[0], tools)
		if err != nil {
			return err
		}
		d.line("%s@%s registered tools %s; its directory entry lists capabilities %s",
			a.id, a.g.org, strings.Join(tools, ", "), strings.Join(entry.Capabilities, ", "))
	}
	return nil
}

// discoveryResult is one result of a discovery, as the directory renders it.
type discoveryResult struct {
	AgentID      string   `json:"agent_id"`
	Org          string   `json:"org"`
	PublicKey    string   `json:"public_key"`
	Endpoint     string   `json:"endpoint"`
	Capabilities []string `json:"capabilities"`
	Attestation  struct {
		Registry  string `json:"registry"`
		Key       string `json:"key"`
		Signature string `json:"signature"`
	} `json:"attestation"`
}

type discoveryPage struct {
	Results []discoveryResult `json:"results"`
	Total   int               `json:"total"`
}

// awaitEntry waits until the gateway's own directory lists agent id under
// capability, with its tools among its capabilities.
func (g *demoGateway) awaitEntry(ctx context.Context, id, capability string, tools []string) (discoveryResult, error) {
	for {
		raw, err := g.s.Local().Discover(ctx, localbridge.DiscoverRequest{Capability: capability})
		if err != nil {
			return discoveryResult{}, err
		}
		var page discoveryPage
		if err := json.Unmarshal(raw, &page); err != nil {
			return discoveryResult{}, err
		}
		for _, r := range page.Results {
			if r.AgentID == id && !slices.ContainsFunc(tools, func(t string) bool { return !slices.Contains(r.Capabilities, t) }) {
				return r, nil
			}
		}
		// A registration the gateway refused will not appear however long
		// the demo waits: say why at once.
		if e, ok := g.log.find(0, "cannot publish agent", func(e logEntry) bool { return e.Str("agent") == id }); ok {
			return discoveryResult{}, fmt.Errorf("%s@%s could not be published in its directory: %s", id, g.org, e.Str("err"))
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return discoveryResult{}, fmt.Errorf("%s@%s is not in its directory: %w", id, g.org, ctx.Err())
		}
	}
}

func (d *demo) discover(ctx context.Context) error {
	d.say("Discovery and the handshake. acme's assistant needs a weather forecast: acme's gateway asks\n" +
		"   globex's directory for capability weather.forecast.")
	raw, err := d.acme.s.Local().Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Capability: "weather.forecast"})
	if err != nil {
		return fmt.Errorf("discover at globex: %w", err)
	}
	d.line("acme had no session with globex yet, so its gateway opened a WebSocket to globex (TLS, the")
	d.line("certificate pinned) and ran the handshake on it: hello, hello_ack, verify, verify_response,")
	d.line("session_established. Each side signed the other's fresh challenge bound to the transcript, and")
	d.line("the session keys come from a fresh X25519 exchange (forward secrecy).")
	if err := d.showSession(ctx, "gateway@acme"); err != nil {
		return err
	}
	var page discoveryPage
	if err := json.Unmarshal(raw, &page); err != nil {
		return err
	}
	if len(page.Results) == 0 {
		return errors.New("globex's directory found no agent for weather.forecast")
	}
	r := page.Results[0]
	if r.Attestation.Key != d.globex.made.OrgKey.String() {
		return errors.New("discovery result attested by another key")
	}
	d.line("globex's directory answers: %s@%s, capabilities %s,", r.AgentID, r.Org, strings.Join(r.Capabilities, ", "))
	d.line("signing key %.20s…, attested by registry %s with key %.20s…; acme's gateway checked", r.PublicKey, r.Attestation.Registry, r.Attestation.Key)
	d.line("that signature against globex's pinned org key before passing the answer on.")
	return nil
}

// showSession prints the session a gateway (globex) accepted from peer, as
// its log records it. The session may be older than the discovery that
// used it (acme's registry sync can open it first, earlier on a slow
// machine), so the whole log is searched; globex logs a session before it
// answers the handshake's last message, so it is there once acme has it.
func (d *demo) showSession(ctx context.Context, peer string) error {
	e, ok := d.globex.log.await(ctx, 0, "session established", func(e logEntry) bool { return e.Str("peer") == peer })
	if !ok {
		return fmt.Errorf("globex logged no session with %s", peer)
	}
	exp, _ := e.Attrs["expires"].Any().(time.Time)
	d.line("globex's log: session established with %s on its %s face: MoltSpeak %s,",
		e.Str("peer"), e.Str("face"), e.Str("version"))
	d.line("trust level %s, classes %s, for %s.", e.Str("trust_level"), e.Str("classes"), roughly(time.Until(exp)))
	return nil
}

func (d *demo) call(ctx context.Context, g *demoGateway, from, tool, input, cls, token string, emit func(localbridge.StreamEvent) error) (json.RawMessage, error) {
	return g.s.Local().Query(ctx, localbridge.QueryRequest{From: from, To: demoagent.ConciergeID + "@globex", Tool: tool,
		Input: json.RawMessage(input), Class: cls, Consent: token}, emit)
}

func (d *demo) toolCall(ctx context.Context) error {
	input := `{"city":"Lisbon","days":3}`
	d.say("A tool call across organisations. assistant@acme calls the concierge's forecast tool at\n"+
		"   globex: %s, class conf.", input)
	d.line("acme's gateway checks it outbound (class ceilings, personal data, secrets), signs it with the")
	d.line("assistant's key (Ed25519 over its RFC 8785 bytes), attaches acme's certificate that the assistant")
	d.line("may invoke tools, and seals it in the session (%s). globex's gateway opens it,", wire.AlgSession)
	d.line("refuses a counter it has seen, verifies the signature and the certificate against acme's pinned")
	d.line("key, checks the class and the content inbound, and calls the concierge over its OpenSentience")
	d.line("socket. Each chunk the tool streams comes back as its own signed, sealed stream message:")
	chunks := 0
	out, err := d.call(ctx, d.acme, demoagent.AssistantID, "forecast", input, "conf", "", func(ev localbridge.StreamEvent) error {
		chunks++
		d.line("  stream  %s", strings.TrimSuffix(ev.Text, "\n"))
		return nil
	})
	if err != nil {
		return fmt.Errorf("forecast call: %w", err)
	}
	if chunks != 3 {
		return fmt.Errorf("forecast call streamed %d chunks, want 3", chunks)
	}
	d.line("  result  %s", out)
	var res struct {
		AskedBy string `json:"asked_by"`
	}
	if json.Unmarshal(out, &res) != nil || res.AskedBy != "assistant@acme" {
		return fmt.Errorf("forecast result %s does not name its caller", out)
	}
	d.line("The concierge was told the call came from assistant@acme: the identity globex's gateway verified.")
	return nil
}

// refusal checks that err is a refusal with the code want and prints it
// with its suggestion.
func (d *demo) refusal(err error, want wire.Code, by string) (*wire.Error, error) {
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != want {
		if err == nil {
			return nil, fmt.Errorf("the call was accepted; want %s", want)
		}
		return nil, fmt.Errorf("the call failed with %v; want %s", err, want)
	}
	s := ""
	if we.Suggestion != nil {
		s = " (suggestion: " + we.Suggestion.String() + ")"
	}
	d.line("refused by %s: %s%s", by, we.Error(), s)
	return we, nil
}

// showBlock prints what a gateway logged of the message it blocked: the
// rule, and the types and places of what it found, never the values.
func (d *demo) showBlock(ctx context.Context, g *demoGateway, mark int) error {
	e, ok := g.log.await(ctx, mark, "message blocked", nil)
	if !ok {
		return fmt.Errorf("%s logged no block", g.org)
	}
	d.line("%s's log: message blocked (%s, reason %s): found %s; values are never logged.",
		g.org, e.Str("direction"), e.Str("reason"), e.Str("findings"))
	return nil
}

func (d *demo) personalData(ctx context.Context) error {
	input := `{"attendee":"jane.doe@example.com","event":"Friday review"}`
	d.say("Personal data. assistant@acme asks the concierge to send an invitation:\n" +
		"   invite {\"attendee\": <an e-mail address>, \"event\": \"Friday review\"}, class conf.")
	mark := d.acme.log.mark()
	_, err := d.call(ctx, d.acme, demoagent.AssistantID, "invite", input, "conf", "", nil)
	if _, err := d.refusal(err, wire.ErrConsent, "acme's own gateway, before anything left"); err != nil {
		return err
	}
	if err := d.showBlock(ctx, d.acme, mark); err != nil {
		return err
	}
	tok, err := d.acme.s.Local().IssueConsent(ctx, localbridge.ConsentRequest{Grantee: "concierge@globex", Purpose: "scheduling",
		DataTypes: []string{"email"}, GrantedBy: "customer-4711", TTL: time.Hour})
	if err != nil {
		return err
	}
	d.token = tok
	d.line("The person agrees. acme issues a consent (moltgate consent issue): a token signed by acme's org")
	d.line("key, for concierge@globex, purpose scheduling, data types email, valid for an hour.")
	out, err := d.call(ctx, d.acme, demoagent.AssistantID, "invite", input, "", tok, nil)
	d.consentUsed = time.Now()
	if err != nil {
		return fmt.Errorf("invite with a consent: %w", err)
	}
	d.line("With the consent in pii_meta the message is class pii; acme's gateway checks the consent on the")
	d.line("way out and globex's on the way in (acme's key, grantee, purpose, types, expiry, revocation):")
	d.line("  result  %s", out)
	return nil
}

func (d *demo) secret(ctx context.Context) error {
	input := `{"text":"deploy with access key AKIAIOSFODNN7EXAMPLF and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`
	d.say("A secret. assistant@acme asks the concierge to keep a note holding a cloud access key and its\n" +
		"   secret: note {\"text\": <a deployment note with the key pair>}, class conf.")
	mark := d.acme.log.mark()
	_, err := d.call(ctx, d.acme, demoagent.AssistantID, "note", input, "conf", "", nil)
	if _, err := d.refusal(err, wire.ErrClassification, "acme's gateway"); err != nil {
		return err
	}
	if err := d.showBlock(ctx, d.acme, mark); err != nil {
		return err
	}
	d.line("Labelled sec instead, it is still refused: globex may receive nothing above pii.")
	_, err = d.call(ctx, d.acme, demoagent.AssistantID, "note", input, "sec", "", nil)
	_, err = d.refusal(err, wire.ErrClassification, "acme's gateway")
	return err
}

func (d *demo) untrusted(ctx context.Context) error {
	var err error
	if d.initech, err = newDemoGateway(d.root, "initech"); err != nil {
		return err
	}
	if _, err := gateway.AddAgent(d.initech.dir, gateway.AddAgentOptions{ID: "mallory"}); err != nil {
		return err
	}
	if _, err := d.initech.trust(d.globex, ""); err != nil {
		return err
	}
	if err := d.initech.start(); err != nil {
		return err
	}
	d.say("An untrusted organisation. initech sets up a gateway too and imports globex's peer document,\n" +
		"   but globex has never imported initech's. mallory@initech calls the concierge's forecast tool.")
	mark := d.globex.log.mark()
	_, err = d.call(ctx, d.initech, "mallory", "forecast", `{"city":"Lisbon"}`, "", "", nil)
	e, ok := d.globex.log.await(ctx, mark, "handshake refused", func(e logEntry) bool { return e.Str("from") == "gateway@initech" })
	if !ok {
		return errors.New("globex logged no refused handshake from gateway@initech")
	}
	d.line("globex's log: handshake refused from %s on its %s face: %s. Only the gateways of",
		e.Str("from"), e.Str("face"), e.Str("reason"))
	d.line("imported peers get a session; initech's hello costs globex no session and no key exchange.")
	_, err = d.refusal(err, wire.ErrAuthFailed, "globex")
	return err
}

// rateWave is how many calls the rate-limit step sends at once: twice
// globex's burst, so that the limit is reached however slowly each call
// runs on a busy machine (sequential calls slower than the refill rate would
// never reach it).
const rateWave = 12

func (d *demo) rateLimit(ctx context.Context) error {
	d.say("A rate limit. assistant@acme sends the forecast tool %d calls at once.", rateWave)
	for wave := 1; ; wave++ {
		errs := make([]error, rateWave)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = d.call(ctx, d.acme, demoagent.AssistantID, "forecast", `{"city":"Oslo","days":1}`, "", "", nil)
			}()
		}
		wg.Wait()
		answered, limited := 0, -1
		for i, err := range errs {
			var we *wire.Error
			switch {
			case err == nil:
				answered++
			case errors.As(err, &we) && we.Code == wire.ErrRateLimit:
				if limited < 0 {
					limited = i
				}
			default:
				return fmt.Errorf("a call of the burst failed with %v; want an answer or %s", err, wire.ErrRateLimit)
			}
		}
		if limited < 0 {
			if wave == 5 {
				return fmt.Errorf("%d waves of %d calls were all answered; want a rate limit", wave, rateWave)
			}
			continue
		}
		d.line("%d calls answered, %d refused:", answered, rateWave-answered)
		we, err := d.refusal(errs[limited], wire.ErrRateLimit, "globex")
		if err != nil {
			return err
		}
		if we.Suggestion == nil || we.Suggestion.Action != wire.ActionRetryAfter || we.Suggestion.DelayMS <= 0 {
			return errors.New("the rate limit came without a retry_after suggestion")
		}
		if err := waitSuggested(ctx, we); err != nil {
			return err
		}
		break
	}
	// Each refusal names when to try again, as of when it was made. Calls of
	// the wave that a busy machine answered after it may have taken the
	// token it promised, so a call refused again is retried as its own
	// refusal suggests: that is what a client of the gateway does.
	for try := 1; ; try++ {
		_, err := d.call(ctx, d.acme, demoagent.AssistantID, "forecast", `{"city":"Oslo","days":1}`, "", "", nil)
		var we *wire.Error
		if err == nil {
			break
		}
		if try == 5 || !errors.As(err, &we) || we.Code != wire.ErrRateLimit || we.Suggestion == nil || we.Suggestion.DelayMS <= 0 {
			return fmt.Errorf("call after the suggested wait: %w", err)
		}
		if err := waitSuggested(ctx, we); err != nil {
			return err
		}
	}
	d.line("After waiting as suggested, the next call is answered.")
	return nil
}

// waitSuggested waits as a refusal's retry_after suggests.
func waitSuggested(ctx context.Context, we *wire.Error) error {
	select {
	case <-time.After(time.Duration(we.Suggestion.DelayMS) * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *demo) revoke(ctx context.Context) error {
	tok, err := consent.Parse(d.token)
	if err != nil {
		return err
	}
	store, err := consent.OpenFile(filepath.Join(d.acme.dir.DataDir(), consent.FileName), nil)
	if err != nil {
		return err
	}
	if err := store.Revoke(ctx, tok.Claims.ID, time.UnixMilli(tok.Claims.Expires)); err != nil {
		return err
	}
	d.say("Revocation. The person withdraws the consent, and acme revokes it (moltgate consent revoke\n"+
		"   appends to the same list, %s).", d.rel(filepath.Join(d.acme.dir.DataDir(), consent.FileName)))
	// The gateway reads the list again when it has changed, at most once a
	// second.
	if wait := time.Until(d.consentUsed.Add(1100 * time.Millisecond)); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	_, err = d.call(ctx, d.acme, demoagent.AssistantID, "invite", `{"attendee":"jane.doe@example.com","event":"Friday review"}`, "", d.token, nil)
	_, err = d.refusal(err, wire.ErrConsent, "acme's gateway")
	return err
}

// roughly renders a duration in hours or minutes.
func roughly(d time.Duration) string {
	if h := d.Round(time.Hour); h >= time.Hour && (d-h).Abs() < time.Minute {
		return fmt.Sprintf("%d h", int(h.Hours()))
	}
	return fmt.Sprintf("%d min", int(d.Round(time.Minute).Minutes()))
}
