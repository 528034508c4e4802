package peers

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/tlspin"
	"github.com/moltgate/moltgate/wire"
)

// Remote is an imported peer organisation and the means to reach its
// gateway: a pooled HTTP client pinned to its TLS certificate, a circuit
// breaker, and the stream connections (WebSocket, gRPC) opened on demand.
type Remote struct {
	t      *Table
	p      *Peer
	ref    wire.Ref // the peer's gateway agent
	br     *breaker
	pol    Policy
	tls    *tls.Config
	client *http.Client

	hsMu sync.Mutex // one handshake at a time per peer
	// handedAt is when a session under a key the peer handed over from
	// was last renewed, unix ns: at most once per handedRenewEvery, as
	// the peer may not present its new key yet.
	handedAt atomic.Int64

	// badPin is set once the peer's address answered with a TLS
	// certificate other than its pin: no call goes to it from then on.
	// A peer document imported again (another pin) makes a new Remote.
	badPin atomic.Pointer[tlspin.MismatchError]

	slots slotPolicy
	ws    streamSlot[*wsClient]
	gc    streamSlot[*grpcClient]
}

// current reports whether ps is still the peer as imported: a peer removed,
// or imported again (another key, endpoint or pin), has a new Remote or
// none, and calls under way on the old one must not connect anew with
// what was trusted before.
func (ps *Remote) current() bool { return ps.t.Get(ps.p.Org) == ps }

// notCurrent is the failure of a call whose peer was removed or imported
// again while it was under way.
func (ps *Remote) notCurrent() error {
	return &replacedError{wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s was removed or imported again while the call was under way", ps.p.Org)}
}

// replacedError is notCurrent's failure. It comes before the message is
// sent on a connection of ps, or after an attempt the peer cannot have
// acted on, so the call may go again to the peer as it is imported now.
type replacedError struct{ err error }

func (e *replacedError) Error() string { return e.err.Error() }
func (e *replacedError) Unwrap() error { return e.err }

// adopt keeps a session that a handshake with the peer has just made, if
// the peer is still imported as it was when the handshake began and the
// session is authenticated: a handshake with a former peer completes, at
// level 1, since its organisation is no longer in the trust store, and
// nothing may be sent to it. The check after Add covers a reload meanwhile:
// one that replaced ps after Add has ended every session of the org, this
// one too, or is seen here.
func (ps *Remote) adopt(sess *handshake.Session) error {
	if !ps.current() || sess.Level() < identity.Authenticated {
		sess.Close()
		return ps.notCurrent()
	}
	ps.t.cfg.Sessions.Add(sess)
	if !ps.current() {
		ps.t.cfg.Sessions.Remove(sess.ID())
		return ps.notCurrent()
	}
	return nil
}

// post sends one envelope to the peer's message endpoint and returns the
// response body, error bodies included (they are signed error messages).
func (ps *Remote) post(ctx context.Context, body []byte, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(ps.p.Endpoint, "/")+"/moltspeak/v0.1/message", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if d, ok := ctx.Deadline(); ok {
		req.Header.Set(frames.HeaderDeadline, fmt.Sprint(ps.t.now().Add(time.Until(d)).UnixMilli()))
	}
	resp, err := ps.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, wire.Errorf(wire.ErrTimeout, "", "peer %s did not answer in time", ps.p.Org)
		}
		return nil, wire.Errorf(wire.ErrPeerUnavailable, "", "cannot reach peer %s", ps.p.Org)
	}
	return resp, nil
}

// exchange is one request and its reply body, for handshakes over HTTP.
func (ps *Remote) exchange(ctx context.Context, body []byte) ([]byte, error) {
	resp, err := ps.post(ctx, body, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, int64(ps.t.cfg.EnvelopeLimit())+1))
}

// session returns a live session with the peer's gateway, running a
// handshake over HTTP if there is none. When the session is due for
// renewal, one call makes a new one while the others go on in the old.
func (ps *Remote) session(ctx context.Context) (*handshake.Session, error) {
	s := ps.t
	if sess, err := s.cfg.Sessions.Peer(ps.ref); err == nil {
		if renew, _ := ps.sessionDue(sess); !renew || !ps.hsMu.TryLock() {
			return sess, nil
		}
		defer ps.hsMu.Unlock()
		if cur, err := s.cfg.Sessions.Peer(ps.ref); err == nil && cur != sess {
			return cur, nil // renewed meanwhile
		}
		renewed, err := ps.handshakeHTTP(ctx)
		if err != nil {
			// The old session still works; the next call tries again.
			s.log.Warn("cannot renew the session with a peer", "peer", ps.ref.String(), "err", err.Error())
			return sess, nil
		}
		return renewed, nil
	}
	ps.hsMu.Lock()
	defer ps.hsMu.Unlock()
	if sess, err := s.cfg.Sessions.Peer(ps.ref); err == nil {
		return sess, nil
	}
	return ps.handshakeHTTP(ctx)
}

// handshakeHTTP runs a handshake with the peer's gateway over HTTP and
// keeps the session it makes. The caller holds hsMu.
func (ps *Remote) handshakeHTTP(ctx context.Context) (*handshake.Session, error) {
	s := ps.t
	sess, err := handshake.NewInitiator(s.cfg.Handshake, handshake.Peer{Ref: ps.ref, Key: ps.p.OrgKey}).Run(ctx, handshake.RoundTrip(ps.exchange))
	if err != nil {
		return nil, err
	}
	if err := ps.adopt(sess); err != nil {
		return nil, err
	}
	if f := s.cfg.Metrics.Sessions; f != nil {
		f(s.cfg.Sessions.Len())
	}
	s.log.Info("session established", "peer", ps.ref.String(), "trust_level", sess.Level().String(), "face", "client")
	return sess, nil
}

// Peer is the peer as imported.
func (ps *Remote) Peer() *Peer { return ps.p }

// Up is told that the peer's gateway established a session with this
// one: it is up, and a circuit opened by failed calls to it lets the next
// one through at once rather than after its cool-down.
func (ps *Remote) Up() { ps.br.peerUp() }

// Post sends one envelope to the peer's message endpoint, as a reply
// delivered later is, and returns the response, whose body the caller
// closes.
func (ps *Remote) Post(ctx context.Context, body []byte) (*http.Response, error) {
	return ps.post(ctx, body, "")
}

// Close ends the connections made to the peer, with the calls on them.
func (ps *Remote) Close() {
	ps.closeWS()
	ps.closeGRPC()
	ps.client.CloseIdleConnections()
}

// CloseIdle closes the peer's idle HTTP connections: the next call dials
// anew.
func (ps *Remote) CloseIdle() { ps.client.CloseIdleConnections() }

// Handshake makes a new session with the peer's gateway over transport, as
// a renewal does: over HTTP it is kept as the peer's session; a stream
// connection made for it is closed once made. A peer removed or imported
// again since ps was made gets none (see adopt).
func (ps *Remote) Handshake(ctx context.Context, transport string) error {
	switch transport {
	case TransportWebSocket:
		wc, err := ps.dialWS(ctx)
		if err != nil {
			return err
		}
		wc.close()
	case TransportGRPC:
		gc, err := ps.dialGRPC(ctx)
		if err != nil {
			return err
		}
		gc.close()
	default:
		ps.hsMu.Lock()
		defer ps.hsMu.Unlock()
		_, err := ps.handshakeHTTP(ctx)
		return err
	}
	return nil
}

// Client is the HTTP client pinned to the peer's certificate, for what the
// gateway asks of the peer besides calls (its registry's routes).
func (ps *Remote) Client() *http.Client { return ps.client }

// Session returns a live session with the peer's gateway, made over HTTP
// if there is none, for what the gateway sends the peer outside a call (a
// countersigned receipt).
func (ps *Remote) Session(ctx context.Context) (*handshake.Session, error) { return ps.session(ctx) }

// pinMismatch records that a TLS handshake with the peer's address met a
// certificate other than its pin. That is a security event, not a passing
// fault: the certificate changed without a new peer document, or something
// else answers at the peer's address. It is logged once, at ERROR, and
// every call to the peer fails from then on (pinError).
func (ps *Remote) pinMismatch(me *tlspin.MismatchError) {
	if ps.badPin.CompareAndSwap(nil, me) {
		ps.t.log.Error("peer presented a TLS certificate other than its pin: no more calls go to it until its peer document is imported again",
			"peer", ps.p.Org, "endpoint", ps.p.Endpoint, "expected_pin", me.Expected, "presented_pin", me.Presented)
	}
}

// pinError is the failure of every call to a peer whose certificate did
// not match its pin, or nil. The way out is a new peer document, checked
// with the peer out of band; waiting does not help, so it carries no
// retry_after.
func (ps *Remote) pinError() error {
	me := ps.badPin.Load()
	if me == nil {
		return nil
	}
	presented := me.Presented
	if presented == "" {
		presented = "no readable certificate"
	}
	return wire.Errorf(wire.ErrAuthFailed, "tls_pin", "peer %s presented a TLS certificate other than its pin (expected %s, presented %s); calls to it are stopped", ps.p.Org, me.Expected, presented).
		WithSuggestion(wire.Suggestion{Action: wire.ActionRetry,
			Fix: "check the certificate with " + ps.p.Org + " out of band, then import its new peer document with moltgate peer import"})
}
