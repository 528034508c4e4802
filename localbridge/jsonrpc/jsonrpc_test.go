package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name   string
		line   string
		reqs   int
		codes  []int
		ids    []string
		batch  bool
		method string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":1}}`, 1, nil, nil, false, "initialize"},
		{"string id", `{"jsonrpc":"2.0","id":"x","method":"m"}`, 1, nil, nil, false, "m"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"m"}`, 1, nil, nil, false, "m"},
		{"notification", `{"jsonrpc":"2.0","method":"context.update","params":[1]}`, 1, nil, nil, false, "context.update"},
		{"not json", `{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`, 0, []int{CodeParseError}, []string{"null"}, false, ""},
		// Refused for its bytes or its depth, a request is still answered
		// under its id, wherever the id stands.
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", 0, []int{CodeParseError}, []string{"1"}, false, ""},
		{"invalid utf-8 before the id", "{\"jsonrpc\":\"2.0\",\"params\":{\"text\":\"\xff\"},\"method\":\"m\",\"id\":\"q\"}", 0, []int{CodeParseError}, []string{`"q"`}, false, ""},
		{"invalid utf-8 in the id", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"m\"}", 0, []int{CodeParseError}, []string{"null"}, false, ""},
		{"invalid utf-8 without id", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", 0, []int{CodeParseError}, []string{"null"}, false, ""},
		{"invalid utf-8 not an object", "[\"\xff\"]", 0, []int{CodeParseError}, []string{"null"}, false, ""},
		{"too deep", `{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, 0, []int{CodeInvalidRequest}, []string{"1"}, false, ""},
		{"too deep before the id", `{"jsonrpc":"2.0","params":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `,"method":"m","id":9}`, 0, []int{CodeInvalidRequest}, []string{"9"}, false, ""},
		{"too deep and cut short", `{"jsonrpc":"2.0","id":8,"method":"m","params":` + strings.Repeat("[", 70), 0, []int{CodeInvalidRequest}, []string{"8"}, false, ""},
		{"method not a string", `{"jsonrpc":"2.0","method":1,"params":"bar","id":7}`, 0, []int{CodeInvalidRequest}, []string{"7"}, false, ""},
		{"wrong version", `{"jsonrpc":"1.0","method":"m","id":"a"}`, 0, []int{CodeInvalidRequest}, []string{`"a"`}, false, ""},
		{"no version", `{"method":"m","id":2}`, 0, []int{CodeInvalidRequest}, []string{"2"}, false, ""},
		{"object id", `{"jsonrpc":"2.0","method":"m","id":{"a":1}}`, 0, []int{CodeInvalidRequest}, []string{"null"}, false, ""},
		{"params scalar", `{"jsonrpc":"2.0","method":"m","id":3,"params":"x"}`, 0, []int{CodeInvalidRequest}, []string{"3"}, false, ""},
		{"not an object", `42`, 0, []int{CodeInvalidRequest}, []string{"null"}, false, ""},
		{"empty batch", `[]`, 0, []int{CodeInvalidRequest}, []string{"null"}, false, ""},
		{"invalid batch", `[1,2]`, 0, []int{CodeInvalidRequest, CodeInvalidRequest}, []string{"null", "null"}, true, ""},
		{"mixed batch", `[{"jsonrpc":"2.0","method":"a","id":"1"},{"foo":"boo"},{"jsonrpc":"2.0","method":"n"}]`, 2, []int{CodeInvalidRequest}, []string{"null"}, true, ""},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"agent\u002equery"}`, 1, nil, nil, false, "agent.query"},
		{"names are exact", `{"jsonrpc":"2.0","id":1,"Method":"a","method":"b","Result":1}`, 1, nil, nil, false, "b"},
		{"last name wins", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, 1, nil, nil, false, "b"},
		{"result given", `{"jsonrpc":"2.0","id":4,"method":"m","result":null}`, 0, []int{CodeInvalidRequest}, []string{"4"}, false, ""},
		{"null method", `{"jsonrpc":"2.0","id":5,"method":null}`, 0, []int{CodeInvalidRequest}, []string{"5"}, false, ""},
		{"batch not json", `[{"jsonrpc":"2.0","method":"sum","id":"1"},{"jsonrpc":"2.0","method"]`, 0, []int{CodeParseError}, []string{"null"}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reqs, errs, batch := Parse([]byte(c.line))
			if len(reqs) != c.reqs || len(errs) != len(c.codes) || batch != c.batch {
				t.Fatalf("got %d requests, %d errors, batch %v", len(reqs), len(errs), batch)
			}
			for i, e := range errs {
				if e.Error.Code != c.codes[i] || string(e.ID) != c.ids[i] || e.JSONRPC != Version {
					t.Fatalf("error %d: %+v id %s", i, e.Error, e.ID)
				}
				if strings.Contains(e.Error.Message, "foobar") || strings.Contains(e.Error.Message, "\xff") {
					t.Fatal("error echoes the message")
				}
			}
			if c.method != "" && reqs[0].Method != c.method {
				t.Fatalf("method %q", reqs[0].Method)
			}
		})
	}
	reqs, _, _ := Parse([]byte(`{"jsonrpc":"2.0","method":"n"}`))
	if !reqs[0].IsNotification() {
		t.Fatal("notification not recognised")
	}
	reqs, _, _ = Parse([]byte(`{"jsonrpc":"2.0","method":"n","id":null}`))
	if reqs[0].IsNotification() {
		t.Fatal("a null id is not a notification")
	}
}

// TestParseKeepsIDAndParams checks that an id and params come back as
// they were written, so that a response echoes the id exactly.
func TestParseKeepsIDAndParams(t *testing.T) {
	reqs, errs, _ := Parse([]byte(`{"params": {"a" : [1, 2]} ,"id" : "x\u0041","jsonrpc":"2.0","method":"m","other":{"id":9}}`))
	if len(reqs) != 1 || len(errs) != 0 {
		t.Fatalf("got %d requests, %d errors", len(reqs), len(errs))
	}
	if r := reqs[0]; string(r.ID) != `"x\u0041"` || string(r.Params) != `{"a" : [1, 2]}` || r.IsNotification() {
		t.Fatalf("id %s, params %s", r.ID, r.Params)
	}
	reqs, _, _ = Parse([]byte(`{"jsonrpc":"2.0","method":"m","ID":1}`))
	if len(reqs) != 1 || !reqs[0].IsNotification() {
		t.Fatal("ID taken for id")
	}
}

// TestMarshalResponse checks that the direct encoding of a successful
// response gives Marshal's bytes.
func TestMarshalResponse(t *testing.T) {
	results := []any{map[string]string{"query_id": "q-1", "status": "processing"}, []int{1, 2}, "<b>", nil, struct{ A string }{"a&b"}}
	ids := []string{`1`, `-2.5e3`, `"x"`, `"a<b"`, `"\u2028"`, `null`}
	for _, id := range ids {
		for _, v := range results {
			raw, err := Result(v)
			if err != nil {
				t.Fatal(err)
			}
			r := &Response{JSONRPC: Version, ID: json.RawMessage(id), Result: raw}
			got, err := MarshalResponse(r)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := Marshal(r)
			if !bytes.Equal(got, want) {
				t.Errorf("id %s, result %v:\n got %s\nwant %s", id, v, got, want)
			}
		}
	}
	e := &Response{JSONRPC: Version, ID: json.RawMessage(`3`), Error: Errorf(CodeInternalError, "internal error")}
	got, _ := MarshalResponse(e)
	want, _ := Marshal(e)
	if !bytes.Equal(got, want) {
		t.Errorf("error response:\n got %s\nwant %s", got, want)
	}
}

func TestReader(t *testing.T) {
	in := "{\"a\":1}\n\n  \r\n{\"b\":2}\r\n" + `{"c":3}`
	r := NewReader(iotest.OneByteReader(strings.NewReader(in)), 0)
	for _, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		got, err := r.ReadLine()
		if err != nil || string(got) != want {
			t.Fatalf("got %q %v, want %q", got, err, want)
		}
	}
	if _, err := r.ReadLine(); err != io.EOF {
		t.Fatalf("got %v", err)
	}
	big := strings.Repeat("x", 200<<10)
	r = NewReader(strings.NewReader(big+"\n"), 100<<10)
	if _, err := r.ReadLine(); err != ErrMessageTooLarge {
		t.Fatalf("got %v", err)
	}
	r = NewReader(strings.NewReader(big[:100<<10]+"\n"), 100<<10)
	if _, err := r.ReadLine(); err != nil {
		t.Fatalf("line at the limit: %v", err)
	}
	// A line that never ends stops at the limit rather than filling memory.
	r = NewReader(io.MultiReader(strings.NewReader(big), endless{}), 1<<20)
	if _, err := r.ReadLine(); err != ErrMessageTooLarge {
		t.Fatalf("got %v", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

// requests gives the first request of each line read from c, until reading fails.
func requests(c net.Conn) <-chan *Request {
	out := make(chan *Request, 4)
	go func() {
		defer close(out)
		r := NewReader(c, 0)
		for {
			line, err := r.ReadLine()
			if err != nil {
				return
			}
			reqs, _, _ := Parse(line)
			out <- reqs[0]
		}
	}()
	return out
}

func TestConn(t *testing.T) {
	a, b := net.Pipe()
	notes := make(chan string, 10)
	c := NewConn(a, 0, func(m string, p json.RawMessage) { notes <- m + string(p) })
	defer c.Close()
	go func() {
		for req := range requests(b) {
			var out []byte
			switch req.Method {
			case "echo":
				n, _ := Marshal(Request{JSONRPC: Version, Method: "note", Params: json.RawMessage(`{"n":1}`)})
				out, _ = Marshal(Response{JSONRPC: Version, ID: req.ID, Result: req.Params})
				out = append(n, out...)
			default:
				out, _ = Marshal(Response{JSONRPC: Version, ID: req.ID, Error: Errorf(CodeMethodNotFound, "no")})
			}
			b.Write(out)
		}
	}()
	var got map[string]int
	if err := c.Call(context.Background(), "echo", map[string]int{"x": 5}, &got); err != nil || got["x"] != 5 {
		t.Fatalf("%v %v", got, err)
	}
	if n := <-notes; n != `note{"n":1}` {
		t.Fatalf("notification %q", n)
	}
	var e *Error
	if err := c.Call(context.Background(), "nope", nil, nil); !errors.As(err, &e) || e.Code != CodeMethodNotFound {
		t.Fatalf("got %v", err)
	}
	b.Close()
	<-c.Done()
	if err := c.Call(context.Background(), "echo", nil, nil); err == nil {
		t.Fatal("call on a closed connection")
	}
}

// TestConnLost: a call in flight when the other side closes the
// connection fails at once with a LostError, and one this side closes
// under it does not.
func TestConnLost(t *testing.T) {
	a, b := net.Pipe()
	c := NewConn(a, 0, nil)
	lines := requests(b)
	called := make(chan error, 1)
	go func() { called <- c.Call(context.Background(), "unanswered", nil, nil) }()
	<-lines
	b.Close()
	var lost *LostError
	if err := <-called; !errors.As(err, &lost) || !errors.Is(err, io.EOF) {
		t.Fatalf("a call the other side closed under: %v", err)
	}

	a, b = net.Pipe()
	defer b.Close()
	c = NewConn(a, 0, nil)
	lines = requests(b)
	go func() { called <- c.Call(context.Background(), "unanswered", nil, nil) }()
	<-lines
	c.Close()
	if err := <-called; !errors.Is(err, ErrClosed) || errors.As(err, &lost) {
		t.Fatalf("a call this side closed under: %v", err)
	}
}

// TestConnSend: a response to Send goes to its reply on the reading
// goroutine, before the message after it is read; a server error comes as
// an *Error; a reply whose response never comes is never called.
func TestConnSend(t *testing.T) {
	a, b := net.Pipe()
	var order []string // appended on the reading goroutine only
	notes := make(chan struct{})
	c := NewConn(a, 0, func(m string, p json.RawMessage) {
		order = append(order, "note "+string(p))
		close(notes)
	})
	defer c.Close()
	lines := requests(b)
	type answer struct {
		result string
		err    error
	}
	answers := make(chan answer, 3)
	reply := func(res json.RawMessage, err error) {
		order = append(order, "reply "+string(res))
		answers <- answer{string(res), err}
	}
	if err := c.Send("first", map[string]int{"x": 1}, reply); err != nil {
		t.Fatal(err)
	}
	if err := c.Send("second", nil, reply); err != nil {
		t.Fatal(err)
	}
	if err := c.Send("unanswered", nil, reply); err != nil {
		t.Fatal(err)
	}
	first, second := <-lines, <-lines
	if first.Method != "first" || string(first.Params) != `{"x":1}` || second.Method != "second" || second.Params != nil {
		t.Fatalf("requests %+v %+v", first, second)
	}
	// The first's response and a notification arrive in one write.
	out, _ := Marshal(Response{JSONRPC: Version, ID: first.ID, Result: json.RawMessage(`{"ok":true}`)})
	n, _ := Marshal(Request{JSONRPC: Version, Method: "note", Params: json.RawMessage(`{"n":1}`)})
	e, _ := Marshal(Response{JSONRPC: Version, ID: second.ID, Error: Errorf(CodeInvalidParams, "bad")})
	b.Write(append(append(out, n...), e...))
	if got := <-answers; got.result != `{"ok":true}` || got.err != nil {
		t.Fatalf("first answer %+v", got)
	}
	var je *Error
	if got := <-answers; got.result != "" || !errors.As(got.err, &je) || je.Code != CodeInvalidParams {
		t.Fatalf("second answer %+v", got)
	}
	<-notes
	if want := []string{`reply {"ok":true}`, `note {"n":1}`, "reply "}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %q, want %q", order, want)
	}
	<-lines
	b.Close()
	<-c.Done()
	select {
	case got := <-answers:
		t.Fatalf("a reply without a response: %+v", got)
	default:
	}
	if err := c.Send("late", nil, reply); err == nil {
		t.Fatal("Send on a closed connection")
	}
}

// FuzzReader feeds arbitrary bytes to the line reader and the request parser. Nothing may
// panic; every line yields requests or error responses; every valid request survives an
// encode-parse round trip.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n"))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"a","id":"1"},{"foo":"boo"}]` + "\n" + `{"jsonrpc":"2.0","method":"n"}`))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\"}\n"))
	f.Add([]byte(`[[[[[[[[[[[[[[]]]]]]]]]]]]]]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1e999,"method":"m"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), 4096)
		for {
			line, err := r.ReadLine()
			if err != nil {
				return
			}
			reqs, errs, _ := Parse(line)
			if len(reqs)+len(errs) == 0 {
				t.Fatal("a line produced neither requests nor errors")
			}
			for _, e := range errs {
				if e.Error == nil || e.ID == nil {
					t.Fatalf("malformed error response %+v", e)
				}
				if _, err := Marshal(e); err != nil {
					t.Fatalf("error response does not encode: %v", err)
				}
			}
			for _, q := range reqs {
				b, err := Marshal(q)
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				again, errs2, _ := Parse(b)
				if len(errs2) != 0 || len(again) != 1 || again[0].Method != q.Method || !bytes.Equal(again[0].ID, q.ID) || again[0].IsNotification() != q.IsNotification() {
					t.Fatalf("round trip changed %+v into %+v %+v", q, again, errs2)
				}
			}
		}
	})
}

func TestUnmarshalFieldOf(t *testing.T) {
	var v struct {
		To string `json:"to"`
		A  struct {
			B []int `json:"b"`
		} `json:"a"`
	}
	for in, want := range map[string]string{`{"to":7}`: "to", `{"a":{"b":[1,"x"]}}`: "a.b", `{"TO":false}`: "TO"} {
		err := Unmarshal([]byte(in), &v)
		if !IsTypeError(err) || FieldOf(err) != want {
			t.Errorf("%s: %v, field %q, want %q", in, err, FieldOf(err), want)
		}
	}
	if err := Unmarshal([]byte(`{"to":`), &v); err == nil || IsTypeError(err) {
		t.Errorf("truncated input: %v", err)
	}
	// encoding/json's rules: names without regard to case, the last of
	// duplicates winning.
	if err := Unmarshal([]byte(`{"To":"a","to":"b"}`), &v); err != nil || v.To != "b" {
		t.Errorf("got %q, %v", v.To, err)
	}
	if !Valid([]byte(`{"a":1,"a":2}`)) || Valid([]byte(`{"a":}`)) {
		t.Error("Valid disagrees with encoding/json")
	}
}

// FuzzCodecMatchesEncodingJSON holds Valid and Unmarshal to encoding/json's
// answers: whether the input is JSON, whether it decodes, and to what.
func FuzzCodecMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"to":"a@b","input":{"x":[1,2.5e3,"\u00e9"]}}}`,
		`[1,{"a":null}]`, `{"a":1,"A":2}`, `"\ud800"`, "\"\xff\"", `1e400`, `{"a":}`, ` true `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
		var got, want any
		gerr, werr := Unmarshal(b, &got), json.Unmarshal(b, &want)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("Unmarshal(%q): %v, encoding/json: %v", b, gerr, werr)
		}
		if gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal(%q) = %#v, encoding/json gives %#v", b, got, want)
		}
	})
}

// BenchmarkParse reads an agent.query line carrying a 1 KiB input, as the
// JSON-RPC face reads each call.
func BenchmarkParse(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"agent.query","params":{"to":"echo@globex","from":"client","tool":"echo","input":{"text":"` +
		strings.Repeat("a quick brown fox ", 57) + `"},"cls":"conf"}}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		reqs, errs, _ := Parse(line)
		if len(reqs) != 1 || len(errs) != 0 {
			b.Fatal("not one request")
		}
	}
}

// TestConnNullIDError: an error the server sends under a null id, having
// not read the id of what it refuses, fails the requests in flight rather
// than leaving them to wait for an answer that never comes.
func TestConnNullIDError(t *testing.T) {
	a, b := net.Pipe()
	c := NewConn(a, 0, nil)
	defer c.Close()
	lines := requests(b)
	replied := make(chan error, 1)
	if err := c.Send("sent", nil, func(_ json.RawMessage, err error) { replied <- err }); err != nil {
		t.Fatal(err)
	}
	<-lines
	called := make(chan error, 1)
	go func() { called <- c.Call(context.Background(), "called", nil, nil) }()
	<-lines
	out, _ := Marshal(Response{JSONRPC: Version, ID: json.RawMessage("null"), Error: Errorf(CodeParseError, "the message is not valid UTF-8")})
	b.Write(out)
	for _, ch := range []chan error{replied, called} {
		select {
		case err := <-ch:
			var je *Error
			if !errors.As(err, &je) || je.Code != CodeParseError {
				t.Fatalf("got %v, want the null-id error", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a request in flight still waits after a null-id error")
		}
	}
	// The connection goes on: a later request is answered as usual.
	go func() {
		req := <-lines
		out, _ := Marshal(Response{JSONRPC: Version, ID: req.ID, Result: json.RawMessage(`{"ok":true}`)})
		b.Write(out)
	}()
	if err := c.Call(context.Background(), "later", nil, nil); err != nil {
		t.Fatal(err)
	}
}
