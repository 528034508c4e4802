package revoke

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/ownfile"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// Route is where a gateway serves its own revocation list.
const Route = "/registry/v1/revocations"

// Retrying a peer's revocation list that could not be fetched: not more
// often than this, and in any case every PullEvery.
const (
	refetchAfter = 30 * time.Second
	// PullEvery is how often every peer's list is fetched (PullAll):
	// what a push missed arrives within it.
	PullEvery    = time.Minute
	fetchTimeout = 5 * time.Second
)

// Sessions are the handshake sessions held with peers.
type Sessions interface {
	// RemoveOrg ends the sessions with org and says how many ended.
	RemoveOrg(org string) int
	// Len is the number of sessions held.
	Len() int
	// CountByOrg is the number of sessions held with each organisation.
	CountByOrg() map[string]int
}

// Peers are the imported peers and the calls to them (a *peers.Table).
type Peers interface {
	Get(org string) *peers.Remote
	All() []*peers.Remote
	CallAsGateway(ctx context.Context, ps *peers.Remote, m *wire.Message, onMsg func(*wire.Message) (done bool, err error)) error
}

// Config is what the room needs. Every field is required unless it says
// otherwise.
type Config struct {
	// Self is gateway@org: its org key signs the organisation's list and
	// it sends the security_alerts.
	Self identity.Holder
	// OwnPath is the organisation's own list, DIR/revocations.json.
	OwnPath string
	// Pending returns the org keys a rotation has made that the gateway
	// does not sign with yet (its handover is on its way to the peers):
	// a list signed under one of them waits for the switch, and is not
	// refused. Default none.
	Pending func() []keys.Ed25519Public
	// BookDir is where the peers' lists are kept, DIR/data/revocations.
	BookDir string
	// StatusPath is the file moltgate peer list reads,
	// DIR/data/peers.json.
	StatusPath string
	// MessageBytes bounds a peer's list as fetched.
	MessageBytes int
	// Peers are the imported peers and the calls to them.
	Peers Peers
	// Sessions are the handshake sessions, ended for a peer whose list
	// revokes something new.
	Sessions Sessions
	// Store is the directory the revoked agents' entries leave.
	Store directory.Store
	// SessionsChanged is told the number of sessions held after some
	// ended. Default: nothing.
	SessionsChanged func(n int)
	// Go runs f in the background, tracked so that shutdown waits for it.
	Go func(f func())
	// Base is the context of the background fetches, cancelled at
	// shutdown.
	Base context.Context
	Log  *slog.Logger
	// Rand is the source of the security_alerts' ids.
	Rand io.Reader
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Lists is what the gateway holds of revocations: its own list, which it
// serves and pushes, and the book of its peers' lists, which it enforces;
// and what peer list reports of each peer.
type Lists struct {
	cfg Config
	// own is the organisation's own list as DIR/revocations.json has it,
	// checked under the org key in use.
	own *ownfile.File[*revocation.List]
	// pushed is the serial of the list last pushed to the peers; the
	// watch loop's own.
	pushed    int64
	book      *revocation.Book
	contacts  sync.Map // org → *atomic.Int64, unix ms of the last message
	learnt    sync.Map // org → *learning
	statusOut string   // the status last written, less its time
	statusAt  time.Time
}

// ListError is the organisation's own list at Config.OwnPath that could
// not be read.
type ListError struct{ Err error }

func (e *ListError) Error() string { return e.Err.Error() }
func (e *ListError) Unwrap() error { return e.Err }

// New reads the organisation's own revocation list and the book of its
// peers' lists. A list that does not read is a *ListError.
func New(cfg Config) (*Lists, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SessionsChanged == nil {
		cfg.SessionsChanged = func(int) {}
	}
	k := &Lists{cfg: cfg}
	self := cfg.Self.Current()
	own, err := revocation.LoadFile(cfg.OwnPath, self.Ref.Org, self.Signing.Public())
	if err != nil {
		return nil, &ListError{err}
	}
	if own.Serial == 0 {
		// Nothing revoked yet: the empty list is served signed all the
		// same, so that a peer can tell it from a forgery.
		if err := own.Sign(self.Signing); err != nil {
			return nil, err
		}
	}
	k.own = ownfile.New(ownfile.Config[*revocation.List]{
		Path: cfg.OwnPath,
		Read: func(path string) (*revocation.List, error) {
			self := cfg.Self.Current()
			return revocation.LoadFile(path, self.Ref.Org, self.Signing.Public())
		},
		// The list only grows; a key rotation signs it again under
		// the new key, a serial higher.
		Take:    func(held, next *revocation.List) bool { return next.Serial > held.Serial },
		Basis:   func() string { return cfg.Self.Current().Signing.Public().String() },
		Marshal: (*revocation.List).Marshal,
		Failed:  k.ownFailed,
		Taken: func(l *revocation.List) {
			cfg.Log.Warn("revocation list updated", "serial", l.Serial, "entries", len(l.Entries))
		},
	}, own)
	k.pushed = own.Serial
	if k.book, err = revocation.OpenBook(cfg.BookDir); err != nil {
		return nil, err
	}
	return k, nil
}

// CheckPeer is the pipeline's hook for every message of a peer
// organisation: it notes the contact, learns the peer's revocation list
// first if it has not since it started, and refuses a message signed with
// a key the list revokes, in a session or not.
func (k *Lists) CheckPeer(ctx context.Context, m *wire.Message, inSession bool) error {
	org := m.From.Org
	k.noteContact(org)
	// The error is looked into only when there is one: errors.As's target
	// is allocated wherever it is declared, and this runs for every message.
	if err := k.learn(ctx, org); err != nil && !inSession {
		var bad *badListError
		if errors.As(err, &bad) {
			// Outside a session anyone holding a stolen key can send; a list
			// the peer's registry serves that does not hold (forged, older
			// than the one held, two lists of one serial) may be hiding a
			// revocation. In a session the peer's own gateway sends, and it
			// enforces its own list. A registry that cannot be reached is
			// tried again after refetchAfter, and every PullEvery; meanwhile
			// messages are taken against the list held.
			return wire.Errorf(wire.ErrSignature, "from.org", "the revocation list %s serves does not hold (%v): send in a session", org, bad.err)
		}
	}
	if e, ok := k.book.AgentKey(org, m.From.Key); ok {
		return wire.Errorf(wire.ErrAuthFailed, "from.key", "the key of %s is revoked by %s (revocation list serial %d, since %s)",
			m.From.Ref(), org, k.book.Serial(org), time.UnixMilli(e.Effective).UTC().Format(time.RFC3339))
	}
	return nil
}

// CertRevoked says whether org's list, as held, revokes the certificate
// of kind ("identity_cert" or "capability_cert") whose digest is
// digest(), and since when: the trust store's identity.Revoked hook, so
// that every check of a peer's certificate, in a handshake, outside a
// session or for a capability, refuses one its organisation revoked.
func (k *Lists) CertRevoked(org, kind string, digest func() string) (int64, bool) {
	e, ok := k.book.Material(org, revocation.Kind(kind), digest)
	return e.Effective, ok
}

// TLSPinRevoked says whether org's list, as held, revokes TLS pin pin.
func (k *Lists) TLSPinRevoked(org, pin string) bool {
	_, ok := k.book.Material(org, revocation.KindTLSPin, func() string { return pin })
	return ok
}

func (k *Lists) noteContact(org string) {
	v, ok := k.contacts.Load(org)
	if !ok {
		v, _ = k.contacts.LoadOrStore(org, new(atomic.Int64))
	}
	v.(*atomic.Int64).Store(k.cfg.Now().UnixMilli())
}

// ServeHTTP serves the gateway's own signed list.
func (k *Lists) ServeHTTP(w http.ResponseWriter, r *http.Request) { k.own.ServeHTTP(w, r) }

// Own returns the organisation's own list as Config.OwnPath has it now:
// moltgate agent revoke writes the file, and a peer that asks right after
// must get what it says. It is read again when the org key changes: a
// rotation signs it again under the new key.
func (k *Lists) Own() *revocation.List { return k.own.Get() }

// ownFailed says why the organisation's own list as written was not
// taken up.
func (k *Lists) ownFailed(err error) {
	if k.cfg.Pending != nil {
		self := k.cfg.Self.Current()
		for _, next := range k.cfg.Pending() {
			if _, perr := revocation.LoadFile(k.cfg.OwnPath, self.Ref.Org, next); perr == nil {
				// key rotate signed it again under the new key, which
				// the gateway takes up once the peers have its handover;
				// it is read again then.
				k.cfg.Log.Info("own revocation list signed under the new org key; served once the gateway switches to it", "new", next.Fingerprint())
				return
			}
		}
	}
	k.cfg.Log.Error("own revocation list not taken up", "err", err.Error())
}

// Forget drops what is held of a peer that is removed, or whose org key
// changed: its list was signed by a key no longer trusted.
func (k *Lists) Forget(org string) {
	if err := k.book.Forget(org); err != nil {
		k.cfg.Log.Warn("peer revocation list not forgotten", "peer", org, "err", err.Error())
	}
	k.learnt.Delete(org)
}
