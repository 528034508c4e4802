// Package classify holds the data classification levels and what each demands, the ceilings
// that configuration sets per peer organisation and per local agent, the gate that every
// message crosses at the organisation's boundary, and a log/slog layer that keeps classified
// data out of logs.
//
// Levels are ordered pub < int < conf < pii < sec (wire.Class). Their handling:
//
//	level  encrypted in transit  persisted  logged
//	pub    no                    yes        yes
//	int    no (signed peers)     yes        yes
//	conf   yes                   no         metadata only: the payload is dropped
//	pii    yes                   no         masked: every personal datum and mask_field hidden
//	sec    yes                   no         never: not even masked
//
// A pii message needs a valid consent (pii/consent). Secret material (keys, tokens,
// passwords) may travel only in a sec message.
//
// The gate (Gate.Check) takes a decoded message, its direction, the peer and the session,
// and allows it or blocks it with E_CLASSIFICATION or E_CONSENT and findings that name types
// and JSON paths, never values.
package classify

import (
	"fmt"
	"strings"

	"github.com/moltgate/moltgate/wire"
)

// LogRule says what of a message of some level may reach a log.
type LogRule uint8

const (
	// LogFull: the payload may be logged (secrets found in it are still hidden).
	LogFull LogRule = iota + 1
	// LogMetadata: header fields only; the payload is dropped.
	LogMetadata
	// LogMasked: the payload with every personal datum and mask_field replaced.
	LogMasked
	// LogNever: nothing of the payload, not even its shape.
	LogNever
)

func (r LogRule) String() string {
	switch r {
	case LogFull:
		return "full"
	case LogMetadata:
		return "metadata"
	case LogMasked:
		return "masked"
	case LogNever:
		return "never"
	}
	return fmt.Sprintf("LogRule(%d)", r)
}

// Handling is what a level demands of everything that carries, stores or logs it.
type Handling struct {
	// Encrypt: the message must travel in a sealed envelope (or a session), never bare.
	Encrypt bool
	// SignedPeer: the message may go only to a peer that signs (and is verified).
	SignedPeer bool
	// Persist: the payload may be written to disk or a database.
	Persist bool
	// Consent: the message needs a valid consent for the personal data it carries.
	Consent bool
	// Log is what may be logged.
	Log LogRule
}

// Rules returns the handling of level c. An invalid level gets the strictest handling.
func Rules(c wire.Class) Handling {
	switch c {
	case wire.Pub:
		return Handling{Persist: true, Log: LogFull}
	case wire.Int:
		return Handling{SignedPeer: true, Persist: true, Log: LogFull}
	case wire.Conf:
		return Handling{Encrypt: true, SignedPeer: true, Log: LogMetadata}
	case wire.PII:
		return Handling{Encrypt: true, SignedPeer: true, Consent: true, Log: LogMasked}
	}
	return Handling{Encrypt: true, SignedPeer: true, Log: LogNever}
}

// ParseLevel reads a level as the command line gives it (--max-cls): a wire tag or its long
// form, case-insensitive.
func ParseLevel(s string) (wire.Class, error) {
	c, ok := wire.ParseClass(strings.ToLower(strings.TrimSpace(s)))
	if !ok {
		return 0, fmt.Errorf("classification %q: want one of pub, int, conf, pii, sec", s)
	}
	return c, nil
}
