package handshake

import (
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// DefaultMaxSessions is StoreConfig.MaxSessions's default.
const DefaultMaxSessions = 10_000

// StoreConfig configures a Store. The zero value is usable.
type StoreConfig struct {
	// MaxSessions bounds the sessions held; when full, the least recently
	// used is dropped (its peer will be told to handshake again). Default
	// 10000.
	MaxSessions int
	// Now is the clock that expires sessions. Default time.Now.
	Now func() time.Time
	// Observe, if set, is told of each session the store takes and drops:
	// SessionOpened, or SessionRenewed when the peer had a session already,
	// and SessionClosed however it goes (removed, pruned, evicted). It is
	// called with the store's lock held: it must be quick and must not call
	// the Store. Default nil.
	Observe func(sess *Session, state string)
}

// The states Observe is told of.
const (
	SessionOpened  = "opened"
	SessionRenewed = "renewed"
	SessionClosed  = "closed"
)

// Store holds a gateway's live sessions by id, both those it initiated and
// those it answered, and finds the newest one with each peer. It is safe
// for concurrent use.
//
// Sessions are never renewed: one that expires, is dropped or is closed is
// gone, and the peer must handshake again. Adding a session with a peer
// does not end the older ones, so messages already under way still open.
type Store struct {
	now     func() time.Time
	observe func(*Session, string)

	mu     sync.Mutex
	lru    *simplelru.LRU[string, *Session]
	byPeer map[wire.Ref]*Session
}

// NewStore makes an empty Store.
func NewStore(cfg StoreConfig) *Store {
	s := &Store{now: cfg.Now, observe: cfg.Observe, byPeer: map[wire.Ref]*Session{}}
	if s.now == nil {
		s.now = time.Now
	}
	n := cfg.MaxSessions
	if n <= 0 {
		n = DefaultMaxSessions
	}
	// The callback runs with s.mu held, from Add and Remove below.
	s.lru, _ = simplelru.NewLRU(n, func(_ string, sess *Session) {
		if ref := sess.peer.Ref(); s.byPeer[ref] == sess {
			delete(s.byPeer, ref)
		}
		if s.observe != nil {
			s.observe(sess, SessionClosed)
		}
	})
	return s
}

// Add stores sess and makes it the newest session with its peer.
func (s *Store) Add(sess *Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, had := s.byPeer[sess.peer.Ref()]
	s.lru.Add(sess.id, sess)
	s.byPeer[sess.peer.Ref()] = sess
	if s.observe != nil {
		state := SessionOpened
		if had && prev != sess && !prev.closed.Load() {
			state = SessionRenewed
		}
		s.observe(sess, state)
	}
}

// Get returns the live session with id. A session that is unknown, expired
// or closed is refused with a recoverable E_SESSION_EXPIRED whose
// suggestion is to handshake again.
func (s *Store) Get(id string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.lru.Get(id)
	if !ok {
		return nil, sessionExpired("no such session: handshake again")
	}
	if err := s.liveLocked(sess); err != nil {
		return nil, err
	}
	return sess, nil
}

// Peer returns the newest live session with peer, or E_SESSION_EXPIRED if
// there is none: then it is time to handshake.
func (s *Store) Peer(peer wire.Ref) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byPeer[peer]
	if !ok {
		return nil, sessionExpired("no session with %s: handshake first", peer)
	}
	if err := s.liveLocked(sess); err != nil {
		return nil, err
	}
	s.lru.Get(sess.id) // counts as use
	return sess, nil
}

func (s *Store) liveLocked(sess *Session) error {
	if sess.closed.Load() || s.now().UnixMilli() >= sess.expires {
		s.lru.Remove(sess.id)
		return sessionExpired("session expired: handshake again")
	}
	return nil
}

// Open opens a session envelope: it finds the envelope's session and opens
// the envelope in it (see Session.Open). When the refusal is a
// *RefusedError, the session is returned with it, for the refusal to be
// sealed in.
func (s *Store) Open(env *wire.Envelope) (*wire.Message, *Session, error) {
	sess, err := s.Get(env.SessionID)
	if err != nil {
		return nil, nil, err
	}
	m, err := sess.Open(env)
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			return nil, sess, err
		}
		return nil, nil, err
	}
	return m, sess, nil
}

// Remove closes and drops the session with id, if any.
func (s *Store) Remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.lru.Peek(id); ok {
		sess.Close()
		s.lru.Remove(id)
	}
}

// RemoveOrg closes and drops every session with a peer of org, such as
// when org is no longer trusted, and reports how many.
func (s *Store) RemoveOrg(org string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range s.lru.Keys() {
		if sess, ok := s.lru.Peek(id); ok && sess.peer.Org == org {
			sess.Close()
			s.lru.Remove(id)
			n++
		}
	}
	return n
}

// RemoveKey closes and drops every session with a peer of org that
// authenticated with key, such as an org key handed over to another whose
// overlap ended, and reports how many.
func (s *Store) RemoveKey(org string, key keys.Ed25519Public) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range s.lru.Keys() {
		if sess, ok := s.lru.Peek(id); ok && sess.peer.Org == org && sess.peer.Key.Equal(key) {
			sess.Close()
			s.lru.Remove(id)
			n++
		}
	}
	return n
}

// RemoveSelfKey closes and drops every session this side made under its
// own key key (Session.Self), such as its former org key once the overlap
// of its handover ended, and reports how many.
func (s *Store) RemoveSelfKey(key keys.Ed25519Public) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range s.lru.Keys() {
		if sess, ok := s.lru.Peek(id); ok && sess.self != nil && sess.self.Signing.Public().Equal(key) {
			sess.Close()
			s.lru.Remove(id)
			n++
		}
	}
	return n
}

// Prune drops every expired or closed session and reports how many.
// Expired sessions are refused without it; it returns their memory sooner.
func (s *Store) Prune() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UnixMilli()
	n := 0
	for _, id := range s.lru.Keys() {
		if sess, ok := s.lru.Peek(id); ok && (sess.closed.Load() || now >= sess.expires) {
			s.lru.Remove(id)
			n++
		}
	}
	return n
}

// Len reports how many sessions are held.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// CountByOrg reports how many live sessions are held with peers of each
// organisation.
func (s *Store) CountByOrg() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UnixMilli()
	out := map[string]int{}
	for _, id := range s.lru.Keys() {
		if sess, ok := s.lru.Peek(id); ok && !sess.closed.Load() && now < sess.expires {
			out[sess.peer.Org]++
		}
	}
	return out
}
