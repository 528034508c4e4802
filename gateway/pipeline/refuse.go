package pipeline

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Extensions moltgate sends.
const (
	// ExtIdentity carries the sender's identity certificate ({"cert":…}).
	ExtIdentity = "moltgate.identity"
	// ExtCapabilities carries capability certificates ({"certs":[…]}).
	ExtCapabilities = "moltgate.capabilities"
	// ExtRoute carries the hop count ({"hops":n}).
	ExtRoute = "moltgate.route"
)

// Hops is the hops a message from a peer has made: what it says, or one
// (the crossing it has just made) if it says nothing.
func Hops(m *wire.Message) int64 {
	if h, ok := m.Ext.Get(ExtRoute).Get("hops").Int(); ok && h > 0 {
		return h
	}
	return 1
}

// Refuse answers with an error message, signed by the gateway. It is sealed
// in the request's session when there is one, and otherwise sent in the
// clear: it carries a code and a rule, never content.
func (p *Pipeline) Refuse(req *wire.Message, sess *handshake.Session, err error) Answer {
	return p.RefuseWith(req, sess, err, func(f string) string { return p.cutFlagged(req, p.ErrorField(f)) })
}

// RefuseWith is Refuse with field making the error's field fit to go back.
func (p *Pipeline) RefuseWith(req *wire.Message, sess *handshake.Session, err error, field func(string) string) Answer {
	we := directory.ProfileError(AsWire(err))
	if f := field(we.Field); f != we.Field {
		c := *we
		c.Field = f
		we = &c
	}
	if we.Code == wire.ErrInternal {
		// The cause stays in the log, never in the reply.
		cause := err
		if we.Err != nil {
			cause = we.Err
		}
		p.Log.Error("internal error", "err", cause.Error())
	}
	a := Answer{Status: we.Code.HTTPStatus(), Code: we.Code, Err: we}
	if we.Suggestion != nil && we.Suggestion.DelayMS > 0 {
		a.RetryAfter = time.Duration(we.Suggestion.DelayMS) * time.Millisecond
	}
	payload := we.Payload()
	if payload.Context.IsAbsent() {
		// What an agent runtime needs to recover: OSSA's code and
		// strategy, the wait, the escalation (see docs/protocol.md).
		payload.Context = wire.OSSAContext(we)
	}
	self := p.Self.Current()
	m := &wire.Message{V: wire.Version, ID: NewMessageID(p.Rand), TS: p.Now().UnixMilli(), Op: wire.OpError,
		From: self.Sender(), To: wire.Ref{Agent: "unknown", Org: "unknown"}, Cls: wire.Pub, Payload: payload}
	if req != nil {
		m.To, m.Re = req.From.Ref(), req.ID
		a.Op, a.refusedID, a.refused = req.Op, req.ID, req.From.Ref()
	}
	var body []byte
	inClear := true
	if sess != nil && req != nil && req.From.Org == sess.Peer().Ref().Org {
		body, err = sess.SignAndSeal(m, self.Signing)
		inClear = Code(err) == wire.ErrSessionExpired
	}
	if inClear {
		// No session, or one that has just ended: the error goes in the
		// clear, signed by this gateway, which the peer accepts for
		// errors (they carry a code and a rule, never content).
		// The session may have named the key it was made under.
		m.Sig, m.From = keys.Signature{}, self.Sender()
		body, err = crypto.Sign(p.Codec, m, self.Signing)
	}
	if err != nil {
		p.Log.Error("cannot sign an error reply", "code", string(we.Code), "err", err.Error())
		return a
	}
	a.Body = body
	return a
}

// ErrorField is the part of a refusal's field that may go back: the path
// up to the first member name longer than maxFieldSegment bytes or that
// reads as personal data or a secret, and no longer than maxField. A path
// into a rejected message names members the sender chose, and the refusal
// may travel in the clear although the message came sealed: what the
// message held is never echoed.
func (p *Pipeline) ErrorField(f string) string {
	const maxFieldSegment, maxField = 64, 256
	i := 0 // f[:i] is fit to go back
	for i < len(f) {
		next := p.fieldSegment(f, i, maxFieldSegment)
		if next < 0 || next > maxField {
			break
		}
		i = next
	}
	return f[:i]
}

// fieldSegment returns where the path segment at f[i:] ends (an array
// index, or a member name, plain or quoted), or -1 if it may not go back.
func (p *Pipeline) fieldSegment(f string, i, max int) int {
	var name string
	end := -1
	switch {
	case strings.HasPrefix(f[i:], `["`):
		q, err := strconv.QuotedPrefix(f[i+1:])
		if err != nil || !strings.HasPrefix(f[i+1+len(q):], "]") {
			return -1
		}
		name, _ = strconv.Unquote(q)
		end = i + 1 + len(q) + 1
	case f[i] == '[':
		j := i + 1
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if j == i+1 || j == len(f) || f[j] != ']' {
			return -1
		}
		return j + 1
	default:
		if f[i] == '.' && i > 0 {
			i++
		}
		j := i
		for j < len(f) && wire.PlainKeyByte(f[j]) {
			j++
		}
		name, end = f[i:j], j
	}
	if name == "" || len(name) > max || len(p.Scanner.ScanText(name)) > 0 {
		return -1
	}
	return end
}

// refuseUnread refuses what could not be read as a message.
func (p *Pipeline) refuseUnread(o Origin, err error) Answer {
	if o.Unread == nil {
		return p.Refuse(nil, nil, err)
	}
	return o.Unread.refuse(p, err)
}

// UnreadRefusals are the refusals of what a batch or a stream connection
// sent that could not be read as messages. Each is signed, and a batch of a
// thousand junk items, or a connection sending junk frames, would cost a
// signature each for a few bytes sent. The first few get a refusal of
// their own; after them, one refusal per code, signed once, answers every
// item it fits. The zero value is ready; one serves one batch or
// connection.
type UnreadRefusals struct {
	mu     sync.Mutex
	n      int
	shared map[wire.Code]Answer
}

// UnreadDetailed is how many unreadable envelopes get a refusal of
// their own.
const UnreadDetailed = 8

func (u *UnreadRefusals) refuse(p *Pipeline, err error) Answer {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n++; u.n <= UnreadDetailed {
		return p.Refuse(nil, nil, err)
	}
	we := AsWire(err)
	if a, ok := u.shared[we.Code]; ok {
		return a
	}
	if u.shared == nil {
		u.shared = map[wire.Code]Answer{}
	}
	a := p.Refuse(nil, nil, &wire.Error{Code: we.Code, Suggestion: we.Suggestion,
		Message: fmt.Sprintf("this could not be read either (the first %d such refusals say why)", UnreadDetailed)})
	a.Shared = true
	u.shared[we.Code] = a
	return a
}

// WithRetry suggests retrying after d.
func WithRetry(e *wire.Error, d time.Duration) *wire.Error {
	// Rounded up: a sender that waits exactly delay_ms must find a token.
	ms := max(int64((d+time.Millisecond-1)/time.Millisecond), 1)
	return e.WithSuggestion(wire.Suggestion{Action: wire.ActionRetryAfter, DelayMS: ms})
}

// AsWire turns any error into the protocol error to answer with. Errors that
// are not protocol errors are internal and say nothing more.
func AsWire(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return wire.Errorf(wire.ErrTimeout, "", "deadline exceeded")
	}
	if errors.Is(err, context.Canceled) {
		return wire.Errorf(wire.ErrTimeout, "", "cancelled")
	}
	return wire.Errorf(wire.ErrInternal, "", "internal error")
}

// Code is the protocol error code err carries, or "".
func Code(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

// LogBlock logs a message the gate blocked: where the findings were, never
// what.
func (p *Pipeline) LogBlock(m *wire.Message, d classify.Direction, dec classify.Decision) {
	p.Log.Warn("message blocked", "direction", d.String(), "reason", dec.Reason.String(), "op", string(m.Op),
		"from", m.From.Ref().String(), "to", m.To.String(), "cls", m.Cls.String(), "findings", findingPaths(dec))
}

// blockInfo is what the security log says of a message the gate blocked.
type blockInfo struct{ reason, findings string }

// findingPaths is where the gate found what it blocked, never what: one
// string, "email at p.input.to, phone at p.input.note". The redaction
// layer renders any list as text and masks what looks personal in it,
// which "email@p.input.to" did.
func findingPaths(dec classify.Decision) string {
	paths := make([]string, 0, len(dec.Findings))
	for _, f := range dec.Findings {
		paths = append(paths, f.Type.String()+" at "+f.Path)
	}
	return strings.Join(paths, ", ")
}

// NewMessageID makes a UUID v4 from rand.
func NewMessageID(rand io.Reader) string {
	var b [16]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		panic("gateway: random source failed: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}
