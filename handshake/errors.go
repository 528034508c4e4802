package handshake

import (
	"context"
	"errors"
	"fmt"

	"github.com/moltgate/moltgate/wire"
)

func authFailed(field, format string, args ...any) *wire.Error {
	return wire.Errorf(wire.ErrAuthFailed, field, format, args...)
}

// sessionExpired is the recoverable refusal of a session that is gone: its
// suggestion is to handshake again.
func sessionExpired(format string, args ...any) *wire.Error {
	return wire.Errorf(wire.ErrSessionExpired, "envelope.session", format, args...).
		WithSuggestion(wire.Suggestion{Action: wire.ActionHandshake, Fix: "run a new handshake with the peer"})
}

func errConfig(msg string) error { return errors.New("handshake: config: " + msg) }

// ErrPeerRefused is wrapped by the *wire.Error that ends a handshake when
// the peer sent an error message instead of the next step. The error's code
// is the peer's.
var ErrPeerRefused = errors.New("peer refused the handshake")

// peerError turns a peer's error message into the error that ends the
// handshake. It is not authenticated (the peer may not be known yet), so it
// only ever ends a handshake, and its text is not repeated.
func peerError(m *wire.Message) error {
	code := wire.ErrAuthFailed
	if p, ok := wire.PayloadAs[wire.ErrorPayload](m); ok && p.Code.Known() {
		code = p.Code
	}
	return &wire.Error{Code: code, Message: ErrPeerRefused.Error(), Err: ErrPeerRefused}
}

// ctxError reports a handshake cut short by its context: E_TIMEOUT when the
// deadline passed.
func ctxError(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &wire.Error{Code: wire.ErrTimeout, Message: "handshake deadline passed", Err: err}
	}
	return err
}

func timedOut() *wire.Error {
	return wire.Errorf(wire.ErrTimeout, "", "handshake deadline passed")
}

// transportError wraps a failure of the transport carrying the handshake.
func transportError(what string, ctx context.Context, err error) error {
	return ctxError(ctx, fmt.Errorf("handshake: %s: %w", what, err))
}

// RefusedError is the refusal of a session envelope that opened, and so
// certainly came from the peer's side of the session, but whose message
// was then refused: it did not decode, its signature failed, its sender
// does not fit the session, or its time has passed. ID and Re are the
// message's id and re, when they could be read; they let the refusal name
// the message, which matters on a connection that carries many calls: a
// refusal that names no message can only end the connection, and with it
// every call on it. Err is the refusal itself, a *wire.Error.
type RefusedError struct {
	ID, Re string
	Err    error
}

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// refused wraps err with what could be read of the message: m when it
// decoded, and otherwise the id and re of the plaintext, if it parses and
// they are well formed.
func refused(m *wire.Message, pt []byte, err error) error {
	e := &RefusedError{Err: err}
	if m != nil {
		e.ID, e.Re = m.ID, m.Re
		return e
	}
	v, perr := wire.Parse(pt, wire.MaxDepth)
	if perr != nil {
		return e
	}
	if id, _ := v.Get("id").Str(); wire.ValidID(id) {
		e.ID = id
	}
	if re, _ := v.Get("re").Str(); wire.ValidID(re) {
		e.Re = re
	}
	return e
}
