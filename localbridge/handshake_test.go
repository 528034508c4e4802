package localbridge_test

import (
	"encoding/json"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// fakeClock is an adjustable Config.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestHandshakeWelcome(t *testing.T) {
	b := newBridge(t, localbridge.Config{HeartbeatInterval: 1500 * time.Millisecond, CoreVersion: "test-core"})
	b.core.AddAgent(localbridge.AgentSpec{ID: "a"})
	tok, err := b.core.ProvisionToken("a", 0)
	if err != nil {
		t.Fatal(err)
	}
	r := dialRaw(t, b.path)
	id := r.send(osp.TypeHello, hello(tok.Reveal(), "a"))
	e := r.next()
	if e.Type != osp.TypeWelcome || e.Error != nil || e.InReplyTo != id || e.V != 1 || e.ID == "" || e.TS == "" {
		t.Fatalf("welcome %+v", e.Header)
	}
	var w osp.Welcome
	if err := e.DecodePayload(&w); err != nil {
		t.Fatal(err)
	}
	if w.AcceptedVersion != 1 || w.SessionID == "" || w.HeartbeatIntervalMS != 1500 || w.MaxFrameBytes != osp.DefaultMaxFrameBytes || w.Server.CoreVersion != "test-core" || w.Server.InstanceID == "" {
		t.Fatalf("welcome payload %+v", w)
	}
	waitFor(t, "connected", func() bool { a, _ := b.core.Agent("a"); return a.Connected && a.SessionID == w.SessionID })
	if ev := b.audit.find(localbridge.AuditAgentConnected); len(ev) != 1 || ev[0].Agent != "a" || ev[0].PeerUID != int64(os.Getuid()) {
		t.Fatalf("audit %+v", ev)
	}
}

func TestHandshakeFailures(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1700000000, 0)}
	b := newBridge(t, localbridge.Config{Now: clock.Now})
	for _, id := range []string{"a", "b"} {
		if err := b.core.AddAgent(localbridge.AgentSpec{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	provision := func(ttl time.Duration) string {
		tok, err := b.core.ProvisionToken("a", ttl)
		if err != nil {
			t.Fatal(err)
		}
		return tok.Reveal()
	}
	used := provision(0)
	b.connectRaw(t, "a")
	_ = used
	// connectRaw provisioned and spent its own token; spend "used" as well.
	r := dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(used, "a"))
	if e := r.next(); e.Error != nil {
		t.Fatalf("first use refused: %v", e.Error)
	}

	cases := []struct {
		name  string
		send  func(r *rawAgent)
		code  string // expected error in core.welcome; "" for a close without welcome
		audit string
	}{
		{"no token", func(r *rawAgent) { r.send(osp.TypeHello, hello("", "a")) }, osp.CodeUnauthorized, "no token"},
		{"unknown token", func(r *rawAgent) {
			r.send(osp.TypeHello, hello("ostok_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "a"))
		}, osp.CodeUnauthorized, "unknown or used token"},
		{"used token", func(r *rawAgent) { r.send(osp.TypeHello, hello(used, "a")) }, osp.CodeUnauthorized, "unknown or used token"},
		{"expired token", func(r *rawAgent) {
			tok := provision(time.Minute)
			clock.Advance(2 * time.Minute)
			r.send(osp.TypeHello, hello(tok, "a"))
		}, osp.CodeUnauthorized, "expired token"},
		{"token of another agent", func(r *rawAgent) { r.send(osp.TypeHello, hello(provision(0), "b")) }, osp.CodeUnauthorized, "token issued to another agent"},
		{"unconfigured agent id", func(r *rawAgent) { r.send(osp.TypeHello, hello(provision(0), "nobody")) }, osp.CodeUnauthorized, "token issued to another agent"},
		{"no common version", func(r *rawAgent) {
			h := hello(provision(0), "a")
			h.Protocol.SupportedVersions = []int{2, 3}
			r.send(osp.TypeHello, h)
		}, osp.CodeUnsupportedVersion, "no common protocol version"},
		{"envelope version", func(r *rawAgent) {
			r.send(osp.TypeHello, hello(provision(0), "a"), func(h *osp.Header) { h.V = 2 })
		}, osp.CodeUnsupportedVersion, ""},
		{"first message not hello", func(r *rawAgent) { r.send(osp.TypeHeartbeat, osp.Heartbeat{Status: "ok"}) }, osp.CodeUnexpectedMessage, ""},
		{"not JSON", func(r *rawAgent) { r.sendRaw([]byte("hello, core")) }, osp.CodeInvalidFrame, ""},
		{"payload of wrong types", func(r *rawAgent) {
			r.sendRaw([]byte(`{"v":1,"type":"agent.hello","id":"x","ts":"t","payload":{"session_token":42}}`))
		}, osp.CodeInvalidMessage, ""},
		{"oversize hello", func(r *rawAgent) {
			h := hello(provision(0), "a")
			h.AgentVersion = strings.Repeat("9", 70<<10)
			r.sendLoose(osp.TypeHello, h)
		}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(b.audit.find(localbridge.AuditUnauthorized))
			r := dialRaw(t, b.path)
			c.send(r)
			got := r.expectClosed()
			if c.code == "" {
				if len(got) != 0 {
					t.Fatalf("expected a close without reply, got %s", got[0].Type)
				}
				return
			}
			if len(got) != 1 || got[0].Type != osp.TypeWelcome || got[0].Error == nil || got[0].Error.Code != c.code {
				t.Fatalf("got %+v", got)
			}
			if strings.Contains(got[0].Error.Message, "ostok_") {
				t.Fatal("error echoes the token")
			}
			if c.code == osp.CodeUnauthorized {
				ev := b.audit.find(localbridge.AuditUnauthorized)
				if len(ev) != before+1 || ev[len(ev)-1].Reason != c.audit {
					t.Fatalf("audit %+v", ev)
				}
			}
		})
	}
	if ev := b.audit.find(localbridge.AuditFrameTooLarge); len(ev) != 1 || ev[0].Size <= 64<<10 {
		t.Fatalf("oversize hello audit %+v", ev)
	}
	// A token presented with the wrong agent id is spent.
	tok := provision(0)
	r = dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(tok, "b"))
	r.expectClosed()
	r = dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(tok, "a"))
	if got := r.expectClosed(); len(got) != 1 || got[0].Error == nil || got[0].Error.Code != osp.CodeUnauthorized {
		t.Fatalf("spent token accepted: %+v", got)
	}
}

func TestHandshakePeerUID(t *testing.T) {
	b := newBridge(t, localbridge.Config{PeerUIDs: []uint32{uint32(os.Getuid() + 1)}})
	b.core.AddAgent(localbridge.AgentSpec{ID: "a"})
	tok, _ := b.core.ProvisionToken("a", 0)
	r := dialRaw(t, b.path)
	// The Core may close before the hello is written: it does not wait to hear the peer.
	r.sendLoose(osp.TypeHello, hello(tok.Reveal(), "a"))
	if got := r.expectClosed(); len(got) != 0 {
		t.Fatalf("peer of another uid got %s", got[0].Type)
	}
	ev := b.audit.find(localbridge.AuditPeerRejected)
	if len(ev) != 1 || ev[0].PeerUID != int64(os.Getuid()) || ev[0].PeerPID != int64(os.Getpid()) {
		t.Fatalf("audit %+v", ev)
	}
}

func TestHandshakeTimeout(t *testing.T) {
	b := newBridge(t, localbridge.Config{HandshakeTimeout: 50 * time.Millisecond})
	r := dialRaw(t, b.path)
	if got := r.expectClosed(); len(got) != 0 {
		t.Fatalf("got %s", got[0].Type)
	}
}

func TestRegisterRejections(t *testing.T) {
	b := newBridge(t, localbridge.Config{MaxSchemaBytes: 1024, MaxTools: 6})
	r, _ := b.connectRaw(t, "a")
	obj := json.RawMessage(`{"type":"object"}`)
	tools := []osp.Tool{
		{ToolID: "a/ok", Name: "ok", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)},
		{ToolID: "b/other", Name: "other", InputSchema: obj},
		{ToolID: "other", Name: "other", InputSchema: obj},
		{ToolID: "a/bad name", Name: "bad name", InputSchema: obj},
		// Tool names are the agent's MoltSpeak capabilities: one that is not a capability
		// name would keep the whole agent out of the directory.
		{ToolID: "a/send.", Name: "send.", InputSchema: obj},
		{ToolID: "a/send..mail", Name: "send..mail", InputSchema: obj},
		{ToolID: "a/x", Name: "y", InputSchema: obj},
		{ToolID: "a/badtype", Name: "badtype", InputSchema: json.RawMessage(`{"type":"bogus"}`)},
		{ToolID: "a/fileref", Name: "fileref", InputSchema: json.RawMessage(`{"$ref":"file:///etc/passwd"}`)},
		{ToolID: "a/httpref", Name: "httpref", InputSchema: json.RawMessage(`{"$schema":"http://example.com/s"}`)},
		{ToolID: "a/noschema", Name: "noschema"},
		{ToolID: "a/arrayschema", Name: "arrayschema", InputSchema: json.RawMessage(`[1]`)},
		{ToolID: "a/bigschema", Name: "bigschema", InputSchema: json.RawMessage(`{"description":"` + strings.Repeat("x", 2000) + `"}`)},
		{ToolID: "a/badout", Name: "badout", InputSchema: obj, OutputSchema: json.RawMessage(`{"minimum":"x"}`)},
		{ToolID: "a/dup", Name: "dup", InputSchema: obj},
		{ToolID: "a/dup", Name: "dup", InputSchema: obj},
		{ToolID: "a/t", Name: "t", InputSchema: obj},
		{ToolID: "a/translate.text", Name: "translate.text", InputSchema: obj, SideEffects: true, Tags: []string{"x"}},
		{ToolID: "a/four", Name: "four", InputSchema: obj},
		{ToolID: "a/five", Name: "five", InputSchema: obj},
		{ToolID: "a/six", Name: "six", InputSchema: obj},
	}
	id := r.send(osp.TypeToolsRegister, osp.ToolsRegister{Tools: tools})
	e := r.expect(osp.TypeToolsRegistered)
	if e.InReplyTo != id {
		t.Fatalf("in_reply_to %q", e.InReplyTo)
	}
	var reg osp.ToolsRegistered
	e.DecodePayload(&reg)
	want := map[string]string{
		"b/other": osp.CodeInvalidToolID, "other": osp.CodeInvalidToolID, "a/bad name": osp.CodeInvalidToolID, "a/x": osp.CodeInvalidToolID,
		"a/send.": osp.CodeInvalidToolID, "a/send..mail": osp.CodeInvalidToolID,
		"a/badtype": osp.CodeInvalidSchema, "a/fileref": osp.CodeInvalidSchema, "a/httpref": osp.CodeInvalidSchema,
		"a/noschema": osp.CodeInvalidSchema, "a/arrayschema": osp.CodeInvalidSchema, "a/bigschema": osp.CodeInvalidSchema,
		"a/badout": osp.CodeInvalidSchema, "a/dup": osp.CodeDuplicateTool, "a/t": osp.CodeDuplicateTool,
		"a/six": osp.CodeTooManyTools,
	}
	got := map[string]string{}
	for _, rj := range reg.Rejected {
		if _, seen := got[rj.ToolID]; seen && rj.ToolID != "a/dup" {
			t.Fatalf("%s rejected twice", rj.ToolID)
		}
		got[rj.ToolID] = rj.Error.Code
		if rj.Error.Message == "" {
			t.Fatalf("%s: rejection without message", rj.ToolID)
		}
	}
	for tid, code := range want {
		if got[tid] != code {
			t.Errorf("%s: rejected with %q, want %q", tid, got[tid], code)
		}
	}
	if strings.Join(reg.Registered, ",") != "a/ok,a/dup,a/translate.text,a/four,a/five" {
		t.Fatalf("registered %v", reg.Registered)
	}
	info, _ := b.core.Agent("a")
	if strings.Join(info.Capabilities(), ",") != "dup,five,four,ok,t,translate.text" {
		t.Fatalf("capabilities %v", info.Capabilities())
	}
	for _, tl := range info.Tools {
		if tl.Name == "translate.text" && (!tl.SideEffects || tl.ID != "a/translate.text" || len(tl.Tags) != 1) {
			t.Fatalf("tool info %+v", tl)
		}
	}

	// Replace swaps the whole set; unregister removes what it names.
	reg = osp.ToolsRegistered{}
	r.send(osp.TypeToolsRegister, osp.ToolsRegister{Replace: true, Tools: []osp.Tool{{ToolID: "a/new", Name: "new", InputSchema: obj}, {ToolID: "a/old", Name: "old", InputSchema: obj}}})
	r.expect(osp.TypeToolsRegistered).DecodePayload(&reg)
	if len(reg.Rejected) != 0 || len(reg.Registered) != 2 {
		t.Fatalf("replace: %+v", reg)
	}
	r.send(osp.TypeToolsUnregister, osp.ToolsUnregister{ToolIDs: []string{"a/old", "a/nope", "b/new"}})
	var un osp.ToolsUnregistered
	r.expect(osp.TypeToolsUnregistered).DecodePayload(&un)
	if strings.Join(un.Unregistered, ",") != "a/old" || strings.Join(un.Unknown, ",") != "a/nope,b/new" {
		t.Fatalf("unregister %+v", un)
	}
	info, _ = b.core.Agent("a")
	if strings.Join(info.Capabilities(), ",") != "new" {
		t.Fatalf("capabilities %v", info.Capabilities())
	}
}

func TestListenUnix(t *testing.T) {
	dir := shortDir(t)
	path := dir + "/sub/x.sock"
	l, err := localbridge.ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir + "/sub": 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	if _, err := localbridge.ListenUnix(path); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("live socket: %v", err)
	}
	// A socket left behind by a dead process is replaced.
	l.SetUnlinkOnClose(false)
	l.Close()
	l, err = localbridge.ListenUnix(path)
	if err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	l.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("closing the listener left the socket file")
	}

	os.WriteFile(path, []byte("x"), 0o600)
	if _, err := localbridge.ListenUnix(path); err == nil {
		t.Fatal("a regular file was replaced")
	}
	open := dir + "/open"
	os.Mkdir(open, 0o755)
	if _, err := localbridge.ListenUnix(open + "/x.sock"); err == nil || !strings.Contains(err.Error(), "0700") {
		t.Fatalf("group-readable directory accepted: %v", err)
	}
	if _, err := localbridge.ListenUnix(dir + "/" + strings.Repeat("x", 120)); err == nil {
		t.Fatal("overlong path accepted")
	}
	var _ net.Listener = l
}
