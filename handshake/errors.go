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
