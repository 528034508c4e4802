package pipeline

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// GatewayAgent and RegistryAgent are the agent names of a gateway itself
// and of its registry.
const (
	GatewayAgent  = "gateway"
	RegistryAgent = "registry"
)

// next is a step's answer when the envelope goes on to the next step.
func next() (Answer, bool) { return Answer{}, false }

// checkSize refuses an envelope larger than the limit before reading it.
func checkSize(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	if limit := p.EnvelopeLimit(); len(in.body) > limit {
		return p.refuseUnread(in.Origin, wire.Errorf(wire.ErrTooLarge, "", "envelope of %d bytes exceeds the limit of %d", len(in.body), limit)), true
	}
	return next()
}

func decode(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	env, err := p.Codec.DecodeEnvelope(in.body)
	if err != nil {
		return p.refuseUnread(in.Origin, err), true
	}
	in.env, in.Sealed = env, env.Encrypted
	return next()
}

// openSession opens an envelope sealed in a session.
func openSession(p *Pipeline, ctx context.Context, in *Inbound) (Answer, bool) {
	env, o := in.env, in.Origin
	if env.Algorithm != wire.AlgSession {
		return next()
	}
	m, sess, err := p.Sessions.Open(env)
	if err != nil {
		if Code(err) == wire.ErrSessionExpired && p.Acceptor.Handles(env) {
			in.hello = true
			return p.handshakeStep(ctx, in), true
		}
		var rf *handshake.RefusedError
		if sess != nil && errors.As(err, &rf) && rf.ID != "" {
			// The peer sealed it, so the refusal can name it and
			// go back in the session: only its own call fails, not
			// every call on the connection.
			peer := sess.Peer()
			return p.Refuse(&wire.Message{ID: rf.ID, From: wire.Sender{Agent: peer.Agent, Org: peer.Org}}, sess, err), true
		}
		return p.refuseUnread(o, err), true
	}
	if owner, ok := p.Owners.Load(sess.ID()); ok && owner != o.Conn && !IsReply(m) {
		// A session made on a stream connection is that
		// connection's: it ends with it, and no call sealed in it
		// is taken anywhere else. A reply to this gateway's own call
		// may come as a message of its own (a late reply, posted),
		// sealed in the session its call went in.
		return p.refuseUnread(o, wire.Errorf(wire.ErrAuthFailed, "envelope.session", "the session belongs to another connection")), true
	}
	in.M, in.Sess, in.Level = m, sess, sess.Level()
	return p.outOfOrder(in)
}

// handshakeOp answers a handshake message outside a session.
func handshakeOp(p *Pipeline, ctx context.Context, in *Inbound) (Answer, bool) {
	env, o := in.env, in.Origin
	if in.M != nil || !p.Acceptor.Handles(env) {
		return next()
	}
	in.hello = true
	if env.Message != nil && env.Message.Op == wire.OpHello {
		// Hellos are counted per client address, and those claiming
		// to come from a peer's gateway apart from the rest, so that
		// a stranger's hellos do not use up the budget of a peer
		// behind the same address.
		from := env.Message.From
		peer := from.Agent == GatewayAgent && p.IsPeer(from.Org)
		key := hostOf(o.Remote)
		if peer {
			key += " " + from.Org
		}
		if ok, wait := p.HandshakeLimit.Allow(key); !ok {
			p.Metrics.RateLimit.WithLabelValues("handshake").Inc()
			return p.refuseUnread(o, WithRetry(wire.Errorf(wire.ErrRateLimit, "", "too many handshakes from this address"), wait)), true
		}
		// Only imported peers' gateways get sessions: anyone else
		// would only fill session slots, as nothing they could
		// send in one is answered. A false claim to be a peer
		// fails the handshake on that peer's pinned key.
		if !peer {
			in.reason = "not a peer"
			return p.Refuse(env.Message, nil, wire.Errorf(wire.ErrAuthFailed, "from",
				"%s is not the gateway of a peer: this gateway makes sessions only with organisations whose peer document it imported", from.Ref())), true
		}
	}
	return p.handshakeStep(ctx, in), true
}

// openSigned opens an envelope signed (and perhaps sealed) outside a
// session.
func openSigned(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	if in.M != nil {
		return next()
	}
	op := &crypto.Opener{Codec: p.Codec, Keyring: p.Keys, Now: p.Now, Verifier: p.Verifier, Accept: func(to wire.Ref) bool { return to.Org == p.Org }}
	m, err := op.OpenEnvelope(in.env)
	if err != nil {
		return p.refuseUnread(in.Origin, err), true
	}
	in.M, in.Level = m, identity.Identified
	return p.outOfOrder(in)
}

// outOfOrder refuses a handshake message that the handshake step did not
// take: it belongs to no handshake under way (a verify whose hello_ack
// this gateway never sent, a session_established in the clear). It is the
// handshake's failure, not a call to an agent named "gateway".
func (p *Pipeline) outOfOrder(in *Inbound) (Answer, bool) {
	switch in.M.Op {
	case wire.OpHello, wire.OpHelloAck, wire.OpVerify, wire.OpVerifyResponse, wire.OpSessionEstablished:
		return p.Refuse(in.M, in.Sess, wire.Errorf(wire.ErrAuthFailed, "re",
			"%s belongs to no handshake under way with this gateway: start again with a hello", in.M.Op)), true
	}
	return next()
}

// strangers is the replay window's share for the senders no organisation
// vouches for.
const strangers = "strangers"

// checkReplay refuses a message outside a session seen before or expired;
// a session keeps its own window. It comes after the sender's identity is
// checked, so that the ids of messages refused on it are never recorded:
// otherwise anyone could fill the window with throwaway keys that claim a
// peer's name. What a stranger may still send (a public registry
// operation) is recorded in one share all strangers fill together.
func checkReplay(p *Pipeline, ctx context.Context, in *Inbound) (Answer, bool) {
	if in.Sess != nil {
		return next()
	}
	var err error
	if p.OrgShown(in) {
		err = p.Replay.Check(ctx, in.M)
	} else {
		err = p.Replay.CheckShared(ctx, in.M, strangers)
	}
	if err != nil {
		return p.Refuse(in.M, nil, err), true
	}
	return next()
}

// identityLevel raises a message that arrived outside a session to level 2
// when it carries an identity certificate from a trusted org for its key.
func identityLevel(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	if in.Sess != nil {
		return next()
	}
	in.Level = p.certLevel(in.M, in.Level)
	return next()
}

// admit takes an authenticated message in as a call in flight, unless the
// gateway is shutting down or at its ceiling. It is refused only here, once
// the message is known: a refusal that names no message can only end the
// connection it came on (the peer cannot tell which of its calls it is
// about), and with it every call in flight there.
func admit(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	in.admitted = true
	if p.Closing() {
		return p.Refuse(in.M, in.Sess, wire.Errorf(wire.ErrPeerUnavailable, "", "gateway is shutting down")), true
	}
	release, ok := p.Flight.Enter()
	if !ok {
		p.Metrics.RateLimit.WithLabelValues("gateway").Inc()
		return p.Refuse(in.M, in.Sess, WithRetry(wire.Errorf(wire.ErrRateLimit, "", "gateway at its limit of calls in flight"), time.Second)), true
	}
	in.releaseFlight = release
	p.Metrics.InFlight.Set(float64(p.Flight.Count()))
	if in.Origin.OnRequest != nil {
		in.Origin.OnRequest(in.M.ID)
	}
	return next()
}

// handshakeStep answers one handshake message.
func (p *Pipeline) handshakeStep(ctx context.Context, in *Inbound) Answer {
	o, env := in.Origin, in.env
	reply, sess, err := p.Acceptor.HandleEnvelope(ctx, env)
	if err != nil {
		// Addressed to the message it refuses, the refusal can be
		// authenticated by an initiator that knows this gateway's key,
		// which then learns why.
		var req *wire.Message
		if !env.Encrypted {
			req = env.Message
		}
		return p.Refuse(req, nil, err)
	}
	if sess != nil {
		if peer := sess.Peer(); !p.Trust.Trusts(peer.Org, peer.Key) {
			// The peer was removed, or imported again with another key,
			// while this handshake was under way: its proof was checked
			// against a key its organisation no longer has. The trust
			// store changes before a reload ends the org's sessions, so
			// a session kept before that is ended by it, and one kept
			// after is seen here.
			p.Sessions.Remove(sess.ID())
			in.reason = "key no longer trusted"
			return p.Refuse(nil, nil, wire.Errorf(wire.ErrAuthFailed, "from.key", "the key this handshake proved is no longer trusted for %s", peer.Org))
		}
		p.Metrics.Sessions.Set(float64(p.Sessions.Len()))
		p.Log.InfoContext(in.TraceContext(ctx), "session established", "peer", sess.Peer().Ref().String(), "trust_level", sess.Level().String(), "face", o.Face,
			"version", sess.Version(), "classes", classNames(sess.Classes()), "expires", sess.Expires())
		if o.OnSession != nil {
			o.OnSession(sess)
		}
		if p.PeerUp != nil {
			p.PeerUp(sess.Peer().Org)
		}
	}
	return Answer{Body: reply, Status: http.StatusOK, Op: wire.OpHello}
}

// classNames lists classes as one string, "pub int conf".
func classNames(cs []wire.Class) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return strings.Join(out, " ")
}

// certLevel raises a message that arrived outside a session to level 2 when
// it carries an identity certificate from a trusted org for its key.
func (p *Pipeline) certLevel(m *wire.Message, lvl identity.Level) identity.Level {
	cv := m.Ext.Get(ExtIdentity).Get("cert")
	if cv.IsAbsent() {
		return lvl
	}
	c, err := identity.ParseCert(cv)
	if err != nil || c.Ref() != m.From.Ref() || !c.Key.Equal(m.From.Key) {
		return lvl
	}
	if p.Trust.VerifyIdentity(c, p.Now()) != nil {
		return lvl
	}
	return max(lvl, identity.Verified)
}

// checkSender refuses a message of this organisation's own agents, and one
// from an organisation that is not a peer, unless it is a public registry
// operation.
func checkSender(p *Pipeline, ctx context.Context, in *Inbound) (Answer, bool) {
	m := in.M
	org := m.From.Org
	if org == p.Org && m.Op != wire.OpRegister {
		return p.Refuse(m, in.Sess, wire.Errorf(wire.ErrAuthFailed, "from.org", "messages of this organisation's own agents do not arrive on a peer face")), true
	}
	in.FromPeer = p.IsPeer(org)
	in.registry = m.To.Agent == RegistryAgent || m.Op == wire.OpDiscover || m.Op == wire.OpRegister || m.Op == wire.OpSecurityAlert
	if in.FromPeer && !p.OrgShown(in) {
		// Anyone can write a peer's name in from.org and sign with a key
		// of their own: that makes them no more the peer than a stranger.
		if !(in.registry && m.Cls == wire.Pub) {
			return p.Refuse(m, in.Sess, wire.Errorf(wire.ErrAuthFailed, "from.key",
				"nothing shows that this key is of organisation %s: send in a session with this gateway, or carry an identity certificate from %s", org, org)), true
		}
		in.FromPeer = false
	}
	if !in.FromPeer && !(in.registry && m.Cls == wire.Pub) {
		return p.Refuse(m, in.Sess, wire.Errorf(wire.ErrAuthFailed, "from.org", "organisation %s is not a trusted peer of this gateway", org)), true
	}
	if in.FromPeer && p.CheckPeer != nil {
		if err := p.CheckPeer(ctx, m, in.Sess != nil); err != nil {
			return p.Refuse(m, in.Sess, err), true
		}
	}
	return next()
}

func checkHops(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	if Hops(in.M) > int64(p.MaxHops) {
		return p.Refuse(in.M, in.Sess, wire.Errorf(wire.ErrInvalidParam, "ext", "message crossed more than %d gateways", p.MaxHops)), true
	}
	return next()
}

// deliverReply takes replies to this gateway's own calls to whoever waits
// for them.
func deliverReply(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	m := in.M
	if !IsReply(m) {
		return next()
	}
	if p.Replies.Deliver(m, in.Sess, in.Sealed) {
		return Answer{Status: http.StatusAccepted}, true
	}
	return p.Refuse(m, in.Sess, wire.Errorf(wire.ErrInvalidParam, "re", "no call of this gateway is waiting for this reply")), true
}

// checkRate holds the sender's organisation and agent to their rates, and
// takes one of the organisation's slots for calls in flight until the
// answer is made.
func checkRate(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	m := in.M
	org := m.From.Org
	if ok, wait := p.OrgLimit.Allow(org); !ok {
		p.Metrics.RateLimit.WithLabelValues("peer_org").Inc()
		return p.Refuse(m, in.Sess, WithRetry(wire.Errorf(wire.ErrRateLimit, "", "organisation %s is over its rate limit", org), wait)), true
	}
	if ok, wait := p.AgentLimit.Allow(m.From.Ref().String()); !ok {
		p.Metrics.RateLimit.WithLabelValues("agent").Inc()
		return p.Refuse(m, in.Sess, WithRetry(wire.Errorf(wire.ErrRateLimit, "", "agent %s is over its rate limit", m.From.Ref()), wait)), true
	}
	release, ok := p.PeerGates.Enter(org)
	if !ok {
		p.Metrics.RateLimit.WithLabelValues("peer_concurrency").Inc()
		return p.Refuse(m, in.Sess, WithRetry(wire.Errorf(wire.ErrRateLimit, "", "organisation %s has too many calls in flight", org), time.Second)), true
	}
	in.releasePeer = release
	return next()
}

// checkTrust compares the trust level the message reached with what its
// operation and class need, and checks the capability certificates of a
// call that needs one.
func checkTrust(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	m := in.M
	need := identity.Required(m.Op, m.Cls, m.Cap)
	if t, ok := m.Payload.(*wire.TaskPayload); ok && t.Action == "create" && t.Type != "" {
		// A task of a named tool is that tool's invocation, run later: it
		// needs what a tool message needs, or a task would be a way round
		// the tool.invoke certificate. A task without a type runs the query
		// tool, as a query does.
		need.Level, need.Capability = identity.Authorized, "tool.invoke"
	}
	if need.Level == identity.Authorized && in.Level >= identity.Authenticated {
		capability := need.Capability
		if capability == "" {
			capability = "tool.invoke"
		}
		if err := p.checkCapability(m, capability); err != nil {
			return p.Refuse(m, in.Sess, err), true
		}
		in.Level = identity.Authorized
	}
	if in.Level < need.Level {
		return p.Refuse(m, in.Sess, wire.Errorf(wire.ErrAuthFailed, "", "a %s %s needs trust level %s; the sender is at %s (open a session with a handshake)",
			m.Cls, m.Op, need.Level, in.Level)), true
	}
	return next()
}

// checkRecipient refuses a call to an agent that does not exist: it has no
// ceiling to check against, so the refusal says so, rather than that the
// class is above the ceiling of no one.
func checkRecipient(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	m := in.M
	if !in.registry && !p.HasAgent(m.To.Agent) {
		return p.Refuse(m, in.Sess, wire.Errorf(wire.ErrAgentNotFound, "to.agent", "no agent %s at %s", m.To.Agent, p.Org)), true
	}
	return next()
}

// checkRegistration checks a registration before the gate: it is published
// as it is. The directory refuses personal data and secrets in it whatever
// its class and consent, and names the member; the gate's refusal would
// name cls and suggest a consent, which cannot help.
func checkRegistration(p *Pipeline, _ context.Context, in *Inbound) (Answer, bool) {
	if in.M.Op != wire.OpRegister {
		return next()
	}
	if err := p.CheckRegistration(in.M); err != nil {
		return p.Refuse(in.M, in.Sess, err), true
	}
	return next()
}

// classification is the data protection gate on the way in: the class
// against the ceilings, then personal data against the consents.
func classification(p *Pipeline, ctx context.Context, in *Inbound) (Answer, bool) {
	m := in.M
	d := p.Gate.Check(ctx, m, classify.Inbound, m.From.Org, GateSession(in.Sess, in.Sealed, false))
	if p.Audit != nil {
		in.Gate = &d
	}
	if !d.Allow {
		in.block = &blockInfo{reason: d.Reason.String(), findings: findingPaths(d)}
		return p.Refuse(m, in.Sess, d.Err), true
	}
	return next()
}

func route(p *Pipeline, ctx context.Context, in *Inbound) (Answer, bool) {
	if p.Tracing == nil {
		// No span is recorded, but the trace the message carries goes
		// on to the agent (and to the calls it makes), for it to join.
		if sc := tracing.Remote(carrierOf(in.M)); sc.IsValid() {
			ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
		}
	}
	if in.registry {
		return p.Route.Registry(ctx, in), true
	}
	return p.Route.Local(ctx, in, in.emit), true
}

// OrgShown reports whether the message shows that it comes from the
// organisation it names: it came in a session with that organisation (the
// session checks from.org), or is signed by one of its org keys or by a key
// it certified. Outside a session from.org is otherwise only a claim.
func (p *Pipeline) OrgShown(in *Inbound) bool {
	m := in.M
	return in.Sess != nil || in.Level >= identity.Verified || p.Trust.Trusts(m.From.Org, m.From.Key)
}

// IsReply reports whether m answers a call: this gateway's own, if it is
// addressed here.
func IsReply(m *wire.Message) bool {
	if m.Re == "" {
		return false
	}
	switch m.Op {
	case wire.OpRespond, wire.OpStream, wire.OpError, wire.OpPong:
		return true
	case wire.OpConsent:
		// A grant or a denial answers a consent request, and comes late
		// as any answer may: a person decides it.
		c, ok := m.Payload.(*wire.ConsentPayload)
		return ok && (c.Action == "grant" || c.Action == "deny")
	}
	return false
}

// GateSession tells the gate what it needs of the exchange.
func GateSession(sess *handshake.Session, sealed, outbound bool) *classify.Session {
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
func (p *Pipeline) checkCapability(m *wire.Message, capability string) error {
	certs := m.Ext.Get(ExtCapabilities).Get("certs")
	for _, c := range certs.Elems() {
		if p.capCerts.check(p.Trust, c.Value, m.From, capability, p.Now()) == nil {
			return nil
		}
	}
	return wire.Errorf(wire.ErrCapability, "ext", "the sender's organisation does not certify capability %s for it", capability).
		WithSuggestion(wire.Suggestion{Action: wire.ActionRequestCapability, Capability: capability})
}

// hostOf is the host part of a remote address.
func hostOf(remote string) string {
	if i := strings.LastIndexByte(remote, ':'); i >= 0 {
		return remote[:i]
	}
	return remote
}
