package localbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// fakeFace is the server end of a client's connection, answered by hand.
type fakeFace struct {
	t     *testing.T
	c     net.Conn
	lines chan *jsonrpc.Request
}

func newFakeFace(t *testing.T) (*fakeFace, net.Conn) {
	a, b := net.Pipe()
	f := &fakeFace{t: t, c: b, lines: make(chan *jsonrpc.Request, 8)}
	go func() {
		r := jsonrpc.NewReader(b, 0)
		for {
			line, err := r.ReadLine()
			if err != nil {
				close(f.lines)
				return
			}
			reqs, _, _ := jsonrpc.Parse(line)
			f.lines <- reqs[0]
		}
	}()
	return f, a
}

// next returns the next request, which must be for method.
func (f *fakeFace) next(method string) *jsonrpc.Request {
	f.t.Helper()
	select {
	case r, ok := <-f.lines:
		if !ok || r.Method != method {
			f.t.Fatalf("got %+v, want a %s request", r, method)
		}
		return r
	case <-time.After(10 * time.Second):
		f.t.Fatalf("no %s request", method)
	}
	return nil
}

func (f *fakeFace) send(v any) {
	b, err := jsonrpc.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.c.Write(b); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeFace) answer(r *jsonrpc.Request, result string) {
	f.send(jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: r.ID, Result: json.RawMessage(result)})
}

func dialFake(t *testing.T) (*fakeFace, *localbridge.Client) {
	f, nc := newFakeFace(t)
	type dialed struct {
		c   *localbridge.Client
		err error
	}
	done := make(chan dialed, 1)
	go func() {
		c, err := localbridge.NewClient(context.Background(), nc, localbridge.ClientOptions{})
		done <- dialed{c, err}
	}()
	f.answer(f.next(localbridge.MethodInitialize), `{"status":"ok"}`)
	d := <-done
	if d.err != nil {
		t.Fatal(d.err)
	}
	t.Cleanup(func() { d.c.Close() })
	return f, d.c
}

// A query the caller gives up on before the face has answered it with its
// query_id is cancelled at the face once the answer comes.
func TestClientQueryGivenUpBeforeItsID(t *testing.T) {
	f, c := dialFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Query(ctx, localbridge.QueryRequest{To: "echo@globex", Message: "hi"}, nil)
		done <- err
	}()
	q := f.next(localbridge.MethodQuery)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Query returned %v", err)
	}
	f.answer(q, `{"query_id":"q-1","status":"processing"}`)
	cr := f.next(localbridge.MethodCancel)
	if string(cr.Params) != `{"query_id":"q-1"}` {
		t.Fatalf("cancel params %s", cr.Params)
	}
	f.answer(cr, `{"cancelled":true}`)
}

// The face's answers to agent.query, each taken on the client's reading
// goroutine: an error, an answer without a query_id, and a query_id whose
// stream.complete follows in the same write.
func TestClientQueryAnswers(t *testing.T) {
	f, c := dialFake(t)
	type result struct {
		res json.RawMessage
		err error
	}
	start := func() (chan result, *jsonrpc.Request) {
		done := make(chan result, 1)
		go func() {
			res, err := c.Query(context.Background(), localbridge.QueryRequest{To: "echo@globex", Message: "hi"}, nil)
			done <- result{res, err}
		}()
		return done, f.next(localbridge.MethodQuery)
	}

	done, q := start()
	f.send(jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: q.ID, Error: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "to must name an agent")})
	var re *localbridge.RPCError
	if r := <-done; !errors.As(r.err, &re) || re.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("error answer gave %v", r.err)
	}

	done, q = start()
	f.answer(q, `{"status":"processing"}`)
	if r := <-done; r.err == nil || r.err.Error() != "agent.query answered without a query_id" {
		t.Fatalf("answer without an id gave %v", r.err)
	}

	done, q = start()
	resp, _ := jsonrpc.Marshal(jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: q.ID, Result: json.RawMessage(`{"query_id":"q-7","status":"processing"}`)})
	note, _ := jsonrpc.Marshal(jsonrpc.Request{JSONRPC: jsonrpc.Version, Method: localbridge.NotifyComplete,
		Params: json.RawMessage(`{"query_id":"q-7","status":"success","result":{"text":"hi"}}`)})
	if _, err := f.c.Write(append(resp, note...)); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || string(r.res) != `{"text":"hi"}` {
		t.Fatalf("completed query gave %s, %v", r.res, r.err)
	}
}
