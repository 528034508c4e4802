package gateway

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// peerState is an imported peer organisation and the means to reach its
// gateway: a pooled HTTP client pinned to its TLS certificate, a circuit
// breaker, and the stream connections (WebSocket, gRPC) opened on demand.
type peerState struct {
	s      *Server
	p      *Peer
	ref    wire.Ref // the peer's gateway agent
	br     *breaker
	tls    *tls.Config
	client *http.Client

	hsMu sync.Mutex // one handshake at a time per peer

	slots slotPolicy
	ws    streamSlot[*wsClient]
	gc    streamSlot[*grpcClient]
}

func (s *Server) addPeer(p *Peer) error {
	ps, err := s.newPeerState(p)
	if err != nil {
		return err
	}
	s.peersMu.Lock()
	s.peers[p.Org] = ps
	s.peersMu.Unlock()
	return nil
}

// newPeerState makes what this gateway needs to call peer p.
func (s *Server) newPeerState(p *Peer) (*peerState, error) {
	ps := &peerState{s: s, p: p, ref: wire.Ref{Agent: GatewayAgent, Org: p.Org}}
	ps.slots = slotPolicy{due: ps.sessionDue, now: s.now, base: s.quitting, renewed: func(way string, err error) {
		s.metrics.renewals.WithLabelValues(p.Org, way).Inc()
		if err != nil {
			s.log.Warn("session renewal with peer failed; calls stay on the current session", "peer", p.Org, "err", err.Error())
		}
	}}
	ps.br = newBreaker(5, time.Second, s.now, func(st breakerState) {
		s.metrics.setBreaker(p.Org, st)
		s.log.Warn("peer circuit changed", "peer", p.Org, "state", st.String())
	})
	s.metrics.setBreaker(p.Org, breakerClosed)
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&sockio.Dialer{Dialer: net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 0, // bounded by each call's context
	}
	if strings.HasPrefix(p.Endpoint, "https://") {
		cfg, err := pinnedClientTLS(p.TLSPin, nil)
		if err != nil {
			return nil, fmt.Errorf("peer %s: %w", p.Org, err)
		}
		ps.tls = cfg
		// A copy: the HTTP transport adds "h2" to the config's NextProtos
		// on first use, and a WebSocket dial offering h2 then fails.
		tr.TLSClientConfig = cfg.Clone()
	}
	ps.client = &http.Client{Transport: tr}
	return ps, nil
}

func (s *Server) peer(org string) *peerState {
	s.peersMu.RLock()
	defer s.peersMu.RUnlock()
	return s.peers[org]
}

// current reports whether ps is still the peer as imported: a peer removed,
// or imported again (another key, endpoint or pin), has a new peerState or
// none, and calls under way on the old one must not connect anew with
// what was trusted before.
func (ps *peerState) current() bool { return ps.s.peer(ps.p.Org) == ps }

// notCurrent is the failure of a call whose peer was removed or imported
// again while it was under way.
func (ps *peerState) notCurrent() error {
	return wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s was removed or imported again while the call was under way", ps.p.Org)
}

// adopt keeps a session that a handshake with the peer has just made, if
// the peer is still imported as it was when the handshake began and the
// session is authenticated: a handshake with a former peer completes, at
// level 1, since its organisation is no longer in the trust store, and
// nothing may be sent to it. The check after Add covers a reload meanwhile:
// one that replaced ps after Add has ended every session of the org, this
// one too, or is seen here.
func (ps *peerState) adopt(sess *handshake.Session) error {
	if !ps.current() || sess.Level() < identity.Authenticated {
		sess.Close()
		return ps.notCurrent()
	}
	ps.s.sessions.Add(sess)
	if !ps.current() {
		ps.s.sessions.Remove(sess.ID())
		return ps.notCurrent()
	}
	return nil
}

// post sends one envelope to the peer's message endpoint and returns the
// response body, error bodies included (they are signed error messages).
func (ps *peerState) post(ctx context.Context, body []byte, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(ps.p.Endpoint, "/")+"/moltspeak/v0.1/message", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if d, ok := ctx.Deadline(); ok {
		req.Header.Set(headerDeadline, fmt.Sprint(ps.s.now().Add(time.Until(d)).UnixMilli()))
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
func (ps *peerState) exchange(ctx context.Context, body []byte) ([]byte, error) {
	resp, err := ps.post(ctx, body, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, int64(ps.s.pipe.EnvelopeLimit())+1))
}

// session returns a live session with the peer's gateway, running a
// handshake over HTTP if there is none. When the session is due for
// renewal, one call makes a new one while the others go on in the old.
func (ps *peerState) session(ctx context.Context) (*handshake.Session, error) {
	s := ps.s
	if sess, err := s.sessions.Peer(ps.ref); err == nil {
		if renew, _ := ps.sessionDue(sess); !renew || !ps.hsMu.TryLock() {
			return sess, nil
		}
		defer ps.hsMu.Unlock()
		if cur, err := s.sessions.Peer(ps.ref); err == nil && cur != sess {
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
	if sess, err := s.sessions.Peer(ps.ref); err == nil {
		return sess, nil
	}
	return ps.handshakeHTTP(ctx)
}

// handshakeHTTP runs a handshake with the peer's gateway over HTTP and
// keeps the session it makes. The caller holds hsMu.
func (ps *peerState) handshakeHTTP(ctx context.Context) (*handshake.Session, error) {
	s := ps.s
	sess, err := handshake.NewInitiator(s.hsCfg, handshake.Peer{Ref: ps.ref, Key: ps.p.OrgKey}).Run(ctx, handshake.RoundTrip(ps.exchange))
	if err != nil {
		return nil, err
	}
	if err := ps.adopt(sess); err != nil {
		return nil, err
	}
	s.metrics.sessions.Set(float64(s.sessions.Len()))
	s.log.Info("session established", "peer", ps.ref.String(), "trust_level", sess.Level().String(), "face", "client")
	return sess, nil
}

// Transports for calls to peers.
const (
	TransportWebSocket = "websocket"
	TransportGRPC      = "grpc"
	TransportHTTP      = "http"
)

// call sends m, signed with sk, to the peer and passes each message of the
// reply to onMsg, stream chunks first, until the final one (respond, pong
// or error). It retries idempotent operations on transport failures, and
// any operation once when the peer no longer knows the session. m has been
// through prepareOutbound.
func (ps *peerState) call(ctx context.Context, transport string, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (done bool, err error)) error {
	s := ps.s
	attempts := 1
	if idempotent(m) {
		attempts = 3
	}
	var last error
	for i := 0; ; i++ {
		if !ps.current() {
			// Not retried: another attempt would go to what was trusted
			// when the call began.
			return ps.notCurrent()
		}
		if ok, wait := ps.br.allow(); !ok {
			return pipeline.WithRetry(wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s is failing; calls paused", ps.p.Org), wait)
		}
		err := ps.callOnce(ctx, transport, m, sk, onMsg)
		retryable := errors.Is(err, errTransport) || pipeline.Code(err) == wire.ErrPeerUnavailable
		if !errors.As(err, new(lossCounted)) {
			ps.br.record(err == nil || !retryable)
		} else {
			ps.br.unrecorded()
		}
		if err == nil {
			return nil
		}
		last = err
		if pipeline.Code(err) == wire.ErrSessionExpired && i == 0 {
			// The peer restarted or dropped the session: a new
			// handshake, and the same message again (it was not
			// opened, so it cannot have been acted on). A stream
			// connection whose session went is closed already; closing
			// the peer's connections again would end the new one that
			// another call resent on.
			if !errors.As(err, new(sessionGone)) {
				ps.dropSession(transport)
			}
			m.Sig = keys.Signature{}
			continue
		}
		if !retryable || i+1 >= attempts || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(time.Duration(100<<(2*i)) * time.Millisecond):
		case <-ctx.Done():
			return pipeline.AsWire(ctx.Err())
		}
		// A retry is a new message: the peer remembers ids.
		m.ID, m.Sig = pipeline.NewMessageID(s.rand), keys.Signature{}
	}
	if errors.Is(last, errTransport) {
		return wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s: %v", ps.p.Org, last)
	}
	return last
}

var errTransport = errors.New("transport failure")

func idempotent(m *wire.Message) bool {
	switch m.Op {
	case wire.OpPing, wire.OpDiscover, wire.OpQuery:
		return true
	case wire.OpTask:
		p, _ := m.Payload.(*wire.TaskPayload)
		return p != nil && p.Action == "status"
	}
	return false
}

func (ps *peerState) dropSession(transport string) {
	if sess, err := ps.s.sessions.Peer(ps.ref); err == nil {
		ps.s.sessions.Remove(sess.ID())
	}
	switch transport {
	case TransportWebSocket:
		ps.closeWS()
	case TransportGRPC:
		ps.closeGRPC()
	}
}

func (ps *peerState) callOnce(ctx context.Context, transport string, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	switch transport {
	case TransportWebSocket:
		return ps.callWS(ctx, m, sk, onMsg)
	case TransportGRPC:
		return ps.callGRPC(ctx, m, sk, onMsg)
	}
	return ps.callHTTP(ctx, m, sk, onMsg)
}

// callHTTP posts the message sealed in the session and reads the reply as
// newline-separated envelopes. A 202 means the reply will be delivered to
// this gateway later; it is then awaited among the pending calls.
func (ps *peerState) callHTTP(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	sess, err := ps.session(ctx)
	if err != nil {
		return err
	}
	m.Sig = keys.Signature{}
	body, err := sess.SignAndSeal(m, sk)
	if err != nil {
		return notSent(err)
	}
	pc, done := ps.s.pending.wait(m.ID)
	defer done()
	resp, err := ps.post(ctx, body, contentNDJSON)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted {
		return ps.s.awaitStream(ctx, ps, m, pc, nil, onMsg)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	limit := ps.s.pipe.EnvelopeLimit()
	for {
		line, err := readLine(br, limit)
		if err == io.EOF {
			return wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s ended its reply early", ps.p.Org)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errTransport, err)
		}
		if len(line) == 0 {
			continue
		}
		d, err := ps.s.openFrame(ps, line)
		if err != nil {
			return err
		}
		if d.m.Re == "" && d.m.Op == wire.OpError {
			// The peer could not open the request (it no longer knows
			// the session, say), so its error names no message; on this
			// exchange it can only be about this one.
			if p, ok := d.m.Payload.(*wire.ErrorPayload); ok {
				err := p.Err()
				if pipeline.Code(err) == wire.ErrSessionExpired {
					// This session goes, and the call is sent again in a
					// new one. Only this one: another call may have made
					// a new session meanwhile.
					ps.s.sessions.Remove(sess.ID())
					return sessionGone{err}
				}
				return err
			}
		}
		if d.m.Re != m.ID {
			continue
		}
		if !ps.s.addressedTo(ps, m, d) {
			continue
		}
		r, err := ps.s.checkReply(ctx, ps, m, d)
		if err != nil {
			return err
		}
		if fin, err := onMsg(r); err != nil || fin {
			return err
		}
	}
}

// readLine reads one line of at most limit bytes.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > limit {
			return nil, errors.New("reply line too long")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(out) > 0 {
				return bytes.TrimSpace(out), nil
			}
			return nil, err
		}
		return bytes.TrimSpace(out), nil
	}
}

// awaitStream waits for the replies of a call: they arrive among the
// pending calls from a stream connection's reader, or from the pipeline
// when the peer delivers them later. dead, if not nil, closes when the
// connection they would come on is lost.
func (s *Server) awaitStream(ctx context.Context, ps *peerState, req *wire.Message, pc *pendingCall, dead <-chan struct{}, onMsg func(*wire.Message) (bool, error)) error {
	abandoned := func() error {
		return wire.Errorf(wire.ErrTimeout, "", "the reply from %s was abandoned: its stream was not taken for %v", ps.p.Org, stallLimit)
	}
	for {
		// Replies that came are taken before anything else is looked at,
		// unless delivery gave up on the call: what is queued then is
		// not the whole reply.
		select {
		case <-pc.overrun:
			return abandoned()
		default:
		}
		if d, ok := pc.next(); ok {
			if d.m.From.Org != ps.p.Org {
				// Replies that come as messages of their own (late ones,
				// on this gateway's faces) are matched by re alone: one
				// from another organisation is not this call's answer.
				s.log.Warn("dropped a reply from another organisation", "from", d.m.From.Org, "call_to", ps.p.Org)
				continue
			}
			if !s.addressedTo(ps, req, d) {
				continue
			}
			r, err := s.checkReply(ctx, ps, req, d)
			if err != nil {
				return err
			}
			if fin, err := onMsg(r); err != nil || fin {
				return err
			}
			continue
		}
		select {
		case <-pc.ready:
		case <-pc.overrun:
			return abandoned()
		case <-dead:
			return wire.Errorf(wire.ErrPeerUnavailable, "", "connection to peer %s lost before the reply", ps.p.Org)
		case <-ctx.Done():
			return wire.Errorf(wire.ErrTimeout, "", "no reply from %s before the deadline", ps.p.Org)
		}
	}
}

// addressedTo reports whether d, a reply that names req in re, is
// addressed to the one who sent req. The gate checks a reply against the
// ceiling of the local agent it is addressed to, so one addressed to
// another agent, with a higher ceiling, would bring the caller what its
// own ceiling keeps out. It is not this call's answer; it is dropped. An
// error carries a code and a rule, no content, and the gate does not see
// it; a peer that cannot read who sent a message refuses it to the gateway
// it came from.
func (s *Server) addressedTo(ps *peerState, req *wire.Message, d delivered) bool {
	if d.refused != nil || d.m.Op == wire.OpError || d.m.To == req.From.Ref() {
		return true
	}
	s.log.Warn("dropped a reply addressed to another than its caller", "peer", ps.p.Org, "to", d.m.To.String(), "caller", req.From.Ref().String())
	return false
}

// openFrame opens one envelope of a peer's reply: in a session, it must
// come from the peer's organisation; a bare one is accepted only as an
// error message signed with the peer's org key (the peer could not seal
// it, for instance because it no longer knows the session).
func (s *Server) openFrame(ps *peerState, b []byte) (delivered, error) {
	env, err := s.codec.DecodeEnvelope(b)
	if err != nil {
		return delivered{}, err
	}
	if env.Algorithm == wire.AlgSession {
		r, sess, err := s.sessions.Open(env)
		if sess != nil && sess.Peer().Ref().Org != ps.p.Org {
			return delivered{}, wire.Errorf(wire.ErrAuthFailed, "", "reply from another organisation's session")
		}
		if err != nil {
			var rf *handshake.RefusedError
			if sess != nil && errors.As(err, &rf) && rf.Re != "" {
				// The peer sent it, but it cannot be taken: the call it
				// answers fails now, rather than at its deadline.
				return delivered{m: &wire.Message{Re: rf.Re, From: wire.Sender{Org: ps.p.Org}}, sess: sess, refused: err}, nil
			}
			return delivered{}, err
		}
		return delivered{m: r, sess: sess, sealed: true}, nil
	}
	r := env.Message
	if r == nil || r.Op != wire.OpError {
		return delivered{}, wire.Errorf(wire.ErrAuthFailed, "", "peer %s replied outside the session", ps.p.Org)
	}
	if r.From.Org != ps.p.Org || !r.From.Key.Equal(ps.p.OrgKey) || crypto.VerifyUsing(ps.s.verifier, r) != nil {
		return delivered{}, wire.Errorf(wire.ErrAuthFailed, "", "error reply not signed by peer %s", ps.p.Org)
	}
	return delivered{m: r}, nil
}

// checkReply turns a peer's error message into its error, and passes any
// other reply through the gate inbound, like every message that enters.
func (s *Server) checkReply(ctx context.Context, ps *peerState, req *wire.Message, d delivered) (*wire.Message, error) {
	if d.refused != nil {
		s.log.Warn("refused a reply from a peer", "peer", ps.p.Org, "code", string(pipeline.Code(d.refused)))
		return nil, fmt.Errorf("reply from %s refused: %w", ps.p.Org, d.refused)
	}
	r := d.m
	s.countersign(ps, req, r, d.sess)
	if r.Op == wire.OpError {
		if p, ok := r.Payload.(*wire.ErrorPayload); ok {
			return nil, p.Err()
		}
	}
	dec := s.gate.Check(ctx, r, gateInbound, ps.p.Org, pipeline.GateSession(d.sess, d.sealed, false))
	s.auditReply(ctx, r, dec)
	if !dec.Allow {
		s.pipe.LogBlock(r, gateInbound, dec)
		return nil, dec.Err
	}
	return r, nil
}
