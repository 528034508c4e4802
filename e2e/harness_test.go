package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/internal/freeport"
	"github.com/moltgate/moltgate/internal/logbuf"
	"github.com/moltgate/moltgate/localbridge"
)

// bin holds the programs under test, built once by TestMain.
// bin holds the binaries TestMain built, and whether the sources they were
// built from have been looked at (see statSources).
var bin struct {
	moltgate, echoagent string
	sourcesOnce         sync.Once
	sourcesErr          error
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run()) // every test skips itself
	}
	dir, err := os.MkdirTemp("", "mgbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/moltgate/moltgate/cmd/moltgate", "github.com/moltgate/moltgate/localbridge/agent/echo/echoagent")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	bin.moltgate, bin.echoagent = filepath.Join(dir, "moltgate"), filepath.Join(dir, "echoagent")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// statSources looks at every Go source file of the module under root. The
// go command caches a test's result against the files the test looked at,
// and it cannot see into the build this test runs: without this, a change
// to the gateway would leave a stale result in the cache.
func statSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go"), d.Name() == "go.mod", d.Name() == "go.sum":
			_, err := os.Stat(path)
			return err
		}
		return nil
	})
}

func needProcesses(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts gateway processes")
	}
	// Only what a test looks at once tests run is recorded.
	bin.sourcesOnce.Do(func() { bin.sourcesErr = statSources("..") })
	if bin.sourcesErr != nil {
		t.Fatal(bin.sourcesErr)
	}
}

// org is one organisation's gateway directory, and its gateway process
// once started.
type org struct {
	t      *testing.T
	name   string
	dir    string
	port   int // the HTTPS face; gRPC is on port+1
	agents []string
	doc    *gateway.PeerDoc // what `peer export` says of it

	cmd    *exec.Cmd
	log    *logbuf.Buffer
	exited chan struct{}
	err    error // the process's exit, once exited is closed
}

// newOrg makes a gateway directory with `moltgate init` on two free
// loopback ports, and adds each agent with `moltgate agent add`, launched as
// the echo agent program.
func newOrg(t *testing.T, name string, agents ...string) *org {
	t.Helper()
	root, err := os.MkdirTemp("", "mg") // socket paths must stay short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	o := &org{t: t, name: name, dir: filepath.Join(root, name), port: freePorts(t), agents: agents}
	mg(t, "init", "--dir", o.dir, "--org", name, "--listen", "127.0.0.1:"+strconv.Itoa(o.port))
	for _, a := range agents {
		mg(t, "agent", "add", "--dir", o.dir, "--id", a, "--exec", bin.echoagent, "--capability", "echo.text", "--max-cls", "pii")
	}
	if o.doc, err = gateway.ParsePeerDoc([]byte(mg(t, "peer", "export", "--dir", o.dir))); err != nil {
		t.Fatal(err)
	}
	return o
}

// freePorts finds a free loopback port whose next port is free too.
func freePorts(t *testing.T) int {
	t.Helper()
	p, err := freeport.Pair()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mg runs the moltgate command and returns its standard output; it fails
// the test if the command fails.
func mg(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := mgRun(nil, args...)
	if err != nil {
		t.Fatalf("moltgate %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func mgRun(stdin []byte, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(bin.moltgate, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err = cmd.Run()
	return o.String(), e.String(), err
}

// trust makes a trust b (a imports b's peer document).
func trust(t *testing.T, a, b *org, maxCls string) {
	t.Helper()
	doc := mg(t, "peer", "export", "--dir", b.dir)
	if _, errOut, err := mgRun([]byte(doc), "peer", "import", "--dir", a.dir, "--max-cls", maxCls); err != nil {
		t.Fatalf("peer import: %v\n%s", err, errOut)
	}
}

// set rewrites one line of the org's configuration.
func (o *org) set(old, new string) {
	o.t.Helper()
	path := gateway.Dir(o.dir).ConfigPath()
	b, err := os.ReadFile(path)
	if err != nil {
		o.t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		o.t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o600); err != nil {
		o.t.Fatal(err)
	}
}

// start runs `moltgate serve` and waits until it answers on its local
// socket with its agents alive. The process is killed, with what it
// launched, when the test ends.
func (o *org) start() {
	t := o.t
	t.Helper()
	if o.log == nil {
		o.log = &logbuf.Buffer{} // a restarted gateway logs after its predecessor
	}
	o.exited = make(chan struct{})
	o.cmd = exec.Command(bin.moltgate, "serve", "--dir", o.dir)
	o.cmd.Stdout, o.cmd.Stderr = o.log, o.log
	// A group of its own, so that the agents it launched can be cleaned up
	// after the gateway itself was killed.
	o.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := o.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmd, exited := o.cmd, o.exited
	go func() { o.err = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		if t.Failed() {
			t.Logf("log of %s:\n%s", o.name, o.log.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("gateway %s exited at start: %v\n%s", o.name, o.err, o.log.String())
		default:
		}
		if o.ready() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway %s not ready\n%s", o.name, o.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ready reports whether the gateway answers on its JSON-RPC socket and every
// local agent is alive with its tools registered.
func (o *org) ready() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := localbridge.Dial(ctx, gateway.Dir(o.dir).RPCSocket(), localbridge.ClientOptions{})
	if err != nil {
		return false
	}
	defer c.Close()
	for _, a := range o.agents {
		pong, err := c.Ping(ctx, a)
		var p struct {
			Status             string
			CapabilitiesActive []string `json:"capabilities_active"`
		}
		if err != nil || json.Unmarshal(pong, &p) != nil || p.Status != "alive" || len(p.CapabilitiesActive) == 0 {
			return false
		}
	}
	return true
}

// signal sends sig to the gateway process.
func (o *org) signal(sig syscall.Signal) {
	o.t.Helper()
	if err := o.cmd.Process.Signal(sig); err != nil {
		o.t.Fatal(err)
	}
}

// wait waits for the gateway process to exit, and returns how it did. A
// process that does not exit within limit fails the test (it hangs).
func (o *org) wait(limit time.Duration) error {
	o.t.Helper()
	select {
	case <-o.exited:
		return o.err
	case <-time.After(limit):
		o.t.Fatalf("gateway %s still running after %v\n%s", o.name, limit, o.log.String())
		return nil
	}
}

// client connects to the gateway's JSON-RPC face, for the rest of the test.
func (o *org) client() *localbridge.Client {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := localbridge.Dial(ctx, gateway.Dir(o.dir).RPCSocket(), localbridge.ClientOptions{Name: "e2e"})
	if err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(func() { c.Close() })
	return c
}

// call invokes tool at to through the org's JSON-RPC face as from, and
// returns the result, the streamed text and the error.
func call(ctx context.Context, c *localbridge.Client, from, to, tool, input string) (json.RawMessage, string, error) {
	var stream strings.Builder
	out, err := c.Query(ctx, localbridge.QueryRequest{From: from, To: to, Tool: tool, Input: json.RawMessage(input)},
		func(ev localbridge.StreamEvent) error {
			if ev.Channel == "" || ev.Channel == "stdout" {
				stream.WriteString(ev.Text)
			}
			return nil
		})
	return out, stream.String(), err
}

// codeOf is the protocol error code behind an error of the JSON-RPC face.
func codeOf(err error) string {
	var re *localbridge.RPCError
	if errors.As(err, &re) {
		return re.MoltSpeakCode
	}
	return ""
}

// https returns a client of the org's HTTPS face that checks its pinned
// certificate, as peers do.
func (o *org) https() *http.Client {
	want, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(o.doc.TLSPin, gateway.PinPrefix))
	if err != nil {
		o.t.Fatal(err)
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS13,
		InsecureSkipVerify: true, // replaced by the pin check
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("no certificate")
			}
			c, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return err
			}
			sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
			if subtle.ConstantTimeCompare(sum[:], want) != 1 {
				return errors.New("certificate does not match the pin")
			}
			return nil
		},
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 30 * time.Second}
	o.t.Cleanup(c.CloseIdleConnections)
	return c
}

// get fetches path from the org's HTTPS face.
func (o *org) get(c *http.Client, path string) (int, string) {
	o.t.Helper()
	resp, err := c.Get(o.doc.Endpoint + path)
	if err != nil {
		o.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// pair starts two organisations that trust each other up to pii: acme with
// the agent client, globex with the agent echo, acme calling globex over
// transport. configure, if set, edits both directories before they start.
func pair(t *testing.T, transport string, configure func(acme, globex *org)) (*org, *org) {
	t.Helper()
	acme, globex := newOrg(t, "acme", "client"), newOrg(t, "globex", "echo")
	trust(t, acme, globex, "pii")
	trust(t, globex, acme, "pii")
	acme.set(`transport = "websocket"`, `transport = "`+transport+`"`)
	if configure != nil {
		configure(acme, globex)
	}
	globex.start()
	acme.start()
	return acme, globex
}
