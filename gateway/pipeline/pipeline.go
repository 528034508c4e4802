// Package pipeline is the one way an envelope enters a gateway: size,
// decode, signature or session, replay and expiry, trust level, capability,
// classification and personal data, then the route. Every face hands what it
// reads to a Pipeline and writes back the Answer, so every face gives the
// same answers; the steps are named and listed in order by Steps.
package pipeline

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// Faces, as the pipeline names them in its log and metrics.
const (
	FaceHTTP   = "http"
	FaceBatch  = "batch"
	FaceWS     = "websocket"
	FaceGRPC   = "grpc"
	FaceStream = "grpc_stream"
)

// Origin says where an envelope came from.
type Origin struct {
	Face   string
	Remote string
	// OnSession, if set, is told of a session a handshake on this
	// connection completed, so that the face can end it with the
	// connection.
	OnSession func(*handshake.Session)
	// Conn is the stream connection the envelope came on; nil for the
	// HTTP faces and gRPC Send. A session bound to another connection
	// (Config.Owners) is refused on this one.
	Conn any
	// OnRequest, if set, is told the id of the message once it is
	// authenticated, so that a face that answers before the pipeline
	// does (HTTP's 202) can name the request the late reply will refer to.
	OnRequest func(id string)
	// Unread, if set, signs the refusals of what could not be read as a
	// message alike once they become many (see UnreadRefusals).
	Unread *UnreadRefusals
}

// Answer is the pipeline's answer to one inbound envelope.
type Answer struct {
	Body       []byte // the reply envelope; nil if none is due
	Status     int    // HTTP status
	Code       wire.Code
	RetryAfter time.Duration
	Op         wire.Op
	// Peer is the sender's organisation, to which a late reply goes.
	Peer string
	// Shared: Body answers other envelopes too (see UnreadRefusals), so
	// it is not the face's to recycle.
	Shared bool
	// Err is the refusal Body carries, if any, for the log.
	Err *wire.Error
	// refused is the message Err refuses, when it is known (as from):
	// a step may refuse one it could not open, by what its sealing said.
	refusedID string
	refused   wire.Ref
}

// Inbound is one envelope on its way through the pipeline: what the steps
// so far learnt of it. Once authenticated, M is its message.
type Inbound struct {
	Origin Origin
	M      *wire.Message
	Sess   *handshake.Session // the session it arrived in, if any
	Sealed bool               // it arrived in a sealed envelope or a session
	Level  identity.Level
	// FromPeer: the sender showed it is of an imported peer organisation.
	FromPeer bool

	body     []byte
	env      *wire.Envelope
	emit     func([]byte) error
	registry bool // it is for the registry, not a local agent
	admitted bool // it reached the admit step
	// traceCtx holds the envelope's span, when tracing is on.
	traceCtx context.Context
	// What the security log says of a refusal: it was of a handshake
	// message, or the gate's (block), or a step's short reason.
	hello  bool
	block  *blockInfo
	reason string
	// Gate is the data protection gate's decision on the message, once
	// the classification step has run.
	Gate *classify.Decision
	// releases, run once the answer is made, in this order.
	releasePeer, releaseFlight func()
}

// Limiter takes a token for a key, or says how long until one is free.
type Limiter interface {
	Allow(key string) (ok bool, retryAfter time.Duration)
}

// Gates admit a bounded number of calls at once per key.
type Gates interface {
	Enter(key string) (release func(), ok bool)
}

// Ceiling bounds the calls in flight in the whole gateway.
type Ceiling interface {
	Enter() (release func(), ok bool)
	Count() int
}

// Owners maps the id of a session made on a stream connection to that
// connection (sync.Map holds it).
type Owners interface {
	Load(session any) (conn any, ok bool)
}

// Replies takes the replies to this gateway's own calls to whoever waits
// for them, and reports false if no one does.
type Replies interface {
	Deliver(m *wire.Message, sess *handshake.Session, sealed bool) bool
}

// Router takes a message that passed every check to where it is going.
type Router interface {
	// Registry answers the registry's operations (discover, register,
	// registry queries).
	Registry(ctx context.Context, in *Inbound) Answer
	// Local hands a call to one of this organisation's agents. emit, if
	// not nil, takes the envelopes of a streamed reply.
	Local(ctx context.Context, in *Inbound, emit func([]byte) error) Answer
}

// Metrics are the pipeline's Prometheus metrics; the gateway registers them.
type Metrics struct {
	Messages  *prometheus.CounterVec   // op, face, outcome
	Latency   *prometheus.HistogramVec // face, op
	Sessions  prometheus.Gauge
	InFlight  prometheus.Gauge
	RateLimit *prometheus.CounterVec // scope
}

// Config is what a Pipeline is built from. Every field is required.
type Config struct {
	// Org is this gateway's organisation.
	Org string
	// MessageBytes is the largest message accepted (limits.message_bytes).
	MessageBytes int
	// MaxHops is how many gateways a message may have crossed
	// (limits.max_hops).
	MaxHops int
	// Self is gateway@org, whose key signs refusals, read at each use (an
	// *identity.Agent, or the gateway's orgkey.Source, whose key a
	// rotation changes while serving).
	Self identity.Holder

	Codec *wire.Codec
	// Keys open what is sealed to the gateway outside a session, read
	// for each envelope: its X25519 key and, while a rotation's overlap
	// lasts, the key that one replaced (orgkey.Source.Keyring).
	Keys     func() *crypto.Keyring
	Verifier *keys.Verifier
	Trust    *identity.TrustStore
	Replay   *replay.Window
	Sessions *handshake.Store
	Acceptor *handshake.Acceptor
	Gate     *classify.Gate
	// Scanner keeps what reads as personal data out of a refusal's field.
	Scanner *pii.Scanner
	Log     *slog.Logger
	Metrics Metrics
	Now     func() time.Time
	Rand    io.Reader

	// HandshakeLimit counts hellos per client host; OrgLimit and
	// AgentLimit the messages of each peer organisation and agent.
	HandshakeLimit, OrgLimit, AgentLimit Limiter
	// PeerGates bound the calls in flight per peer organisation.
	PeerGates Gates
	// Flight bounds the calls in flight in the gateway.
	Flight Ceiling
	// Closing reports that the gateway is shutting down.
	Closing func() bool
	// Owners names the connection a session is bound to.
	Owners Owners
	// IsPeer reports whether org is an imported peer.
	IsPeer func(org string) bool
	// PeerUp, if set, is told the organisation of each peer gateway that
	// establishes a session with this one: it is up, whatever was
	// waiting for it to answer can go now. Default nil.
	PeerUp func(org string)
	// HasAgent reports whether id is one of this organisation's agents.
	HasAgent func(id string) bool
	// CheckRegistration refuses a registration holding personal data or
	// secrets, naming the member.
	CheckRegistration func(*wire.Message) error
	// CheckPeer, if set, is asked of every message of a peer
	// organisation once its sender is shown: it refuses what the peer's
	// revocation list revokes. inSession says the message came in a
	// session.
	CheckPeer func(ctx context.Context, m *wire.Message, inSession bool) error
	Replies   Replies
	Route     Router
	// Tracing, if set, records a span per envelope and one per step
	// (see runTraced). Default nil: no spans, and no cost.
	Tracing *tracing.Tracing
	// SuccessSample is the share of calls from peers answered without
	// error that the security log records at INFO, from 0 (none) to 1
	// (all). Refusals are always logged. Default 0.
	SuccessSample float64
	// Audit, if set, is told of every message that was opened, once it
	// is answered: the boundary's decision on it. Default nil.
	Audit Auditor
}

// Auditor keeps the audit trail of the pipeline's decisions.
type Auditor interface {
	// Inbound records the decision a is on in.M, which is set. It must
	// not hold the answer up for long: it runs before the face writes
	// it.
	Inbound(ctx context.Context, in *Inbound, a Answer)
}

// Pipeline runs envelopes through the steps. Its Config fields may be
// changed only before the first Handle.
type Pipeline struct {
	Config
	capCerts *capabilityCache
	steps    []Step
	// senderStep is the index of the step that settles whether the
	// sender is a peer, after which an envelope's span can start.
	senderStep int
	// stepSpan is each step's span option (its moltgate.step attribute),
	// made once rather than for every span.
	stepSpan  []trace.SpanStartOption
	successes atomic.Uint64 // answered calls, for SuccessSample
}

// New makes the pipeline cfg describes.
func New(cfg Config) *Pipeline {
	p := &Pipeline{Config: cfg, capCerts: newCapabilityCache(4096), steps: Steps()}
	for i, st := range p.steps {
		if st.Name == "sender" {
			p.senderStep = i
		}
		p.stepSpan = append(p.stepSpan, trace.WithAttributes(attribute.String(attrStep, st.Name)))
	}
	return p
}

// Step is one named step of the pipeline. Run either answers, and the
// pipeline stops there (done), or passes in on to the next step.
type Step struct {
	Name string
	Run  func(p *Pipeline, ctx context.Context, in *Inbound) (a Answer, done bool)
}

// Steps lists the steps every envelope goes through, in order.
func Steps() []Step {
	return []Step{
		{"size", checkSize},
		{"decode", decode},
		{"session", openSession},
		{"handshake", handshakeOp},
		{"signature", openSigned},
		{"identity", identityLevel},
		{"admit", admit},
		{"sender", checkSender},
		{"hops", checkHops},
		{"replay", checkReplay},
		{"reply", deliverReply},
		{"rate", checkRate},
		{"trust", checkTrust},
		{"recipient", checkRecipient},
		{"registration", checkRegistration},
		{"classification", classification},
		{"route", route},
	}
}

// Handle runs one envelope through the pipeline. Every face calls it, so
// every face gives the same answers. emit, if not nil, receives the
// envelopes of a streamed reply (stream chunks) before the final answer;
// faces that cannot stream pass nil and get the final answer only.
func (p *Pipeline) Handle(ctx context.Context, o Origin, body []byte, emit func([]byte) error) (a Answer) {
	start := p.Now()
	var in *Inbound
	defer func() {
		outcome := "ok"
		if a.Code != "" {
			outcome = string(a.Code)
		}
		op := string(a.Op)
		if op == "" {
			op = "none"
		}
		took := p.Now().Sub(start)
		p.Metrics.Messages.WithLabelValues(op, o.Face, outcome).Inc()
		p.Metrics.Latency.WithLabelValues(o.Face, op).Observe(took.Seconds())
		p.logOutcome(in.TraceContext(ctx), in, a, took)
		if p.Audit != nil && in.M != nil {
			p.Audit.Inbound(in.TraceContext(ctx), in, a)
		}
	}()
	in = &Inbound{Origin: o, body: body, emit: emit}
	a = p.run(ctx, in)
	if in.admitted {
		a.Op, a.Peer = in.M.Op, in.M.From.Org
	}
	return a
}

// run takes in through the steps until one answers, and releases what the
// steps held once it has.
func (p *Pipeline) run(ctx context.Context, in *Inbound) Answer {
	if p.Tracing != nil {
		return p.runTraced(ctx, in)
	}
	defer in.release()
	for _, st := range p.steps {
		if a, done := st.Run(p, ctx, in); done {
			return a
		}
	}
	return Answer{} // route always answers
}

func (in *Inbound) release() {
	if in.releasePeer != nil {
		in.releasePeer()
	}
	if in.releaseFlight != nil {
		in.releaseFlight()
	}
}

// EnvelopeLimit is the largest envelope accepted: a sealed message grows by
// a third in base64.
func (p *Pipeline) EnvelopeLimit() int { return p.MessageBytes/3*4 + 4096 }
