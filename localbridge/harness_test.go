package localbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/logbuf"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// helperFlag makes the test binary run as the echo agent, so supervision tests launch a real
// process without building one.
const helperFlag = "-run-echo-agent"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperFlag {
		os.Exit(helperAgent(os.Args[2]))
	}
	os.Exit(m.Run())
}

// helperAgent reports what it was given to a file, prints its token (which the gateway must
// redact from its log) and runs the echo agent.
func helperAgent(report string) int {
	var names []string
	for _, kv := range os.Environ() {
		names = append(names, strings.SplitN(kv, "=", 2)[0])
	}
	sort.Strings(names)
	tok := os.Getenv(localbridge.EnvToken)
	r, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "env": names, "token": tok, "args": os.Args, "agent": os.Getenv(localbridge.EnvAgentID)})
	f, err := os.OpenFile(report, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return 2
	}
	f.Write(append(r, '\n'))
	f.Close()
	fmt.Println("starting; token is", tok)
	fmt.Fprintln(os.Stderr, "stderr line with token", tok)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := echo.New().Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "echo agent:", err)
		return 1
	}
	return 0
}

// auditLog records audit events.
type auditLog struct {
	mu     sync.Mutex
	events []localbridge.AuditEvent
}

func (a *auditLog) add(e localbridge.AuditEvent) {
	a.mu.Lock()
	a.events = append(a.events, e)
	a.mu.Unlock()
}

func (a *auditLog) find(event string) []localbridge.AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []localbridge.AuditEvent
	for _, e := range a.events {
		if e.Event == event {
			out = append(out, e)
		}
	}
	return out
}

type bridge struct {
	core  *localbridge.Core
	path  string
	dir   string
	logs  *logbuf.Buffer
	audit *auditLog
}

// shortDir returns a private temporary directory with a short path: socket paths are limited
// to 107 bytes, and test names make t.TempDir long.
func shortDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "lb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// newBridge starts a Core on a real socket. cfg's Logger and Audit are set to capture.
func newBridge(t testing.TB, cfg localbridge.Config) *bridge {
	t.Helper()
	b := &bridge{dir: shortDir(t), logs: &logbuf.Buffer{}, audit: &auditLog{}}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if cfg.Audit == nil {
		log := cfg.Logger
		cfg.Audit = func(e localbridge.AuditEvent) {
			b.audit.add(e)
			log.Warn("audit", "event", e.Event, "agent", e.Agent, "reason", e.Reason, "size", e.Size)
		}
	}
	b.path = filepath.Join(b.dir, "core.sock")
	l, err := localbridge.ListenUnix(b.path)
	if err != nil {
		t.Fatal(err)
	}
	b.core = localbridge.NewCore(cfg)
	served := make(chan error, 1)
	go func() { served <- b.core.Serve(l) }()
	t.Cleanup(func() {
		b.core.Close()
		if err := <-served; err != localbridge.ErrServerClosed {
			t.Errorf("Serve returned %v", err)
		}
	})
	return b
}

// runAgent admits a in-process SDK agent with a provisioned token and waits for its tools.
func (b *bridge) runAgent(t testing.TB, id string, a *agent.Agent, spec ...localbridge.AgentSpec) (stop func() error) {
	t.Helper()
	s := localbridge.AgentSpec{ID: id}
	if len(spec) > 0 {
		s = spec[0]
		s.ID = id
	}
	if err := b.core.AddAgent(s); err != nil {
		t.Fatal(err)
	}
	tok, err := b.core.ProvisionToken(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", b.path)
	if err != nil {
		t.Fatal(err)
	}
	a.ID = id
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, conn, tok.Reveal()) }()
	waitFor(t, "agent registered", func() bool {
		info, ok := b.core.Agent(id)
		return ok && info.Connected && len(info.Tools) > 0
	})
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			runErr = <-done
		})
		return runErr
	}
	t.Cleanup(func() { stop() })
	return stop
}

// waitFor polls cond until it holds; it fails the test after a generous limit, which is a
// guard against hanging, not a timing assertion.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// rawAgent speaks the protocol frame by frame, to test what the SDK would never send.
type rawAgent struct {
	t    testing.TB
	conn net.Conn
	fr   *osp.Reader
	n    int
}

func dialRaw(t testing.TB, path string) *rawAgent {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawAgent{t: t, conn: c, fr: osp.NewReader(c, 0)}
}

func (r *rawAgent) sendRaw(frame []byte) {
	r.t.Helper()
	r.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := osp.WriteFrame(r.conn, frame, 1<<30); err != nil {
		r.t.Fatalf("send: %v", err)
	}
}

func (r *rawAgent) send(typ string, payload any, mod ...func(*osp.Header)) string {
	r.t.Helper()
	r.n++
	h := osp.Header{V: 1, Type: typ, ID: fmt.Sprintf("m-%d", r.n), TS: osp.Timestamp(time.Now())}
	for _, m := range mod {
		m(&h)
	}
	b, err := osp.Marshal(&h, payload)
	if err != nil {
		r.t.Fatal(err)
	}
	r.sendRaw(b)
	return h.ID
}

// sendLoose sends a message that the Core may refuse to read to the end.
func (r *rawAgent) sendLoose(typ string, payload any) {
	r.n++
	h := osp.Header{V: 1, Type: typ, ID: fmt.Sprintf("m-%d", r.n), TS: osp.Timestamp(time.Now())}
	b, err := osp.Marshal(&h, payload)
	if err != nil {
		r.t.Fatal(err)
	}
	r.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	osp.WriteFrame(r.conn, b, 1<<30)
}

// next returns the next message, skipping none. It fails on a read error.
func (r *rawAgent) next() *osp.Envelope {
	r.t.Helper()
	e, err := r.read()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	return e
}

func (r *rawAgent) read() (*osp.Envelope, error) {
	r.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	f, err := r.fr.ReadFrame()
	if err != nil {
		return nil, err
	}
	return osp.Decode(f)
}

// expect returns the next message of type typ, skipping others of the given skip types.
func (r *rawAgent) expect(typ string) *osp.Envelope {
	r.t.Helper()
	for {
		e := r.next()
		if e.Type == typ {
			return e
		}
		if e.Type == osp.TypeError || e.Type == osp.TypeGoodbye {
			r.t.Fatalf("expected %s, got %s (error %v)", typ, e.Type, e.Error)
		}
	}
}

// expectClosed reads until the connection ends and returns the messages that came first.
func (r *rawAgent) expectClosed() []*osp.Envelope {
	r.t.Helper()
	var got []*osp.Envelope
	for {
		e, err := r.read()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				r.t.Fatal("connection stayed open")
			}
			return got
		}
		got = append(got, e)
	}
}

func hello(token, id string) osp.Hello {
	return osp.Hello{SessionToken: token, AgentID: id, AgentVersion: "1.0.0", Protocol: osp.HelloProtocol{SupportedVersions: []int{1}}}
}

// connectRaw admits a raw agent and registers tools (a default "t" tool when none given).
func (b *bridge) connectRaw(t testing.TB, id string, tools ...osp.Tool) (*rawAgent, osp.Welcome) {
	t.Helper()
	if _, ok := b.core.Agent(id); !ok {
		if err := b.core.AddAgent(localbridge.AgentSpec{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := b.core.ProvisionToken(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(tok.Reveal(), id))
	e := r.expect(osp.TypeWelcome)
	if e.Error != nil {
		t.Fatalf("welcome error %v", e.Error)
	}
	var w osp.Welcome
	if err := e.DecodePayload(&w); err != nil {
		t.Fatal(err)
	}
	if len(tools) == 0 {
		tools = []osp.Tool{{ToolID: id + "/t", Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	}
	r.send(osp.TypeToolsRegister, osp.ToolsRegister{Tools: tools})
	var reg osp.ToolsRegistered
	r.expect(osp.TypeToolsRegistered).DecodePayload(&reg)
	if len(reg.Rejected) > 0 {
		t.Fatalf("rejected: %+v", reg.Rejected)
	}
	return r, w
}

// heartbeat sends one heartbeat.
func (r *rawAgent) heartbeat(w osp.Welcome, status string) {
	r.send(osp.TypeHeartbeat, osp.Heartbeat{SessionID: w.SessionID, Status: status})
}

// callAsync runs core.Call in the background.
type callOutcome struct {
	res    localbridge.Result
	err    error
	chunks []localbridge.Chunk
}

func callAsync(ctx context.Context, c *localbridge.Core, req localbridge.CallRequest) <-chan callOutcome {
	ch := make(chan callOutcome, 1)
	go func() {
		var o callOutcome
		o.res, o.err = c.Call(ctx, req, func(k localbridge.Chunk) error {
			o.chunks = append(o.chunks, k)
			return nil
		})
		ch <- o
	}()
	return ch
}

func codeOf(err error) string {
	if e, ok := err.(*localbridge.Error); ok {
		return e.Code
	}
	return fmt.Sprintf("(not a *localbridge.Error: %v)", err)
}
