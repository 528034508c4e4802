package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/internal/coalesce"
)

// ErrClosed is returned by calls on a closed Conn.
var ErrClosed = errors.New("jsonrpc: connection closed")

// LostError is why a connection ended that the other side closed or that
// broke under it, rather than one this side closed: the requests in flight
// on it fail with it, and their answers will never come.
type LostError struct{ Err error }

func (e *LostError) Error() string { return "jsonrpc: connection lost: " + e.Err.Error() }

func (e *LostError) Unwrap() error { return e.Err }

// Conn is the client end of a connection: it sends requests and matches responses to them, and
// hands notifications from the server to a handler in the order they arrive.
type Conn struct {
	c        net.Conn
	r        *Reader
	onNotify func(method string, params json.RawMessage)
	nextID   atomic.Int64
	q        *coalesce.Writer

	mu      sync.Mutex
	pending map[string]*pendingCall
	err     error
	done    chan struct{}
}

// NewConn starts reading from c. onNotify, which may be nil, is called from the reading
// goroutine for each notification; while it runs no other message is read.
func NewConn(c net.Conn, limit int, onNotify func(method string, params json.RawMessage)) *Conn {
	cn := &Conn{c: c, r: NewReader(c, limit), onNotify: onNotify, pending: make(map[string]*pendingCall), done: make(chan struct{})}
	cn.q = coalesce.NewWriter(cn.flush, coalesce.Options{Yield: true})
	go cn.read()
	return cn
}

func (c *Conn) read() {
	var err error
	// An error under a null id that is the last message before the
	// connection ends is the server's word on why it closed it (it holds
	// too many connections, say): the requests that meet the closed
	// connection fail with it rather than with the bare loss.
	var refusal *Error
	defer func() {
		var lost *LostError
		if refusal != nil && errors.As(err, &lost) {
			c.fail(refusal)
			return
		}
		c.fail(err)
	}()
	for {
		var line []byte
		line, err = c.r.ReadLine()
		if err != nil {
			if !errors.Is(err, ErrMessageTooLarge) {
				err = &LostError{err}
			}
			return
		}
		var msgs []*Message
		if len(line) > 0 && line[0] == '[' {
			err = Unmarshal(line, &msgs)
		} else {
			var m Message
			err = Unmarshal(line, &m)
			msgs = []*Message{&m}
		}
		if err != nil {
			return
		}
		for _, m := range msgs {
			if m == nil {
				continue
			}
			refusal = nil
			if m.Method != "" && m.ID == nil {
				if c.onNotify != nil {
					c.onNotify(m.Method, m.Params)
				}
				continue
			}
			if m.Error != nil && (m.ID == nil || string(m.ID) == "null") {
				c.failPending(m)
				refusal = m.Error
				continue
			}
			c.mu.Lock()
			p := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if p != nil {
				p.deliver(m)
			}
		}
	}
}

// failPending answers every request in flight with m, an error the server
// sent under a null id: it could not read the id of something this side
// sent, so any of those requests may be the one it refused, and no answer
// would ever come for that one. Failing them all is better than one
// waiting forever; a connection that carries one request at a time, as
// the command line's do, loses nothing by it.
func (c *Conn) failPending(m *Message) {
	c.mu.Lock()
	pending := c.pending
	c.pending = make(map[string]*pendingCall)
	c.mu.Unlock()
	for _, p := range pending {
		p.deliver(m)
	}
}

func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if err == nil {
		err = ErrClosed
	}
	c.err = err
	close(c.done)
	c.c.Close()
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended, once Done is closed.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection, once what was sent on it is written.
func (c *Conn) Close() error {
	c.q.Sync()
	c.fail(ErrClosed)
	return nil
}

// write sends v. Messages sent while a write is in progress go out together in the next.
func (c *Conn) write(v any) error {
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	return c.q.Write(b)
}

func (c *Conn) flush(buf []byte, _ []int) error {
	c.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.c.Write(buf); err != nil {
		c.fail(&LostError{err})
		return err
	}
	return nil
}

// pendingCall is a request waiting for its response: a caller waits on ch,
// with then run first, or reply takes it on the reading goroutine.
type pendingCall struct {
	ch    chan callResult
	then  func(json.RawMessage) error
	reply func(json.RawMessage, error)
}

type callResult struct {
	m   *Message
	err error
}

// deliver hands the response m to the request p, on the reading goroutine.
func (p *pendingCall) deliver(m *Message) {
	if p.reply != nil {
		if m.Error != nil {
			p.reply(nil, m.Error)
		} else {
			p.reply(m.Result, nil)
		}
		return
	}
	var err error
	if m.Error == nil && p.then != nil {
		err = p.then(m.Result)
	}
	p.ch <- callResult{m, err}
}

// Call sends a request and waits for its response. A JSON-RPC error from the server is
// returned as an *Error. result, if not nil, receives the decoded result.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	var then func(json.RawMessage) error
	if result != nil {
		then = func(raw json.RawMessage) error { return Unmarshal(raw, result) }
	}
	return c.CallThen(ctx, method, params, then)
}

// CallThen is Call with the result handed to then, which runs on the goroutine that reads the
// connection before any message that follows the response is read: whatever it sets up is in
// place for the notifications the response announces. then does not run when the call fails
// or ctx ends first; its error is CallThen's.
func (c *Conn) CallThen(ctx context.Context, method string, params any, then func(json.RawMessage) error) error {
	p := &pendingCall{ch: make(chan callResult, 1), then: then}
	id, err := c.send(method, params, p)
	if err != nil {
		return err
	}
	select {
	case r := <-p.ch:
		if r.m.Error != nil {
			return r.m.Error
		}
		return r.err
	case <-ctx.Done():
		c.forget(id)
		return ctx.Err()
	case <-c.done:
		return c.Err()
	}
}

// Send sends a request without waiting for its response: reply takes the
// response on the goroutine that reads the connection, before any message
// that follows it is read, with the result or the server's *Error. reply
// must not block, nor call the Conn's blocking methods; it is not called
// if the connection ends first (Done is closed then). A caller that waits
// for something the response sets up is woken once, by that, rather than
// once by the response and again by what follows it.
func (c *Conn) Send(method string, params any, reply func(result json.RawMessage, err error)) error {
	_, err := c.send(method, params, &pendingCall{reply: reply})
	return err
}

// send registers p under a new id and writes the request.
func (c *Conn) send(method string, params any, p *pendingCall) (id string, err error) {
	id = strconv.FormatInt(c.nextID.Add(1), 10)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		if r := c.refusal(); r != nil {
			return "", r
		}
		return "", ErrClosed
	}
	c.pending[id] = p
	c.mu.Unlock()
	raw, err := encodeParams(params)
	if err == nil {
		err = c.write(Request{JSONRPC: Version, ID: json.RawMessage(id), Method: method, Params: raw})
	}
	if err != nil {
		c.forget(id)
		if r := c.refusal(); r != nil {
			return "", r // the write failed because the server refused the connection
		}
		return "", err
	}
	return id, nil
}

// refusal returns the error the server ended the connection with, if it said one.
func (c *Conn) refusal() *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, _ := c.err.(*Error)
	return r
}

// forget drops the request id is waiting for: its response, if one comes, is ignored.
func (c *Conn) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	p, err := encodeParams(params)
	if err != nil {
		return err
	}
	return c.write(Request{JSONRPC: Version, Method: method, Params: p})
}

// encodeParams omits absent params rather than sending null, which is not allowed.
func encodeParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return MarshalValue(params)
}
