package conformance

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// The handshake's labels (docs/protocol.md, "Transcript hash", "Signed
// statements", "Key schedule"). The suite builds every handshake message
// itself, from that text, so that it can alter any of them.
const (
	transcriptLabel = "moltgate handshake v1 transcript"
	initiatorLabel  = "moltgate handshake v1 initiator proof"
	responderLabel  = "moltgate handshake v1 responder proof"
	keyIRLabel      = "moltgate handshake v1 key initiator to responder"
	keyRILabel      = "moltgate handshake v1 key responder to initiator"
)

// transcriptHash is TH over messages in their RFC 8785 form with "sig".
func transcriptHash(msgs ...[]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(transcriptLabel))
	h.Write([]byte{0})
	for _, m := range msgs {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(m)))
		h.Write(n[:])
		h.Write(m)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// statement is what a proof signs: label, TH, the challenge, and both
// identities (signer first).
func statement(label string, th [32]byte, challenge [32]byte, signer, peer wire.Sender) []byte {
	b := append([]byte(label), 0)
	b = append(b, th[:]...)
	b = append(b, challenge[:]...)
	for _, id := range []wire.Sender{signer, peer} {
		b = append(b, byte(len(id.Agent)))
		b = append(b, id.Agent...)
		b = append(b, byte(len(id.Org)))
		b = append(b, id.Org...)
		b = append(b, id.Key[:]...)
	}
	return b
}

// sessionKeys derives k_ir and k_ri from the ephemeral shared secret and
// TH₃.
func sessionKeys(eph keys.X25519Private, peer keys.X25519Public, th3 [32]byte) (ir, ri []byte, err error) {
	ss, err := eph.ECDH(peer)
	if err != nil {
		return nil, nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ss, th3[:])
	if err != nil {
		return nil, nil, err
	}
	if ir, err = hkdf.Expand(sha256.New, prk, keyIRLabel, 32); err != nil {
		return nil, nil, err
	}
	if ri, err = hkdf.Expand(sha256.New, prk, keyRILabel, 32); err != nil {
		return nil, nil, err
	}
	return ir, ri, nil
}

// session is the initiator's side of a session with the gateway.
type session struct {
	id        string
	seal, opn []byte // k_ir, k_ri
	next      uint64 // the next counter to send
	expires   int64
}

func sessionNonce(ctr uint64) []byte {
	var n [12]byte
	binary.BigEndian.PutUint64(n[4:], ctr)
	return n[:]
}

// sealAt seals plaintext at counter ctr with key k.
func sealWith(k []byte, id string, ctr uint64, pt []byte) []byte {
	aead, err := chacha20poly1305.New(k)
	if err != nil {
		panic(err)
	}
	ad := wire.AppendSessionHeader(nil, id, ctr)
	return wire.AppendSessionSealed(nil, id, ctr, aead.Seal(nil, sessionNonce(ctr), pt, ad))
}

// sealNext seals signed message bytes at the next counter.
func (s *session) sealNext(pt []byte) []byte {
	b := sealWith(s.seal, s.id, s.next, pt)
	s.next++
	return b
}

// open opens what the gateway sealed in the session and checks its
// signature.
func (s *session) open(env *wire.Envelope) (*wire.Message, error) {
	if env.SessionID != s.id {
		return nil, fmt.Errorf("the answer is sealed in session %q, not in %q", env.SessionID, s.id)
	}
	aead, err := chacha20poly1305.New(s.opn)
	if err != nil {
		return nil, err
	}
	pt, err := aead.Open(nil, sessionNonce(env.Counter), env.Ciphertext, wire.AppendCanonical(nil, env.Header))
	if err != nil {
		return nil, fmt.Errorf("the answer sealed in the session does not open under k_ri")
	}
	m, err := wire.NewCodec(wire.Limits{}).Decode(pt)
	if err != nil {
		return nil, fmt.Errorf("the answer sealed in the session does not decode: %w", err)
	}
	if err := crypto.Verify(m); err != nil {
		return nil, fmt.Errorf("the answer sealed in the session: %w", err)
	}
	return m, nil
}

// channel is where a handshake runs: the HTTP message route, one request
// per message, or a stream connection.
type channel struct {
	face string
	conn streamConn // nil: HTTP
}

func (s *suite) httpChannel() *channel { return &channel{face: "http"} }

func (s *suite) dial(ctx context.Context, face string) (*channel, error) {
	var c streamConn
	var err error
	switch face {
	case "websocket":
		c, err = s.net.dialWS(ctx)
	case "grpc-stream":
		c, err = s.net.dialStream(ctx)
	default:
		return s.httpChannel(), nil
	}
	if err != nil {
		return nil, err
	}
	return &channel{face: face, conn: c}, nil
}

func (ch *channel) close() {
	if ch.conn != nil {
		ch.conn.Close()
	}
}

// exchange sends b and returns the answer.
func (s *suite) exchange(ctx context.Context, ch *channel, b []byte, o opener) (reply, error) {
	if ch.conn == nil {
		return s.postMessage(ctx, b, o)
	}
	return s.streamExchange(ctx, ch.conn, ch.face, b, o)
}

// handshake is one handshake the suite runs as initiator, step by step,
// so that a case can alter any message or what it saw of the gateway's.
type handshake struct {
	s    *suite
	ch   *channel
	me   *identity.Agent
	cert wire.Value // the identity certificate the hello presents
	eph  keys.X25519Private

	hello []byte // as sent

	ack     *wire.Message
	ackT    wire.Value // the hello_ack as received
	ackSeen wire.Value // the hello_ack as the initiator takes it (a case may alter it)

	challenge [32]byte // the initiator's
	verifyM   wire.Value
	verify    []byte

	vr     *wire.Message
	vrSeen wire.Value
	sess   *session
}

func (s *suite) newHandshake(ch *channel, me *identity.Agent, cert wire.Value) *handshake {
	eph, err := keys.GenerateX25519(s.cfg.Rand)
	if err != nil {
		panic(err)
	}
	return &handshake{s: s, ch: ch, me: me, cert: cert, eph: eph}
}

// helloTree is the genuine hello, unsigned.
func (h *handshake) helloTree() wire.Value {
	s := h.s
	var g [4]byte
	copy(g[:], s.newID())
	grease := fmt.Sprintf("grease-%08x", binary.BigEndian.Uint32(g[:]))
	p := &wire.HelloPayload{ProtocolVersions: []string{wire.Version}, Capabilities: []string{}, Extensions: []string{grease},
		MaxMessageSize: 1 << 20, SupportedCls: wire.Classes(), Nonce: s.random32(), EphemeralKey: h.eph.Public(),
		IdentityCert: h.cert}
	m := &wire.Message{V: wire.Version, ID: s.newID(), TS: s.cfg.Now().UnixMilli(), Op: wire.OpHello,
		From: h.me.Sender(), To: s.gw, Cls: wire.Pub, Payload: p}
	return s.tree(m)
}

// sendHello sends a hello: alter changes its tree before it is signed,
// transit its bytes after. A rate-limited hello is built anew and sent
// again.
func (h *handshake) sendHello(ctx context.Context, alter func(wire.Value) wire.Value, transit func([]byte) []byte) (reply, error) {
	r, b, err := h.s.retry(ctx, func() []byte {
		t := h.helloTree()
		if alter != nil {
			t = alter(t)
		}
		b := signTree(t, h.me.Signing)
		if transit != nil {
			b = transit(b)
		}
		return b
	}, func(b []byte) (reply, error) { return h.s.exchange(ctx, h.ch, b, opener{as: h.me}) })
	h.hello = b
	return r, err
}

// takeAck checks the gateway's hello_ack as the protocol requires an
// initiator to.
func (h *handshake) takeAck(r reply) error {
	if err := served(r, wire.OpHelloAck); err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	m := r.msg
	ht := parseTree(h.hello)
	hid, _ := ht.Get("id").Str()
	p, _ := wire.PayloadAs[wire.HelloPayload](m)
	switch {
	case m.Re != hid:
		return fmt.Errorf("hello_ack: re is %q, not the hello's id", m.Re)
	case m.To != h.me.Ref:
		return fmt.Errorf("hello_ack: addressed to %s, not to %s", m.To, h.me.Ref)
	case m.From.Ref() != h.s.gw || !m.From.Key.Equal(h.s.target.OrgKey):
		return fmt.Errorf("hello_ack: from %s under another key than the org key of the peer document", m.From.Ref())
	case m.Cls != wire.Pub:
		return fmt.Errorf("hello_ack: class %s, want pub", m.Cls)
	case p.Challenge.IsZero():
		return fmt.Errorf("hello_ack: no challenge")
	}
	t, err := m.Tree()
	if err != nil {
		return err
	}
	h.ack, h.ackT, h.ackSeen = m, t, t
	return nil
}

// senderOf reads the sender of a message object.
func senderOf(t wire.Value) wire.Sender {
	var s wire.Sender
	s.Agent, _ = get(t, "from.agent").Str()
	s.Org, _ = get(t, "from.org").Str()
	k, _ := get(t, "from.key").Str()
	s.Key, _ = keys.ParseEd25519Public(k)
	return s
}

func bytes32(t wire.Value, path string) [32]byte {
	s, _ := get(t, path).Str()
	b, _ := keys.DecodeBytes(s, 32)
	var out [32]byte
	copy(out[:], b)
	return out
}

// th1 is the transcript of hello and hello_ack as the initiator saw them.
func (h *handshake) th1() [32]byte {
	return transcriptHash(h.hello, wire.AppendCanonical(nil, h.ackSeen))
}

// proof is the initiator's genuine proof over what it saw.
func (h *handshake) proof() keys.Signature {
	return h.me.Signing.Sign(statement(initiatorLabel, h.th1(), bytes32(h.ackSeen, "p.challenge"), h.me.Sender(), senderOf(h.ackSeen)))
}

// verifyTree is the genuine verify with proof, unsigned.
func (h *handshake) verifyTree(proof keys.Signature) wire.Value {
	h.challenge = h.s.random32()
	m := &wire.Message{V: wire.Version, ID: h.s.newID(), TS: h.s.cfg.Now().UnixMilli(), Op: wire.OpVerify,
		From: h.me.Sender(), To: h.s.gw, Re: h.ack.ID, Cls: wire.Pub,
		Payload: &wire.VerifyPayload{Challenge: h.challenge, Proof: proof}}
	return h.s.tree(m)
}

// sendVerify sends verify: t signed, then transit applied to its bytes.
func (h *handshake) sendVerify(ctx context.Context, t wire.Value, transit func([]byte) []byte) (reply, error) {
	h.verifyM = t
	b := signTree(t, h.me.Signing)
	if transit != nil {
		b = transit(b)
	}
	h.verify = b
	return h.s.exchange(ctx, h.ch, b, opener{as: h.me})
}

// takeVerifyResponse checks the gateway's verify_response and its proof.
func (h *handshake) takeVerifyResponse(r reply) error {
	if err := served(r, wire.OpVerifyResponse); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	m := r.msg
	vid, _ := parseTree(h.verify).Get("id").Str()
	p, _ := wire.PayloadAs[wire.VerifyResponsePayload](m)
	switch {
	case m.Re != vid:
		return fmt.Errorf("verify_response: re is %q, not the verify's id", m.Re)
	case m.To != h.me.Ref || m.From.Ref() != h.s.gw || !m.From.Key.Equal(h.s.target.OrgKey):
		return fmt.Errorf("verify_response: from %s to %s, want from %s to %s", m.From.Ref(), m.To, h.s.gw, h.me.Ref)
	}
	th2 := transcriptHash(h.hello, wire.AppendCanonical(nil, h.ackT), h.verify)
	if !m.From.Key.Verify(statement(responderLabel, th2, h.challenge, h.ack.From, h.me.Sender()), p.Proof) {
		return fmt.Errorf("verify_response: the gateway's proof does not verify over TH₂ and this side's challenge")
	}
	t, err := m.Tree()
	if err != nil {
		return err
	}
	h.vr, h.vrSeen = m, t
	return nil
}

// keys derives the session from what the initiator saw.
func (h *handshake) keys() error {
	th3 := transcriptHash(h.hello, wire.AppendCanonical(nil, h.ackSeen), h.verify, wire.AppendCanonical(nil, h.vrSeen))
	ek, _ := get(h.ackSeen, "p.ephemeral_key").Str()
	peer, err := keys.ParseX25519Public(ek)
	if err != nil {
		return fmt.Errorf("hello_ack: ephemeral_key: %w", err)
	}
	ir, ri, err := sessionKeys(h.eph, peer, th3)
	if err != nil {
		return fmt.Errorf("key exchange: %w", err)
	}
	p, _ := wire.PayloadAs[wire.VerifyResponsePayload](h.vr)
	// The envelope names the session the gateway made; what the
	// initiator saw of it goes into session_established.
	h.sess = &session{id: p.SessionID, seal: ir, opn: ri, expires: p.Expires}
	return nil
}

// establishedTree is the genuine session_established, unsigned.
func (h *handshake) establishedTree() wire.Value {
	m := &wire.Message{V: wire.Version, ID: h.s.newID(), TS: h.s.cfg.Now().UnixMilli(), Op: wire.OpSessionEstablished,
		From: h.me.Sender(), To: h.s.gw, Re: h.vr.ID, Cls: wire.Pub,
		Payload: &wire.SessionEstablishedPayload{SessionID: h.sess.id, Expires: h.sess.expires}}
	if sid, ok := get(h.vrSeen, "p.session_id").Str(); ok && wire.ValidName(sid) && len(sid) >= 16 {
		m.Payload.(*wire.SessionEstablishedPayload).SessionID = sid
	}
	if exp, ok := get(h.vrSeen, "p.expires").Int(); ok && exp < h.sess.expires {
		m.Payload.(*wire.SessionEstablishedPayload).Expires = exp
	}
	return h.s.tree(m)
}

// sendEstablished seals t, signed, in the session at counter 0 (or as
// seal says) and sends it. Over HTTP the gateway answers an accepted one
// with an empty body; on a stream, with nothing.
func (h *handshake) sendEstablished(ctx context.Context, envelope []byte) (reply, error) {
	if h.ch.conn == nil {
		return h.s.postMessage(ctx, envelope, opener{as: h.me, sess: h.sess})
	}
	return reply{face: h.ch.face}, h.ch.conn.Send(ctx, envelope)
}

// run makes a genuine session.
func (h *handshake) run(ctx context.Context) (*session, error) { return h.runWith(ctx, nil) }

// runWith makes a session whose hello alterHello changed before it was
// signed.
func (h *handshake) runWith(ctx context.Context, alterHello func(wire.Value) wire.Value) (*session, error) {
	if _, err := h.toKeys(ctx, alterHello); err != nil {
		return nil, err
	}
	env := h.sess.sealNext(signTree(h.establishedTree(), h.me.Signing))
	r, err := h.sendEstablished(ctx, env)
	if err != nil {
		return nil, fmt.Errorf("session_established: %w", err)
	}
	if r.msg != nil {
		return nil, fmt.Errorf("session_established: answered %s, want nothing", r)
	}
	if r.status != 0 && r.status != 200 && r.status != 204 {
		return nil, fmt.Errorf("session_established: answered HTTP %d", r.status)
	}
	return h.sess, nil
}

// toKeys runs the genuine handshake up to the session keys, short of
// session_established.
func (h *handshake) toKeys(ctx context.Context, alterHello func(wire.Value) wire.Value) (*session, error) {
	r, err := h.sendHello(ctx, alterHello, nil)
	if err != nil {
		return nil, fmt.Errorf("hello: %w", err)
	}
	if err := h.takeAck(r); err != nil {
		return nil, err
	}
	if r, err = h.sendVerify(ctx, h.verifyTree(h.proof()), nil); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if err := h.takeVerifyResponse(r); err != nil {
		return nil, err
	}
	if err := h.keys(); err != nil {
		return nil, err
	}
	return h.sess, nil
}

// session makes a genuine session on ch as the test organisation's
// gateway.
func (s *suite) session(ctx context.Context, ch *channel) (*session, error) {
	return s.newHandshake(ch, s.org, s.orgCert).run(ctx)
}
