package directory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Registry sync: one registry pulls from another the entries written since
// a time. Each item of a page is the entry's attested record with its
// updated_at, the signed message behind it ("registration", the register
// message as received) and, for a removal, "removed": true:
//
//	{"entries":[{"agent_id":…,"org":…,…,"updated_at":…,"attestation":{…},
//	             "registration":{"v":"0.1","op":"register",…,"sig":…}},…],
//	 "next":"…"}
//
// The puller trusts nothing in an item that it cannot check: the entry is
// rebuilt from the signed registration, whose signature and identity
// certificate are checked against the puller's own trust store, and must
// match the record the peer attested; only the expiry (which renewals move)
// is taken from the peer's attestation, and no further than the puller's
// MaxTTL from now.

// SyncRequest is what registry.sync asks of a peer registry.
type SyncRequest struct {
	Since          time.Time // entries written at or after this (the peer's clock)
	Cursor         string    // the previous page's next
	Limit          int       // default DefaultChangesLimit, at most MaxChangesLimit
	IncludeRemoved bool      // removals too
}

// Params returns the request as the params of a registry.sync query:
// {"since":ms,"limit":n,"include_removed":b,"cursor":"…"}.
func (q *SyncRequest) Params() wire.Value {
	m := []wire.Member{{Key: "include_removed", Value: wire.BoolValue(q.IncludeRemoved)}}
	if !q.Since.IsZero() {
		m = append(m, wire.Member{Key: "since", Value: wire.IntValue(max(q.Since.UnixMilli(), 0))})
	}
	if q.Limit > 0 {
		m = append(m, wire.Member{Key: "limit", Value: wire.IntValue(int64(q.Limit))})
	}
	if q.Cursor != "" {
		m = append(m, wire.Member{Key: "cursor", Value: wire.StringValue(q.Cursor)})
	}
	return wire.ObjectValue(m...)
}

// ParseSyncRequest reads the params of a registry.sync query.
func ParseSyncRequest(v wire.Value) (SyncRequest, error) {
	var q SyncRequest
	if v.IsAbsent() {
		return q, nil
	}
	if v.Kind() != wire.Object {
		return q, wire.Errorf(wire.ErrSchema, "p.params", "want an object")
	}
	if s := v.Get("since"); !s.IsAbsent() {
		ms, ok := s.Int()
		if !ok || ms < 0 {
			return q, wire.Errorf(wire.ErrInvalidParam, "p.params.since", "want unix milliseconds")
		}
		q.Since = time.UnixMilli(ms)
	}
	if l := v.Get("limit"); !l.IsAbsent() {
		n, ok := l.Int()
		if !ok || n < 0 || n > MaxChangesLimit {
			return q, wire.Errorf(wire.ErrInvalidParam, "p.params.limit", "want 0 to %d", MaxChangesLimit)
		}
		q.Limit = int(n)
	}
	if c := v.Get("cursor"); !c.IsAbsent() {
		s, ok := c.Str()
		if !ok || len(s) > 512 {
			return q, wire.Errorf(wire.ErrInvalidParam, "p.params.cursor", "want the next of the previous page")
		}
		q.Cursor = s
	}
	if b := v.Get("include_removed"); !b.IsAbsent() {
		ok := false
		q.IncludeRemoved, ok = b.Bool()
		if !ok {
			return q, wire.Errorf(wire.ErrSchema, "p.params.include_removed", "want true or false")
		}
	}
	return q, nil
}

// Export answers registry.sync from the registry of organisation peer: the
// entries peer may see (never private ones, and restricted ones only if
// they name peer) written since q.Since, oldest first, each attested. The
// peer's own organisation's entries are left out: it holds them itself;
// so are those that hold personal data or secrets (see publishable). A
// page is kept under maxBytes (0: no bound) by taking fewer entries.
func (r *Registry) Export(ctx context.Context, q SyncRequest, peer string, maxBytes int) (wire.Value, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultChangesLimit
	}
	for {
		// An item is its registration and the record made of it, which
		// repeats no more than the profile: half the page's bytes for the
		// registrations keeps what is read near what is sent.
		page, err := r.store.Changes(ctx, &ChangesQuery{Since: q.Since, Cursor: q.Cursor, Limit: limit,
			IncludeRemoved: q.IncludeRemoved, Viewer: Viewer{Org: peer}, MaxBytes: maxBytes / 2})
		if err != nil {
			if errors.Is(err, ErrBadCursor) {
				return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p.params.cursor", "bad cursor")
			}
			return wire.Value{}, storeError(err)
		}
		items := make([]wire.Value, 0, len(page.Entries))
		size := 0
		for i := range page.Entries {
			e := &page.Entries[i]
			if e.Org == peer || len(e.Registration) == 0 || len(e.Registration) > MaxRegistration || !r.publishable(e, true) {
				continue
			}
			it, err := r.exportItem(e, peer)
			if err != nil {
				continue // a stored registration that no longer parses is not passed on
			}
			size += len(wire.AppendCanonical(nil, it))
			items = append(items, it)
		}
		if maxBytes > 0 && size > maxBytes && limit > 1 {
			limit /= 2
			continue
		}
		return wire.ObjectValue(
			wire.Member{Key: "entries", Value: wire.ArrayValue(items...)},
			wire.Member{Key: "next", Value: wire.StringValue(page.Next)}), nil
	}
}

func (r *Registry) exportItem(e *Entry, peer string) (wire.Value, error) {
	reg, err := wire.Parse(e.Registration, 0)
	if err != nil {
		return wire.Value{}, err
	}
	v, err := wire.ValueOf(r.Record(e, Viewer{Org: peer}, nil))
	if err != nil {
		return wire.Value{}, err
	}
	v = v.With("registration", reg)
	if e.Removed {
		v = v.With("removed", wire.BoolValue(true))
		if len(e.AllowedOrgs) > 0 {
			orgs := make([]wire.Value, len(e.AllowedOrgs))
			for i, o := range e.AllowedOrgs {
				orgs[i] = wire.StringValue(o)
			}
			v = v.With("allowed_orgs", wire.ArrayValue(orgs...))
		}
	}
	return v, nil
}

// Source is a peer registry entries are imported from: its organisation
// and that organisation's key, as this gateway pinned it.
type Source struct {
	Org string
	Key keys.Ed25519Public
}

// ImportResult says what an Import did with a page.
type ImportResult struct {
	Applied   int       // entries and removals written
	Unchanged int       // already held, or older than what is held
	Refused   []Refusal // items that failed a check; nothing of them was written
	Newest    time.Time // the latest updated_at on the page, on the peer's clock
	Next      string    // the page's cursor; "" at the end
}

// Refusal is one item an Import refused, and why.
type Refusal struct {
	Index int
	ID    string // agent@org as the item named it
	Err   error  // a *wire.Error
}

// Import applies a page of registry.sync from src. Each item must carry
// src's attestation, and a registration signed by the agent or its
// organisation that this registry would have accepted itself; the record
// src attested must match it. Items are refused, one by one, when they fail
// any check, when they are for this registry's own organisation (which no
// peer speaks for), or for an organisation other than src's that this
// registry does not trust. A removal signed by the agent's key is taken
// only for the key this registry holds: it carries no certificate.
// Conflicts between registrations are settled by their signed timestamps
// (see Store). Import fails as a whole only on a
// malformed page or a storage failure.
func (r *Registry) Import(ctx context.Context, page wire.Value, src Source) (ImportResult, error) {
	var res ImportResult
	items := page.Get("entries")
	if items.Kind() != wire.Array {
		return res, wire.Errorf(wire.ErrSchema, "entries", "want an array")
	}
	if n := page.Get("next"); !n.IsAbsent() {
		s, ok := n.Str()
		if !ok {
			return res, wire.Errorf(wire.ErrSchema, "next", "want a string")
		}
		res.Next = s
	}
	for i := 0; i < items.Len(); i++ {
		it := items.Index(i)
		if ms, ok := it.Get("updated_at").Int(); ok && time.UnixMilli(ms).After(res.Newest) {
			res.Newest = time.UnixMilli(ms)
		}
		applied, err := r.importItem(ctx, it, src)
		switch {
		case err == nil && applied:
			res.Applied++
		case err == nil:
			res.Unchanged++
		case code(err) == wire.ErrStorageUnavailable || code(err) == wire.ErrRegistryUnavailable || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			return res, err
		default:
			agent, _ := it.Get("agent_id").Str()
			org, _ := it.Get("org").Str()
			res.Refused = append(res.Refused, Refusal{Index: i, ID: agent + "@" + org, Err: err})
		}
	}
	return res, nil
}

func (r *Registry) importItem(ctx context.Context, it wire.Value, src Source) (bool, error) {
	now := r.now()
	removed, _ := it.Get("removed").Bool()
	a, err := attestedFrom(it)
	if err != nil {
		return false, err
	}
	if err := verifyAttested(it, &a, src.Org, src.Key); err != nil {
		return false, err
	}
	switch {
	case a.Org == r.cfg.Org:
		return false, wire.Errorf(wire.ErrAuthFailed, "org", "a peer does not speak for this registry's own organisation")
	case a.Org != src.Org && !r.cfg.Trust.Known(a.Org):
		return false, wire.Errorf(wire.ErrAuthFailed, "org", "%s may not speak for %s, which this registry does not trust", src.Org, a.Org)
	}
	regv := it.Get("registration")
	if regv.Kind() != wire.Object {
		return false, wire.Errorf(wire.ErrSignature, "registration", "missing signed registration")
	}
	m, err := r.cfg.Codec.Decode(wire.AppendCanonical(nil, regv))
	if err != nil {
		return false, err
	}
	if err := crypto.Verify(m); err != nil {
		return false, err
	}
	p, ok := m.Payload.(*wire.RegisterPayload)
	if !ok || m.From.Org != a.Org {
		return false, wire.Errorf(wire.ErrSignature, "registration", "not a registration by %s", a.Org)
	}
	auth, err := r.authorize(m, p, now)
	if err != nil {
		return false, err
	}
	if auth.target != (ID{Agent: a.AgentID, Org: a.Org}) {
		return false, wire.Errorf(wire.ErrSignature, "registration", "the registration is for another agent than the record")
	}
	// What is imported is published again, to this registry's own peers:
	// it is held to the rule of a registration received directly.
	if err := r.CheckContent(m); err != nil {
		var we *wire.Error
		if errors.As(err, &we) && we.Field != "" {
			c := *we
			c.Field = "registration." + we.Field
			err = &c
		}
		return false, err
	}
	if removed {
		return r.importRemoval(ctx, it, m, p, &a, auth)
	}
	if p.Action != "create" && p.Action != "update" {
		return false, wire.Errorf(wire.ErrSignature, "registration", "a live entry's registration must create or update it")
	}
	if !time.UnixMilli(a.ExpiresAt).After(now) {
		return false, nil // expired on the way: nothing to hold
	}
	e, opts, err := r.entryFrom(ctx, m, p, auth)
	if err != nil {
		return false, err
	}
	e.ExpiresAt = time.UnixMilli(min(a.ExpiresAt, now.Add(r.cfg.MaxTTL).UnixMilli()))
	if mine := AttestedOf(e); !mine.sameBinding(&a) {
		return false, wire.Errorf(wire.ErrSignature, "registration", "the attested record does not match its signed registration")
	}
	cur, err := r.store.Get(ctx, e.ID(), Viewer{Local: true})
	if err == nil && cur.SignedAt.UnixMilli() == e.SignedAt.UnixMilli() && bytes.Equal(cur.Registration, e.Registration) &&
		!cur.ExpiresAt.Before(e.ExpiresAt) {
		return false, nil
	}
	if _, err := r.store.Put(ctx, e, opts); err != nil {
		if errors.Is(err, ErrStale) {
			return false, nil
		}
		return false, storeError(err)
	}
	return true, nil
}

func (r *Registry) importRemoval(ctx context.Context, it wire.Value, m *wire.Message, p *wire.RegisterPayload, a *Attested, auth authority) (bool, error) {
	if p.Action != "delete" {
		return false, wire.Errorf(wire.ErrSignature, "registration", "a removal's registration must delete")
	}
	if !auth.org && m.From.Key.String() != a.PublicKey {
		return false, wire.Errorf(wire.ErrSignature, "registration", "the removal is not signed by the entry's key or its organisation")
	}
	var opts PutOptions
	cur, err := r.store.Get(ctx, auth.target, Viewer{Local: true})
	switch {
	case err != nil && !errors.Is(err, ErrNotFound):
		return false, storeError(err)
	case auth.org:
		if err == nil {
			opts.RotateFrom = cur.PublicKey
		}
	case err != nil:
		// A key is the agent's only as its organisation certified it, and
		// a removal carries no certificate: only a key held here speaks
		// for the agent. Any other could be the peer's own, stamped ahead
		// to make the agent's genuine registrations look older.
		return false, nil
	case cur.PublicKey != a.PublicKey:
		return false, storeError(ErrConflict)
	}
	vis := Unlisted
	if v, _ := it.Get("visibility").Str(); v == string(Public) {
		vis = Public
	}
	// Nothing the peer attests is held longer than this registry's own
	// registrations would be.
	until := min(a.ExpiresAt, r.now().Add(r.cfg.MaxTTL).UnixMilli())
	e := &Entry{AgentID: a.AgentID, Org: a.Org, PublicKey: a.PublicKey, Visibility: vis,
		ExpiresAt: time.UnixMilli(until), SignedAt: time.UnixMilli(m.TS), Removed: true}
	for _, o := range it.Get("allowed_orgs").Elems() {
		if s, ok := o.Value.Str(); ok {
			e.AllowedOrgs = append(e.AllowedOrgs, s)
		}
	}
	if e.Registration, err = registration(m); err != nil {
		return false, err
	}
	seen := sha256.Sum256(e.Registration)
	if r.removals.Contains(seen) {
		return false, nil
	}
	if _, err := r.store.Put(ctx, e, opts); err != nil {
		if errors.Is(err, ErrStale) {
			r.removals.Add(seen, struct{}{})
			return false, nil
		}
		return false, storeError(err)
	}
	r.removals.Add(seen, struct{}{})
	return true, nil
}

// verifyAttested checks the attestation of a record whose attested fields
// are a, without regard to expiry.
func verifyAttested(rec wire.Value, a *Attested, registry string, key keys.Ed25519Public) error {
	att := rec.Get("attestation")
	if t, _ := att.Get("type").Str(); t != AttestationType {
		return wire.Errorf(wire.ErrSignature, "attestation.type", "not a registry attestation")
	}
	if r, _ := att.Get("registry").Str(); r != registry {
		return wire.Errorf(wire.ErrSignature, "attestation.registry", "attested by another registry than %s", registry)
	}
	sigText, _ := att.Get("signature").Str()
	sig, err := keys.ParseSignature(sigText)
	if err != nil {
		return wire.Errorf(wire.ErrSignature, "attestation.signature", "missing or malformed registry signature")
	}
	if !key.Verify(a.SigningBytes(registry), sig) {
		return wire.Errorf(wire.ErrSignature, "attestation.signature", "the registry's signature does not verify")
	}
	return nil
}
