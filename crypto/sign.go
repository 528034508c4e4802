package crypto

import (
	"bytes"
	"errors"
	"sync"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// bufPool recycles the scratch buffers that hold signing bytes.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Sign checks m with codec, signs it with sk and returns its wire bytes.
// m.From.Key must be sk's public key; Sign sets m.Sig.
func Sign(codec *wire.Codec, m *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	return AppendSign(nil, codec, m, sk)
}

// AppendSign is Sign, appending the wire bytes to dst.
func AppendSign(dst []byte, codec *wire.Codec, m *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	if m.Decoded() {
		return nil, errors.New("sign: message was decoded; build a new one")
	}
	if pub := sk.Public(); !m.From.Key.Equal(pub) {
		return nil, wire.Errorf(wire.ErrInvalidParam, "from.key", "is not the signing key's public key")
	}
	m.Sig = keys.Signature{}
	if err := codec.Check(m); err != nil {
		return nil, err
	}
	return m.AppendSignedWith(dst, sk.Sign)
}

// Verify checks m's signature against the key in m.From.Key. It accepts the
// canonical form and, failing that, the reference Python SDK's form.
func Verify(m *wire.Message) error { return VerifyUsing(nil, m) }

// VerifyUsing is Verify through v, which keeps the keys it has seen sign
// expanded for faster verification; v may be nil. The answer is Verify's.
func VerifyUsing(v *keys.Verifier, m *wire.Message) error {
	if m.From.Key.IsZero() {
		return wire.Errorf(wire.ErrSignature, "from.key", "no signing key")
	}
	return verifyWith(v, m, m.From.Key)
}

// VerifyWith checks m's signature against key, which must also be the key m
// names in from.key if it names one.
func VerifyWith(m *wire.Message, key keys.Ed25519Public) error { return verifyWith(nil, m, key) }

func verifyWith(v *keys.Verifier, m *wire.Message, key keys.Ed25519Public) error {
	if !m.Signed() {
		return wire.Errorf(wire.ErrSignature, "sig", "message is not signed")
	}
	if !m.From.Key.IsZero() && !m.From.Key.Equal(key) {
		return wire.Errorf(wire.ErrSignature, "from.key", "is not the expected key")
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	msg, err := m.AppendSigningBytes((*bp)[:0])
	if err != nil {
		return wire.Errorf(wire.ErrSignature, "", "cannot canonicalise message")
	}
	*bp = msg
	if v.Verify(key, msg, m.Sig) {
		return nil
	}
	// The Python SDK's form differs only for non-ASCII text, control
	// characters and non-integer numbers; try it only when it differs.
	py, err := m.AppendPythonSigningBytes(make([]byte, 0, len(msg)+64))
	if err == nil && !bytes.Equal(py, msg) && v.Verify(key, py, m.Sig) {
		return nil
	}
	return wire.Errorf(wire.ErrSignature, "sig", "signature does not verify")
}

// SignTree checks a message object parsed from JSON, signs it exactly as
// given (unknown members included) and returns its wire bytes with the
// decoded message. Any "sig" member in t is replaced.
func SignTree(codec *wire.Codec, t wire.Value, sk keys.Ed25519Private) ([]byte, *wire.Message, error) {
	if t.Kind() == wire.Object {
		t = t.Without("sig")
	}
	m, err := codec.DecodeTree(t)
	if err != nil {
		return nil, nil, err
	}
	if !m.From.Key.Equal(sk.Public()) {
		return nil, nil, wire.Errorf(wire.ErrInvalidParam, "from.key", "is not the signing key's public key")
	}
	out, err := m.SignWith(sk.Sign)
	if err != nil {
		return nil, nil, err
	}
	return out, m, nil
}
