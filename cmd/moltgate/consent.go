package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// issuerFlags are the flags that name the issuing key: --identity FILE, or --dir DIR for the
// gateway's own organisation key.
type issuerFlags struct {
	dir, identity *string
}

func addIssuerFlags(fs *flagSet) issuerFlags {
	return issuerFlags{
		dir:      fs.String("dir", "", "gateway directory: its organisation key issues the consent"),
		identity: fs.String("identity", "", "identity file whose signing key issues consents (instead of --dir)"),
	}
}

// load returns the issuing identity. Its org is the issuing organisation.
func (f issuerFlags) load(e *env) (*identity.Agent, error) {
	switch {
	case *f.identity != "" && *f.dir != "":
		return nil, usagef("give --identity or --dir, not both")
	case *f.identity != "":
		return loadIdentity(e, *f.identity)
	case *f.dir != "":
		if err := notAGateway(gateway.Dir(*f.dir)); err != nil {
			return nil, err
		}
		return loadIdentity(e, gateway.Dir(*f.dir).OrgKeyPath())
	}
	return nil, usagef("--identity FILE or --dir DIR is required")
}

func runConsent(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "consent", args, true,
		subcommand{"issue", func(args []string) error { return runConsentIssue(ctx, e, args) }},
		subcommand{"verify", func(args []string) error { return runConsentVerify(ctx, e, args) }},
		subcommand{"revoke", func(args []string) error { return runConsentRevoke(ctx, e, args) }},
		subcommand{"request", func(args []string) error { return runConsentRequest(ctx, e, args) }},
	)
}

// runConsentRequest is `moltgate consent request`: a local agent asks a
// peer's agent, through the running gateway, for a consent to receive
// personal data. A person at the peer decides. The proof of a grant goes to
// standard output, as consent issue prints its token.
func runConsentRequest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "consent request")
	dir := fs.String("dir", "", "gateway directory")
	to := fs.String("to", "", "the peer's agent to ask, as agent@org")
	from := fs.String("from", "", "local agent that asks (default: the gateway's only agent)")
	types := fs.String("types", "", "comma-separated pii_meta types: "+strings.Join(consent.Types(), ","))
	purpose := fs.String("purpose", "", "what the data is for")
	human := fs.String("human", "", "whose data, as the peer knows them (e.g. user:4711)")
	duration := fs.String("duration", "", `how long the consent should last: "session" or a duration such as 24h (default 1h)`)
	timeout := fs.Duration("timeout", 0, "how long to wait for the peer's decision (default: the gateway's request timeout)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *to == "" || *types == "" || *purpose == "" {
		return usagef("--to, --types and --purpose are required")
	}
	c, err := dialGateway(ctx, *dir, localbridge.ClientOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	ans, err := c.AskConsent(ctx, localbridge.ConsentAsk{To: *to, From: *from, DataTypes: splitTypes(*types),
		Purpose: *purpose, Human: *human, Duration: *duration})
	if err != nil {
		return rpcFailure(err)
	}
	if !ans.Granted {
		return wire.Errorf(wire.ErrConsent, "", "%s did not grant the consent: %s", *to, orDefault(ans.Reason, "no reason given"))
	}
	fmt.Fprintln(e.stdout, ans.Proof)
	return nil
}

func splitTypes(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func runConsentIssue(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "consent issue")
	iss := addIssuerFlags(fs)
	grantee := fs.String("grantee", "", "agent@org allowed to receive the data")
	purpose := fs.String("purpose", "", "purpose the data may be used for")
	types := fs.String("types", "", "comma-separated pii_meta types: "+strings.Join(consent.Types(), ","))
	ttl := fs.Duration("ttl", time.Hour, "how long the consent is valid")
	grantedBy := fs.String("granted-by", "", `who granted it, e.g. user:jane@example.com (default "org:" and the issuing org)`)
	oneTime := fs.Bool("one-time", false, "the consent is good for one message, across every replica")
	noStorage := fs.Bool("no-storage", false, "the receiving agent must not store the data (passed on with the call)")
	noForward := fs.Bool("no-forward", false, "the grantee's gateway may not pass the data to a third organisation")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *grantee == "" || *purpose == "" || *types == "" {
		return usagef("--grantee, --purpose and --types are required")
	}
	if _, err := wire.ParseRef(*grantee); err != nil {
		return usagef("--grantee: want agent@org")
	}
	if err := localbridge.CheckConsentTTL(*ttl); err != nil {
		return usagef("--ttl %v", err)
	}
	dataTypes := splitTypes(*types)
	for _, t := range dataTypes {
		if !slices.Contains(consent.Types(), t) {
			return usagef("--types: %q is not a personal data type a consent can name (%s)", t, strings.Join(consent.Types(), ", "))
		}
	}
	id, err := iss.load(e)
	if err != nil {
		return err
	}
	if *grantedBy == "" {
		*grantedBy = "org:" + id.Ref.Org
	}
	cid, err := consent.NewID(rand.Reader)
	if err != nil {
		return err
	}
	now := e.now()
	var cs *consent.Constraints
	if *oneTime || *noStorage || *noForward {
		cs = &consent.Constraints{OneTime: *oneTime, NoStorage: *noStorage, NoForward: *noForward}
	}
	tok, err := consent.Issue(id.Signing, consent.Claims{ID: cid, GrantedBy: *grantedBy, Grantee: *grantee,
		Purpose: *purpose, DataTypes: dataTypes, IssuedAt: now.UnixMilli(), Expires: now.Add(*ttl).UnixMilli(), Constraints: cs})
	if err != nil {
		return usagef("%v", err)
	}
	fmt.Fprintln(e.stdout, tok)
	return nil
}

// readToken takes the token from --token or standard input.
func readToken(e *env, flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	b, err := readInput(e, consent.MaxLen+2)
	if err != nil {
		return "", err
	}
	tok := string(bytes.TrimSpace(b))
	if tok == "" {
		return "", usagef("no token: give --token or write it to standard input")
	}
	return tok, nil
}

// trustFlag collects --trust ORG=ed25519:KEY.
type trustFlag struct{ ts *identity.TrustStore }

func (t trustFlag) String() string { return "" }

func (t trustFlag) Set(s string) error {
	org, key, ok := strings.Cut(s, "=")
	if !ok || !wire.ValidName(org) {
		return fmt.Errorf("want ORG=ed25519:KEY")
	}
	k, err := keys.ParseEd25519Public(key)
	if err != nil {
		return err
	}
	t.ts.Add(org, k)
	return nil
}

func runConsentVerify(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "consent verify")
	dir := fs.String("dir", "", "gateway directory: trust its organisation and imported peers, read its revocation list")
	idPath := fs.String("identity", "", "identity file: trust its organisation's key (as issuer)")
	trust := identity.NewTrustStore()
	fs.Var(trustFlag{trust}, "trust", "trust ORG=ed25519:KEY as an issuer (repeatable)")
	issuer := fs.String("issuer-org", "", "organisation that must have issued the consent (default: the one of --dir/--identity)")
	grantee := fs.String("grantee", "", "agent@org the consent must be granted to (default: not checked)")
	purpose := fs.String("purpose", "", "purpose the consent must be for (default: not checked)")
	types := fs.String("types", "", "comma-separated types the consent must cover (default: not checked)")
	revPath := fs.String("revocations", "", "revocation list file (default: the list of the gateway in --dir)")
	token := fs.String("token", "", "the token (default: read from standard input)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	org := *issuer
	if *idPath != "" {
		id, err := loadIdentity(e, *idPath)
		if err != nil {
			return err
		}
		trust.Add(id.Ref.Org, id.Signing.Public())
		if org == "" {
			org = id.Ref.Org
		}
	}
	if *dir != "" {
		if err := notAGateway(gateway.Dir(*dir)); err != nil {
			return err
		}
		// The gateway's own organisation and every peer it has imported.
		own, err := loadIdentity(e, gateway.Dir(*dir).OrgKeyPath())
		if err != nil {
			return err
		}
		peers, err := gateway.LoadPeers(gateway.Dir(*dir), own.Ref.Org)
		if err != nil {
			return err
		}
		trust.Add(own.Ref.Org, own.Signing.Public())
		for _, p := range peers {
			trust.Add(p.Org, p.OrgKey)
		}
		if org == "" {
			org = own.Ref.Org
		}
	}
	if org == "" {
		return usagef("--issuer-org (or --dir/--identity) is required")
	}
	tok, err := readToken(e, *token)
	if err != nil {
		return err
	}
	parsed, err := consent.Parse(tok)
	if err != nil {
		return err
	}
	req := consent.Request{Issuer: org, Purpose: parsed.Purpose, Types: splitTypes(*types)}
	if req.Grantee, err = wire.ParseRef(parsed.Grantee); err != nil {
		return err
	}
	if *grantee != "" {
		if req.Grantee, err = wire.ParseRef(*grantee); err != nil {
			return usagef("--grantee: want agent@org")
		}
	}
	if *purpose != "" {
		req.Purpose = *purpose
	}
	v := &consent.Verifier{Trust: trust, Now: e.now}
	if *revPath == "" && *dir != "" {
		list, closer, err := gateway.OpenRevocations(ctx, gateway.Dir(*dir))
		if err != nil {
			return err
		}
		defer closer.Close()
		v.Revocations = list
	} else if *revPath != "" {
		store, err := consent.OpenFile(*revPath, nil)
		if err != nil {
			return err
		}
		v.Revocations = store
	}
	claims, err := v.Verify(ctx, tok, req)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(claims, "", "  ")
	fmt.Fprintln(e.stdout, string(b))
	return nil
}

func runConsentRevoke(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "consent revoke")
	dir := fs.String("dir", "", "gateway directory whose revocation list to add to")
	revPath := fs.String("revocations", "", "revocation list file (instead of --dir)")
	token := fs.String("token", "", "the token to revoke (default: read from standard input)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	path := *revPath
	switch {
	case path != "" && *dir != "":
		return usagef("give --revocations or --dir, not both")
	case path == "" && *dir == "":
		return usagef("--dir DIR or --revocations FILE is required")
	case *dir != "":
		if err := notAGateway(gateway.Dir(*dir)); err != nil {
			return err
		}
	}
	tok, err := readToken(e, *token)
	if err != nil {
		return err
	}
	// Only a token whose signature verifies is revoked, so that a typo cannot fill the list.
	p, err := consent.Parse(tok)
	if err != nil {
		return err
	}
	var store gateway.RevocationList
	if *dir != "" {
		list, closer, err := gateway.OpenRevocations(ctx, gateway.Dir(*dir))
		if err != nil {
			return err
		}
		defer closer.Close()
		store = list
	} else if store, err = consent.OpenFile(path, nil); err != nil {
		return err
	}
	if err := store.Revoke(ctx, p.ID, time.UnixMilli(p.Expires)); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "revoked %s\n", p.ID)
	return nil
}
