// Package replay applies MoltSpeak's replay rules to messages that travel
// outside a session, the same way on every transport face:
//
//   - ts must lie within ±Skew (5 minutes) of this gateway's clock;
//   - a message whose exp has passed is refused;
//   - a message id is accepted once per sender, and remembered for as long
//     as the two rules above would still accept the message, so memory is
//     bounded by the traffic of one window;
//   - challenges are issued at random and redeemed at most once.
//
// A Window keeps its state in a Storage. Memory is the one-process store;
// gateway replicas that share one organisation's traffic need a shared
// store (such as a PostgreSQL table) behind the same two-method interface.
// When the store is full a Window refuses new ids rather than forgetting
// old ones: forgetting would let a replay through.
package replay

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// Defaults of Config.
const (
	DefaultSkew         = 5 * time.Minute
	DefaultChallengeTTL = time.Minute
)

// Storage remembers keys, grouped in namespaces, until they expire. It is
// what a Window needs of a store; implementations must be safe for
// concurrent use and treat an expired key as absent.
type Storage interface {
	// Insert records key in namespace ns until expires. It reports false
	// if the key is already recorded and unexpired (and leaves it as it
	// was), and ErrFull if it has no room.
	Insert(ctx context.Context, ns, key string, expires time.Time) (bool, error)
	// Take deletes key from namespace ns and reports whether it was
	// recorded and unexpired.
	Take(ctx context.Context, ns, key string) (bool, error)
}

// ErrFull is returned by a Storage that has no room for another key.
var ErrFull = errors.New("replay store full")

// Config configures a Window. The zero value is usable.
type Config struct {
	// Skew is how far ts may be from this gateway's clock, either way.
	// Default 5 minutes.
	Skew time.Duration
	// ChallengeTTL is how long an issued challenge may be redeemed.
	// Default 1 minute.
	ChallengeTTL time.Duration
	// Storage holds the ids and challenges. Default: a Memory made with
	// MemoryConfig{Now: Now}.
	Storage Storage
	// Rand is the source of challenges. Default crypto/rand.Reader. It must
	// be safe for concurrent use if the Window is shared.
	Rand io.Reader
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Window applies the replay rules. It is safe for concurrent use; make one
// per gateway and share it among every face.
type Window struct {
	skew, challengeTTL time.Duration
	store              Storage
	rand               io.Reader
	now                func() time.Time
}

// New makes a Window.
func New(cfg Config) *Window {
	w := &Window{skew: cfg.Skew, challengeTTL: cfg.ChallengeTTL, store: cfg.Storage, rand: cfg.Rand, now: cfg.Now}
	if w.skew <= 0 {
		w.skew = DefaultSkew
	}
	if w.challengeTTL <= 0 {
		w.challengeTTL = DefaultChallengeTTL
	}
	if w.rand == nil {
		w.rand = rand.Reader
	}
	if w.now == nil {
		w.now = time.Now
	}
	if w.store == nil {
		w.store = NewMemory(MemoryConfig{Now: w.now})
	}
	return w
}

// Skew returns the accepted clock difference.
func (w *Window) Skew() time.Duration { return w.skew }

// Namespaces used in the Storage. Sender namespaces are "id:" followed by
// the sender's raw Ed25519 key (or "agent@org" for a message without one);
// a share's is "id:share:" and its name, and its keys start with the
// sender's namespace. A raw key is 32 bytes, so no sender's namespace is a
// share's.
const (
	nsChallenge = "challenge"
	nsIDPrefix  = "id:"
	// nsSharePrefix starts the namespace of a share of senders; it is an
	// id namespace too, so that a Durable store journals it.
	nsSharePrefix = nsIDPrefix + "share:"
)

// CheckTime applies the time rules alone: ts within ±Skew of now and exp,
// if not 0, not passed. Both are unix milliseconds. It refuses with
// E_REPLAY and E_EXPIRED.
func (w *Window) CheckTime(ts, exp int64) error {
	return checkTime(w.now().UnixMilli(), w.skew.Milliseconds(), ts, exp)
}

// CheckTimeAt applies the time rules at now (unix ms) with the given skew,
// for callers that keep their own clock, such as a session.
func CheckTimeAt(now int64, skew time.Duration, ts, exp int64) error {
	return checkTime(now, skew.Milliseconds(), ts, exp)
}

func checkTime(now, skew, ts, exp int64) error {
	if ts < now-skew || ts > now+skew {
		return wire.Errorf(wire.ErrReplay, "ts", "timestamp outside the accepted window of ±%d s", skew/1000)
	}
	if exp != 0 && now > exp {
		return wire.Errorf(wire.ErrExpired, "exp", "message has expired")
	}
	return nil
}

// Check applies every rule to m: the time rules, then the id rule for m's
// sender. Call it once per message, after its signature has been verified,
// so that nobody can spend another sender's ids. It refuses with E_REPLAY,
// E_EXPIRED, E_RATE_LIMIT (the store is full: retry later) or
// E_STORAGE_UNAVAILABLE (the store failed: retry later). A sender is never
// let through on a failing store, since its message could then run twice.
func (w *Window) Check(ctx context.Context, m *wire.Message) error {
	return w.check(ctx, m, senderNS(m.From), "")
}

// CheckShared is Check for a sender whose identity nothing vouches for,
// such as a stranger's public registry operation: its id is remembered in
// the one namespace share, which all such senders fill together, rather
// than in a namespace of the sender's own. A stranger signing with a fresh
// key for every message can then use up at most that share of the store,
// never the room of the peers' senders.
func (w *Window) CheckShared(ctx context.Context, m *wire.Message, share string) error {
	return w.check(ctx, m, shareNS(share), senderNS(m.From)+"/")
}

// shareNS is a share's namespace, never as long as a sender key's.
func shareNS(share string) string {
	ns := nsSharePrefix + share
	if len(ns) == len(nsIDPrefix)+len(wire.Bytes32{}) {
		ns += "."
	}
	return ns
}

func (w *Window) check(ctx context.Context, m *wire.Message, ns, keyPrefix string) error {
	now := w.now().UnixMilli()
	skew := w.skew.Milliseconds()
	if err := checkTime(now, skew, m.TS, m.Exp); err != nil {
		return err
	}
	id, ok := parseUUID(m.ID)
	if !ok {
		return wire.Errorf(wire.ErrInvalidParam, "id", "must be a lower-case UUID v4")
	}
	// The message stays acceptable until ts+skew or exp, whichever comes
	// first; the id must be remembered until just after that.
	until := m.TS + skew
	if m.Exp != 0 && m.Exp < until {
		until = m.Exp
	}
	fresh, err := w.store.Insert(ctx, ns, keyPrefix+string(id[:]), time.UnixMilli(until+1))
	switch {
	case errors.Is(err, ErrFull):
		return (&wire.Error{Code: wire.ErrRateLimit, Message: "too many recent messages to remember: retry later", Err: err}).
			WithSuggestion(wire.Suggestion{Action: wire.ActionRetryAfter, DelayMS: 1000})
	case err != nil:
		return storeFailed(fmt.Errorf("check replay: %w", err))
	case !fresh:
		return wire.Errorf(wire.ErrReplay, "id", "message id already seen from this sender")
	}
	return nil
}

func senderNS(s wire.Sender) string {
	if !s.Key.IsZero() {
		return nsIDPrefix + string(s.Key[:])
	}
	return nsIDPrefix + s.Agent + "@" + s.Org
}

// Challenge issues a fresh random 32-byte challenge, redeemable once within
// ChallengeTTL. A failing store refuses with E_STORAGE_UNAVAILABLE.
func (w *Window) Challenge(ctx context.Context) (wire.Bytes32, error) {
	var c wire.Bytes32
	if _, err := io.ReadFull(w.rand, c[:]); err != nil {
		return wire.Bytes32{}, fmt.Errorf("issue challenge: %w", err)
	}
	fresh, err := w.store.Insert(ctx, nsChallenge, string(c[:]), w.now().Add(w.challengeTTL))
	switch {
	case errors.Is(err, ErrFull):
		return wire.Bytes32{}, (&wire.Error{Code: wire.ErrRateLimit, Message: "too many outstanding challenges: retry later", Err: err}).
			WithSuggestion(wire.Suggestion{Action: wire.ActionRetryAfter, DelayMS: 1000})
	case err != nil:
		return wire.Bytes32{}, storeFailed(fmt.Errorf("issue challenge: %w", err))
	case !fresh:
		return wire.Bytes32{}, errors.New("issue challenge: random source repeated itself")
	}
	return c, nil
}

// Redeem consumes challenge c. It fails with E_AUTH_FAILED if c was never
// issued, has expired or was redeemed before, and E_STORAGE_UNAVAILABLE if
// the store failed.
func (w *Window) Redeem(ctx context.Context, c wire.Bytes32) error {
	ok, err := w.store.Take(ctx, nsChallenge, string(c[:]))
	if err != nil {
		return storeFailed(fmt.Errorf("redeem challenge: %w", err))
	}
	if !ok {
		return wire.Errorf(wire.ErrAuthFailed, "challenge", "challenge unknown, expired or already used")
	}
	return nil
}

// storeFailed is the refusal of a message or handshake step whose store
// failed: the same for every backend, so that a caller need not know which
// one the gateway runs on.
func storeFailed(err error) error {
	return wire.StorageUnavailable("replay window", err)
}

// parseUUID turns a canonical UUID into its 16 bytes.
func parseUUID(s string) ([16]byte, bool) {
	var out [16]byte
	if !wire.ValidID(s) {
		return out, false
	}
	n := 0 // nibbles written
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '-' {
			continue
		}
		v := c - '0'
		if c > '9' {
			v = c - 'a' + 10
		}
		out[n/2] |= v << (4 * (1 - n%2))
		n++
	}
	return out, true
}
