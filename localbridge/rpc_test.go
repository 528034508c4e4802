package localbridge_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// testIssuer signs consent tokens with its own key, in the token format of the design.
type testIssuer struct{ key ed25519.PrivateKey }

func (i testIssuer) IssueConsent(ctx context.Context, req localbridge.ConsentRequest) (string, error) {
	claims, err := json.Marshal(map[string]any{
		"issuer":  "ed25519:" + base64.StdEncoding.EncodeToString(i.key.Public().(ed25519.PublicKey)),
		"grantee": req.Grantee, "purpose": req.Purpose, "data_types": req.DataTypes,
		"expires": time.Now().Add(req.TTL).UnixMilli(),
	})
	if err != nil {
		return "", err
	}
	return "consent-token:" + base64.RawURLEncoding.EncodeToString(claims) + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(i.key, claims)), nil
}

type face struct {
	*bridge
	rpcPath   string
	server    *localbridge.RPCServer
	approvals *localbridge.Approvals
	issuer    testIssuer
}

// newFace starts a Core with the echo agent and the JSON-RPC face in front of it, served by
// the Core through Local: every request crosses both real sockets.
func newFace(t testing.TB, mod func(*localbridge.RPCConfig)) *face {
	t.Helper()
	approvals := &localbridge.Approvals{}
	b := newBridge(t, localbridge.Config{Approver: approvals})
	b.runAgent(t, "echo", echo.New(), localbridge.AgentSpec{QueryTool: "echo"})
	_, key, _ := ed25519.GenerateKey(nil)
	f := &face{bridge: b, approvals: approvals, issuer: testIssuer{key}}
	local := &localbridge.Local{Core: b.core, Org: "acme"}
	cfg := localbridge.RPCConfig{Query: local, Directory: local, Ping: local, Consent: f.issuer, Approvals: approvals, Logger: b.core.Config().Logger}
	if mod != nil {
		mod(&cfg)
	}
	f.rpcPath = filepath.Join(b.dir, "rpc.sock")
	l, err := localbridge.ListenUnix(f.rpcPath)
	if err != nil {
		t.Fatal(err)
	}
	f.server = localbridge.NewRPCServer(cfg)
	served := make(chan error, 1)
	go func() { served <- f.server.Serve(l) }()
	t.Cleanup(func() {
		f.server.Close()
		if err := <-served; err != localbridge.ErrServerClosed {
			t.Errorf("Serve returned %v", err)
		}
	})
	return f
}

func (f *face) dial(t testing.TB, opts localbridge.ClientOptions) *localbridge.Client {
	t.Helper()
	c, err := localbridge.Dial(context.Background(), f.rpcPath, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawRPC writes lines and reads messages, to see the face's exact output.
type rawRPC struct {
	t    testing.TB
	conn net.Conn
	r    *jsonrpc.Reader
}

func (f *face) raw(t testing.TB, initialize bool) *rawRPC {
	t.Helper()
	c, err := net.Dial("unix", f.rpcPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &rawRPC{t: t, conn: c, r: jsonrpc.NewReader(c, 0)}
	if initialize {
		r.line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"raw","version":"0"}}}`)
		if m := r.msg(); m.Error != nil {
			t.Fatalf("initialize: %v", m.Error)
		}
	}
	return r
}

func (r *rawRPC) line(s string) {
	r.t.Helper()
	r.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.conn.Write([]byte(s + "\n")); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawRPC) readLine() ([]byte, error) {
	r.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	return r.r.ReadLine()
}

func (r *rawRPC) msg() jsonrpc.Message {
	r.t.Helper()
	b, err := r.readLine()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	var m jsonrpc.Message
	if err := json.Unmarshal(b, &m); err != nil {
		r.t.Fatalf("%s: %v", b, err)
	}
	return m
}

func errData(t testing.TB, e *jsonrpc.Error) map[string]any {
	t.Helper()
	var d map[string]any
	if len(e.Data) > 0 {
		json.Unmarshal(e.Data, &d)
	}
	return d
}

func TestRPCInitialize(t *testing.T) {
	f := newFace(t, nil)
	r := f.raw(t, false)
	r.line(`{"jsonrpc":"2.0","id":1,"method":"agent.ping","params":{"agent":"echo"}}`)
	if m := r.msg(); m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest || string(m.ID) != "1" {
		t.Fatalf("before initialize: %+v", m)
	}
	r.line(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocol_version":"2.0.0"}}`)
	if m := r.msg(); m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || errData(t, m.Error)["field"] != "protocol_version" {
		t.Fatalf("version 2: %+v", m.Error)
	}
	r.line(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"t"},"capabilities":["streaming"],"terminal_size":{"cols":80}}}`)
	var res localbridge.InitializeResult
	json.Unmarshal(r.msg().Result, &res)
	if res.Status != "ready" || res.ProtocolVersion != "1.0.0" || res.ServerInfo.Name != "moltgate" || len(res.Methods) != 9 || !strings.Contains(strings.Join(res.Capabilities, ","), "tool_approval") {
		t.Fatalf("result %+v", res)
	}
	// A face without a session store offers no sessions.
	r.line(`{"jsonrpc":"2.0","id":4,"method":"session.save","params":{}}`)
	if m := r.msg(); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("unknown method: %+v", m)
	}
	// Notifications get no answer, known or not; the next answer is for id 5.
	r.line(`{"jsonrpc":"2.0","method":"context.update","params":{"cwd":"/x"}}`)
	r.line(`{"jsonrpc":"2.0","method":"no.such.thing"}`)
	r.line(`{"jsonrpc":"2.0","id":5,"method":"agent.ping","params":{"agent":"echo@acme"}}`)
	if m := r.msg(); string(m.ID) != "5" || m.Error != nil {
		t.Fatalf("got %+v", m)
	}

	// A face without a dependency does not offer its methods.
	g := newFace(t, func(c *localbridge.RPCConfig) { c.Consent, c.Directory = nil, nil })
	c := g.dial(t, localbridge.ClientOptions{})
	if strings.Contains(strings.Join(c.Server().Methods, ","), "consent.issue") {
		t.Fatal("consent.issue offered without an issuer")
	}
	var re *localbridge.RPCError
	if _, err := c.IssueConsent(context.Background(), localbridge.ConsentRequest{Grantee: "a@b", Purpose: "p", DataTypes: []string{"email"}}); !errors.As(err, &re) || re.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("got %v", err)
	}
}

func TestRPCPeerAndShutdown(t *testing.T) {
	f := newFace(t, func(c *localbridge.RPCConfig) { c.PeerUIDs = []uint32{uint32(os.Getuid() + 1)} })
	if _, err := localbridge.Dial(context.Background(), f.rpcPath, localbridge.ClientOptions{}); err == nil {
		t.Fatal("a peer of another uid was served")
	}
	if !strings.Contains(f.logs.String(), "rpc connection refused") {
		t.Fatal("refusal not logged")
	}

	g := newFace(t, nil)
	c := g.dial(t, localbridge.ClientOptions{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Query(context.Background(), localbridge.QueryRequest{To: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":150}`)}, nil)
		errc <- err
	}()
	waitFor(t, "call running", func() bool { a, _ := g.core.Agent("echo"); return a.InFlight == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("the running query was cut short: %v", err)
	}
	if _, err := localbridge.Dial(context.Background(), g.rpcPath, localbridge.ClientOptions{}); err == nil {
		t.Fatal("connected after shutdown")
	}
}
