package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
)

// NewAgent is the benchmark's agent, which `moltgate bench agent` runs:
// the echo agent with one more tool, stamp, which streams count partial
// results of size bytes, each carrying the wall-clock time it was sent at
// (in microseconds: MoltSpeak numbers stay within ±2^53), so that the
// caller can measure one-way latency on the same machine.
func NewAgent() *agent.Agent {
	a := echo.New()
	a.Add(agent.Tool{
		Name:        "stamp",
		Description: "Streams count partial results of size bytes, each with the time it was sent.",
		InputSchema: `{"type":"object","properties":{"count":{"type":"integer","minimum":1,"maximum":100000},
			"size":{"type":"integer","minimum":0,"maximum":65536}},"required":["count"],"additionalProperties":false}`,
		Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			var in struct{ Count, Size int }
			if err := c.Bind(&in); err != nil {
				return nil, err
			}
			pad := benchText(in.Size)
			for i := range in.Count {
				if err := c.Partial(stamp{SentUS: time.Now().UnixMicro(), Seq: i, Text: pad}); err != nil {
					return nil, err
				}
			}
			return map[string]int{"count": in.Count}, nil
		},
	})
	return a
}

// stamp is one partial result of the stamp tool.
type stamp struct {
	SentUS int64  `json:"sent_us"`
	Seq    int    `json:"seq"`
	Text   string `json:"text"`
}

// benchText is n bytes of plain prose: no digits, nothing personal or
// secret, so the gate has the ordinary work of scanning it.
func benchText(n int) string {
	const s = "The morning build ran its tests while the team reviewed the plan for the next release. "
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(s)
	}
	return b.String()[:n]
}

// child is a gateway process started by the benchmark.
type child struct {
	org     string
	dir     gateway.Dir
	cmd     *exec.Cmd
	log     string // its standard error
	memPath string // where it reports its memory
	memSeq  int    // readings asked for
	done    chan error
	grace   time.Duration // for it to stop when asked, before it is made to
}

// startGateway starts `moltgate bench gateway` for dir.
func startGateway(exe string, dir gateway.Dir, org, profile string) (*child, error) {
	logPath := filepath.Join(filepath.Dir(string(dir)), org+".log")
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	memPath := filepath.Join(filepath.Dir(string(dir)), org+".mem")
	args := []string{"bench", "gateway", "--dir", string(dir), "--memstats", memPath}
	if profile != "" {
		args = append(args, "--cpuprofile", profile)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start gateway %s: %w", org, err)
	}
	c := &child{org: org, dir: dir, cmd: cmd, log: logPath, memPath: memPath, done: make(chan error, 1), grace: 15 * time.Second}
	go func() { c.done <- cmd.Wait() }()
	return c, nil
}

// dial connects to the gateway's JSON-RPC socket once it listens.
func (c *child) dial(ctx context.Context) (*localbridge.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		cl, err := localbridge.Dial(ctx, c.dir.RPCSocket(), localbridge.ClientOptions{Name: "moltgate-bench"})
		if err == nil {
			return cl, nil
		}
		select {
		case err := <-c.done:
			c.done <- err
			return nil, fmt.Errorf("gateway %s exited: %v%s", c.org, err, c.tail())
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return nil, fmt.Errorf("gateway %s: no JSON-RPC socket: %w%s", c.org, err, c.tail())
		}
	}
}

// awaitAlive pings agent (agent@org, or a local one) through cl until it
// answers alive: for a peer's agent, that includes the handshake.
func awaitAlive(ctx context.Context, cl *localbridge.Client, agent string) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var last error
	for {
		raw, err := cl.Ping(ctx, agent)
		if err == nil {
			var p struct {
				Status string `json:"status"`
			}
			if err = json.Unmarshal(raw, &p); err == nil && p.Status == "alive" {
				return nil
			}
			if err == nil {
				err = fmt.Errorf("status %s", p.Status)
			}
		}
		last = err
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("%s is not alive: %v", agent, last)
		}
	}
}

// stop asks the gateway to shut down gracefully and waits for it.
func (c *child) stop() error {
	if c == nil || c.cmd.Process == nil {
		return nil
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-c.done:
		c.done <- err
		if err != nil {
			return fmt.Errorf("gateway %s: %v%s", c.org, err, c.tail())
		}
		return nil
	case <-time.After(c.grace):
	}
	// What held it up is in its goroutines: SIGQUIT writes them to its log
	// and ends it; the log is kept where the error says.
	c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
	// Put back for a later stop, as above: a deferred one would otherwise
	// wait for ever.
	c.done <- errors.New("stopped")
	kept := filepath.Join(os.TempDir(), fmt.Sprintf("moltgate-bench-%s-%d.log", c.org, c.cmd.Process.Pid))
	if b, err := os.ReadFile(c.log); err == nil && os.WriteFile(kept, b, 0o600) == nil {
		return fmt.Errorf("gateway %s did not stop within %v; its goroutines are in %s", c.org, c.grace, kept)
	}
	return fmt.Errorf("gateway %s did not stop within %v; killed%s", c.org, c.grace, c.tail())
}

// tail is the end of the child's log, for error messages.
func (c *child) tail() string {
	b, _ := os.ReadFile(c.log)
	if len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "\n" + string(b)
}
