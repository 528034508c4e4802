package handshake

import (
	"context"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/moltgate/moltgate/wire"
)

// Acceptor answers handshakes that arrive one message per request, as they
// do over HTTP, where no connection holds a Responder between messages. It
// keeps each handshake in progress under the key its next message will
// carry (the id of the hello_ack, which verify answers; then the session
// id, under which session_established arrives), at most Config.MaxPending
// of them. It is safe for concurrent use.
type Acceptor struct {
	cfg   *Config
	store *Store

	mu      sync.Mutex
	pending *simplelru.LRU[string, *Responder]
}

// NewAcceptor makes an Acceptor. Sessions it completes are added to store,
// if not nil.
func NewAcceptor(cfg *Config, store *Store) *Acceptor {
	p, _ := simplelru.NewLRU[string, *Responder](cfg.maxPending(), nil)
	return &Acceptor{cfg: cfg, store: store, pending: p}
}

func pendingKey(env *wire.Envelope) (string, bool) {
	switch {
	case env.Encrypted && env.Algorithm == wire.AlgSession:
		return "s:" + env.SessionID, true
	case env.Encrypted:
		return "", false
	case env.Message.Op == wire.OpVerify || env.Message.Op == wire.OpError:
		return "m:" + env.Message.Re, env.Message.Re != ""
	}
	return "", false
}

// Handles reports whether env is the acceptor's to handle: a hello, or the
// next message of a handshake in progress. A face that receives a session
// envelope asks its Store first and this second.
func (a *Acceptor) Handles(env *wire.Envelope) bool {
	if !env.Encrypted && env.Message.Op == wire.OpHello {
		return true
	}
	key, ok := pendingKey(env)
	if !ok {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pending.Contains(key)
}

// Handle takes one handshake message and returns the reply to send back,
// if any. When the message completes a handshake, Handle returns its
// session (already added to the Store) and no reply. Errors are *wire.Error
// values to answer with, as the face answers any refused message.
func (a *Acceptor) Handle(ctx context.Context, b []byte) (reply []byte, sess *Session, err error) {
	env, err := a.cfg.codec().DecodeEnvelope(b)
	if err != nil {
		return nil, nil, err
	}
	return a.HandleEnvelope(ctx, env)
}

// HandleEnvelope is Handle for an envelope already decoded.
func (a *Acceptor) HandleEnvelope(ctx context.Context, env *wire.Envelope) (reply []byte, sess *Session, err error) {
	if !env.Encrypted && env.Message.Op == wire.OpHello {
		r := NewResponder(a.cfg)
		if reply, err = r.readHello(ctx, env); err != nil {
			return nil, nil, err
		}
		a.put("m:"+r.ack.ID, r)
		return reply, nil, nil
	}
	key, ok := pendingKey(env)
	if !ok {
		return nil, nil, authFailed("op", "not a handshake message")
	}
	r := a.take(key)
	if r == nil {
		if env.Encrypted {
			return nil, nil, sessionExpired("no such session: handshake again")
		}
		return nil, nil, authFailed("re", "no handshake in progress for this message")
	}
	reply, sess, err = r.next(ctx, env)
	switch {
	case err != nil:
		return nil, nil, err
	case sess != nil:
		if a.store != nil {
			a.store.Add(sess)
		}
		return nil, sess, nil
	}
	a.put("s:"+r.sess.id, r)
	return reply, nil, nil
}

// take removes and returns the handshake waiting under key, so that two
// copies of one message cannot both advance it.
func (a *Acceptor) take(key string) *Responder {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.pending.Peek(key)
	if !ok {
		return nil
	}
	a.pending.Remove(key)
	return r
}

func (a *Acceptor) put(key string, r *Responder) {
	now := a.cfg.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	// Drop handshakes whose deadline has passed, oldest first.
	for {
		k, old, ok := a.pending.GetOldest()
		if !ok || !old.expired(now) {
			break
		}
		a.pending.Remove(k)
	}
	a.pending.Add(key, r)
}

// Pending reports how many handshakes are in progress.
func (a *Acceptor) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pending.Len()
}
