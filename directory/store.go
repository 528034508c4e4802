package directory

import (
	"context"
	"errors"
	"time"
)

// Errors of a Store. The register and discover layer answers them with the
// discovery error codes noted.
var (
	// ErrNotFound: no live entry the viewer may see (E_AGENT_NOT_FOUND).
	// Entries a viewer may not see are reported the same way, so their
	// existence does not leak.
	ErrNotFound = errors.New("directory: agent not found")
	// ErrExpired: the entry exists but its registration has expired
	// (E_REGISTRATION_EXPIRED).
	ErrExpired = errors.New("directory: registration expired")
	// ErrConflict: the live entry is bound to a different key than the
	// write expects (E_REGISTRATION_CONFLICT).
	ErrConflict = errors.New("directory: registration conflict")
	// ErrStale: the write is older than what the store holds.
	ErrStale = errors.New("directory: write older than the stored registration")
	// ErrBadCursor: the cursor is malformed or belongs to another query.
	ErrBadCursor = errors.New("directory: bad cursor")
)

// Store persists directory entries and liveness records. Implementations
// are safe for concurrent use, including by several processes sharing one
// database. Every read takes the store's clock for "now": expired entries
// are never returned.
type Store interface {
	// Put creates or replaces the entry e.ID(); see PutOptions for the
	// conditions. A tombstone (e.Removed) may be put too, which is how
	// registry sync applies a remote removal. Put returns the entry as
	// stored.
	//
	// Put fails with a *FieldError if e is invalid, ErrStale if the store
	// holds a newer write, ErrConflict if a live entry has another key and
	// the change is not an authorised rotation.
	Put(ctx context.Context, e *Entry, o PutOptions) (Entry, error)

	// Get returns the live entry id if v may see it, else ErrNotFound.
	Get(ctx context.Context, id ID, v Viewer) (Entry, error)

	// Delete replaces the entry with a tombstone carrying d's signed
	// bytes. It fails with ErrNotFound if there is no such entry or it is
	// already removed, ErrConflict if d.Key is set and is not the entry's
	// key, ErrStale if d is older than the stored registration.
	Delete(ctx context.Context, id ID, d Deletion) error

	// Renew moves the expiry of a live entry to expiresAt. It fails with
	// ErrNotFound if there is no entry, ErrConflict if key is not empty
	// and is not the entry's key, else ErrExpired if it has expired.
	Renew(ctx context.Context, id ID, key string, expiresAt time.Time) (Entry, error)

	// Search answers a discover query.
	Search(ctx context.Context, q *Query) (Page, error)

	// Capabilities lists the capabilities of the entries q.Viewer can find
	// by search, in byte order, with agent counts.
	Capabilities(ctx context.Context, q *CapabilityQuery) ([]CapabilityCount, error)

	// Changes lists the entries written since a time, for registry sync.
	Changes(ctx context.Context, q *ChangesQuery) (ChangePage, error)

	// RecordLiveness records one observation of agent id, registered or
	// not. An observation older than UptimeWindow is refused with
	// ErrStale.
	RecordLiveness(ctx context.Context, id ID, h Heartbeat) error

	// Liveness returns what is known of agent id's health, or ErrNotFound
	// if it was never observed (or not within UptimeWindow).
	Liveness(ctx context.Context, id ID) (Liveness, error)

	// Sweep deletes expired entries older than Options.ExpiredRetention,
	// tombstones that are no longer needed, and liveness records older
	// than UptimeWindow. Run it periodically (hourly is plenty).
	Sweep(ctx context.Context) (Swept, error)

	// PurgeOrg deletes every entry of org, removals included, and what is
	// known of its agents' liveness, and returns how many entries it
	// deleted. It is for an organisation this gateway no longer trusts:
	// the deletion is local, not a signed removal, and is not synced.
	PurgeOrg(ctx context.Context, org string) (int, error)

	// Ping checks that the storage answers, with a query on the path
	// that reads serve. It is what a gateway's readiness check asks.
	Ping(ctx context.Context) error

	// Close releases the store's resources.
	Close() error
}

// PutOptions are the conditions of a Put. Whatever they say, Put refuses
// a write older than the stored one (ErrStale).
type PutOptions struct {
	// RotateFrom authorises a key change: when the live entry is bound to
	// another key than e.PublicKey, the write proceeds only if that key is
	// RotateFrom (the caller checked that the change is signed by it or by
	// the org). Without it such a write fails with ErrConflict, and so it
	// does if the stored key is no longer RotateFrom.
	RotateFrom string
	// Update requires a live entry to replace: without one Put fails with
	// ErrNotFound, or ErrExpired if the entry has expired.
	Update bool
}

// Deletion is a signed removal.
type Deletion struct {
	Key      string    // the key the removal was authorised by; "" when the org signed it
	SignedAt time.Time // the signed message's timestamp
	Signed   []byte    // the signed message, kept for registry sync
}

// Swept counts what a Sweep deleted.
type Swept struct {
	Expired         int // expired entries
	Tombstones      int
	LivenessRecords int // hourly liveness records
	LivenessAgents  int // agents not observed within UptimeWindow
}

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Now returns the current time. Default time.Now.
	Now func() time.Time

	// ExpiredRetention is how long Sweep keeps an expired entry, so that a
	// late renew is told ErrExpired rather than ErrNotFound. Expired
	// entries are invisible all the same. Default 24 hours.
	ExpiredRetention time.Duration

	// TombstoneRetention is how long Sweep keeps a removal for registry
	// sync. A tombstone is also kept until the registration it removed
	// would have expired, so that a peer that missed the removal cannot
	// bring the entry back. Default 7 days.
	TombstoneRetention time.Duration
}

// Defaults of Options.
const (
	DefaultExpiredRetention   = 24 * time.Hour
	DefaultTombstoneRetention = 7 * 24 * time.Hour
)

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ExpiredRetention <= 0 {
		o.ExpiredRetention = DefaultExpiredRetention
	}
	if o.TombstoneRetention <= 0 {
		o.TombstoneRetention = DefaultTombstoneRetention
	}
	return o
}
