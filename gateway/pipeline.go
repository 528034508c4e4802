package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Faces.
const (
	faceHTTP   = "http"
	faceBatch  = "batch"
	faceWS     = "websocket"
	faceGRPC   = "grpc"
	faceStream = "grpc_stream"
)

// origin says where an envelope came from.
type origin struct {
	face   string
	remote string
	// onSession, if set, is told of a session a handshake on this
	// connection completed, so that the face can end it with the
	// connection.
	onSession func(*handshake.Session)
	// conn is the stream connection the envelope came on; nil for the
	// HTTP faces and gRPC Send.
	conn *frameConn
	// onRequest, if set, is told the id of the message once it is
	// authenticated, so that a face that answers before the pipeline
	// does (HTTP's 202) can name the request the late reply will refer to.
	onRequest func(id string)
	// unread, if set, signs the refusals of what could not be read as a
	// message alike once they become many (see unreadRefusals).
	unread *unreadRefusals
}

// answer is the pipeline's answer to one inbound envelope.
type answer struct {
	body       []byte // the reply envelope; nil if none is due
	status     int    // HTTP status
	code       wire.Code
	retryAfter time.Duration
	op         wire.Op
	// peer is the sender's organisation, to which a late reply goes.
	peer string
	// shared: body answers other envelopes too (see unreadRefusals), so
	// it is not the face's to recycle.
	shared bool
}

// inbound is one message that passed authentication, on its way through
// the rest of the pipeline.
type inbound struct {
	o      origin
	m      *wire.Message
	sess   *handshake.Session // the session it arrived in, if any
	sealed bool               // it arrived in a sealed envelope or a session
	level  identity.Level
	peer   *peerState // the sender's organisation; nil if not a peer
}

// handle runs one envelope through the pipeline: decode, size, signature
// (or session), replay and expiry, trust level, capability, classification
// and personal data, then the route. Every face calls it, so every face
// gives the same answers. emit, if not nil, receives the envelopes of a
// streamed reply (stream chunks) before the final answer; faces that cannot
// stream pass nil and get the final answer only.
func (s *Server) handle(ctx context.Context, o origin, body []byte, emit func([]byte) error) (a answer) {
	start := s.now()
	defer func() {
		outcome := "ok"
		if a.code != "" {
			outcome = string(a.code)
		}
		op := string(a.op)
		if op == "" {
			op = "none"
		}
		s.metrics.messages.WithLabelValues(op, o.face, outcome).Inc()
		s.metrics.latency.WithLabelValues(o.face, op).Observe(s.now().Sub(start).Seconds())
	}()
	if limit := s.envelopeLimit(); len(body) > limit {
		return s.refuseUnread(o, wire.Errorf(wire.ErrTooLarge, "", "envelope of %d bytes exceeds the limit of %d", len(body), limit))
	}
	env, err := s.codec.DecodeEnvelope(body)
	if err != nil {
		return s.refuseUnread(o, err)
	}
	in := &inbound{o: o, sealed: env.Encrypted}
	switch {
	case env.Algorithm == wire.AlgSession:
		m, sess, err := s.sessions.Open(env)
		if err != nil {
			if code(err) == wire.ErrSessionExpired && s.acceptor.Handles(env) {
				return s.handshakeStep(ctx, o, env)
			}
			var rf *handshake.RefusedError
			if sess != nil && errors.As(err, &rf) && rf.ID != "" {
				// The peer sealed it, so the refusal can name it and
				// go back in the session: only its own call fails, not
				// every call on the connection.
				p := sess.Peer()
				return s.refuse(&wire.Message{ID: rf.ID, From: wire.Sender{Agent: p.Agent, Org: p.Org}}, sess, err)
			}
			return s.refuseUnread(o, err)
		}
		if owner, ok := s.bound.Load(sess.ID()); ok && owner != o.conn && !isReply(m) {
			// A session made on a stream connection is that
			// connection's: it ends with it, and no call sealed in it
			// is taken anywhere else. A reply to this gateway's own call
			// may come as a message of its own (a late reply, posted),
			// sealed in the session its call went in.
			return s.refuseUnread(o, wire.Errorf(wire.ErrAuthFailed, "envelope.session", "the session belongs to another connection"))
		}
		in.m, in.sess, in.level = m, sess, sess.Level()
	case s.acceptor.Handles(env):
		if env.Message != nil && env.Message.Op == wire.OpHello {
			// Hellos are counted per client address, and those claiming
			// to come from a peer's gateway apart from the rest, so that
			// a stranger's hellos do not use up the budget of a peer
			// behind the same address.
			from := env.Message.From
			peer := from.Agent == GatewayAgent && s.peer(from.Org) != nil
			key := hostOf(o.remote)
			if peer {
				key += " " + from.Org
			}
			if ok, wait := s.hsLimit.allow(key); !ok {
				s.metrics.rateLimit.WithLabelValues("handshake").Inc()
				return s.refuseUnread(o, withRetry(wire.Errorf(wire.ErrRateLimit, "", "too many handshakes from this address"), wait))
			}
			// Only imported peers' gateways get sessions: anyone else
			// would only fill session slots, as nothing they could
			// send in one is answered. A false claim to be a peer
			// fails the handshake on that peer's pinned key.
			if !peer {
				s.log.Info("handshake refused", "from", from.Ref().String(), "face", o.face, "remote", o.remote, "reason", "not a peer")
				return s.refuse(env.Message, nil, wire.Errorf(wire.ErrAuthFailed, "from",
					"%s is not the gateway of a peer: this gateway makes sessions only with organisations whose peer document it imported", from.Ref()))
			}
		}
		return s.handshakeStep(ctx, o, env)
	default:
		op := &crypto.Opener{Codec: s.codec, Box: s.box, Verifier: s.verifier, Accept: func(to wire.Ref) bool { return to.Org == s.cfg.Org }}
		m, err := op.OpenEnvelope(env)
		if err != nil {
			return s.refuseUnread(o, err)
		}
		in.m, in.level = m, identity.Identified
		if err := s.replay.Check(ctx, m); err != nil {
			return s.refuse(m, nil, err)
		}
		in.level = s.certLevel(m, in.level)
	}
	a = s.admit(ctx, o, in, emit)
	a.op, a.peer = in.m.Op, in.m.From.Org
	return a
}

// admit takes an authenticated message in as a call in flight, unless the
// gateway is shutting down or at its ceiling, and dispatches it. It is
// refused only here, once the message is known: a refusal that names no
// message can only end the connection it came on (the peer cannot tell
// which of its calls it is about), and with it every call in flight there.
func (s *Server) admit(ctx context.Context, o origin, in *inbound, emit func([]byte) error) answer {
	if s.closing.Load() {
		return s.refuse(in.m, in.sess, wire.Errorf(wire.ErrPeerUnavailable, "", "gateway is shutting down"))
	}
	release, ok := s.flight.enter()
	if !ok {
		s.metrics.rateLimit.WithLabelValues("gateway").Inc()
		return s.refuse(in.m, in.sess, withRetry(wire.Errorf(wire.ErrRateLimit, "", "gateway at its limit of calls in flight"), time.Second))
	}
	defer release()
	s.metrics.inflight.Set(float64(s.flight.count()))
	if o.onRequest != nil {
		o.onRequest(in.m.ID)
	}
	return s.dispatch(ctx, in, emit)
}

// handshakeStep answers one handshake message.
func (s *Server) handshakeStep(ctx context.Context, o origin, env *wire.Envelope) answer {
	reply, sess, err := s.acceptor.HandleEnvelope(ctx, env)
	if err != nil {
		// Addressed to the message it refuses, the refusal can be
		// authenticated by an initiator that knows this gateway's key,
		// which then learns why.
		var req *wire.Message
		if !env.Encrypted {
			req = env.Message
		}
		return s.refuse(req, nil, err)
	}
	if sess != nil {
		if p := sess.Peer(); !s.trust.Trusts(p.Org, p.Key) {
			// The peer was removed, or imported again with another key,
			// while this handshake was under way: its proof was checked
			// against a key its organisation no longer has. The trust
			// store changes before a reload ends the org's sessions, so
			// a session kept before that is ended by it, and one kept
			// after is seen here.
			s.sessions.Remove(sess.ID())
			s.log.Info("handshake refused", "from", p.Ref().String(), "face", o.face, "remote", o.remote, "reason", "key no longer trusted")
			return s.refuse(nil, nil, wire.Errorf(wire.ErrAuthFailed, "from.key", "the key this handshake proved is no longer trusted for %s", p.Org))
		}
		s.metrics.sessions.Set(float64(s.sessions.Len()))
		s.log.Info("session established", "peer", sess.Peer().Ref().String(), "level", sess.Level().String(), "face", o.face,
			"version", sess.Version(), "classes", classNames(sess.Classes()), "expires", sess.Expires())
		if o.onSession != nil {
			o.onSession(sess)
		}
	}
	return answer{body: reply, status: http.StatusOK, op: wire.OpHello}
}

// classNames lists classes as one string, "pub int conf".
func classNames(cs []wire.Class) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return strings.Join(out, " ")
}

// envelopeLimit is the largest envelope accepted: a sealed message grows by
// a third in base64.
func (s *Server) envelopeLimit() int { return s.cfg.Limits.MessageBytes/3*4 + 4096 }

// certLevel raises a message that arrived outside a session to level 2 when
// it carries an identity certificate from a trusted org for its key.
func (s *Server) certLevel(m *wire.Message, lvl identity.Level) identity.Level {
	cv := m.Ext.Get(extIdentity).Get("cert")
	if cv.IsAbsent() {
		return lvl
	}
	c, err := identity.ParseCert(cv)
	if err != nil || c.Ref() != m.From.Ref() || !c.Key.Equal(m.From.Key) {
		return lvl
	}
	if s.trust.VerifyIdentity(c, s.now()) != nil {
		return lvl
	}
	return max(lvl, identity.Verified)
}

// Extensions moltgate sends.
const (
	// extIdentity carries the sender's identity certificate ({"cert":…}).
	extIdentity = "moltgate.identity"
	// extCapabilities carries capability certificates ({"certs":[…]}).
	extCapabilities = "moltgate.capabilities"
	// extRoute carries the hop count ({"hops":n}).
	extRoute = "moltgate.route"
)

// dispatch takes an authenticated message through the checks that depend on
// who sent it, then routes it.
func (s *Server) dispatch(ctx context.Context, in *inbound, emit func([]byte) error) answer {
	m := in.m
	org := m.From.Org
	if org == s.cfg.Org && m.Op != wire.OpRegister {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrAuthFailed, "from.org", "messages of this organisation's own agents do not arrive on a peer face"))
	}
	in.peer = s.peer(org)
	registry := m.To.Agent == RegistryAgent || m.Op == wire.OpDiscover || m.Op == wire.OpRegister
	if in.peer != nil && !s.orgShown(in) {
		// Anyone can write a peer's name in from.org and sign with a key
		// of their own: that makes them no more the peer than a stranger.
		if !(registry && m.Cls == wire.Pub) {
			return s.refuse(m, in.sess, wire.Errorf(wire.ErrAuthFailed, "from.key",
				"nothing shows that this key is of organisation %s: send in a session with this gateway, or carry an identity certificate from %s", org, org))
		}
		in.peer = nil
	}
	if in.peer == nil && !(registry && m.Cls == wire.Pub) {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrAuthFailed, "from.org", "organisation %s is not a trusted peer of this gateway", org))
	}
	if hopsOf(m) > int64(s.cfg.Limits.MaxHops) {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrInvalidParam, "ext", "message crossed more than %d gateways", s.cfg.Limits.MaxHops))
	}

	// Replies to this gateway's own calls go to whoever waits for them.
	if isReply(m) {
		if s.pending.deliverTo(delivered{m: m, sess: in.sess, sealed: in.sealed}) {
			return answer{status: http.StatusAccepted}
		}
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrInvalidParam, "re", "no call of this gateway is waiting for this reply"))
	}

	if ok, wait := s.orgLimit.allow(org); !ok {
		s.metrics.rateLimit.WithLabelValues("peer_org").Inc()
		return s.refuse(m, in.sess, withRetry(wire.Errorf(wire.ErrRateLimit, "", "organisation %s is over its rate limit", org), wait))
	}
	if ok, wait := s.agentLimit.allow(m.From.Ref().String()); !ok {
		s.metrics.rateLimit.WithLabelValues("agent").Inc()
		return s.refuse(m, in.sess, withRetry(wire.Errorf(wire.ErrRateLimit, "", "agent %s is over its rate limit", m.From.Ref()), wait))
	}
	release, ok := s.peerGates.enter(org)
	if !ok {
		s.metrics.rateLimit.WithLabelValues("peer_concurrency").Inc()
		return s.refuse(m, in.sess, withRetry(wire.Errorf(wire.ErrRateLimit, "", "organisation %s has too many calls in flight", org), time.Second))
	}
	defer release()

	// Trust level and capability.
	need := identity.Required(m.Op, m.Cls, m.Cap)
	if p, ok := m.Payload.(*wire.TaskPayload); ok && p.Action == "create" && p.Type != "" {
		// A task of a named tool is that tool's invocation, run later: it
		// needs what a tool message needs, or a task would be a way round
		// the tool.invoke certificate. A task without a type runs the query
		// tool, as a query does.
		need.Level, need.Capability = identity.Authorized, "tool.invoke"
	}
	if need.Level == identity.Authorized && in.level >= identity.Authenticated {
		capability := need.Capability
		if capability == "" {
			capability = "tool.invoke"
		}
		if err := s.checkCapability(m, capability); err != nil {
			return s.refuse(m, in.sess, err)
		}
		in.level = identity.Authorized
	}
	if in.level < need.Level {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrAuthFailed, "", "a %s %s needs trust level %s; the sender is at %s (open a session with a handshake)",
			m.Cls, m.Op, need.Level, in.level))
	}

	// An agent that does not exist has no ceiling to check against: say
	// so, rather than that the class is above the ceiling of no one.
	if !registry && s.agent(m.To.Agent) == nil {
		return s.refuse(m, in.sess, wire.Errorf(wire.ErrAgentNotFound, "to.agent", "no agent %s at %s", m.To.Agent, s.cfg.Org))
	}

	// A registration is published as it is. The directory refuses
	// personal data and secrets in it whatever its class and consent, and
	// names the member; the gate's refusal would name cls and suggest a
	// consent, which cannot help.
	if m.Op == wire.OpRegister {
		if err := s.registry.reg.CheckContent(m); err != nil {
			return s.refuse(m, in.sess, err)
		}
	}

	// Classification and personal data, on the way in.
	d := s.gate.Check(ctx, m, classify.Inbound, org, s.gateSession(in.sess, in.sealed, false))
	if !d.Allow {
		s.logBlock(m, classify.Inbound, d)
		return s.refuse(m, in.sess, d.Err)
	}

	if registry {
		return s.registryOp(ctx, in)
	}
	return s.localOp(ctx, in, emit)
}

// orgShown reports whether the message shows that it comes from the
// organisation it names: it came in a session with that organisation (the
// session checks from.org), or is signed by one of its org keys or by a key
// it certified. Outside a session from.org is otherwise only a claim.
func (s *Server) orgShown(in *inbound) bool {
	m := in.m
	return in.sess != nil || in.level >= identity.Verified || s.trust.Trusts(m.From.Org, m.From.Key)
}

// isReply reports whether m answers a call: this gateway's own, if it is
// addressed here.
func isReply(m *wire.Message) bool {
	if m.Re == "" {
		return false
	}
	switch m.Op {
	case wire.OpRespond, wire.OpStream, wire.OpError, wire.OpPong:
		return true
	case wire.OpConsent:
		// A grant or a denial answers a consent request, and comes late
		// as any answer may: a person decides it.
		p, ok := m.Payload.(*wire.ConsentPayload)
		return ok && (p.Action == "grant" || p.Action == "deny")
	}
	return false
}

// gateSession tells the gate what it needs of the exchange.
func (s *Server) gateSession(sess *handshake.Session, sealed, outbound bool) *classify.Session {
	cs := &classify.Session{Sealed: sealed}
	if sess != nil {
		if outbound {
			cs.PeerSupported = sess.Classes()
		} else {
			cs.LocalSupported = sess.Classes()
		}
	}
	return cs
}

// checkCapability checks the capability certificates a message carries.
func (s *Server) checkCapability(m *wire.Message, capability string) error {
	certs := m.Ext.Get(extCapabilities).Get("certs")
	for _, c := range certs.Elems() {
		if s.capCerts.check(s.trust, c.Value, m.From, capability, s.now()) == nil {
			return nil
		}
	}
	return wire.Errorf(wire.ErrCapability, "ext", "the sender's organisation does not certify capability %s for it", capability).
		WithSuggestion(wire.Suggestion{Action: wire.ActionRequestCapability, Capability: capability})
}

// reply seals a reply to an inbound message, signed by sk, the way the
// request came: in its session, or sealed to the sender's key, or (for pub
// and int only) in the clear.
func (s *Server) reply(in *inbound, r *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	if in.sess != nil {
		return in.sess.AppendSignAndSeal(getEnvelopeBuf(), r, sk)
	}
	if !in.m.From.EncKey.IsZero() {
		return crypto.SealMessage(s.codec, r, sk, s.box, in.m.From.EncKey)
	}
	if r.Cls > wire.Int {
		return nil, wire.Errorf(wire.ErrClassification, "cls", "a %s reply cannot travel in the clear; send the request sealed", r.Cls)
	}
	return crypto.Sign(s.codec, r, sk)
}

// refuse answers with an error message, signed by the gateway. It is sealed
// in the request's session when there is one, and otherwise sent in the
// clear: it carries a code and a rule, never content.
func (s *Server) refuse(req *wire.Message, sess *handshake.Session, err error) answer {
	return s.refuseWith(req, sess, err, s.errorField)
}

// refuseWith is refuse with field making the error's field fit to go back.
func (s *Server) refuseWith(req *wire.Message, sess *handshake.Session, err error, field func(string) string) answer {
	we := directory.ProfileError(asWire(err))
	if f := field(we.Field); f != we.Field {
		c := *we
		c.Field = f
		we = &c
	}
	if we.Code == wire.ErrInternal {
		// The cause stays in the log, never in the reply.
		cause := err
		if we.Err != nil {
			cause = we.Err
		}
		s.log.Error("internal error", "err", cause.Error())
	}
	a := answer{status: we.Code.HTTPStatus(), code: we.Code}
	if we.Suggestion != nil && we.Suggestion.DelayMS > 0 {
		a.retryAfter = time.Duration(we.Suggestion.DelayMS) * time.Millisecond
	}
	m := &wire.Message{V: wire.Version, ID: newMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpError,
		From: s.org.Sender(), To: wire.Ref{Agent: "unknown", Org: "unknown"}, Cls: wire.Pub, Payload: we.Payload()}
	if req != nil {
		m.To, m.Re = req.From.Ref(), req.ID
		a.op = req.Op
	}
	var body []byte
	inClear := true
	if sess != nil && req != nil && req.From.Org == sess.Peer().Ref().Org {
		body, err = sess.SignAndSeal(m, s.org.Signing)
		inClear = code(err) == wire.ErrSessionExpired
	}
	if inClear {
		// No session, or one that has just ended: the error goes in the
		// clear, signed by this gateway, which the peer accepts for
		// errors (they carry a code and a rule, never content).
		m.Sig = keys.Signature{}
		body, err = crypto.Sign(s.codec, m, s.org.Signing)
	}
	if err != nil {
		s.log.Error("cannot sign an error reply", "code", string(we.Code), "err", err.Error())
		return a
	}
	a.body = body
	return a
}

// errorField is the part of a refusal's field that may go back: the path
// up to the first member name longer than maxFieldSegment bytes or that
// reads as personal data or a secret, and no longer than maxField. A path
// into a rejected message names members the sender chose, and the refusal
// may travel in the clear although the message came sealed: what the
// message held is never echoed.
func (s *Server) errorField(f string) string {
	const maxFieldSegment, maxField = 64, 256
	i := 0 // f[:i] is fit to go back
	for i < len(f) {
		next := s.fieldSegment(f, i, maxFieldSegment)
		if next < 0 || next > maxField {
			break
		}
		i = next
	}
	return f[:i]
}

// fieldSegment returns where the path segment at f[i:] ends (an array
// index, or a member name, plain or quoted), or -1 if it may not go back.
func (s *Server) fieldSegment(f string, i, max int) int {
	var name string
	end := -1
	switch {
	case strings.HasPrefix(f[i:], `["`):
		q, err := strconv.QuotedPrefix(f[i+1:])
		if err != nil || !strings.HasPrefix(f[i+1+len(q):], "]") {
			return -1
		}
		name, _ = strconv.Unquote(q)
		end = i + 1 + len(q) + 1
	case f[i] == '[':
		j := i + 1
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if j == i+1 || j == len(f) || f[j] != ']' {
			return -1
		}
		return j + 1
	default:
		if f[i] == '.' && i > 0 {
			i++
		}
		j := i
		for j < len(f) && wire.PlainKeyByte(f[j]) {
			j++
		}
		name, end = f[i:j], j
	}
	if name == "" || len(name) > max || len(s.scanner.ScanText(name)) > 0 {
		return -1
	}
	return end
}

// refuseUnread refuses what could not be read as a message.
func (s *Server) refuseUnread(o origin, err error) answer {
	if o.unread == nil {
		return s.refuse(nil, nil, err)
	}
	return o.unread.refuse(s, err)
}

// unreadRefusals are the refusals of what a batch or a stream connection
// sent that could not be read as messages. Each is signed, and a batch of a
// thousand junk items, or a connection sending junk frames, would cost a
// signature each for a few bytes sent. The first few get a refusal of
// their own; after them, one refusal per code, signed once, answers every
// item it fits.
type unreadRefusals struct {
	mu     sync.Mutex
	n      int
	shared map[wire.Code]answer
}

// unreadDetailed is how many unreadable envelopes get a refusal of
// their own.
const unreadDetailed = 8

func (u *unreadRefusals) refuse(s *Server, err error) answer {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n++; u.n <= unreadDetailed {
		return s.refuse(nil, nil, err)
	}
	we := asWire(err)
	if a, ok := u.shared[we.Code]; ok {
		return a
	}
	if u.shared == nil {
		u.shared = map[wire.Code]answer{}
	}
	a := s.refuse(nil, nil, &wire.Error{Code: we.Code, Suggestion: we.Suggestion,
		Message: fmt.Sprintf("this could not be read either (the first %d such refusals say why)", unreadDetailed)})
	a.shared = true
	u.shared[we.Code] = a
	return a
}

func withRetry(e *wire.Error, d time.Duration) *wire.Error {
	// Rounded up: a sender that waits exactly delay_ms must find a token.
	ms := max(int64((d+time.Millisecond-1)/time.Millisecond), 1)
	return e.WithSuggestion(wire.Suggestion{Action: wire.ActionRetryAfter, DelayMS: ms})
}

// asWire turns any error into the protocol error to answer with. Errors that
// are not protocol errors are internal and say nothing more.
func asWire(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return wire.Errorf(wire.ErrTimeout, "", "deadline exceeded")
	}
	if errors.Is(err, context.Canceled) {
		return wire.Errorf(wire.ErrTimeout, "", "cancelled")
	}
	return wire.Errorf(wire.ErrInternal, "", "internal error")
}

func code(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func (s *Server) logBlock(m *wire.Message, d classify.Direction, dec classify.Decision) {
	// One string, "email at p.input.to, phone at p.input.note": the
	// redaction layer renders any list as text and masks what looks
	// personal in it, which "email@p.input.to" did.
	paths := make([]string, 0, len(dec.Findings))
	for _, f := range dec.Findings {
		paths = append(paths, f.Type.String()+" at "+f.Path)
	}
	s.log.Warn("message blocked", "direction", d.String(), "reason", dec.Reason.String(), "op", string(m.Op),
		"from", m.From.Ref().String(), "to", m.To.String(), "cls", m.Cls.String(), "findings", strings.Join(paths, ", "))
}

// hostOf is the host part of a remote address.
func hostOf(remote string) string {
	if i := strings.LastIndexByte(remote, ':'); i >= 0 {
		return remote[:i]
	}
	return remote
}
