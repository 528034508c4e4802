package localbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
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

// A query's notifications are decoded once, on the reading goroutine: their
// text and blocks reach onEvent in order, and one that does not decode still
// reaches the query it names, which fails with it.
func TestClientQueryNotices(t *testing.T) {
	f, c := dialFake(t)
	type result struct {
		res    json.RawMessage
		events []localbridge.StreamEvent
		err    error
	}
	start := func(id string) chan result {
		done := make(chan result, 1)
		go func() {
			var r result
			r.res, r.err = c.Query(context.Background(), localbridge.QueryRequest{To: "echo@globex", Message: "hi"},
				func(ev localbridge.StreamEvent) error { r.events = append(r.events, ev); return nil })
			done <- r
		}()
		f.answer(f.next(localbridge.MethodQuery), `{"query_id":"`+id+`","status":"processing"}`)
		return done
	}
	notify := func(method, params string) {
		f.send(jsonrpc.Request{JSONRPC: jsonrpc.Version, Method: method, Params: json.RawMessage(params)})
	}

	done := start("q-1")
	notify(localbridge.NotifyToken, `{"query_id":"q-1","token":"he","index":0,"metadata":{"channel":"stdout"}}`)
	notify(localbridge.NotifyToken, `{"query_id":"q-other","token":"not mine","index":0}`)
	notify(localbridge.NotifyBlock, `{"query_id":"q-1","block_id":"q-1-b1","block":{"type":"tool_output","content":{"n":1},"metadata":{"channel":"stderr"}}}`)
	notify(localbridge.NotifyComplete, `{"query_id":"q-1","status":"success","result":{"text":"hello"}}`)
	r := <-done
	if r.err != nil || string(r.res) != `{"text":"hello"}` {
		t.Fatalf("query gave %s, %v", r.res, r.err)
	}
	if len(r.events) != 2 || r.events[0].Text != "he" || r.events[0].Channel != "stdout" ||
		string(r.events[1].Block) != `{"n":1}` || r.events[1].Channel != "stderr" {
		t.Fatalf("events %+v", r.events)
	}

	done = start("q-2")
	notify(localbridge.NotifyToken, `{"query_id":"q-2","token":5}`)
	// The query ends without its stream.complete, so it is cancelled at the face.
	f.answer(f.next(localbridge.MethodCancel), `{"cancelled":true}`)
	if r := <-done; r.err == nil || !strings.HasPrefix(r.err.Error(), "read "+localbridge.NotifyToken+": ") {
		t.Fatalf("malformed notice gave %v", r.err)
	}
}
