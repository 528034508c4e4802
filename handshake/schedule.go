package handshake

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"hash"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Domain-separation labels. Each is ASCII and distinct; none starts with
// '{', so no proof can be mistaken for a message signature, which always
// covers a JSON object.
const (
	transcriptLabel = "moltgate handshake v1 transcript"
	initiatorProof  = "moltgate handshake v1 initiator proof"
	responderProof  = "moltgate handshake v1 responder proof"
	keyI2R          = "moltgate handshake v1 key initiator to responder"
	keyR2I          = "moltgate handshake v1 key responder to initiator"
)

// transcript is the running hash of a handshake:
//
//	TH = SHA-256( "moltgate handshake v1 transcript" 0x00
//	              || len(m1) || m1 || len(m2) || m2 || ... )
//
// where each m is one message's RFC 8785 bytes with "sig" (exactly what
// Message.AppendWire gives, for the sender and the receiver alike) and each
// len is its length as a 4-byte big-endian integer. Messages are added in
// the order they are sent: hello, hello_ack, verify, verify_response.
type transcript struct{ h hash.Hash }

func newTranscript() transcript {
	t := transcript{sha256.New()}
	t.h.Write([]byte(transcriptLabel))
	t.h.Write([]byte{0})
	return t
}

func (t transcript) add(msg []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(msg)))
	t.h.Write(n[:])
	t.h.Write(msg)
}

// sum is the hash of the messages added so far; more may be added after.
func (t transcript) sum() [32]byte {
	var out [32]byte
	t.h.Sum(out[:0])
	return out
}

// statement builds the bytes a proof signs:
//
//	label 0x00                       "moltgate handshake v1 initiator proof" or "… responder proof"
//	TH          32 bytes             transcript hash before the proof's message
//	challenge   32 bytes             the challenge the peer sent
//	signer      identity             the prover
//	peer        identity             whom the proof is for
//
// where an identity is
//
//	len(agent) 1 byte || agent || len(org) 1 byte || org || Ed25519 key 32 bytes
//
// Names are at most 128 bytes, so the lengths fit a byte and the layout is
// unambiguous.
func statement(label string, th [32]byte, challenge wire.Bytes32, signer, peer wire.Sender) []byte {
	b := make([]byte, 0, len(label)+1+64+2*(2+32)+len(signer.Agent)+len(signer.Org)+len(peer.Agent)+len(peer.Org))
	b = append(b, label...)
	b = append(b, 0)
	b = append(b, th[:]...)
	b = append(b, challenge[:]...)
	b = appendIdentity(b, signer)
	return appendIdentity(b, peer)
}

func appendIdentity(b []byte, s wire.Sender) []byte {
	b = append(b, byte(len(s.Agent)))
	b = append(b, s.Agent...)
	b = append(b, byte(len(s.Org)))
	b = append(b, s.Org...)
	return append(b, s.Key[:]...)
}

func prove(sk keys.Ed25519Private, label string, th [32]byte, challenge wire.Bytes32, signer, peer wire.Sender) keys.Signature {
	return sk.Sign(statement(label, th, challenge, signer, peer))
}

func checkProof(sig keys.Signature, label string, th [32]byte, challenge wire.Bytes32, signer, peer wire.Sender) bool {
	return signer.Key.Verify(statement(label, th, challenge, signer, peer), sig)
}

// sessionKeys derives the two session keys:
//
//	ss   = X25519(own ephemeral private, peer ephemeral public)
//	PRK  = HKDF-Extract(SHA-256, salt = TH after verify_response, IKM = ss)
//	k_ir = HKDF-Expand(PRK, "moltgate handshake v1 key initiator to responder", 32)
//	k_ri = HKDF-Expand(PRK, "moltgate handshake v1 key responder to initiator", 32)
//
// The ephemeral private keys are dropped when the handshake ends, so a
// later theft of identity keys does not open recorded sessions.
func sessionKeys(eph keys.X25519Private, peer keys.X25519Public, th [32]byte) (ir, ri []byte, err error) {
	ss, err := eph.ECDH(peer)
	if err != nil {
		return nil, nil, err
	}
	defer clear(ss)
	prk, err := hkdf.Extract(sha256.New, ss, th[:])
	if err != nil {
		return nil, nil, err
	}
	defer clear(prk)
	if ir, err = hkdf.Expand(sha256.New, prk, keyI2R, 32); err != nil {
		return nil, nil, err
	}
	if ri, err = hkdf.Expand(sha256.New, prk, keyR2I, 32); err != nil {
		return nil, nil, err
	}
	return ir, ri, nil
}
