package agent

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// Version is the SDK's version, reported in agent.hello.
const Version = "0.1.0"

// Error codes a Handler commonly returns.
const (
	CodeInvalidInput = osp.CodeInvalidInput
	CodeFailed       = osp.CodeToolFailed
	CodeTimeout      = osp.CodeToolTimeout
	CodeCanceled     = osp.CodeToolCanceled
)

// Agent is a local agent: an id and a set of tools.
type Agent struct {
	// ID is the agent's id. Default: $OPENSENTIENCE_AGENT_ID.
	ID string

	// Version is the agent's semantic version. Default: "0.0.0".
	Version string

	// Logger receives the SDK's own messages. Default: slog.Default(), whose output on stderr
	// the gateway logs.
	Logger *slog.Logger

	// Health, if set, is asked at each heartbeat for the agent's status ("ok", "degraded" or
	// "unhealthy") and secret-free details. Default: always "ok".
	Health func() (status string, details map[string]any)

	// MaxConcurrent bounds the calls that run at once; more wait. Default: 256, the gateway's
	// own per-agent limit.
	MaxConcurrent int

	// KeyFile is where an agent the gateway does not launch keeps its key: the first
	// connection, made with the operator's one-time token, is handed a key, which Run writes
	// here (mode 0600) and presents in place of a token from then on, across restarts.
	// Default: $OPENSENTIENCE_KEY_FILE; empty, the key is kept in memory only.
	KeyFile string

	tools []Tool
	keyMu sync.Mutex
	key   string   // the key handed by the gateway, once it was
	live  *session // the connection Serve runs, if any
}

// Tool is one tool of the agent.
type Tool struct {
	Name              string // dot-separated [A-Za-z0-9_-] labels, unique within the agent
	Description       string
	InputSchema       string // a JSON Schema the gateway validates input against; default {"type":"object"}
	OutputSchema      string // optional
	SideEffects       bool   // the tool changes something: the gateway asks a human first
	RequiresDirective bool   // the tool must be directive-backed: the gateway asks a human first
	Tags              []string
	Handler           Handler
}

// Handler runs one call. It returns the tool's output, which must marshal to a JSON object
// (anything else is wrapped as {"result": ...}), or an error: an *Error chooses the code the
// gateway sees; any other error is reported as tool.failed with its text, which must therefore
// hold nothing secret. ctx ends when the gateway cancels the call or its timeout passes.
type Handler func(ctx context.Context, call *Call) (any, error)

// Add adds a tool. Tools are registered when Run connects.
func (a *Agent) Add(t Tool) { a.tools = append(a.tools, t) }

// Error is a tool failure with a chosen code.
type Error struct {
	Code      string // e.g. CodeInvalidInput, or a code of the tool's own ("tool.not_enough_money")
	Message   string // safe to show: no secrets
	Retryable bool
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// GoodbyeError is returned by Run when the gateway ended the connection for a reason other
// than shutting down.
type GoodbyeError struct {
	Reason     string
	RetryAfter time.Duration
}

func (e *GoodbyeError) Error() string { return "gateway said goodbye: " + e.Reason }

// RegistrationError is returned by Run when the gateway rejected tools.
type RegistrationError struct {
	Rejected []osp.Rejection
}

func (e *RegistrationError) Error() string {
	s := "gateway rejected tools:"
	for _, r := range e.Rejected {
		s += fmt.Sprintf(" %s (%s: %s)", r.ToolID, r.Error.Code, r.Error.Message)
	}
	return s
}

// ErrUnauthorized is returned by Run when the gateway refused the token.
var ErrUnauthorized = errors.New("gateway refused the session token")

// Run connects to the gateway named by the environment and serves calls until the gateway
// says goodbye, the connection ends or ctx ends. It removes the token from the environment so
// that programs the agent starts do not inherit it. Run returns nil after ctx ends or the
// gateway shuts down.
func (a *Agent) Run(ctx context.Context) error {
	path, token := os.Getenv("OPENSENTIENCE_SOCKET"), os.Getenv("OPENSENTIENCE_TOKEN")
	os.Unsetenv("OPENSENTIENCE_TOKEN")
	if key, err := a.storedKey(); err != nil {
		return err
	} else if key != "" {
		token = key
	}
	if path == "" || token == "" {
		return errors.New("agent: OPENSENTIENCE_SOCKET and OPENSENTIENCE_TOKEN (or a key in OPENSENTIENCE_KEY_FILE) must be set; the gateway sets them for an agent it launches, and moltgate agent token issues a token for one it does not")
	}
	var d sockio.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("connect to gateway: %w", err)
	}
	return a.Serve(ctx, c, token)
}

// Serve runs the agent over an established connection, authenticating with token. It closes
// conn when it returns.
func (a *Agent) Serve(ctx context.Context, conn net.Conn, token string) error {
	id := a.ID
	if id == "" {
		id = os.Getenv("OPENSENTIENCE_AGENT_ID")
	}
	if id == "" {
		conn.Close()
		return errors.New("agent: no agent id (set Agent.ID or OPENSENTIENCE_AGENT_ID)")
	}
	s := &session{
		a:       a,
		id:      id,
		conn:    conn,
		fr:      osp.NewReader(conn, osp.DefaultMaxFrameBytes),
		w:       osp.NewWriter(conn, osp.DefaultMaxFrameBytes, 0),
		log:     a.Logger,
		calls:   make(map[string]*Call),
		started: time.Now(),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	ids, err := osp.NewIDSource(rand.Reader)
	if err != nil {
		conn.Close()
		return err
	}
	s.ids = ids
	s.sem = make(chan struct{}, max(a.MaxConcurrent, 1))
	if a.MaxConcurrent <= 0 {
		s.sem = make(chan struct{}, 256)
	}
	s.idle = make(chan chan func(), cap(s.sem))
	s.lead = make(chan struct{}, 1)
	s.outcome = make(chan error, 1)
	s.slow = make([]atomic.Bool, len(a.tools))
	s.stopWorkers = make(chan struct{})
	defer close(s.stopWorkers)
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	a.keyMu.Lock()
	a.live = s
	a.keyMu.Unlock()
	defer func() {
		a.keyMu.Lock()
		if a.live == s {
			a.live = nil
		}
		a.keyMu.Unlock()
	}()
	err = s.run(ctx, token)
	if ctx.Err() != nil {
		err = nil
	}
	s.cancelAll()
	s.wg.Wait()
	return err
}
