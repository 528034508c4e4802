package handshake

import (
	"crypto/cipher"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Role is the part a side played in the handshake.
type Role uint8

// The roles.
const (
	RoleInitiator Role = iota + 1
	RoleResponder
)

func (r Role) String() string {
	switch r {
	case RoleInitiator:
		return "initiator"
	case RoleResponder:
		return "responder"
	}
	return "invalid"
}

// Session is one side of an established session: the peer it authenticated,
// what the two hellos agreed, and the keys that seal messages between them.
// It is safe for concurrent use.
//
// A session envelope (wire.AlgSession) seals a signed message's bytes with
// ChaCha20-Poly1305 under the key of the sender's direction. The nonce is
// 4 zero bytes and the sender's counter as 8 big-endian bytes; counters
// start at 0 in each direction and never repeat, and the associated data is
// the envelope header's RFC 8785 form, so the session id and counter are
// authenticated too. The receiver accepts each counter once, within a
// window of the 8192 most recent.
type Session struct {
	id   string
	self *identity.Agent // this side, as it proved itself in the handshake
	// signsAsSelf: this side's identity came from Config.GetSelf, and
	// its messages in the session are signed with self's key.
	signsAsSelf bool
	role        Role
	peer        identity.Public
	level       identity.Level
	version     string
	caps        []string
	exts        []string
	classes     classSet
	maxMsg      int64
	created     int64 // unix ms
	expires     int64 // unix ms
	env         *sessionEnv
	seal        cipher.AEAD
	open        cipher.AEAD
	sent        atomic.Uint64 // counters used so far in our direction
	bytes       atomic.Int64  // message bytes carried, both directions
	closed      atomic.Bool
	mu          sync.Mutex
	received    counterWindow
	ids         idWindow
}

// sessionEnv is what the sessions made under one Config share.
type sessionEnv struct {
	codec    *wire.Codec
	skew     time.Duration
	now      func() time.Time
	org      string // this side's
	maxBytes int64
	verifier *keys.Verifier
}

// sessionEnv is what the sessions made under c share; org is this side's,
// which a key rotation does not change.
func (c *Config) sessionEnv(org string) *sessionEnv {
	c.init()
	c.envOnce.Do(func() {
		c.env = &sessionEnv{codec: c.codec(), skew: c.replay().Skew(), now: c.now, org: org, maxBytes: c.maxSessionBytes(), verifier: c.verifier()}
	})
	return c.env
}

func newSession(c *Config, me *identity.Agent, role Role, id string, peer wire.Sender, t peerTrust, p params, ir, ri []byte) (*Session, error) {
	s := &Session{
		id:   id,
		self: me, signsAsSelf: c.GetSelf != nil,
		role:  role,
		peer:  identity.Public{Agent: cloneString(peer.Agent), Org: cloneString(peer.Org), Key: peer.Key, EncKey: peer.EncKey},
		level: t.level(), version: cloneString(p.version), caps: p.caps, exts: p.extensions,
		classes: p.classes, maxMsg: p.maxMessage, created: c.now().UnixMilli(),
		env: c.sessionEnv(me.Ref.Org),
	}
	sealKey, openKey := ir, ri
	if role == RoleResponder {
		sealKey, openKey = ri, ir
	}
	var err error
	if s.seal, err = chacha20poly1305.New(sealKey); err != nil {
		return nil, err
	}
	if s.open, err = chacha20poly1305.New(openKey); err != nil {
		return nil, err
	}
	clear(ir)
	clear(ri)
	return s, nil
}

func cloneString(s string) string { return string(append([]byte(nil), s...)) }

// ID returns the session id.
func (s *Session) ID() string { return s.id }

// Self returns this side's identity as the handshake that made the
// session proved it: the key this side signs with in the session, which
// stays the session's when this side's key is rotated (see
// AppendSignAndSeal).
func (s *Session) Self() *identity.Agent { return s.self }

// Role returns the part this side played in the handshake.
func (s *Session) Role() Role { return s.role }

// Peer returns the peer's public identity, as it proved it.
func (s *Session) Peer() identity.Public { return s.peer }

// Level is the trust level of messages that arrive in the session:
// identity.Authenticated when the peer's identity certificate chains to an
// org in the trust store, identity.Identified otherwise.
func (s *Session) Level() identity.Level { return s.level }

// Version returns the protocol version agreed: the highest on both lists.
func (s *Session) Version() string { return s.version }

// Capabilities returns the capabilities both hellos offered.
func (s *Session) Capabilities() []string { return append([]string(nil), s.caps...) }

// HasCapability reports whether both hellos offered capability.
func (s *Session) HasCapability(capability string) bool {
	for _, c := range s.caps {
		if c == capability {
			return true
		}
	}
	return false
}

// Extensions returns the extensions both sides understand.
func (s *Session) Extensions() []string { return append([]string(nil), s.exts...) }

// Classes returns the classifications both hellos listed, lowest first.
func (s *Session) Classes() []wire.Class { return s.classes.list() }

// Allows reports whether both hellos listed cls.
func (s *Session) Allows(cls wire.Class) bool { return s.classes.has(cls) }

// MaxMessageSize is the largest message either side accepts.
func (s *Session) MaxMessageSize() int64 { return s.maxMsg }

// Created returns when the handshake completed.
func (s *Session) Created() time.Time { return time.UnixMilli(s.created) }

// Expires returns when the session ends.
func (s *Session) Expires() time.Time { return time.UnixMilli(s.expires) }

// Close ends the session: from now on it seals and opens nothing.
func (s *Session) Close() { s.closed.Store(true) }

// Worn reports whether the session has carried half of the bytes it may
// carry. A side that keeps a session for many messages makes a new one
// then, while this one still has room for the calls in flight: a session
// that reaches its limit ends mid-call, and the peer refuses what follows.
func (s *Session) Worn() bool { return s.bytes.Load() > s.env.maxBytes/2 }

// Wear returns the share of the bytes the session may carry that it has
// carried, from 0 to 1.
func (s *Session) Wear() float64 {
	return min(float64(s.bytes.Load())/float64(s.env.maxBytes), 1)
}

// alive refuses a session that has expired at now (unix ms), was closed or
// has used up its bytes or counters.
func (s *Session) alive(now int64) error {
	if s.closed.Load() {
		return sessionExpired("session closed: handshake again")
	}
	if now >= s.expires {
		return sessionExpired("session expired: handshake again")
	}
	return nil
}

// Seal seals a signed message for the peer and returns the session
// envelope. The message must come from this side's org, be addressed to the
// peer's org, and carry a class both hellos listed.
func (s *Session) Seal(m *wire.Message) ([]byte, error) {
	if err := s.checkOutbound(m); err != nil {
		return nil, err
	}
	if !m.Signed() {
		return nil, wire.Errorf(wire.ErrSignature, "sig", "message is not signed")
	}
	if raw := m.Raw(); raw != nil {
		// Not ours to seal in place.
		return s.sealBytes(append(make([]byte, 0, len(raw)+wire.SessionOverhead), raw...))
	}
	pt, err := m.AppendWire(nil)
	if err != nil {
		return nil, err
	}
	return s.sealBytes(pt)
}

// SignAndSeal signs m with sk (see crypto.Sign) and seals it as Seal does.
func (s *Session) SignAndSeal(m *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	return s.AppendSignAndSeal(nil, m, sk)
}

// AppendSignAndSeal is SignAndSeal, appending the envelope to dst. The
// signed message is written into a pooled buffer, as it is sealed in place
// and then copied out as base64.
//
// When the session was made under Config.GetSelf, a message in this side's
// own name (Self's agent and org) is signed with the key Self proved in the
// handshake, and its from names that key, whatever sk is: the peer accepts this side's messages in the session
// under that key only, so a session made before this side's key was
// rotated goes on under the old key, and one made after under the new.
func (s *Session) AppendSignAndSeal(dst []byte, m *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	if err := s.checkOutbound(m); err != nil {
		return nil, err
	}
	if me := s.self; s.signsAsSelf && m.From.Agent == me.Ref.Agent && m.From.Org == me.Ref.Org && !m.From.Key.Equal(me.Signing.Public()) {
		m.From.Key, m.From.EncKey = me.Signing.Public(), me.Encryption.Public()
		sk = me.Signing
	}
	pt, err := crypto.AppendSign(getPlaintext(4096), s.env.codec, m, sk)
	if err != nil {
		return nil, err
	}
	out, err := s.appendSealed(dst, pt)
	putPlaintext(pt)
	return out, err
}

func (s *Session) checkOutbound(m *wire.Message) error {
	switch {
	case isHandshakeOp(m.Op):
		return authFailed("op", "handshake messages do not travel inside a session")
	case m.From.Org != s.env.org:
		return authFailed("from.org", "session carries messages of org %s only", s.env.org)
	case m.To.Org != s.peer.Org:
		return authFailed("to.org", "session leads to org %s only", s.peer.Org)
	case !s.classes.has(m.Cls):
		return wire.Errorf(wire.ErrClassification, "cls", "the peer's hello did not list %s", m.Cls)
	}
	return nil
}

// sealBytes seals signed message bytes under the next counter. It
// encrypts in place: pt is the caller's no more.
func (s *Session) sealBytes(pt []byte) ([]byte, error) { return s.appendSealed(nil, pt) }

// appendSealed is sealBytes, appending the envelope to dst.
func (s *Session) appendSealed(dst, pt []byte) ([]byte, error) {
	if err := s.alive(s.env.now().UnixMilli()); err != nil {
		return nil, err
	}
	if int64(len(pt)) > s.maxMsg {
		return nil, wire.Errorf(wire.ErrTooLarge, "", "message of %d bytes exceeds the session's limit of %d", len(pt), s.maxMsg)
	}
	if err := s.spend(len(pt)); err != nil {
		return nil, err
	}
	ctr := s.sent.Add(1) - 1
	if ctr > wire.MaxSessionCounter {
		s.Close()
		return nil, sessionExpired("session counters used up: handshake again")
	}
	var hdr [160]byte
	aad := wire.AppendSessionHeader(hdr[:0], s.id, ctr)
	ct := s.seal.Seal(pt[:0], nonce(ctr), pt, aad)
	out := slices.Grow(dst, (len(ct)+2)/3*4+len(aad)+64)
	return wire.AppendSessionSealed(out, s.id, ctr, ct), nil
}

// spend counts n more bytes against the session's budget.
func (s *Session) spend(n int) error {
	if s.bytes.Add(int64(n)) > s.env.maxBytes {
		s.Close()
		return sessionExpired("session byte limit reached: handshake again")
	}
	return nil
}

func nonce(ctr uint64) []byte {
	var n [chacha20poly1305.NonceSize]byte
	binary.BigEndian.PutUint64(n[4:], ctr)
	return n[:]
}

// Open opens a session envelope from the peer and returns the message after
// checking, in order: the session is alive; the counter is new; the
// ciphertext authenticates; the message decodes and its signature verifies;
// it comes from the peer's org (and, if from the peer's own agent, with the
// peer's key), is addressed to this side's org and has a class both hellos
// listed; its ts is within the replay window's skew and its exp has not
// passed. The counter replaces the id memory of messages outside sessions.
// A refusal of a message whose ciphertext authenticated is a *RefusedError.
func (s *Session) Open(env *wire.Envelope) (*wire.Message, error) {
	now := s.env.now().UnixMilli()
	pt, err := s.unseal(env, now)
	if err != nil {
		return nil, err
	}
	n := len(pt)
	m, err := s.env.codec.Decode(pt) // copies what it keeps
	if err != nil {
		err = refused(nil, pt, err)
		putPlaintext(pt)
		return nil, err
	}
	putPlaintext(pt)
	if err := s.check(m, now); err != nil {
		return nil, refused(m, nil, err)
	}
	if err := s.commit(env.Counter, n, m, now); err != nil {
		return nil, err
	}
	return m, nil
}

// check applies the session's rules to a message that opened in it.
func (s *Session) check(m *wire.Message, now int64) error {
	if err := crypto.VerifyUsing(s.env.verifier, m); err != nil {
		return err
	}
	switch {
	case isHandshakeOp(m.Op):
		return authFailed("op", "handshake messages do not travel inside a session")
	case m.From.Org != s.peer.Org:
		return authFailed("from.org", "session carries messages of org %s only", s.peer.Org)
	case m.From.Agent == s.peer.Agent && !m.From.Key.Equal(s.peer.Key):
		return authFailed("from.key", "not the key the peer proved in the handshake")
	case m.To.Org != s.env.org:
		return authFailed("to.org", "message is addressed to another org")
	case !s.classes.has(m.Cls):
		return wire.Errorf(wire.ErrClassification, "cls", "this side's hello did not list %s", m.Cls)
	}
	return replay.CheckTimeAt(now, s.env.skew, m.TS, m.Exp)
}

// unseal checks the envelope against the session and decrypts it into a
// pooled buffer, to be returned with putPlaintext once decoded. It does not
// yet mark the counter as used: that happens only once the whole message is
// accepted, so a forged envelope cannot burn a counter.
func (s *Session) unseal(env *wire.Envelope, now int64) ([]byte, error) {
	if !env.Encrypted || env.Algorithm != wire.AlgSession {
		return nil, authFailed("envelope.algorithm", "not a session envelope")
	}
	if env.SessionID != s.id {
		return nil, authFailed("envelope.session", "envelope belongs to another session")
	}
	if err := s.alive(now); err != nil {
		return nil, err
	}
	s.mu.Lock()
	err := s.received.check(env.Counter)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if int64(len(env.Ciphertext)-wire.SessionOverhead) > s.maxMsg {
		return nil, wire.Errorf(wire.ErrTooLarge, "ciphertext", "message exceeds the session's limit of %d bytes", s.maxMsg)
	}
	var hdr [160]byte
	aad := wire.AppendCanonical(hdr[:0], env.Header)
	buf := getPlaintext(len(env.Ciphertext))
	pt, err := s.open.Open(buf, nonce(env.Counter), env.Ciphertext, aad)
	if err != nil {
		putPlaintext(buf)
		return nil, authFailed("ciphertext", "session envelope could not be opened")
	}
	return pt, nil
}

// plainPool recycles the buffers envelopes are opened into: the decoder
// copies what it keeps, so each buffer lives for one message.
var plainPool = sync.Pool{New: func() any { return new([]byte) }}

const maxPooled = 64 << 10

func getPlaintext(n int) []byte {
	bp := plainPool.Get().(*[]byte)
	if cap(*bp) < n {
		return make([]byte, 0, max(n, 4096))
	}
	return (*bp)[:0]
}

func putPlaintext(b []byte) {
	if cap(b) > maxPooled {
		return
	}
	clear(b) // plaintext may be confidential
	b = b[:0]
	plainPool.Put(&b)
}

// commit marks counter as used and counts the message's bytes.
func (s *Session) commit(counter uint64, n int, m *wire.Message, now int64) error {
	s.mu.Lock()
	err := s.received.check(counter)
	if err == nil {
		replayed, tooOld := s.ids.seen(m.ID, m.TS, now, s.env.skew.Milliseconds())
		switch {
		case replayed:
			err = refused(m, nil, wire.Errorf(wire.ErrReplay, "id", "message id already carried in this session"))
		case tooOld:
			err = refused(m, nil, wire.Errorf(wire.ErrReplay, "ts", "message is older than this session can tell apart from a replay: sign it again"))
		default:
			s.received.mark(counter)
			s.ids.add(m.ID, m.TS)
		}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.spend(n)
}

// windowSize is how many of the most recent counters a receiver tells apart;
// messages may arrive out of order by up to this many. Over HTTP/2 the
// stream chunks of many concurrent calls travel on separate responses and
// are read at different speeds, so they can fall thousands of counters
// behind the newest; 8192 bits cost a kilobyte per session.
const windowSize = 8192

// counterWindow remembers which of the last windowSize counters have
// arrived, as a ring of bits (the anti-replay window of RFC 6479).
type counterWindow struct {
	next uint64 // one past the highest counter accepted
	bits [windowSize / 64]uint64
}

func (w *counterWindow) check(c uint64) error {
	switch {
	case c >= w.next:
		return nil
	case w.next-c > windowSize:
		return wire.Errorf(wire.ErrReplay, "envelope.counter", "counter too far behind the newest")
	case w.bits[c/64%uint64(len(w.bits))]&(1<<(c%64)) != 0:
		return wire.Errorf(wire.ErrReplay, "envelope.counter", "counter already used")
	}
	return nil
}

func (w *counterWindow) mark(c uint64) {
	if c >= w.next {
		if c-w.next >= windowSize {
			w.bits = [windowSize / 64]uint64{}
		} else {
			for n := w.next; n <= c; n++ {
				w.bits[n/64%uint64(len(w.bits))] &^= 1 << (n % 64)
			}
		}
		w.next = c + 1
	}
	w.bits[c/64%uint64(len(w.bits))] |= 1 << (c % 64)
}
