package handshake

import (
	"context"
	"errors"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Peer names the responder an Initiator dials.
type Peer struct {
	// Ref is the responder's agent and org. Required: its hello_ack must
	// come from this name.
	Ref wire.Ref
	// Key, if set, is the signing key the responder must present, such as
	// one learned from its org's directory or pinned earlier.
	Key keys.Ed25519Public
}

// Steps of a handshake, shared by both sides. A side moves forward one step
// per message and never back; stepDone and stepFailed are final.
const (
	stepStart = iota
	stepSecond
	stepThird
	stepDone
	stepFailed
)

// Initiator is the side that opens a handshake. Make one per handshake with
// NewInitiator and call Run once; using it again panics.
type Initiator struct {
	cfg   *Config
	me    self // read at writeHello
	peer  Peer
	step  int
	start time.Time
	th    transcript
	eph   keys.X25519Private

	hello     *wire.Message      // sent
	ack       *wire.Message      // received
	ackP      *wire.HelloPayload // received
	trust     peerTrust
	params    params
	challenge wire.Bytes32  // ours, sent in verify
	verify    *wire.Message // sent
	lastID    string        // id of the last message received
}

// NewInitiator prepares a handshake with peer.
func NewInitiator(cfg *Config, peer Peer) *Initiator {
	return &Initiator{cfg: cfg, peer: peer}
}

// Run performs the handshake over t and returns the established session:
//
//	send hello → receive hello_ack → send verify → receive verify_response
//	→ send session_established (sealed in the session)
//
// It gives up when ctx ends or after Config.Timeout (E_TIMEOUT). A message
// that is malformed, out of order, unexpected or fails a check ends the
// handshake with a *wire.Error (E_AUTH_FAILED for most), and Run then tells
// the peer with an error message if the transport still works.
func (h *Initiator) Run(ctx context.Context, t Transport) (*Session, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.timeout())
	defer cancel()
	sess, err := h.run(ctx, t)
	if err != nil {
		sendError(ctx, t, h.cfg, h.me, err, h.peer.Ref, h.lastID)
		return nil, err
	}
	return sess, nil
}

func (h *Initiator) run(ctx context.Context, t Transport) (*Session, error) {
	hello, err := h.writeHello()
	if err != nil {
		return nil, err
	}
	if err := send(ctx, t, hello); err != nil {
		return nil, err
	}
	b, err := receive(ctx, t)
	if err != nil {
		return nil, err
	}
	verify, err := h.readHelloAck(ctx, b)
	if err != nil {
		return nil, err
	}
	if err := send(ctx, t, verify); err != nil {
		return nil, err
	}
	if b, err = receive(ctx, t); err != nil {
		return nil, err
	}
	established, sess, err := h.readVerifyResponse(ctx, b)
	if err != nil {
		return nil, err
	}
	if err := send(ctx, t, established); err != nil {
		return nil, err
	}
	return sess, nil
}

func (h *Initiator) enter(want int) {
	switch h.step {
	case want:
	case stepDone, stepFailed:
		panic("handshake: Initiator used after it completed or failed")
	default:
		panic("handshake: Initiator steps out of order")
	}
}

// leave moves to the next step, or to stepFailed and forgets the secrets.
func (h *Initiator) leave(err error, next int) {
	if err != nil {
		h.step = stepFailed
		h.eph = keys.X25519Private{}
		return
	}
	h.step = next
}

// writeHello makes the hello.
func (h *Initiator) writeHello() (out []byte, err error) {
	h.enter(stepStart)
	defer func() { h.leave(err, stepSecond) }()
	c := h.cfg
	if h.me, err = c.self(); err != nil {
		return nil, err
	}
	if err := c.check(h.me); err != nil {
		return nil, err
	}
	if !wire.ValidName(h.peer.Ref.Agent) || !wire.ValidName(h.peer.Ref.Org) {
		return nil, errConfig("Peer.Ref is not a valid agent@org")
	}
	h.start = c.now()
	h.th = newTranscript()
	if h.eph, err = keys.GenerateX25519(c.rand()); err != nil {
		return nil, err
	}
	p, err := c.helloPayload(h.me, h.eph.Public(), wire.Bytes32{})
	if err != nil {
		return nil, err
	}
	if h.hello, err = c.newMessage(h.me, wire.OpHello, h.peer.Ref, "", p); err != nil {
		return nil, err
	}
	if out, err = c.sign(h.me, h.hello); err != nil {
		return nil, err
	}
	h.th.add(out)
	return out, nil
}

// readHelloAck checks the responder's hello_ack and makes the verify.
func (h *Initiator) readHelloAck(ctx context.Context, b []byte) (out []byte, err error) {
	h.enter(stepSecond)
	defer func() { h.leave(err, stepThird) }()
	c := h.cfg
	if err := inTime(ctx, c, h.start); err != nil {
		return nil, err
	}
	want := wire.Sender{Agent: h.peer.Ref.Agent, Org: h.peer.Ref.Org, Key: h.peer.Key}
	m, p, err := decodeHelloAck(c.codec(), b)
	if err != nil {
		return nil, c.refusal(ctx, h.me, b, err, h.hello.ID, want)
	}
	h.lastID = m.ID
	if !want.Key.IsZero() && !m.From.Key.Equal(want.Key) && m.From.Ref() == want.Ref() && c.Pins != nil &&
		c.Pins.Check(want.Ref().String(), m.From.Key) == nil {
		// Another key than the one expected, which the pins accept for
		// the peer: the key its organisation handed over to (or, during
		// the overlap, from). assess checks the pin again with the rest.
		want.Key = m.From.Key
	}
	if err := c.admit(ctx, h.me, m, h.hello.ID, want); err != nil {
		return nil, err
	}
	if h.trust, err = c.assess(m.From, p); err != nil {
		return nil, err
	}
	if h.params, err = c.negotiate(p); err != nil {
		return nil, err
	}
	h.ack, h.ackP = m, p
	if err := h.th.addMessage(m); err != nil {
		return nil, err
	}
	if h.challenge, err = c.replay().Challenge(ctx); err != nil {
		return nil, err
	}
	proof := prove(h.me.id.Signing, initiatorProof, h.th.sum(), p.Challenge, h.hello.From, m.From)
	h.verify, err = c.newMessage(h.me, wire.OpVerify, h.peer.Ref, m.ID, &wire.VerifyPayload{Challenge: h.challenge, Proof: proof})
	if err != nil {
		return nil, err
	}
	if out, err = c.sign(h.me, h.verify); err != nil {
		return nil, err
	}
	h.th.add(out)
	return out, nil
}

// readVerifyResponse checks the responder's proof, derives the session and
// makes the sealed session_established.
func (h *Initiator) readVerifyResponse(ctx context.Context, b []byte) (out []byte, sess *Session, err error) {
	h.enter(stepThird)
	defer func() { h.leave(err, stepDone) }()
	defer func() { h.eph = keys.X25519Private{} }()
	c := h.cfg
	if err := inTime(ctx, c, h.start); err != nil {
		return nil, nil, err
	}
	m, p, err := decodeVerifyResponse(c.codec(), b)
	if err != nil {
		return nil, nil, c.refusal(ctx, h.me, b, err, h.verify.ID, h.ack.From)
	}
	h.lastID = m.ID
	if err := c.admit(ctx, h.me, m, h.verify.ID, h.ack.From); err != nil {
		return nil, nil, err
	}
	if !checkProof(p.Proof, responderProof, h.th.sum(), h.challenge, h.ack.From, h.hello.From) {
		return nil, nil, authFailed("p.proof", "responder's proof does not verify")
	}
	if err := c.replay().Redeem(ctx, h.challenge); err != nil {
		return nil, nil, err
	}
	if err := h.th.addMessage(m); err != nil {
		return nil, nil, err
	}
	now := c.now().UnixMilli()
	expires := min(p.Expires, now+c.lifetime().Milliseconds())
	if h.trust.certExpires != 0 {
		expires = min(expires, h.trust.certExpires)
	}
	if expires <= now {
		return nil, nil, authFailed("p.expires", "session would expire at once")
	}
	ir, ri, err := sessionKeys(h.eph, h.ackP.EphemeralKey, h.th.sum())
	if err != nil {
		return nil, nil, authFailed("p.ephemeral_key", "key exchange failed")
	}
	sess, err = newSession(c, h.me.id, RoleInitiator, cloneString(p.SessionID), h.ack.From, h.trust, h.params, ir, ri)
	if err != nil {
		return nil, nil, err
	}
	sess.expires = expires
	est, err := c.newMessage(h.me, wire.OpSessionEstablished, h.peer.Ref, m.ID,
		&wire.SessionEstablishedPayload{SessionID: sess.id, Expires: expires})
	if err != nil {
		return nil, nil, err
	}
	signed, err := c.sign(h.me, est)
	if err != nil {
		return nil, nil, err
	}
	if out, err = sess.sealBytes(signed); err != nil {
		return nil, nil, err
	}
	return out, sess, nil
}

// refusal gives the reason of a peer's refusal (err wraps ErrPeerRefused;
// b is the error message) when the message is authentic: signed by the key
// this side expects of the peer (want.Key), addressed to this side, and an
// answer to its last message (re). A refusal from a peer whose key is not
// known in advance could come from anyone on the path, so its text is not
// repeated and err is returned as it is.
func (c *Config) refusal(ctx context.Context, me self, b []byte, err error, re string, want wire.Sender) error {
	if !errors.Is(err, ErrPeerRefused) || want.Key.IsZero() {
		return err
	}
	m, derr := decodeMessage(c.codec(), b)
	if derr != nil || c.admit(ctx, me, m, re, want) != nil {
		return err
	}
	p, ok := wire.PayloadAs[wire.ErrorPayload](m)
	if !ok {
		return err
	}
	we := p.Err()
	we.Message = ErrPeerRefused.Error() + ": " + we.Message
	we.Err = ErrPeerRefused
	return we
}

// admit applies the checks every received handshake message passes after
// its shape: it is addressed to this side, answers the message this side
// sent last, comes from the expected sender (want; zero fields match
// anything), carries a valid signature, and is new to the replay window.
func (c *Config) admit(ctx context.Context, me self, m *wire.Message, re string, want wire.Sender) error {
	switch {
	case m.To != me.id.Ref:
		return authFailed("to", "message is addressed to another agent")
	case m.Re != re:
		return authFailed("re", "message does not answer this handshake's last message")
	case want.Agent != "" && m.From.Ref() != want.Ref():
		return authFailed("from", "sender is not the peer of this handshake")
	case !want.Key.IsZero() && !m.From.Key.Equal(want.Key):
		return authFailed("from.key", "sender's key is not the peer's")
	case !want.EncKey.IsZero() && !m.From.EncKey.Equal(want.EncKey):
		return authFailed("from.enc_key", "sender's key is not the peer's")
	}
	if err := crypto.Verify(m); err != nil {
		return err
	}
	return c.replay().Check(ctx, m)
}

// addMessage adds a received message to the transcript in its canonical
// form, which is the form its sender added.
func (t transcript) addMessage(m *wire.Message) error {
	b, err := m.AppendWire(make([]byte, 0, len(m.Raw())+256))
	if err != nil {
		return err
	}
	t.add(b)
	return nil
}

// inTime fails once the handshake's deadline has passed, by Config.Now or
// by ctx.
func inTime(ctx context.Context, c *Config, start time.Time) error {
	if err := ctx.Err(); err != nil {
		return ctxError(ctx, err)
	}
	if c.now().Sub(start) > c.timeout() {
		return timedOut()
	}
	return nil
}
