package localbridge

import (
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"time"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// Config configures a Core. The zero value is usable: every field states its default.
type Config struct {
	// Logger receives the Core's log and, line by line, the stdout and stderr of the agents
	// it launches. Default: slog.Default().
	Logger *slog.Logger

	// Audit receives security-relevant events. Default: each is logged on Logger with the
	// message "audit".
	Audit func(AuditEvent)

	// MaxFrameBytes is the largest frame accepted from or sent to an agent once it is
	// authenticated; a larger one closes the connection. Default: 4 MiB.
	MaxFrameBytes int

	// MaxInFlight is how many calls one agent may have in flight. Default: 256.
	MaxInFlight int

	// MaxQueued is how many calls may wait for one agent's in-flight slots; further calls
	// fail at once with core.overloaded. Default: 1024.
	MaxQueued int

	// HeartbeatInterval is the heartbeat cadence agents are told in core.welcome.
	// Default: 5s.
	HeartbeatInterval time.Duration

	// MissedHeartbeats is how many intervals may pass without a heartbeat before the agent is
	// marked unhealthy and gets no more calls. After twice as many the Core says goodbye and
	// closes the connection, and a supervised agent is restarted. Default: 3.
	MissedHeartbeats int

	// HandshakeTimeout bounds the time between connecting and sending agent.hello.
	// Default: 10s.
	HandshakeTimeout time.Duration

	// WriteTimeout bounds one write to an agent; an agent that stops reading for longer is
	// disconnected. Default: 10s.
	WriteTimeout time.Duration

	// TokenTTL is how long the token of a launched agent stays valid. Default: 2m.
	TokenTTL time.Duration

	// CancelGrace is how long a cancelled or abandoned call keeps its in-flight slot while
	// the agent finishes it. Default: 30s.
	CancelGrace time.Duration

	// MaxOutputBytes bounds what one call may send back: its stream chunks and its output
	// together. A call that sends more fails with tool.output_too_large. Default: 64 MiB.
	MaxOutputBytes int64

	// MaxTools is how many tools one agent may register. Default: 1024.
	MaxTools int

	// MaxSchemaBytes bounds one tool's input or output schema. Default: 64 KiB.
	MaxSchemaBytes int

	// PeerUIDs lists the user ids whose processes may connect to the agent socket; the
	// check uses the socket's peer credentials. Default: the gateway's own uid only.
	PeerUIDs []uint32

	// Credentials admits agents started elsewhere with credentials of their own: an
	// operator's token for the first connection, then the key that connection is given in
	// core.welcome (see package localbridge/credential). A connection it admitted ends when
	// the credential is revoked. Default: nil, and only tokens of this Core are taken.
	Credentials Credentials

	// Approver decides calls that need a human's approval: tools that declare side_effects
	// or requires_directive, and every tool of an agent whose AgentSpec asks for approval.
	// Default: nil, and such calls are refused with core.approval_denied.
	Approver Approver

	// ApprovalTimeout bounds the wait for an approval; no answer in time is a refusal.
	// Default: 2m.
	ApprovalTimeout time.Duration

	// RegisterWait is how long after an agent connects a call to a tool it has not
	// registered yet waits for its first agent.tools.register, rather than failing with
	// core.unknown_tool: a known agent that restarted or reconnected is coming back, and
	// a call that comes between its connection and its tools is held, not refused. The
	// call's own deadline still holds. Default: 10s.
	RegisterWait time.Duration

	// MaskArguments shapes the arguments an approver is shown, given the call's
	// classification. Default: MaskArguments.
	MaskArguments func(class string, args json.RawMessage) json.RawMessage

	// OnAgentChange is called after an agent connects or disconnects, changes its tools or
	// its health. Calls are made one at a time from one goroutine, with the agent's latest
	// state; changes that come faster are coalesced. Default: nil.
	OnAgentChange func(AgentInfo)

	// RestartMin and RestartMax bound the delay before a supervised agent that exited is
	// started again; the delay doubles from RestartMin with each quick exit.
	// Defaults: 500ms and 30s.
	RestartMin, RestartMax time.Duration

	// StopGrace is how long a supervised agent has to exit after SIGTERM before SIGKILL,
	// and how long it may live on after its connection ended. Default: 5s.
	StopGrace time.Duration

	// Environ returns the variables a launched agent inherits besides the three
	// OPENSENTIENCE_* ones. Default: PATH, HOME, LANG and TZ from the gateway's environment.
	Environ func() []string

	// TaskRetention is how long a finished task's status stays available. Default: 15m.
	TaskRetention time.Duration

	// MaxTasks bounds the tasks kept at once, running or retained. Default: 10000.
	MaxTasks int

	// CoreVersion is reported to agents in core.welcome. Default: "moltgate".
	CoreVersion string

	// Rand is the source of tokens and ids. Default: crypto/rand.Reader.
	Rand io.Reader

	// Now tells the time. Default: time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Audit == nil {
		log := c.Logger
		c.Audit = func(e AuditEvent) { logAudit(log, e) }
	}
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = osp.DefaultMaxFrameBytes
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 256
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = 1024
	}
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = 5 * time.Second
	}
	if c.MissedHeartbeats <= 0 {
		c.MissedHeartbeats = 3
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 10 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = 2 * time.Minute
	}
	if c.CancelGrace <= 0 {
		c.CancelGrace = 30 * time.Second
	}
	if c.MaxOutputBytes <= 0 {
		c.MaxOutputBytes = 64 << 20
	}
	if c.MaxTools <= 0 {
		c.MaxTools = 1024
	}
	if c.MaxSchemaBytes <= 0 {
		c.MaxSchemaBytes = 64 << 10
	}
	if len(c.PeerUIDs) == 0 {
		c.PeerUIDs = []uint32{uint32(os.Getuid())}
	}
	if c.RegisterWait <= 0 {
		c.RegisterWait = 10 * time.Second
	}
	if c.ApprovalTimeout <= 0 {
		c.ApprovalTimeout = 2 * time.Minute
	}
	if c.MaskArguments == nil {
		c.MaskArguments = MaskArguments
	}
	if c.RestartMin <= 0 {
		c.RestartMin = 500 * time.Millisecond
	}
	if c.RestartMax <= 0 {
		c.RestartMax = 30 * time.Second
	}
	if c.RestartMax < c.RestartMin {
		c.RestartMax = c.RestartMin
	}
	if c.StopGrace <= 0 {
		c.StopGrace = 5 * time.Second
	}
	if c.Environ == nil {
		c.Environ = minimalEnviron
	}
	if c.TaskRetention <= 0 {
		c.TaskRetention = 15 * time.Minute
	}
	if c.MaxTasks <= 0 {
		c.MaxTasks = 10000
	}
	if c.CoreVersion == "" {
		c.CoreVersion = "moltgate"
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// handshakeFrameBytes bounds frames before authentication: agent.hello is small, and an
// unauthenticated peer must not make the Core allocate megabytes.
const handshakeFrameBytes = 64 << 10

// maxProtocolErrors is how many unacceptable messages an agent may send before the Core says
// goodbye and disconnects it.
const maxProtocolErrors = 16

// agentIDPattern is the form of an agent id: it is also the agent's MoltSpeak name.
var agentIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
