package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
)

// echoAgentMain runs the echo agent, as a gateway launches it (the
// OPENSENTIENCE_* variables in its environment), so that scripts can give it
// to `moltgate agent add --exec echoagent`. A call the gateway cancels while
// the agent runs is recorded, as the tool's name, on a line of the file
// AGENT.cancelled in its working directory (the gateway's, the script's).
func echoAgentMain() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &agent.Agent{Version: "1.0.0"}
	for _, t := range echo.Tools() {
		h := t.Handler
		t.Handler = func(cctx context.Context, c *agent.Call) (any, error) {
			out, err := h(cctx, c)
			if errors.Is(cctx.Err(), context.Canceled) && ctx.Err() == nil {
				if f, ferr := os.OpenFile(os.Getenv(localbridge.EnvAgentID)+".cancelled", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); ferr == nil {
					fmt.Fprintln(f, t.Name)
					f.Close()
				}
			}
			return out, err
		}
		a.Add(t)
	}
	if err := a.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "echoagent:", err)
		os.Exit(1)
	}
}

// TestGatewayScripts runs the scripts that start real gateways (moltgate
// serve in the background) and use them through the command line.
func TestGatewayScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gateway processes")
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/gateway",
		// The scripts run in a short directory of their own: gateway
		// directories hold Unix sockets, whose paths must stay short.
		Setup: func(env *testscript.Env) error {
			dir, err := os.MkdirTemp("", "mgs")
			if err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(dir) })
			env.Cd = dir
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"freeport":    cmdFreePort, // of directory_test.go
			"waitready":   cmdWaitReady,
			"waitpending": cmdWaitPending,
			"waitcall":    cmdWaitCall,
			"readyz":      cmdReadyz,
			"interrupt":   cmdInterrupt,
			"waitline":    cmdWaitLine,
			// replace FILE OLD NEW: replace OLD, which FILE must hold,
			// with NEW.
			"replace": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: replace FILE OLD NEW")
				}
				text := ts.ReadFile(args[0])
				if !strings.Contains(text, args[1]) {
					ts.Fatalf("%s has no %q", args[0], args[1])
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Replace(text, args[1], args[2], 1)), 0o600))
			},
			// readvar VAR FILE: set $VAR to FILE's content, trimmed.
			"readvar": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: readvar VAR FILE")
				}
				ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
			},
		},
	})
}

// dialScript connects to the JSON-RPC face of the gateway in dir, waiting
// for it to come up.
func dialScript(ts *testscript.TestScript, dir string, opts localbridge.ClientOptions) *localbridge.Client {
	sock := gateway.Dir(ts.MkAbs(dir)).RPCSocket()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := localbridge.Dial(ctx, sock, opts)
		cancel()
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			ts.Fatalf("gateway in %s did not come up: %v", dir, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitready DIR [AGENT...]: wait until the gateway in DIR answers on its
// JSON-RPC socket and each of its local agents is alive with its tools
// registered.
func cmdWaitReady(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: waitready DIR [AGENT...]")
	}
	c := dialScript(ts, args[0], localbridge.ClientOptions{})
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for _, a := range args[1:] {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			pong, err := c.Ping(ctx, a)
			cancel()
			var p struct {
				Status             string
				CapabilitiesActive []string `json:"capabilities_active"`
			}
			if err == nil && json.Unmarshal(pong, &p) == nil && p.Status == "alive" && len(p.CapabilitiesActive) > 0 {
				break
			}
			if time.Now().After(deadline) {
				ts.Fatalf("agent %s of %s not alive: %s %v", a, args[0], pong, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// waitpending DIR VAR: wait until a call is held for approval at the
// gateway in DIR, and set $VAR to its execution id.
func cmdWaitPending(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitpending DIR VAR")
	}
	c := dialScript(ts, args[0], localbridge.ClientOptions{})
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		pending, err := c.Approvals(ctx)
		cancel()
		ts.Check(err)
		if len(pending) > 0 {
			ts.Setenv(args[1], pending[0].ExecutionID)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no call held for approval at %s", filepath.Base(args[0]))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitcall DIR FROM TO TOOL INPUT [CLS]: call until the call is answered,
// such as after a change the gateways take up within seconds; negated,
// until it is refused.
func cmdWaitCall(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 5 && len(args) != 6 {
		ts.Fatalf("usage: [!] waitcall DIR FROM TO TOOL INPUT [CLS]")
	}
	cls := ""
	if len(args) == 6 {
		cls = args[5]
	}
	c := dialScript(ts, args[0], localbridge.ClientOptions{})
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.Query(ctx, localbridge.QueryRequest{From: args[1], To: args[2], Tool: args[3], Input: json.RawMessage(args[4]), Class: cls}, nil)
		cancel()
		if (err == nil) != neg {
			return
		}
		if time.Now().After(deadline) {
			if neg {
				ts.Fatalf("call still answered")
			}
			ts.Fatalf("call not answered: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readyz DIR STATUS: ask /readyz of the gateway in DIR, on a new connection
// each time as a load balancer's check does, until it answers STATUS, and
// print the answer's body.
func cmdReadyz(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: readyz DIR STATUS")
	}
	d := gateway.Dir(ts.MkAbs(args[0]))
	cfg, err := d.ReadConfig()
	ts.Check(err)
	block, _ := pem.Decode([]byte(ts.ReadFile(filepath.Join(args[0], "tls", "cert.pem"))))
	if block == nil {
		ts.Fatalf("%s: no certificate", d.TLSCertPath())
	}
	tr := &http.Transport{DisableKeepAlives: true, TLSClientConfig: &tls.Config{
		MinVersion:         tls.VersionTLS13,
		InsecureSkipVerify: true, // replaced by the comparison with the gateway's own certificate
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || !bytes.Equal(raw[0], block.Bytes) {
				return errors.New("not the gateway's certificate")
			}
			return nil
		},
	}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := 0, ""
		resp, err := c.Get(cfg.Listen.Advertise + "/readyz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			code, body = resp.StatusCode, string(b)
		}
		if strconv.Itoa(code) == args[1] {
			fmt.Fprint(ts.Stdout(), body)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("/readyz of %s: %d %q %v, want %s", args[0], code, body, err, args[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// interrupt [-stderr] REGEXP moltgate ARGS...: run moltgate, wait until
// what it wrote to its standard output (its standard error, with -stderr)
// matches REGEXP while it still runs, then send it SIGINT and wait for it.
// It must exit 130, as the shell reports a command SIGINT ended; its
// standard output and error are the command's, for stdout and stderr to
// match.
func cmdInterrupt(ts *testscript.TestScript, neg bool, args []string) {
	watchErr := len(args) > 0 && args[0] == "-stderr"
	if watchErr {
		args = args[1:]
	}
	if len(args) < 2 || args[1] != "moltgate" {
		ts.Fatalf("usage: interrupt [-stderr] REGEXP moltgate ARGS...")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	path, err := exec.LookPath("moltgate")
	ts.Check(err)
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	var mu sync.Mutex
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &lockedWriter{mu: &mu, w: &stdout}
	cmd.Stderr = &lockedWriter{mu: &mu, w: &stderr}
	watched := &stdout
	if watchErr {
		watched = &stderr
	}
	ts.Check(cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		seen := re.Match(watched.Bytes())
		mu.Unlock()
		if seen {
			break
		}
		select {
		case err := <-exited:
			ts.Fatalf("moltgate ended (%v) before its output matched %s: %s%s", err, args[0], stdout.String(), stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			ts.Fatalf("moltgate's output did not match %s in time: %s%s", args[0], stdout.String(), stderr.String())
		}
	}
	ts.Check(cmd.Process.Signal(os.Interrupt))
	err = <-exited
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		ts.Fatalf("moltgate exited %d (%v), want 130", code, err)
	}
}

// lockedWriter is a writer that a test may read while a command writes.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// waitline FILE REGEXP: wait until a line of FILE matches REGEXP.
func cmdWaitLine(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitline FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no line of %s matched %s: %q", args[0], args[1], b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
