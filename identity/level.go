package identity

import (
	"strings"

	"github.com/moltgate/moltgate/wire"
)

// Level is a trust level of the MoltSpeak security model.
type Level int

// The trust levels.
const (
	// Untrusted: an unknown agent, nothing verified.
	Untrusted Level = iota
	// Identified: the message's signature verifies.
	Identified
	// Verified: an identity certificate from a trusted org vouches for the
	// key.
	Verified
	// Authenticated: a handshake completed and the message arrived in its
	// session.
	Authenticated
	// Authorized: authenticated, and a trusted org certifies the capability
	// the operation needs.
	Authorized
)

var levelNames = [...]string{"untrusted", "identified", "verified", "authenticated", "authorized"}

func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "invalid"
}

// Requirement is what an operation needs of its sender.
type Requirement struct {
	Level Level
	// Consent: the message must carry a valid consent for its personal
	// data.
	Consent bool
	// Attestation: the capability must be certified by the sender's org.
	Attestation bool
	// Capability is the capability the operation exercises, if any.
	Capability string
}

// Required applies the security model's table of minimum trust levels:
//
//	receive error, handshake messages       0
//	ping, pong, register, discover          1 (a valid signature)
//	security_alert                          1 (its revocation list is signed)
//	query, respond, stream of public data   1
//	the same of internal data and above     3
//	task, consent                           3
//	tool invocation                         4
//	personal data (cls pii)                 4 + consent
//	code execution (code.execute…)          4 + attestation
//
// Confidential and secret data need at least level 3 whatever the
// operation. caps is the message's "cap" list.
func Required(op wire.Op, cls wire.Class, caps []string) Requirement {
	var r Requirement
	switch op {
	case wire.OpError, wire.OpHello, wire.OpHelloAck, wire.OpVerify, wire.OpVerifyResponse, wire.OpSessionEstablished:
		r.Level = Untrusted
	case wire.OpPing, wire.OpPong, wire.OpRegister, wire.OpDiscover, wire.OpSecurityAlert:
		r.Level = Identified
	case wire.OpQuery, wire.OpRespond, wire.OpStream:
		r.Level = Identified
		if cls > wire.Pub {
			r.Level = Authenticated
		}
	case wire.OpTask, wire.OpConsent:
		r.Level = Authenticated
	case wire.OpTool:
		r.Level = Authorized
		r.Capability = "tool.invoke"
	default:
		r.Level = Authorized
	}
	if cls >= wire.Conf && r.Level < Authenticated && op != wire.OpError {
		r.Level = Authenticated
	}
	if cls == wire.PII {
		r.Level = max(r.Level, Authorized)
		r.Consent = true
	}
	if cls == wire.Sec {
		r.Level = max(r.Level, Authorized)
	}
	for _, c := range caps {
		if c == "code.execute" || strings.HasPrefix(c, "code.execute.") {
			r.Level = Authorized
			r.Attestation = true
			r.Capability = c
		}
	}
	return r
}
