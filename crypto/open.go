package crypto

import (
	"strings"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Opener opens what arrives for one recipient: sealed envelopes, plain
// envelopes and bare messages. It returns only verified messages.
type Opener struct {
	// Codec decodes envelopes and messages. Required.
	Codec *wire.Codec
	// Box holds the recipient's X25519 key. Required for sealed envelopes
	// unless Keyring is set.
	Box *Box
	// Keyring, if set, is read for each sealed envelope and opens it in
	// place of Box: the recipient's keys at that time, the one a rotation
	// replaced included while its overlap lasts. Default none.
	Keyring func() *Keyring
	// Now is the time a Keyring's overlap is judged at. Default time.Now.
	Now func() time.Time
	// Accept reports whether a message addressed to "to" is for this
	// recipient. Required.
	Accept func(to wire.Ref) bool
	// Verifier checks signatures, keeping the keys it has seen sign
	// expanded for faster verification. Default none: each verification
	// starts from the key's bytes.
	Verifier *keys.Verifier
}

// Open decodes b, opens it if sealed, and checks the message: it must be
// addressed to the recipient, its sender's enc_key must be the key that
// sealed it, its signature must verify, and a message that travelled in the
// clear may not be classified above int.
func (o *Opener) Open(b []byte) (*wire.Message, error) {
	env, err := o.Codec.DecodeEnvelope(b)
	if err != nil {
		return nil, err
	}
	return o.OpenEnvelope(env)
}

// OpenEnvelope is Open for an envelope already decoded.
func (o *Opener) OpenEnvelope(env *wire.Envelope) (*wire.Message, error) {
	m := env.Message
	if env.Encrypted {
		pt, err := o.open(env)
		if err != nil {
			return nil, err
		}
		m, err = o.Codec.Decode(pt)
		if err != nil {
			return nil, err
		}
		// The key that sealed the box must be the sender's own, or a
		// signed message could be re-sealed by anyone who saw it.
		if m.From.EncKey.IsZero() || !m.From.EncKey.Equal(env.SenderPublic) {
			return nil, wire.Errorf(wire.ErrAuthFailed, "from.enc_key", "does not match the key that sealed the envelope")
		}
	} else if m.Cls > wire.Int {
		return nil, wire.Errorf(wire.ErrClassification, "cls", "%s messages must be encrypted", m.Cls)
	}
	if !o.Accept(m.To) {
		return nil, wire.Errorf(wire.ErrAuthFailed, "to", "message is addressed to another recipient")
	}
	if err := VerifyUsing(o.Verifier, m); err != nil {
		return nil, err
	}
	return m, nil
}

// open decrypts a sealed envelope's box under the recipient's key, or
// keys.
func (o *Opener) open(env *wire.Envelope) ([]byte, error) {
	if o.Box == nil && o.Keyring == nil {
		return nil, wire.Errorf(wire.ErrAuthFailed, "envelope", "no key to open sealed envelopes")
	}
	if len(env.Nonce) != 24 {
		return nil, wire.Errorf(wire.ErrInvalidParam, "envelope.nonce", "want 24 bytes")
	}
	nonce := (*[24]byte)(env.Nonce)
	if o.Keyring == nil {
		pt, err := o.Box.OpenFrom(nil, env.Ciphertext, nonce, env.SenderPublic)
		if err != nil {
			return nil, wire.Errorf(wire.ErrAuthFailed, "ciphertext", "envelope could not be opened")
		}
		return pt, nil
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	pt, err := o.Keyring().OpenFrom(nil, env.Ciphertext, nonce, env.SenderPublic, now())
	if err != nil {
		// Past the cause, the message says which keys were tried: a
		// sender still sealing to a key replaced learns to take the new
		// one.
		return nil, wire.Errorf(wire.ErrAuthFailed, "ciphertext", "envelope could not be opened%s", strings.TrimPrefix(err.Error(), ErrNotOpened.Error()))
	}
	return pt, nil
}

// AcceptRef returns an Accept function for exactly one agent.
func AcceptRef(self wire.Ref) func(wire.Ref) bool {
	return func(to wire.Ref) bool { return to == self }
}

// SealMessage signs m (if not yet signed) and seals it to peer. It is the
// usual way to send one message outside a session.
func SealMessage(codec *wire.Codec, m *wire.Message, sk keys.Ed25519Private, b *Box, peer keys.X25519Public) ([]byte, error) {
	signed, err := Sign(codec, m, sk)
	if err != nil {
		return nil, err
	}
	return b.Seal(signed, peer, nil)
}
