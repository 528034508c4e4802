package localbridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// TestRPCNastyInput feeds a corpus of bad lines to the face's reader. The face answers each
// as JSON-RPC 2.0 prescribes, or closes the offending connection, and keeps serving others.
func TestRPCNastyInput(t *testing.T) {
	f := newFace(t, func(c *localbridge.RPCConfig) { c.MaxMessageBytes = 64 << 10 })
	healthy := f.dial(t, localbridge.ClientOptions{})
	check := func(t *testing.T) {
		t.Helper()
		if _, err := healthy.Ping(context.Background(), "echo"); err != nil {
			t.Fatalf("the face stopped serving: %v", err)
		}
	}
	cases := []struct {
		name, line string
		code       int
		id         string
	}{
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.ping\",\"params\":{\"agent\":\"\xc3\x28\"}}", jsonrpc.CodeParseError, "1"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"agent.ping","params":{"agent":`, jsonrpc.CodeParseError, "null"},
		{"not json", "\x00\x01garbage", jsonrpc.CodeParseError, "null"},
		{"deep nesting", `{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"input":` + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100) + `}}`, jsonrpc.CodeInvalidRequest, "1"},
		{"deep arrays", strings.Repeat("[", 5000) + strings.Repeat("]", 5000), jsonrpc.CodeInvalidRequest, "null"},
		{"scalar", `"hello"`, jsonrpc.CodeInvalidRequest, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":9,"method":"agent.ping"}`, jsonrpc.CodeInvalidRequest, "9"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"agent.ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"method number", `{"jsonrpc":"2.0","id":8,"method":5}`, jsonrpc.CodeInvalidRequest, "8"},
		{"params string", `{"jsonrpc":"2.0","id":7,"method":"agent.ping","params":"echo"}`, jsonrpc.CodeInvalidRequest, "7"},
		{"params wrong type", `{"jsonrpc":"2.0","id":6,"method":"agent.ping","params":{"agent":["echo"]}}`, jsonrpc.CodeInvalidParams, "6"},
		{"huge number", `{"jsonrpc":"2.0","id":5,"method":"agent.query","params":{"to":"echo","message":"m","timeout_ms":1e400}}`, jsonrpc.CodeInvalidParams, "5"},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"rm.rf"}`, jsonrpc.CodeMethodNotFound, "4"},
		{"result as request", `{"jsonrpc":"2.0","id":3,"result":{}}`, jsonrpc.CodeInvalidRequest, "3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.raw(t, true)
			r.line(c.line)
			m := r.msg()
			if m.Error == nil || m.Error.Code != c.code || string(m.ID) != c.id {
				t.Fatalf("got %+v (id %s), want %d", m.Error, m.ID, c.code)
			}
			if strings.Contains(m.Error.Message, "garbage") || strings.Contains(m.Error.Message, "\xc3") {
				t.Fatal("the error echoes the input")
			}
			// The same connection still works.
			r.line(`{"jsonrpc":"2.0","id":"after","method":"agent.ping","params":{"agent":"echo"}}`)
			if m := r.msg(); string(m.ID) != `"after"` || m.Error != nil {
				t.Fatalf("after: %+v", m)
			}
			check(t)
		})
	}
	t.Run("batch", func(t *testing.T) {
		r := f.raw(t, true)
		r.line(`[{"jsonrpc":"2.0","id":1,"method":"agent.ping","params":{"agent":"echo"}},{"bad":true},{"jsonrpc":"2.0","method":"context.update"},1]`)
		b, err := r.readLine()
		if err != nil {
			t.Fatal(err)
		}
		var resps []jsonrpc.Message
		if err := json.Unmarshal(b, &resps); err != nil || len(resps) != 3 {
			t.Fatalf("%s %v", b, err)
		}
		ok := 0
		for _, m := range resps {
			if m.Error == nil && string(m.ID) == "1" {
				ok++
			} else if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("member %+v", m)
			}
		}
		if ok != 1 {
			t.Fatalf("%s", b)
		}
	})
	t.Run("batch of notifications", func(t *testing.T) {
		r := f.raw(t, true)
		r.line(`[{"jsonrpc":"2.0","method":"context.update"},{"jsonrpc":"2.0","method":"x"}]`)
		r.line(`{"jsonrpc":"2.0","id":"next","method":"agent.ping","params":{"agent":"echo"}}`)
		if m := r.msg(); string(m.ID) != `"next"` {
			t.Fatalf("a batch of notifications was answered: %+v", m)
		}
	})
	t.Run("oversize line", func(t *testing.T) {
		r := f.raw(t, true)
		r.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"message":"` + strings.Repeat("x", 70<<10) + "\"}}\n"))
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest || string(m.ID) != "null" {
			t.Fatalf("got %+v", m)
		}
		if _, err := r.readLine(); err == nil {
			t.Fatal("the connection stayed open")
		}
		check(t)
	})
	t.Run("endless line", func(t *testing.T) {
		r := f.raw(t, true)
		go func() {
			chunk := bytes.Repeat([]byte("y"), 8<<10)
			for range 100 {
				if _, err := r.conn.Write(chunk); err != nil {
					return
				}
			}
		}()
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("got %+v", m)
		}
		check(t)
	})
	t.Run("truncated at close", func(t *testing.T) {
		r := f.raw(t, true)
		r.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"meth`))
		r.conn.(*net.UnixConn).CloseWrite()
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeParseError {
			t.Fatalf("got %+v", m)
		}
		check(t)
	})
}
