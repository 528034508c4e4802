package handshake

import (
	"encoding/hex"
	"fmt"
	"io"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// The five handshake messages are ordinary signed MoltSpeak messages with
// cls "pub". Below, each is shown in the RFC 8785 form that is signed and
// hashed into the transcript: members sorted by name, no whitespace (line
// breaks here are for reading only). On the wire they travel bare or in a
// plain envelope, except session_established, which travels sealed in the
// new session. Every message has the members
//
//	"cls":"pub"
//	"from":{"agent":…,"enc_key":"x25519:"+44,"key":"ed25519:"+44,"org":…}   the sender, static keys
//	"id":"xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx"                         fresh UUID v4
//	"re":…                                                                   id of the message answered (all but hello)
//	"sig":"ed25519:"+88                                                      Ed25519 over the form without "sig"
//	"to":{"agent":…,"org":…}                                                 the peer
//	"ts":…                                                                   unix ms, within ±5 min of the receiver
//	"v":"0.1"
//
// and its own "op" and "p".

// hello, initiator to responder:
//
//	"op":"hello",
//	"p":{"capabilities":["query",…],                 offered, may be empty
//	     "ephemeral_key":"x25519:"+44,               fresh X25519 public key, 32 bytes
//	     "extensions":[…,"grease-"+8 hex,…],         understood, plus one random unknown
//	     "identity_cert":{…},                        optional: identity.Cert of the sender
//	     "max_message_size":1048576,                 largest message accepted, ≥ 1024
//	     "nonce":"base64:"+44,                       32 random bytes
//	     "protocol_versions":["0.1",…],              "major.minor", any order
//	     "supported_cls":["pub","int",…]}            classes accepted in the session
//
// hello_ack, responder to initiator, re = hello's id: the same members for
// the responder, and in "p" one more:
//
//	"challenge":"base64:"+44                     32 random bytes, the responder's challenge
func (c *Config) helloPayload(me self, eph keys.X25519Public, challenge wire.Bytes32) (*wire.HelloPayload, error) {
	p := &wire.HelloPayload{
		ProtocolVersions: c.versions(),
		Capabilities:     c.Capabilities,
		MaxMessageSize:   c.maxMessageSize(),
		SupportedCls:     c.classes(),
		EphemeralKey:     eph,
		Challenge:        challenge,
	}
	if p.Capabilities == nil {
		p.Capabilities = []string{}
	}
	var err error
	if p.Extensions, err = withGrease(c.Extensions, c.rand()); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(c.rand(), p.Nonce[:]); err != nil {
		return nil, fmt.Errorf("read random: %w", err)
	}
	p.IdentityCert = me.cert
	return p, nil
}

// verify, initiator to responder, re = hello_ack's id:
//
//	"op":"verify",
//	"p":{"challenge":"base64:"+44,     32 random bytes, the initiator's challenge
//	     "proof":"ed25519:"+88}        initiator's signature of statement(initiator proof,
//	                                   TH(hello, hello_ack), responder's challenge,
//	                                   initiator, responder)
//
// verify_response, responder to initiator, re = verify's id:
//
//	"op":"verify_response",
//	"p":{"expires":…,                  latest session expiry the responder accepts, unix ms
//	     "proof":"ed25519:"+88,        responder's signature of statement(responder proof,
//	                                   TH(hello, hello_ack, verify), initiator's challenge,
//	                                   responder, initiator)
//	     "session_id":…}               32 lower-case hex digits (16 random bytes)
//
// session_established, initiator to responder, re = verify_response's id,
// sealed with the initiator-to-responder key at counter 0:
//
//	"op":"session_established",
//	"p":{"expires":…,                  the session's expiry, unix ms, ≤ the responder's
//	     "session_id":…}               verify_response's session_id
//
// Opening it proves to the responder that the initiator holds the session
// keys; its expires is the one both sides keep.

// newMessage starts a handshake message from this side, as me.
func (c *Config) newMessage(me self, op wire.Op, to wire.Ref, re string, p any) (*wire.Message, error) {
	id, err := newID(c.rand())
	if err != nil {
		return nil, err
	}
	return &wire.Message{
		V: wire.Version, ID: id, TS: c.now().UnixMilli(), Op: op,
		From: me.id.Sender(), To: to, Re: re, Cls: wire.Pub, Payload: p,
	}, nil
}

// sign signs m as me and returns its wire bytes, which are also its
// transcript bytes.
func (c *Config) sign(me self, m *wire.Message) ([]byte, error) {
	b, err := crypto.Sign(c.codec(), m, me.id.Signing)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", m.Op, err)
	}
	return b, nil
}

// newID makes a UUID v4 from rnd.
func newID(rnd io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "", fmt.Errorf("read random: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:]), nil
}

// newSessionID makes 16 random bytes in lower-case hex.
func newSessionID(rnd io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "", fmt.Errorf("read random: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// decodeMessage decodes a handshake message as it travels: a bare message or
// a plain envelope, never one sealed with a box.
func decodeMessage(codec *wire.Codec, b []byte) (*wire.Message, error) {
	env, err := codec.DecodeEnvelope(b)
	if err != nil {
		return nil, err
	}
	return envelopeMessage(env)
}

func envelopeMessage(env *wire.Envelope) (*wire.Message, error) {
	if env.Encrypted {
		return nil, authFailed("envelope", "handshake messages other than session_established travel unsealed")
	}
	return env.Message, nil
}

// expect checks that m is op and has the shape every handshake message
// has. A peer's error message ends the handshake with the peer's code.
func expect(m *wire.Message, op wire.Op) error {
	if m.Op == wire.OpError {
		return peerError(m)
	}
	if m.Op != op {
		return authFailed("op", "unexpected %s message, want %s", m.Op, op)
	}
	if m.Cls != wire.Pub {
		return authFailed("cls", "handshake messages are pub")
	}
	if m.From.Key.IsZero() {
		return authFailed("from.key", "handshake messages name their signing key")
	}
	if (op == wire.OpHello) != (m.Re == "") {
		return authFailed("re", "only hello answers no message")
	}
	return nil
}

// decodeHello decodes a hello.
func decodeHello(codec *wire.Codec, b []byte) (*wire.Message, *wire.HelloPayload, error) {
	m, err := decodeMessage(codec, b)
	if err != nil {
		return nil, nil, err
	}
	return checkHello(m, wire.OpHello)
}

// decodeHelloAck decodes a hello_ack.
func decodeHelloAck(codec *wire.Codec, b []byte) (*wire.Message, *wire.HelloPayload, error) {
	m, err := decodeMessage(codec, b)
	if err != nil {
		return nil, nil, err
	}
	return checkHello(m, wire.OpHelloAck)
}

func checkHello(m *wire.Message, op wire.Op) (*wire.Message, *wire.HelloPayload, error) {
	if err := expect(m, op); err != nil {
		return nil, nil, err
	}
	p := m.Payload.(*wire.HelloPayload)
	t, _ := m.Tree()
	hasChallenge := !t.Get("p").Get("challenge").IsAbsent()
	switch {
	case op == wire.OpHello && hasChallenge:
		return nil, nil, authFailed("p.challenge", "a hello carries no challenge")
	case op == wire.OpHelloAck && p.Challenge.IsZero():
		return nil, nil, authFailed("p.challenge", "a hello_ack carries a non-zero challenge")
	}
	return m, p, nil
}

// decodeVerify decodes a verify.
func decodeVerify(codec *wire.Codec, b []byte) (*wire.Message, *wire.VerifyPayload, error) {
	m, err := decodeMessage(codec, b)
	if err != nil {
		return nil, nil, err
	}
	if err := expect(m, wire.OpVerify); err != nil {
		return nil, nil, err
	}
	return m, m.Payload.(*wire.VerifyPayload), nil
}

// decodeVerifyResponse decodes a verify_response.
func decodeVerifyResponse(codec *wire.Codec, b []byte) (*wire.Message, *wire.VerifyResponsePayload, error) {
	m, err := decodeMessage(codec, b)
	if err != nil {
		return nil, nil, err
	}
	if err := expect(m, wire.OpVerifyResponse); err != nil {
		return nil, nil, err
	}
	p := m.Payload.(*wire.VerifyResponsePayload)
	if !validSessionID(p.SessionID) {
		return nil, nil, authFailed("p.session_id", "want 16 to 128 characters of [A-Za-z0-9_-]")
	}
	return m, p, nil
}

// decodeEstablished decodes the opened plaintext of a session_established.
func decodeEstablished(codec *wire.Codec, plaintext []byte) (*wire.Message, *wire.SessionEstablishedPayload, error) {
	m, err := codec.Decode(plaintext)
	if err != nil {
		return nil, nil, err
	}
	if err := expect(m, wire.OpSessionEstablished); err != nil {
		return nil, nil, err
	}
	return m, m.Payload.(*wire.SessionEstablishedPayload), nil
}

func validSessionID(s string) bool { return len(s) >= 16 && wire.ValidName(s) }

// isHandshakeOp reports whether op belongs to the handshake.
func isHandshakeOp(op wire.Op) bool {
	switch op {
	case wire.OpHello, wire.OpHelloAck, wire.OpVerify, wire.OpVerifyResponse, wire.OpSessionEstablished:
		return true
	}
	return false
}
