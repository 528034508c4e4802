package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/internal/freeport"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// TestDirectoryScripts runs the scripts of the directory commands, which
// start real gateways (moltgate serve in the background) and talk to them.
func TestDirectoryScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/directory",
		// Gateway directories hold Unix sockets, whose paths must stay
		// short.
		Setup: func(env *testscript.Env) error {
			dir, err := os.MkdirTemp("", "mgd")
			if err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(dir) })
			env.Setenv("GW", dir)
			return nil
		},
		// [postgres]: a test database is given (MOLTGATE_TEST_POSTGRES), or
		// required (MOLTGATE_REQUIRE_POSTGRES=1, and pgschema then fails
		// without one).
		Condition: func(cond string) (bool, error) {
			if cond != "postgres" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return os.Getenv("MOLTGATE_TEST_POSTGRES") != "" || os.Getenv("MOLTGATE_REQUIRE_POSTGRES") == "1", nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"freeport":  cmdFreePort,
			"waitgw":    cmdWaitGateway,
			"jsonfield": cmdJSONField,
			"pgschema":  cmdPGSchema,
			"usepg":     cmdUsePG,
		},
	})
}

// freeport VAR: set $VAR to a free local port whose successor (the gRPC
// face's) is free too.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	p, err := freeport.Pair()
	ts.Check(err)
	ts.Setenv(args[0], fmt.Sprint(p))
}

// waitgw DIR: wait until the gateway of DIR answers on its JSON-RPC socket.
func cmdWaitGateway(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitgw DIR")
	}
	sock := gateway.Dir(ts.MkAbs(args[0])).RPCSocket()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := localbridge.Dial(ctx, sock, localbridge.ClientOptions{})
		cancel()
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no gateway at %s: %v", sock, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jsonfield FILE PATH VAR: set $VAR to the string at PATH (dot-separated
// keys and indexes) in a JSON file.
func cmdJSONField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonfield FILE PATH VAR")
	}
	var v any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &v))
	for _, k := range strings.Split(args[1], ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			if i >= len(x) {
				ts.Fatalf("%s: no element %s", args[1], k)
			}
			v = x[i]
		default:
			ts.Fatalf("%s: no field %s", args[1], k)
		}
	}
	s, ok := v.(string)
	if !ok {
		ts.Fatalf("%s in %s is not a string", args[1], args[0])
	}
	ts.Setenv(args[2], s)
}

// pgschema VAR: create an empty schema in the database of
// MOLTGATE_TEST_POSTGRES, dropped at the end, and set $VAR to a DSN that
// uses it.
func cmdPGSchema(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: pgschema VAR")
	}
	dsn := os.Getenv("MOLTGATE_TEST_POSTGRES")
	if dsn == "" {
		ts.Fatalf("MOLTGATE_TEST_POSTGRES is not set (run under .ci/postgres.sh)")
	}
	admin, err := sql.Open("pgx", dsn)
	ts.Check(err)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "clitest_" + hex.EncodeToString(b)
	_, err = admin.Exec("CREATE SCHEMA " + schema)
	ts.Check(err)
	ts.Defer(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		admin.Close()
	})
	if !strings.Contains(dsn, "://") {
		ts.Setenv(args[0], dsn+" search_path="+schema)
		return
	}
	u, err := url.Parse(dsn)
	ts.Check(err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	ts.Setenv(args[0], u.String())
}

// usepg DIR DSN: store the gateway of DIR in PostgreSQL at DSN.
func cmdUsePG(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: usepg DIR DSN")
	}
	path := filepath.Join(ts.MkAbs(args[0]), "moltgate.toml")
	text := ts.ReadFile(path)
	out := strings.Replace(text, "driver = \"sqlite\"\ndsn = \"\"", "driver = \"postgres\"\ndsn = \""+strings.ReplaceAll(args[1], `"`, `\"`)+"\"", 1)
	if out == text {
		ts.Fatalf("%s has no storage section to change", path)
	}
	ts.Check(os.WriteFile(path, []byte(out), 0o600))
}

// --require is held to what the gateway takes before anything is sent, as
// call's --input is.
func TestDiscoverRequireChecked(t *testing.T) {
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		t.Errorf("%s was sent to the gateway", r.Method)
		c.fail(r, jsonrpc.Errorf(jsonrpc.CodeInternalError, "not expected"))
	})
	for _, c := range []struct{ require, want string }{
		{"{\"languages\":\"\xff\"}", "languages: invalid UTF-8 in string at byte 14"},
		{strings.Repeat("[", 63) + strings.Repeat("]", 63), "nesting deeper than 62 at byte 62"},
		{`{"a":1,"a":2}`, "a: duplicate key at byte 10"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), "", "discover", "--dir", string(d), "--capability", "echo.text", "--require", c.require)
		want := "moltgate discover: E_INVALID_PARAM: --require must be a JSON object: " + c.want + "\n"
		if code != 2 || stdout != "" || stderr != want {
			t.Errorf("--require %.10q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.require, code, stdout, stderr, want)
		}
	}
}

// discover checks its flags before it connects, and a refusal of the
// socket's (a JSON-RPC invalid-params error) prints as E_INVALID_PARAM
// with its field, as call's do.
func TestDiscoverArguments(t *testing.T) {
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		var q struct {
			Org string `json:"org"`
		}
		json.Unmarshal(r.Params, &q)
		switch q.Org {
		case "nosuch":
			c.fail(r, &jsonrpc.Error{Code: jsonrpc.CodeAgentError, Message: "nosuch is not a peer of this gateway",
				Data: json.RawMessage(`{"moltspeak_code":"E_AGENT_NOT_FOUND","field":"org"}`)})
		default:
			c.fail(r, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "limit must be between 1 and 100", Data: json.RawMessage(`{"field":"limit"}`)})
		}
	})
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "E_INVALID_PARAM: say what to discover: --capability C (or --any C, or --id AGENT)"},
		{[]string{"--org", "globex"}, 2, "E_INVALID_PARAM: say what to discover: --capability C (or --any C, or --id AGENT)"},
		{[]string{"--capability", "echo.text", "--limit", "-1"}, 2, "E_INVALID_PARAM: --limit must be between 1 and 100 (the next page: --cursor)"},
		{[]string{"--capability", "echo.text", "--limit", "0"}, 2, "E_INVALID_PARAM: --limit must be between 1 and 100 (the next page: --cursor)"},
		{[]string{"--capability", "echo.text", "--limit", "101"}, 2, "E_INVALID_PARAM: --limit must be between 1 and 100 (the next page: --cursor)"},
		{[]string{"--capability", "echo.text", "--limit", "1000000"}, 2, "E_INVALID_PARAM: --limit must be between 1 and 100 (the next page: --cursor)"},
		{[]string{"--capability", "echo.text", "--org", "bad name"}, 2, "E_INVALID_PARAM: --org must be an organisation name ([A-Za-z0-9_-], at most 128)"},
		// What the socket refuses.
		{[]string{"--capability", "echo.text", "--limit", "100"}, 1, "E_INVALID_PARAM: limit: limit must be between 1 and 100"},
		{[]string{"--any", "echo.text", "--org", "nosuch"}, 1, "E_AGENT_NOT_FOUND: org: nosuch is not a peer of this gateway; import its peer document with moltgate peer import"},
		{[]string{"--id", "echo", "--org", "nosuch"}, 1, "E_AGENT_NOT_FOUND: org: nosuch is not a peer of this gateway; import its peer document with moltgate peer import"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), "", append([]string{"discover", "--dir", string(d)}, c.args...)...)
		if want := "moltgate discover: " + c.want + "\n"; code != c.code || stdout != "" || stderr != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout, stderr, c.code, want)
		}
	}
}

// A gateway that crashed leaves its socket behind: the socket commands
// say that no gateway answers, and how to start one.
func TestStaleSocket(t *testing.T) {
	root, err := os.MkdirTemp("", "mgs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	d := gateway.Dir(filepath.Join(root, "acme"))
	if _, err := gateway.Init(d, gateway.InitOptions{Org: "acme"}); err != nil {
		t.Fatal(err)
	}
	l, err := localbridge.ListenUnix(d.RPCSocket())
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	hint := "no gateway answers in " + string(d) + "; its socket is left from one that stopped (start it with moltgate serve --dir " + string(d) + ")\n"
	for _, c := range []struct {
		args []string
		code string
	}{
		{[]string{"call", "--to", "echo@globex", "--tool", "echo"}, "E_PEER_UNAVAILABLE"},
		{[]string{"ping", "echo@globex"}, "E_PEER_UNAVAILABLE"},
		{[]string{"discover", "--capability", "echo.text"}, "E_REGISTRY_UNAVAILABLE"},
	} {
		code, _, stderr := runCLI(t, context.Background(), "", append(append(c.args[:1:1], "--dir", string(d)), c.args[1:]...)...)
		if want := "moltgate " + c.args[0] + ": " + c.code + ": " + hint; code != 1 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want %q", c.args[0], code, stderr, want)
		}
	}
}
