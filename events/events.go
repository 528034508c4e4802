// Package events is a gateway's local event stream: what changed, in order, for the user
// interfaces and consoles that stay live beside it (Weave's event stream). Agents registered,
// updated and removed; peer sessions opened, renewed and closed; approvals requested and
// resolved; calls completed, without their content.
//
// A Stream numbers its events and keeps the latest for late subscribers. Three faces serve it
// with the same events, ids, order and payloads: JSON-RPC notifications (package localbridge's
// events.subscribe), Server-Sent Events (ServeSSE) and a WebSocket (ServeWebSocket). Each event
// is one JSON object in Weave's form:
//
//	{"id":"7","session_id":"<stream id>","type":"agent.updated","payload":{...},"created_at":"2026-11-26T12:00:00.000Z"}
//
// Emitting never waits for a subscriber: one that falls Config.Buffer events behind is
// dropped (its Subscription ends with ErrBehind), and may subscribe again after the last id
// it saw, to be replayed what it missed while the Stream still keeps it.
//
// An event no subscriber is given when it is emitted is kept as it was given, and encoded
// only if a subscriber resumes before it: a gateway that nobody watches pays for its events
// no more than a lock and the kept payload.
package events

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The event types a gateway emits.
const (
	AgentRegistered   = "agent.registered"   // an agent connected and registered its tools
	AgentUpdated      = "agent.updated"      // an agent's display name or status changed
	AgentRemoved      = "agent.removed"      // removed from the configuration, or withdrawn after being away
	SessionUpdate     = "session.update"     // a session with a peer gateway opened, was renewed or closed
	ApprovalRequested = "approval.requested" // a call waits for a local human
	ApprovalResolved  = "approval.resolved"  // its wait ended: approved, denied or expired
	CallCompleted     = "call.completed"     // a call ended; its content is not in the event
)

// Event is one event, in Weave's form.
type Event struct {
	// ID is the event's number in its stream, in decimal: 1 for the first, one more for each.
	ID string `json:"id"`
	// SessionID is the stream's id, new each time the gateway starts: ids restart with it.
	SessionID string `json:"session_id"`
	// Type is one of the types above.
	Type string `json:"type"`
	// Payload is the event's own members, an object.
	Payload json.RawMessage `json:"payload"`
	// CreatedAt is when it was emitted, RFC 3339 in UTC with milliseconds.
	CreatedAt string `json:"created_at"`

	seq uint64
}

// Errors that end a Subscription.
var (
	ErrBehind = errors.New("events: the subscriber fell too far behind; subscribe again after the last id seen")
	ErrClosed = errors.New("events: the stream is closed")
)

// Config configures a Stream. The zero value is usable: every field states its default.
type Config struct {
	// Keep is how many of the latest events are kept for subscribers that resume.
	// Default: 1024.
	Keep int
	// Buffer is how many events a subscriber may have waiting before it is dropped.
	// Default: 256.
	Buffer int
	// Now tells the time. Default: time.Now.
	Now func() time.Time
	// Rand is the source of the stream's id. Default: crypto/rand.Reader.
	Rand io.Reader
}

// Stream is an ordered stream of events. Its methods are safe for concurrent use; a nil
// *Stream takes Emit calls and does nothing, so that hooks need not check.
type Stream struct {
	cfg Config
	id  string

	mu     sync.Mutex
	seq    uint64
	kept   []entry // a ring of the latest cfg.Keep events
	subs   map[*Subscription]struct{}
	closed bool

	nsubs atomic.Int32 // len(subs), read without the lock by Emit
}

// entry is a kept event: as it was emitted, until a subscriber needs it encoded.
type entry struct {
	seq     uint64
	typ     string
	at      time.Time
	payload any   // until made
	ev      Event // once made
	made    bool
}

// New returns a Stream configured by cfg.
func New(cfg Config) *Stream {
	if cfg.Keep <= 0 {
		cfg.Keep = 1024
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = 256
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	var b [16]byte
	if _, err := io.ReadFull(cfg.Rand, b[:]); err != nil {
		// Without randomness a restarted stream could not be told from the one before.
		panic(fmt.Sprintf("events: %v", err))
	}
	return &Stream{cfg: cfg, id: hex.EncodeToString(b[:]), subs: make(map[*Subscription]struct{})}
}

// ID returns the stream's id, every event's session_id.
func (s *Stream) ID() string { return s.id }

// Emit appends an event of type typ with payload, which must marshal to a JSON object, and
// hands it to every subscriber. It never waits.
//
// With no subscriber, payload is kept as it is and encoded only when a subscriber that
// resumes is replayed it: it must not change after Emit, and should hold no more memory than
// it needs (a string cut from a larger buffer keeps the whole buffer while it is kept).
func (s *Stream) Emit(typ string, payload any) {
	if s == nil {
		return
	}
	var p []byte
	if s.nsubs.Load() > 0 {
		p = encode(payload) // outside the lock, as a subscriber will want it
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.seq++
	e := entry{seq: s.seq, typ: typ, at: s.cfg.Now(), payload: payload}
	if len(s.subs) > 0 {
		if p == nil {
			p = encode(payload) // a subscriber came since
		}
		s.make(&e, p)
	}
	if len(s.kept) < s.cfg.Keep {
		s.kept = append(s.kept, e)
	} else {
		s.kept[int((s.seq-1)%uint64(s.cfg.Keep))] = e
	}
	if !e.made {
		return
	}
	for sub := range s.subs {
		select {
		case sub.ch <- e.ev:
		default:
			s.dropLocked(sub, ErrBehind)
		}
	}
}

// encode is payload as the event's payload: its JSON, or {} if that is not an object.
func encode(payload any) []byte {
	p, err := json.Marshal(payload)
	if err != nil || len(p) == 0 || p[0] != '{' {
		p = []byte("{}")
	}
	return p
}

// make gives e its Event, with payload p (encode's), and lets go of what it was made of.
func (s *Stream) make(e *entry, p []byte) {
	e.ev = Event{ID: strconv.FormatUint(e.seq, 10), SessionID: s.id, Type: e.typ, Payload: p,
		CreatedAt: e.at.UTC().Format("2006-01-02T15:04:05.000Z"), seq: e.seq}
	e.made, e.payload = true, nil
}

// keptLocked is the kept event with number seq, made if it was not yet.
func (s *Stream) keptLocked(seq uint64) Event {
	e := &s.kept[int((seq-1)%uint64(s.cfg.Keep))]
	if !e.made {
		s.make(e, encode(e.payload))
	}
	return e.ev
}

// Subscription is one subscriber's view of a Stream: every event after the one it subscribed
// after, in order, on C, until Close, a fall too far behind, or the stream's close, after
// which C is closed and Err says why.
type Subscription struct {
	// C delivers the events.
	C <-chan Event
	// Missed reports that events after the one named were no longer kept (or that id was of
	// an earlier stream): the subscriber was given what is kept, and has a gap before it.
	Missed bool

	s   *Stream
	ch  chan Event
	err error
}

// Subscribe returns a Subscription to the events after the one with id after; "" is from
// now on. An id the stream has not reached (of a stream before a restart) replays what is
// kept, with Missed set.
func (s *Stream) Subscribe(after string) (*Subscription, error) {
	var from uint64
	fromNow := after == ""
	if !fromNow {
		n, err := strconv.ParseUint(after, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("after %q is not an event id (a decimal number)", after)
		}
		from = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	sub := &Subscription{s: s}
	var replay []Event
	if !fromNow {
		if from > s.seq {
			sub.Missed, from = true, 0
		}
		oldest := s.seq - uint64(len(s.kept)) + 1
		if len(s.kept) > 0 && from+1 < oldest {
			sub.Missed, from = true, oldest-1
		}
		for seq := from + 1; seq <= s.seq; seq++ {
			replay = append(replay, s.keptLocked(seq))
		}
	}
	sub.ch = make(chan Event, s.cfg.Buffer+len(replay))
	sub.C = sub.ch
	for _, e := range replay {
		sub.ch <- e
	}
	s.subs[sub] = struct{}{}
	s.nsubs.Store(int32(len(s.subs)))
	return sub, nil
}

// Close ends the subscription.
func (sub *Subscription) Close() {
	sub.s.mu.Lock()
	defer sub.s.mu.Unlock()
	sub.s.dropLocked(sub, nil)
}

// Err says why C was closed: nil after Close, ErrBehind or ErrClosed.
func (sub *Subscription) Err() error {
	sub.s.mu.Lock()
	defer sub.s.mu.Unlock()
	return sub.err
}

func (s *Stream) dropLocked(sub *Subscription, why error) {
	if _, ok := s.subs[sub]; !ok {
		return
	}
	delete(s.subs, sub)
	s.nsubs.Store(int32(len(s.subs)))
	sub.err = why
	close(sub.ch)
}

// Close ends every subscription with ErrClosed; later events are not kept.
func (s *Stream) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for sub := range s.subs {
		s.dropLocked(sub, ErrClosed)
	}
}
