package classify

import (
	"context"
	"errors"
	"slices"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// Direction is which way a message crosses the boundary.
type Direction uint8

const (
	// Outbound: from a local agent to a peer organisation.
	Outbound Direction = iota + 1
	// Inbound: from a peer organisation to a local agent.
	Inbound
)

func (d Direction) String() string {
	switch d {
	case Outbound:
		return "outbound"
	case Inbound:
		return "inbound"
	}
	return "direction(?)"
}

// Reason is why the gate blocked a message; metrics count blocks by reason.
type Reason uint8

// The reasons, with their metric label.
const (
	ReasonInvalidClass   Reason = iota + 1 // "invalid_class"
	ReasonPeerCeiling                      // "peer_ceiling": above the peer organisation's ceiling
	ReasonAgentCeiling                     // "agent_ceiling": above the local agent's ceiling
	ReasonUnsupported                      // "unsupported_class": not listed in the hello
	ReasonNotSealed                        // "not_sealed": conf and above must arrive encrypted
	ReasonSecret                           // "secret": secret material outside sec
	ReasonNoConsent                        // "pii_without_consent": personal data outside a consented pii/sec message
	ReasonConsentInvalid                   // "consent_invalid": the consent does not verify, has expired, is revoked...
	ReasonConsentTypes                     // "consent_types": the consent (or pii_meta.types) misses a type found

	numReasons = iota
)

var reasonNames = [...]string{"", "invalid_class", "peer_ceiling", "agent_ceiling", "unsupported_class",
	"not_sealed", "secret", "pii_without_consent", "consent_invalid", "consent_types"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) && r != 0 {
		return reasonNames[r]
	}
	return "reason(?)"
}

// Reasons lists every reason, for registering metrics up front.
func Reasons() []Reason {
	rs := make([]Reason, 0, numReasons)
	for r := Reason(1); r <= numReasons; r++ {
		rs = append(rs, r)
	}
	return rs
}

// Session is what the gate needs to know of the exchange a message belongs to.
type Session struct {
	// PeerSupported is the supported_cls list of the peer's hello: an outbound message of
	// another class is refused. Nil when no handshake applies (then the ceilings alone decide).
	PeerSupported []wire.Class
	// LocalSupported is the supported_cls list of this gateway's own hello: an inbound
	// message of another class is refused. Nil as above.
	LocalSupported []wire.Class
	// Sealed reports, for an inbound message, that it arrived in a sealed envelope or an
	// encrypted session. conf, pii and sec must.
	Sealed bool
}

// Decision is the gate's verdict.
type Decision struct {
	// Allow is true when the message may pass.
	Allow bool
	// Reason and Err say why it may not; Err is the refusal to send back (E_CLASSIFICATION,
	// E_CONSENT with the request_consent suggestion, or E_INTERNAL when the revocation list
	// cannot be read), and never holds content of the message.
	Reason Reason
	Err    *wire.Error
	// Findings are the personal data and secrets found that caused the block: type, JSON path
	// and byte span, never the value.
	Findings []pii.Finding
	// Types are the pii_meta types of the personal data found (allowed or not).
	Types []string
	// Handling is what the message's class demands of the gateway from here on (sealing,
	// persistence, logging).
	Handling Handling
}

// Counter counts blocked messages; the gateway's metrics read it. Counts implements it.
type Counter interface {
	Blocked(r Reason, d Direction)
}

// Grants remembers, for a request that carried personal data under a valid consent, which
// types the consent covered, so that the reply may carry them back to the requester. The
// gateway may share one store between its faces; NewGrants gives the in-memory one.
type Grants interface {
	Remember(requestID string, g Grant)
	Lookup(requestID string) (Grant, bool)
}

// Grant is what a request's consent let its reply carry back.
type Grant struct {
	Requester wire.Ref // the request's sender: the reply's recipient
	Responder wire.Ref // the request's recipient: the reply's sender
	Types     []string
	Expires   time.Time
}

// GateConfig configures a Gate. Scanner, Policy and Consents are required.
type GateConfig struct {
	// Scanner finds personal data and secrets. Required.
	Scanner *pii.Scanner
	// Policy holds the ceilings. Required.
	Policy *Policy
	// Consents verifies consent tokens (trust store, revocation list, clock). Required.
	Consents *consent.Verifier
	// Grants remembers what replies may carry back. Default: NewGrants(100000).
	Grants Grants
	// Counter counts blocks. Default: none.
	Counter Counter
	// TokenCache is how many parsed tokens whose signature checked are kept (only tokens that
	// verified fully are), so that a token used on many messages costs one signature check;
	// expiry, revocation and the rest are checked every time. Default 4096; negative disables
	// the cache.
	TokenCache int
	// Unscanned names the ext members that the gateways write and
	// consume themselves, never handing them on to an agent, and whose
	// contents they check member by member: digests, ids, signatures and
	// counts, which read as personal data by chance (a 13-digit time
	// beside a count reads as a national id). The gate does not scan
	// them. Default none.
	Unscanned []string
	// Now is the current time. Default time.Now.
	Now func() time.Time
}

// Gate is the check every message crosses at the boundary. It is safe for concurrent use.
type Gate struct {
	sc       *pii.Scanner
	policy   *Policy
	consents *consent.Verifier
	grants   Grants
	counter  Counter
	tokens   *lru.Cache[string, *consent.Token]
	now      func() time.Time
	// unscanned is GateConfig.Unscanned.
	unscanned []string
}

// NewGate builds a Gate.
func NewGate(cfg GateConfig) (*Gate, error) {
	if cfg.Scanner == nil || cfg.Policy == nil || cfg.Consents == nil {
		return nil, errors.New("classify: the gate needs a scanner, a policy and a consent verifier")
	}
	g := &Gate{sc: cfg.Scanner, policy: cfg.Policy, consents: cfg.Consents, grants: cfg.Grants,
		counter: cfg.Counter, now: cfg.Now, unscanned: cfg.Unscanned}
	if g.grants == nil {
		g.grants = NewGrants(100000)
	}
	if g.now == nil {
		g.now = time.Now
	}
	n := cfg.TokenCache
	if n == 0 {
		n = 4096
	}
	if n > 0 {
		g.tokens, _ = lru.New[string, *consent.Token](n)
	}
	return g, nil
}

// withoutUnscanned is tree without the ext members the gate does not scan
// (GateConfig.Unscanned); tree itself when it has none of them.
func (g *Gate) withoutUnscanned(tree wire.Value) wire.Value {
	if len(g.unscanned) == 0 {
		return tree
	}
	ext := tree.Get("ext")
	if ext.IsAbsent() {
		return tree
	}
	cut := ext
	for _, k := range g.unscanned {
		if !cut.Get(k).IsAbsent() {
			cut = cut.Without(k)
		}
	}
	if cut.Len() == ext.Len() {
		return tree
	}
	return tree.With("ext", cut)
}

// header lists the message members that are not content: they are checked by the decoder and
// the signature, not scanned. pii_meta is checked against the consent it carries.
func header(key string) bool {
	switch key {
	case "v", "id", "ts", "op", "from", "to", "cls", "sig", "re", "exp", "cap", "pii_meta":
		return true
	}
	return false
}

// proofClaims puts, in place of a consent message's p.proof, the text of
// the claims it signs. A consent token is a signed statement meant to be
// shown, but its base64 reads as secret material; what it says (who
// granted it, to whom, for what) is scanned as any other text. A proof
// that is not a consent token whose signature checks stays as it is, and is
// scanned as it is.
func proofClaims(tree wire.Value) wire.Value {
	p := tree.Get("p")
	proof, ok := p.Get("proof").Str()
	if !ok {
		return tree
	}
	t, err := consent.Parse(proof)
	if err != nil {
		return tree
	}
	claims := wire.ObjectValue(
		wire.Member{Key: "granted_by", Value: wire.StringValue(t.GrantedBy)},
		wire.Member{Key: "grantee", Value: wire.StringValue(t.Grantee)},
		wire.Member{Key: "purpose", Value: wire.StringValue(t.Purpose)})
	return tree.With("p", p.With("proof", claims))
}

// Check decides whether m may cross in direction d between this organisation and peer
// organisation peer. The local agent is m.From.Agent outbound and m.To.Agent inbound. The
// rules, in order:
//
//  1. The class must not exceed the peer's or the agent's ceiling, and must be listed by the
//     receiving side's hello (E_CLASSIFICATION).
//  2. Inbound conf, pii and sec must have arrived sealed (E_CLASSIFICATION).
//  3. Every string of the message outside its header is scanned. Secret material in anything
//     but sec is E_CLASSIFICATION.
//  4. Personal data, and any pii message, needs a pii or sec message whose pii_meta declares
//     the types and carries a consent issued by the sender's organisation to the recipient for
//     pii_meta.consent.purpose, covering every type found or declared (E_CONSENT, suggestion
//     request_consent with the missing types). A reply (re set) may carry back without a
//     consent of its own the types that its request's valid consent covered.
func (g *Gate) Check(ctx context.Context, m *wire.Message, d Direction, peer string, s *Session) Decision {
	return g.check(ctx, m, nil, d, peer, s)
}

// CheckTree is Check for a message whose tree the caller has at hand, as
// wire.Codec.CheckTree returns it: the message is not serialised again to
// be scanned. tree must be m as it is now.
func (g *Gate) CheckTree(ctx context.Context, m *wire.Message, tree wire.Value, d Direction, peer string, s *Session) Decision {
	return g.check(ctx, m, &tree, d, peer, s)
}

func (g *Gate) check(ctx context.Context, m *wire.Message, given *wire.Value, d Direction, peer string, s *Session) Decision {
	if s == nil {
		s = &Session{}
	}
	dec := Decision{Handling: Rules(m.Cls)}
	agent, supported := m.From.Agent, s.PeerSupported
	if d == Inbound {
		agent, supported = m.To.Agent, s.LocalSupported
	}
	if r := g.policy.allow(m.Cls, peer, agent, supported); r != 0 {
		err := classErr(r, m.Cls)
		if d == Outbound {
			// The refusal goes back to a local caller, who may change the
			// configuration: name the ceiling and how to raise it. A peer is
			// told only the rule.
			err = g.policy.explain(err, r, m.Cls, peer, agent)
		}
		return g.block(dec, d, r, err, nil)
	}
	if d == Inbound && dec.Handling.Encrypt && !s.Sealed {
		return g.block(dec, d, ReasonNotSealed, classErr(ReasonNotSealed, m.Cls), nil)
	}
	var tree wire.Value
	if given != nil {
		tree = *given
	} else {
		var err error
		if tree, err = m.Tree(); err != nil {
			return g.block(dec, d, ReasonInvalidClass, &wire.Error{Code: wire.ErrInternal, Message: "message has no tree", Err: err}, nil)
		}
	}
	if m.Op == wire.OpConsent {
		tree = proofClaims(tree)
	}
	tree = g.withoutUnscanned(tree)
	findings := g.sc.ScanTree("", tree, header)
	if len(findings) == 0 && m.Cls != wire.PII {
		dec.Allow = true
		return dec
	}
	sum := pii.Summarize(findings)
	if sum.Secret && m.Cls != wire.Sec {
		return g.block(dec, d, ReasonSecret, classErr(ReasonSecret, m.Cls), only(findings, pii.ClassSecret))
	}
	for _, t := range sum.Types {
		dec.Types = append(dec.Types, string(t))
	}
	need := slices.Clone(dec.Types)
	if m.PIIMeta != nil && (m.Cls == wire.PII || m.Cls == wire.Sec) {
		for _, t := range m.PIIMeta.Types {
			if !slices.Contains(need, t) {
				need = append(need, t)
			}
		}
	}
	// What a reply carries back to its requester needs no new consent.
	if m.Re != "" && len(need) > 0 {
		if gr, ok := g.grants.Lookup(m.Re); ok && gr.Requester == m.To && gr.Responder == m.From.Ref() && g.now().Before(gr.Expires) {
			need = slices.DeleteFunc(need, func(t string) bool { return slices.Contains(gr.Types, t) })
		}
	}
	if len(need) == 0 {
		dec.Allow = true
		return dec
	}
	slices.Sort(need)
	piiFound := only(findings, pii.ClassPII)
	if m.Cls != wire.PII && m.Cls != wire.Sec || m.PIIMeta == nil || m.PIIMeta.Consent == nil {
		e := &wire.Error{Code: wire.ErrConsent, Field: "cls", Message: "personal data needs cls pii with a consent in pii_meta",
			Suggestion: &wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: need}}
		return g.block(dec, d, ReasonNoConsent, e, piiFound)
	}
	if undeclared := missing(need, m.PIIMeta.Types); len(undeclared) > 0 {
		e := &wire.Error{Code: wire.ErrConsent, Field: "pii_meta.types", Message: "pii_meta.types does not declare every type of personal data found",
			Suggestion: &wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: undeclared}}
		return g.block(dec, d, ReasonConsentTypes, e, piiFound)
	}
	c := m.PIIMeta.Consent
	req := consent.Request{Issuer: m.From.Org, Grantee: m.To, Purpose: c.Purpose, Types: need}
	tok, cached, err := g.token(c.Proof)
	if err == nil {
		err = g.consents.Check(ctx, tok, req)
	}
	if err == nil && !cached && g.tokens != nil {
		// Only tokens that verified fully are kept, so that self-signed junk cannot crowd the
		// cache.
		g.tokens.Add(c.Proof, tok)
	}
	if err == nil && tok.GrantedBy != c.GrantedBy {
		err = &wire.Error{Code: wire.ErrConsent, Field: "pii_meta.consent.granted_by", Message: "granted_by differs from the consent's",
			Suggestion: &wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: need}}
	}
	if err == nil && d == Inbound && m.Re == "" {
		// A one-time consent is spent where the grantee receives the
		// data, once across every replica sharing the spender; a reply
		// under the request's grant never reaches here with one.
		err = g.consents.Use(ctx, &tok.Claims)
	}
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) {
			we = &wire.Error{Code: wire.ErrInternal, Message: "consent check failed", Err: err}
		}
		if we.Code == wire.ErrConsent && we.Suggestion == nil {
			c := *we
			c.Suggestion = &wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: need}
			we = &c
		}
		r := ReasonConsentInvalid
		if errors.Is(err, consent.ErrTypes) {
			r = ReasonConsentTypes
		}
		return g.block(dec, d, r, we, piiFound)
	}
	if m.Re == "" {
		g.grants.Remember(m.ID, Grant{Requester: m.From.Ref(), Responder: m.To, Types: tok.DataTypes,
			Expires: time.UnixMilli(tok.Expires)})
	}
	dec.Allow = true
	return dec
}

// token parses a proof, from the cache when it verified before.
func (g *Gate) token(proof string) (*consent.Token, bool, error) {
	if g.tokens != nil {
		if t, ok := g.tokens.Get(proof); ok {
			return t, true, nil
		}
	}
	t, err := consent.Parse(proof)
	return t, false, err
}

func (g *Gate) block(dec Decision, d Direction, r Reason, e *wire.Error, fs []pii.Finding) Decision {
	dec.Allow = false
	dec.Reason = r
	dec.Err = e
	dec.Findings = fs
	if g.counter != nil {
		g.counter.Blocked(r, d)
	}
	return dec
}

func only(fs []pii.Finding, c pii.Class) []pii.Finding {
	var out []pii.Finding
	for _, f := range fs {
		if f.Type.Class() == c {
			out = append(out, f)
		}
	}
	return out
}

func missing(need, have []string) []string {
	var out []string
	for _, t := range need {
		if !slices.Contains(have, t) {
			out = append(out, t)
		}
	}
	return out
}
