package directory

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// Defaults of RegistryConfig.
const (
	DefaultMinTTL = time.Minute
	DefaultMaxTTL = 24 * time.Hour
	// MaxProfileBytes bounds a registration's profile (its RFC 8785 form).
	MaxProfileBytes = 64 << 10
)

// ExtIdentity is the message extension that carries the sender's identity
// certificate ({"cert":{…}}), as the gateway sends it; a registration may
// carry the certificate there or in p.identity_cert.
const ExtIdentity = "moltgate.identity"

// RegistryConfig configures a Registry. Store, Org, Key and Trust are
// required; every other field has a default.
type RegistryConfig struct {
	// Store holds the entries.
	Store Store
	// Org is the registry's organisation. Attestations name it.
	Org string
	// Key is the registry's signing key (its organisation's key): it
	// signs attestations.
	Key keys.Ed25519Private
	// Trust holds the organisations whose agents may register here, with
	// their keys, which check identity certificates and org-signed
	// registrations. The registry's own organisation belongs in it.
	Trust *identity.TrustStore
	// Open admits organisations Trust does not know: their agents
	// register with self-signed messages, bound to the first key that
	// registers (trust on first use), and are listed as not verified.
	// Default false: only the agents of trusted organisations register.
	Open bool
	// MinTTL and MaxTTL bound a registration's ttl. A register message
	// without ttl gets MaxTTL. Defaults DefaultMinTTL and DefaultMaxTTL.
	MinTTL, MaxTTL time.Duration
	// Codec decodes registrations read back for registry sync. Default:
	// a codec with wire.DefaultLimits.
	Codec *wire.Codec
	// Scanner finds personal data and secrets in registrations (see
	// CheckContent); give it the gate's. Default: pii.New(nil).
	Scanner *pii.Scanner
	// Logger is told of the entries withheld from other organisations
	// because they hold personal data or secrets. Default: slog.Default().
	Logger *slog.Logger
	// Now is the clock; give the store the same one. Default time.Now.
	Now func() time.Time
}

// Registry is the directory's service: it checks signed registrations
// before they reach the store, answers discovery with attested records,
// records liveness, and exports and imports entries for registry sync.
// Every error it returns is a *wire.Error with the discovery protocol's
// code. It is safe for concurrent use.
type Registry struct {
	cfg   RegistryConfig
	store Store
	sc    *pii.Scanner
	log   *slog.Logger
	now   func() time.Time
	sigs  *lru.Cache[[32]byte, keys.Signature] // attestations already made
	// verdicts remembers, by contentSum, whether an entry's content may
	// leave this gateway.
	verdicts *lru.Cache[uint64, bool]
	seed     maphash.Seed
	// removals remembers the removals sync applied lately, so that the
	// same removal arriving from several peers is written once.
	removals *lru.Cache[[32]byte, struct{}]
}

// NewRegistry checks cfg and makes a Registry.
func NewRegistry(cfg RegistryConfig) (*Registry, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("new registry: no store")
	case !validName(cfg.Org):
		return nil, errors.New("new registry: bad org name")
	case cfg.Trust == nil:
		return nil, errors.New("new registry: no trust store")
	case !cfg.Trust.Trusts(cfg.Org, cfg.Key.Public()):
		return nil, errors.New("new registry: the trust store does not hold the registry's own key")
	}
	if cfg.MinTTL <= 0 {
		cfg.MinTTL = DefaultMinTTL
	}
	if cfg.MaxTTL <= 0 {
		cfg.MaxTTL = DefaultMaxTTL
	}
	if cfg.MinTTL > cfg.MaxTTL {
		return nil, errors.New("new registry: MinTTL exceeds MaxTTL")
	}
	if cfg.Codec == nil {
		cfg.Codec = wire.NewCodec(wire.DefaultLimits())
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Scanner == nil {
		sc, err := pii.New(nil)
		if err != nil {
			return nil, fmt.Errorf("new registry: %w", err)
		}
		cfg.Scanner = sc
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	sigs, _ := lru.New[[32]byte, keys.Signature](8192)
	removals, _ := lru.New[[32]byte, struct{}](4096)
	verdicts, _ := lru.New[uint64, bool](16384)
	return &Registry{cfg: cfg, store: cfg.Store, sc: cfg.Scanner, log: cfg.Logger, now: cfg.Now, sigs: sigs,
		removals: removals, verdicts: verdicts, seed: maphash.MakeSeed()}, nil
}

// Org returns the registry's organisation.
func (r *Registry) Org() string { return r.cfg.Org }

// Store returns the registry's store.
func (r *Registry) Store() Store { return r.store }

// Receipt is the answer to a register message.
type Receipt struct {
	Action string
	ID     ID
	// Entry is the entry as stored; for a delete, the zero Entry.
	Entry Entry
	// Record is the attested entry; nil for a delete.
	Record *Record
}

// Data returns the receipt as the data of the registry's respond message:
//
//	{"status":"success","action":"create","agent_id":"echo","org":"globex",
//	 "expires_at":1800086400000,"registry_attestation":{…record…}}
//
// registry_attestation is the attested record, as discovery returns it;
// a delete's receipt has neither it nor expires_at.
func (rc *Receipt) Data() wire.Value {
	m := []wire.Member{
		{Key: "status", Value: wire.StringValue("success")},
		{Key: "action", Value: wire.StringValue(rc.Action)},
		{Key: "agent_id", Value: wire.StringValue(rc.ID.Agent)},
		{Key: "org", Value: wire.StringValue(rc.ID.Org)},
	}
	if rc.Record != nil {
		rec, _ := wire.ValueOf(rc.Record)
		m = append(m, wire.Member{Key: "expires_at", Value: wire.IntValue(rc.Record.ExpiresAt)},
			wire.Member{Key: "registry_attestation", Value: rec})
	}
	return wire.ObjectValue(m...)
}

// Register applies a register message: create, update, renew or delete.
//
// The message must be signed, by the agent's own key or by a trusted key of
// the agent's organisation (its gateway), and names its organisation in
// from.org; an organisation registers only its own agents. Create and
// update must carry an identity certificate from that organisation for the
// key being registered (in p.identity_cert or the moltgate.identity
// extension), except when the organisation's key itself signs for itself,
// and except in an Open registry for organisations it does not know.
//
// The entry is bound to its key: a write under another key is
// E_REGISTRATION_CONFLICT unless it is signed by the old key (key
// rotation) or by the organisation; for an entry that an anonymous caller
// could not look up, it is answered as if there were no entry, since the
// signer is not known to belong to the organisation. A renew or update of
// an expired entry is E_REGISTRATION_EXPIRED; of an unknown one,
// E_AGENT_NOT_FOUND. A profile that fails validation, or a ttl out of
// bounds, is E_INVALID_PROFILE naming the field; a create, update or
// delete larger than MaxRegistration, E_TOO_LARGE. A message that carries
// personal data or secret material is refused (see CheckContent); a renew
// is not kept, and is not scanned.
func (r *Registry) Register(ctx context.Context, m *wire.Message) (Receipt, error) {
	p, ok := m.Payload.(*wire.RegisterPayload)
	if !ok || m.Op != wire.OpRegister {
		return Receipt{}, wire.Errorf(wire.ErrInvalidParam, "op", "not a register message")
	}
	if err := crypto.Verify(m); err != nil {
		return Receipt{}, err
	}
	now := r.now()
	auth, err := r.authorize(m, p, now)
	if err != nil {
		return Receipt{}, err
	}
	if p.Action != "renew" {
		if err := r.CheckContent(m); err != nil {
			return Receipt{}, err
		}
	}
	rc := Receipt{Action: p.Action, ID: auth.target}
	switch p.Action {
	case "delete":
		signed, err := registration(m)
		if err != nil {
			return Receipt{}, err
		}
		d := Deletion{SignedAt: time.UnixMilli(m.TS), Signed: signed}
		if !auth.org {
			d.Key = m.From.Key.String()
		}
		if err := r.store.Delete(ctx, auth.target, d); err != nil {
			return Receipt{}, r.keyError(ctx, auth, err)
		}
		return rc, nil
	case "renew":
		ttl, err := r.ttl(p.TTL)
		if err != nil {
			return Receipt{}, err
		}
		key := ""
		if !auth.org {
			key = m.From.Key.String()
		}
		until := now.Add(ttl)
		if !auth.org {
			if until, err = r.certBound(ctx, auth.target, key, now, until); err != nil {
				return Receipt{}, err
			}
		}
		e, err := r.store.Renew(ctx, auth.target, key, until)
		if err != nil {
			return Receipt{}, r.keyError(ctx, auth, err)
		}
		rc.Entry = e
	case "create", "update":
		ttl, err := r.ttl(p.TTL)
		if err != nil {
			return Receipt{}, err
		}
		e, opts, err := r.entryFrom(ctx, m, p, auth)
		if err != nil {
			return Receipt{}, err
		}
		e.ExpiresAt = now.Add(ttl)
		if !auth.org && auth.cert != nil {
			// An agent's own word keeps its entry verified only while the
			// certificate it gives does.
			if exp := time.UnixMilli(auth.cert.Expires); exp.Before(e.ExpiresAt) {
				e.ExpiresAt = exp
			}
		}
		opts.Update = p.Action == "update"
		stored, err := r.store.Put(ctx, e, opts)
		if err != nil {
			return Receipt{}, storeError(err)
		}
		rc.Entry = stored
	default:
		return Receipt{}, wire.Errorf(wire.ErrInvalidParam, "p.action", "want create, update, renew or delete")
	}
	rec := r.Record(&rc.Entry, Viewer{Local: true}, nil)
	rc.Record = &rec
	return rc, nil
}

// keyError answers a write that the store refused, err. Whoever signs
// with another key than the entry's is not known to belong to its
// organisation, and learns that the entry exists only if an anonymous
// caller could look it up: any other entry is answered as if it did not
// exist.
func (r *Registry) keyError(ctx context.Context, a authority, err error) error {
	if a.org || !errors.Is(err, ErrConflict) {
		return storeError(err)
	}
	if _, gerr := r.store.Get(ctx, a.target, Viewer{}); errors.Is(gerr, ErrNotFound) {
		return storeError(ErrNotFound)
	}
	return storeError(err)
}

// certBound is until, or sooner the expiry of the identity certificate an
// agent's verified entry was registered with, for a renew the agent signs
// itself with key: its own word cannot keep the entry verified past what its
// organisation certified. A certificate that has expired is E_AUTH_FAILED:
// the agent registers again (update) with a fresh one. Anything else (no
// entry, another key, an unverified entry) is left to the store's answer.
func (r *Registry) certBound(ctx context.Context, id ID, key string, now, until time.Time) (time.Time, error) {
	e, err := r.store.Get(ctx, id, Viewer{Local: true})
	if err != nil || e.PublicKey != key || !e.Verified || len(e.Registration) == 0 {
		return until, nil
	}
	m, err := r.cfg.Codec.Decode(e.Registration)
	if err != nil {
		return until, nil
	}
	p, ok := m.Payload.(*wire.RegisterPayload)
	if !ok {
		return until, nil
	}
	c, err := identity.ParseCert(identityCert(m, p))
	if err != nil {
		return until, nil
	}
	exp := time.UnixMilli(c.Expires)
	if !exp.After(now) {
		return until, wire.Errorf(wire.ErrAuthFailed, "p.identity_cert",
			"the identity certificate %s was registered with has expired", id).
			WithSuggestion(wire.Suggestion{Action: wire.ActionRetry, Fix: "register again (update) with a fresh identity certificate from the organisation"})
	}
	if exp.Before(until) {
		return exp, nil
	}
	return until, nil
}

// identityCert is the identity certificate register message m carries:
// in its payload, or else in its identity extension.
func identityCert(m *wire.Message, p *wire.RegisterPayload) wire.Value {
	if !p.IdentityCert.IsAbsent() {
		return p.IdentityCert
	}
	return m.Ext.Get(ExtIdentity).Get("cert")
}

// authority is who may do what a register message asks.
type authority struct {
	target ID
	// org: the message is signed with a trusted key of the target's
	// organisation, which may act on any of its agents.
	org bool
	// cert is the verified identity certificate the message carries for
	// the target, if any.
	cert *identity.Cert
	// known: the target's organisation is in the trust store.
	known bool
}

// authorize works out the target of a register message and the authority
// behind it. It does not yet know the entry's key: entryFrom checks the
// certificate against it.
func (r *Registry) authorize(m *wire.Message, p *wire.RegisterPayload, now time.Time) (authority, error) {
	a := authority{target: ID{Agent: m.From.Agent, Org: m.From.Org}}
	if p.Profile != nil && p.Profile.AgentID != "" {
		a.target.Agent = p.Profile.AgentID
	}
	a.org = r.cfg.Trust.Trusts(m.From.Org, m.From.Key)
	a.known = r.cfg.Trust.Known(m.From.Org)
	self := m.From.Agent == a.target.Agent
	if !a.known && !r.cfg.Open {
		return a, wire.Errorf(wire.ErrAuthFailed, "from.org", "organisation %s is not trusted by this registry", m.From.Org)
	}
	if !a.org && !self {
		return a, wire.Errorf(wire.ErrAuthFailed, "p.profile.agent_id", "an agent registers itself only; its organisation's key registers any of its agents")
	}
	cv := identityCert(m, p)
	if cv.IsAbsent() || !a.known {
		// An organisation this registry does not know has no key to
		// check a certificate with: its agents are unverified.
		return a, nil
	}
	c, err := identity.ParseCert(cv)
	if err != nil {
		return a, wire.Errorf(wire.ErrAuthFailed, "p.identity_cert", "malformed identity certificate")
	}
	if c.Ref() != (wire.Ref{Agent: a.target.Agent, Org: a.target.Org}) {
		return a, wire.Errorf(wire.ErrAuthFailed, "p.identity_cert", "the identity certificate is for another agent")
	}
	if err := r.cfg.Trust.VerifyIdentity(c, now); err != nil {
		return a, err
	}
	a.cert = c
	return a, nil
}

// entryFrom builds the entry a create or update message describes, and the
// conditions of its write. SignedAt and Registration come from the
// message; ExpiresAt is left to the caller.
func (r *Registry) entryFrom(ctx context.Context, m *wire.Message, p *wire.RegisterPayload, a authority) (*Entry, PutOptions, error) {
	var opts PutOptions
	pr := p.Profile
	if pr == nil {
		return nil, opts, wire.Errorf(wire.ErrInvalidProfile, "p.profile", "required for %s", p.Action)
	}
	if raw := m.Raw(); raw == nil || len(raw) > MaxProfileBytes {
		// Only a message that large can hold a profile that large.
		if t, err := m.Tree(); err != nil || len(wire.AppendCanonical(nil, t.Get("p").Get("profile"))) > MaxProfileBytes {
			return nil, opts, wire.Errorf(wire.ErrInvalidProfile, "p.profile", "larger than %d bytes", MaxProfileBytes)
		}
	}
	self := m.From.Agent == a.target.Agent
	key := pr.PublicKey
	switch {
	case !key.IsZero():
	case a.cert != nil:
		key = a.cert.Key
	case self:
		key = m.From.Key
	default:
		return nil, opts, wire.Errorf(wire.ErrInvalidProfile, "p.profile.public_key", "required when the organisation registers an agent")
	}
	verified := false
	switch {
	case a.cert != nil:
		if !a.cert.Key.Equal(key) {
			return nil, opts, wire.Errorf(wire.ErrAuthFailed, "p.identity_cert", "the identity certificate is for another key than the one registered")
		}
		verified = true
	case a.org && key.Equal(m.From.Key):
		// The organisation's own key, registering itself.
		verified = true
	case a.known:
		return nil, opts, wire.Errorf(wire.ErrAuthFailed, "p.identity_cert", "a registration needs an identity certificate from %s for the key it registers", a.target.Org)
	}
	e := &Entry{
		AgentID: a.target.Agent, Org: a.target.Org, Name: pr.Name, Description: pr.Description,
		PublicKey: key.String(), Capabilities: pr.Capabilities, Tags: pr.Tags,
		Visibility: Visibility(pr.Visibility), AllowedOrgs: pr.AllowedOrgs, Verified: verified,
		SignedAt: time.UnixMilli(m.TS),
	}
	if e.Visibility == "" {
		e.Visibility = Public
	}
	if pr.Endpoint != nil {
		e.Endpoint = Endpoint{URL: pr.Endpoint.URL, Transport: pr.Endpoint.Transport, WebSocket: pr.Endpoint.WebSocket}
	}
	switch {
	case !pr.EncryptionKey.IsZero():
		e.EncryptionKey = pr.EncryptionKey.String()
	case key.Equal(m.From.Key) && !m.From.EncKey.IsZero():
		e.EncryptionKey = m.From.EncKey.String()
	}
	if !pr.Metadata.IsAbsent() {
		if pr.Metadata.Kind() != wire.Object {
			return nil, opts, wire.Errorf(wire.ErrInvalidProfile, "p.profile.metadata", "want a JSON object")
		}
		e.Metadata = wire.AppendCanonical(nil, pr.Metadata)
	}
	var err error
	if e.Registration, err = registration(m); err != nil {
		return nil, opts, err
	}
	// Validate now for the field names; the store checks again.
	e.ExpiresAt = time.UnixMilli(m.TS).Add(time.Hour)
	if err := e.Validate(); err != nil {
		return nil, opts, storeError(err)
	}
	// Who may write over what is held. The store checks the entry's key
	// against the held one under its lock, but it does not see the
	// signer. A registration signed by the key it registers needs nothing
	// more: the store refuses it if another key is held. Any other write
	// is checked against the held entry here.
	if !a.org && key.Equal(m.From.Key) {
		return e, opts, nil
	}
	cur, err := r.store.Get(ctx, a.target, Viewer{Local: true})
	live := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, opts, storeError(err)
	}
	if live && !a.org && cur.PublicKey != m.From.Key.String() && !(Viewer{}).Sees(&cur) {
		// As in keyError: a signer of another key learns of no entry
		// that an anonymous caller could not look up.
		live = false
	}
	switch {
	case a.org:
		// The organisation may move its agent to any key.
		if live {
			opts.RotateFrom = cur.PublicKey
		}
	case !live:
		return nil, opts, wire.Errorf(wire.ErrAuthFailed, "p.profile.public_key", "a new registration is signed by the key it registers, or by the organisation")
	case cur.PublicKey != m.From.Key.String():
		return nil, opts, wire.Errorf(wire.ErrRegistrationConflict, "from.key", "the agent is registered with another key; sign the change with that key or the organisation's")
	default:
		// Key rotation, signed by the old key; the store checks under
		// its lock that the old key is still the one held.
		opts.RotateFrom = m.From.Key.String()
	}
	return e, opts, nil
}

// registration returns the bytes of register message m that are kept,
// and published to every organisation that may see the entry.
func registration(m *wire.Message) ([]byte, error) {
	b, err := m.AppendWire(nil)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxRegistration {
		return nil, wire.Errorf(wire.ErrTooLarge, "", "a registration of %d bytes: one that is kept is at most %d", len(b), MaxRegistration)
	}
	return b, nil
}

// ttl reads a registration's ttl in milliseconds; 0 means MaxTTL.
func (r *Registry) ttl(ms int64) (time.Duration, error) {
	if ms == 0 {
		return r.cfg.MaxTTL, nil
	}
	d := time.Duration(ms) * time.Millisecond
	if ms < 0 || d < r.cfg.MinTTL || d > r.cfg.MaxTTL || ms > int64(r.cfg.MaxTTL/time.Millisecond) {
		return 0, wire.Errorf(wire.ErrInvalidProfile, "p.ttl", "want milliseconds from %d to %d", r.cfg.MinTTL.Milliseconds(), r.cfg.MaxTTL.Milliseconds())
	}
	return d, nil
}

// storeError turns a store's error into the protocol's.
func storeError(err error) error {
	var fe *FieldError
	var we *wire.Error
	switch {
	case errors.As(err, &we):
		return we
	case errors.As(err, &fe):
		return wire.Errorf(wire.ErrInvalidProfile, wireField(fe.Field), "%s", fe.Reason)
	case errors.Is(err, ErrNotFound):
		return wire.Errorf(wire.ErrAgentNotFound, "", "no such agent in this registry")
	case errors.Is(err, ErrExpired):
		return wire.Errorf(wire.ErrRegistrationExpired, "", "the registration has expired; register again")
	case errors.Is(err, ErrConflict):
		return wire.Errorf(wire.ErrRegistrationConflict, "from.key", "the agent is registered with another key; sign the change with that key or the organisation's")
	case errors.Is(err, ErrStale):
		return wire.Errorf(wire.ErrRegistrationConflict, "ts", "a newer registration of this agent is held")
	case errors.Is(err, ErrBadCursor):
		return wire.Errorf(wire.ErrInvalidParam, "p.cursor", "bad cursor")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return wire.StorageUnavailable("directory", err)
}

// wireField names an entry's field as the register message has it.
func wireField(f string) string {
	switch {
	case f == "org":
		return "from.org"
	case f == "signed_at":
		return "ts"
	case f == "expires_at":
		return "p.ttl"
	case f == "registration":
		return ""
	}
	return "p.profile." + f
}

// ProfileError rewrites a decoding failure inside a register message's
// profile (a malformed key, a bad capability name) as E_INVALID_PROFILE,
// the code the discovery protocol gives a bad profile. Other errors are
// returned as they are.
func ProfileError(we *wire.Error) *wire.Error {
	if we == nil || we.Code == wire.ErrInvalidProfile {
		return we
	}
	if we.Field != "p.profile" && !strings.HasPrefix(we.Field, "p.profile.") && !strings.HasPrefix(we.Field, "p.profile[") {
		return we
	}
	switch we.Code {
	case wire.ErrInvalidParam, wire.ErrSchema, wire.ErrMissingField:
		c := *we
		c.Code = wire.ErrInvalidProfile
		c.Suggestion = nil
		return &c
	}
	return we
}

// attest signs a's form, remembering recent signatures: discovery answers
// the same entries again and again.
func (r *Registry) attest(a *Attested) Attestation {
	b := a.SigningBytes(r.cfg.Org)
	h := sha256.Sum256(b)
	sig, ok := r.sigs.Get(h)
	if !ok {
		sig = r.cfg.Key.Sign(b)
		r.sigs.Add(h, sig)
	}
	return Attestation{Type: AttestationType, Registry: r.cfg.Org, Key: r.cfg.Key.Public(), Signature: sig}
}
