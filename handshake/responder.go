package handshake

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Responder is the side that answers a handshake. Make one per handshake
// with NewResponder and call Run once, or let an Acceptor drive it one
// message at a time; using it again panics.
type Responder struct {
	cfg   *Config
	me    self // read at readHello
	step  int
	start time.Time
	th    transcript
	eph   keys.X25519Private

	hello     *wire.Message      // received
	helloP    *wire.HelloPayload // received
	ack       *wire.Message      // sent
	challenge wire.Bytes32       // ours, sent in hello_ack
	trust     peerTrust
	params    params
	vr        *wire.Message // sent
	offer     int64         // latest expiry offered, unix ms
	sess      *Session      // made at verify, released at session_established
	lastID    string        // id of the last message received
	replyTo   wire.Ref      // the initiator, as its hello names it
}

// NewResponder prepares to answer one handshake.
func NewResponder(cfg *Config) *Responder { return &Responder{cfg: cfg} }

// Run performs the handshake over t and returns the established session:
//
//	receive hello → send hello_ack → receive verify → send verify_response
//	→ receive session_established (sealed in the session)
//
// It fails as Initiator.Run does.
func (r *Responder) Run(ctx context.Context, t Transport) (*Session, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.timeout())
	defer cancel()
	sess, err := r.run(ctx, t)
	if err != nil {
		sendError(ctx, t, r.cfg, r.me, err, r.replyTo, r.lastID)
		return nil, err
	}
	return sess, nil
}

func (r *Responder) run(ctx context.Context, t Transport) (*Session, error) {
	r.enter(stepStart) // before receiving, so that reuse panics at once
	r.start = r.cfg.now()
	for {
		env, err := r.receive(ctx, t)
		if err != nil {
			r.leave(err, 0)
			return nil, err
		}
		reply, sess, err := r.next(ctx, env)
		if err != nil {
			return nil, err
		}
		if sess != nil {
			return sess, nil
		}
		if err := send(ctx, t, reply); err != nil {
			r.leave(err, 0)
			return nil, err
		}
	}
}

func (r *Responder) receive(ctx context.Context, t Transport) (*wire.Envelope, error) {
	b, err := receive(ctx, t)
	if err != nil {
		return nil, err
	}
	return r.cfg.codec().DecodeEnvelope(b)
}

// next takes the next message of the handshake, whichever step it is at.
// It returns the reply to send, or the session once the handshake is done.
func (r *Responder) next(ctx context.Context, env *wire.Envelope) ([]byte, *Session, error) {
	switch r.step {
	case stepStart:
		reply, err := r.readHello(ctx, env)
		return reply, nil, err
	case stepSecond:
		reply, err := r.readVerify(ctx, env)
		return reply, nil, err
	case stepThird:
		sess, err := r.readEstablished(ctx, env)
		return nil, sess, err
	}
	r.enter(-1) // panics: the handshake is over
	return nil, nil, nil
}

func (r *Responder) enter(want int) {
	switch r.step {
	case want:
	case stepDone, stepFailed:
		panic("handshake: Responder used after it completed or failed")
	default:
		panic("handshake: Responder steps out of order")
	}
}

func (r *Responder) leave(err error, next int) {
	if err != nil {
		r.step = stepFailed
		r.eph = keys.X25519Private{}
		r.sess = nil
		return
	}
	r.step = next
}

// expired reports whether the handshake's deadline has passed.
func (r *Responder) expired(now time.Time) bool {
	return r.step != stepStart && now.Sub(r.start) > r.cfg.timeout()
}

// readHello checks the initiator's hello and makes the hello_ack.
func (r *Responder) readHello(ctx context.Context, env *wire.Envelope) (out []byte, err error) {
	r.enter(stepStart)
	defer func() { r.leave(err, stepSecond) }()
	c := r.cfg
	if r.me, err = c.self(); err != nil {
		return nil, err
	}
	if err := c.check(r.me); err != nil {
		return nil, err
	}
	if r.start.IsZero() {
		r.start = c.now()
	}
	r.th = newTranscript()
	m, err := envelopeMessage(env)
	if err != nil {
		return nil, err
	}
	r.lastID, r.replyTo = m.ID, m.From.Ref()
	m, p, err := checkHello(m, wire.OpHello)
	if err != nil {
		return nil, err
	}
	if err := c.admit(ctx, r.me, m, "", wire.Sender{}); err != nil {
		return nil, err
	}
	r.hello, r.helloP = m, p
	if r.trust, err = c.assess(m.From, p); err != nil {
		return nil, err
	}
	if r.params, err = c.negotiate(p); err != nil {
		return nil, err
	}
	if err := r.th.addMessage(m); err != nil {
		return nil, err
	}
	if r.eph, err = keys.GenerateX25519(c.rand()); err != nil {
		return nil, err
	}
	if r.challenge, err = c.replay().Challenge(ctx); err != nil {
		return nil, err
	}
	ap, err := c.helloPayload(r.me, r.eph.Public(), r.challenge)
	if err != nil {
		return nil, err
	}
	if r.ack, err = c.newMessage(r.me, wire.OpHelloAck, m.From.Ref(), m.ID, ap); err != nil {
		return nil, err
	}
	if out, err = c.sign(r.me, r.ack); err != nil {
		return nil, err
	}
	r.th.add(out)
	return out, nil
}

// readVerify checks the initiator's proof, makes the responder's proof and
// the session keys, and returns the verify_response.
func (r *Responder) readVerify(ctx context.Context, env *wire.Envelope) (out []byte, err error) {
	r.enter(stepSecond)
	defer func() { r.leave(err, stepThird) }()
	defer func() { r.eph = keys.X25519Private{} }()
	c := r.cfg
	if err := inTime(ctx, c, r.start); err != nil {
		return nil, err
	}
	m, err := envelopeMessage(env)
	if err != nil {
		return nil, err
	}
	if err := expect(m, wire.OpVerify); err != nil {
		return nil, err
	}
	r.lastID = m.ID
	p := m.Payload.(*wire.VerifyPayload)
	if err := c.admit(ctx, r.me, m, r.ack.ID, r.hello.From); err != nil {
		return nil, err
	}
	if !checkProof(p.Proof, initiatorProof, r.th.sum(), r.challenge, r.hello.From, r.ack.From) {
		return nil, authFailed("p.proof", "initiator's proof does not verify")
	}
	if err := c.replay().Redeem(ctx, r.challenge); err != nil {
		return nil, err
	}
	if err := r.th.addMessage(m); err != nil {
		return nil, err
	}
	sid, err := newSessionID(c.rand())
	if err != nil {
		return nil, err
	}
	now := c.now()
	r.offer = now.Add(c.lifetime()).UnixMilli()
	if r.trust.certExpires != 0 {
		r.offer = min(r.offer, r.trust.certExpires)
	}
	proof := prove(r.me.id.Signing, responderProof, r.th.sum(), p.Challenge, r.ack.From, r.hello.From)
	r.vr, err = c.newMessage(r.me, wire.OpVerifyResponse, r.hello.From.Ref(), m.ID,
		&wire.VerifyResponsePayload{Proof: proof, SessionID: sid, Expires: r.offer})
	if err != nil {
		return nil, err
	}
	if out, err = c.sign(r.me, r.vr); err != nil {
		return nil, err
	}
	r.th.add(out)
	ir, ri, err := sessionKeys(r.eph, r.helloP.EphemeralKey, r.th.sum())
	if err != nil {
		return nil, authFailed("p.ephemeral_key", "key exchange failed")
	}
	if r.sess, err = newSession(c, r.me.id, RoleResponder, sid, r.hello.From, r.trust, r.params, ir, ri); err != nil {
		return nil, err
	}
	r.sess.expires = r.offer
	return out, nil
}

// readEstablished opens the initiator's session_established, which proves
// it holds the session keys, and releases the session.
func (r *Responder) readEstablished(ctx context.Context, env *wire.Envelope) (sess *Session, err error) {
	r.enter(stepThird)
	defer func() { r.leave(err, stepDone) }()
	c := r.cfg
	if err := inTime(ctx, c, r.start); err != nil {
		return nil, err
	}
	if !env.Encrypted || env.Algorithm != wire.AlgSession {
		if env.Message != nil && env.Message.Op == wire.OpError {
			return nil, peerError(env.Message)
		}
		return nil, authFailed("envelope", "session_established travels sealed in the new session")
	}
	if env.Counter != 0 {
		return nil, authFailed("envelope.counter", "session_established is the initiator's first message")
	}
	pt, err := r.sess.unseal(env, c.now().UnixMilli())
	if err != nil {
		return nil, err
	}
	n := len(pt)
	m, p, err := decodeEstablished(c.codec(), pt)
	putPlaintext(pt)
	if err != nil {
		return nil, err
	}
	r.lastID = m.ID
	if err := c.admit(ctx, r.me, m, r.vr.ID, r.hello.From); err != nil {
		return nil, err
	}
	if p.SessionID != r.sess.id {
		return nil, authFailed("p.session_id", "not the session of this handshake")
	}
	if p.Expires > r.offer || p.Expires <= c.now().UnixMilli() {
		return nil, authFailed("p.expires", "expiry outside what this side offered")
	}
	if err := r.sess.commit(env.Counter, n, m, c.now().UnixMilli()); err != nil {
		return nil, err
	}
	r.sess.expires = p.Expires
	return r.sess, nil
}
