package revoke

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/peerstatus"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// learning is whether this gateway has heard a peer's list since it
// started: its first message waits for it.
type learning struct {
	learnt  atomic.Bool // ok, read without the lock
	mu      sync.Mutex
	ok      bool
	trying  bool // a fetch runs in the background
	failed  time.Time
	lastErr error
}

// learn fetches org's revocation list once after start, before the first
// of its messages is taken. When that fetch fails, the next messages do
// not wait on another: it is tried again in the background after
// refetchAfter, and the last error is returned meanwhile.
func (k *Lists) learn(ctx context.Context, org string) error {
	v, ok := k.learnt.Load(org)
	if !ok {
		v, _ = k.learnt.LoadOrStore(org, new(learning))
	}
	l := v.(*learning)
	if l.learnt.Load() {
		return nil // every message but the first few: no lock
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok {
		return nil
	}
	ps := k.cfg.Peers.Get(org)
	if ps == nil {
		return nil
	}
	if l.failed.IsZero() {
		l.take(k, org, k.pull(ctx, ps))
		return l.lastErr
	}
	if !l.trying && k.cfg.Now().Sub(l.failed) >= refetchAfter {
		l.trying = true
		k.cfg.Go(func() {
			err := k.pull(k.cfg.Base, ps)
			l.mu.Lock()
			defer l.mu.Unlock()
			l.trying = false
			l.take(k, org, err)
		})
	}
	return l.lastErr
}

// take records the outcome of a fetch. The caller holds l.mu.
func (l *learning) take(k *Lists, org string, err error) {
	if err != nil {
		l.failed, l.lastErr = k.cfg.Now(), err
		k.cfg.Log.Warn("peer revocation list not fetched", "peer", org, "err", err.Error())
		return
	}
	l.ok, l.failed, l.lastErr = true, time.Time{}, nil
	l.learnt.Store(true)
}

// pull fetches ps's revocation list from its registry and takes it if it
// is newer. A gateway that serves none (404) has revoked nothing.
func (k *Lists) pull(ctx context.Context, ps *peers.Remote) error {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ps.Peer().Endpoint+Route, nil)
	if err != nil {
		return err
	}
	resp, err := ps.Client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", Route, resp.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, int64(k.cfg.MessageBytes)))
	if err != nil {
		return err
	}
	l, err := revocation.Parse(raw)
	if err != nil {
		return &badListError{err}
	}
	if _, err = k.accept(ctx, ps, l); err != nil {
		return &badListError{err}
	}
	return nil
}

// badListError is a revocation list a peer's registry served that was
// refused: not the peer's, not signed by its org key, or older than the
// one held.
type badListError struct{ err error }

func (e *badListError) Error() string { return e.err.Error() }
func (e *badListError) Unwrap() error { return e.err }

// accept takes l as ps's list if ps's org key signed it and it is newer
// than the one held, and enforces it at once: the sessions with the peer
// end (they may have carried the revoked agents' messages; new ones are
// made on next use), and the revoked agents' entries leave the directory.
func (k *Lists) accept(ctx context.Context, ps *peers.Remote, l *revocation.List) (bool, error) {
	if l.Org != ps.Peer().Org {
		return false, wire.Errorf(wire.ErrAuthFailed, "revocation_list.org", "the list of %s came from %s", l.Org, ps.Peer().Org)
	}
	prev := k.book.List(l.Org)
	changed, err := k.book.Accept(l, ps.Peer().OrgKey)
	if err != nil || !changed {
		return false, err
	}
	fresh := 0
	for _, e := range l.Entries {
		if prev == nil {
			fresh++
		} else if _, ok := prev.Find(e.Kind, e.Value); !ok {
			fresh++
		}
	}
	if fresh == 0 {
		k.cfg.Log.Info("peer revocation list taken", "peer", l.Org, "serial", l.Serial, "entries", len(l.Entries))
		return true, nil
	}
	n := k.cfg.Sessions.RemoveOrg(l.Org)
	// The connections made for those sessions go too: the next call
	// makes new ones, with new sessions.
	ps.Close()
	k.cfg.SessionsChanged(k.cfg.Sessions.Len())
	removed := 0
	for _, e := range l.Entries {
		if e.Kind != revocation.KindAgentKey || e.Agent == "" {
			continue
		}
		id := directory.ID{Agent: e.Agent, Org: l.Org}
		got, err := k.cfg.Store.Get(ctx, id, directory.Viewer{Local: true})
		if err != nil || got.PublicKey != e.Value {
			continue
		}
		if err := k.cfg.Store.Delete(ctx, id, directory.Deletion{SignedAt: k.cfg.Now()}); err == nil {
			removed++
		}
	}
	k.cfg.Log.Warn("peer revoked keys", "peer", l.Org, "serial", l.Serial, "revoked", fresh, "sessions_ended", n, "entries_removed", removed)
	return true, nil
}

// Alert takes a peer gateway's security_alert: the revocation list it
// carries, signed by the peer's org key, is what counts. It returns the
// answer's data and what takes the list, to be called once the answer is
// sealed: taking it ends the sessions with the peer, the answer's among
// them.
func (k *Lists) Alert(ctx context.Context, in *pipeline.Inbound, p *wire.SecurityAlertPayload) (wire.Value, func(), error) {
	m := in.M
	ps := k.cfg.Peers.Get(m.From.Org)
	if !in.FromPeer || ps == nil || m.From.Agent != pipeline.GatewayAgent {
		return wire.Value{}, nil, wire.Errorf(wire.ErrAuthFailed, "from", "a security_alert comes from the gateway of a peer organisation")
	}
	l, err := revocation.FromValue(p.RevocationList)
	if err != nil {
		return wire.Value{}, nil, wire.Errorf(wire.ErrInvalidParam, "p.revocation_list", "%v", err)
	}
	if l.Org != m.From.Org {
		return wire.Value{}, nil, wire.Errorf(wire.ErrAuthFailed, "p.revocation_list.org", "the list of %s came from %s", l.Org, m.From.Org)
	}
	if err := l.Verify(ps.Peer().OrgKey); err != nil {
		k.cfg.Log.Warn("forged revocation list refused", "peer", m.From.Org, "err", err.Error())
		return wire.Value{}, nil, wire.Errorf(wire.ErrSignature, "p.revocation_list.sig", "%v", err)
	}
	apply := func() {
		if _, err := k.accept(context.WithoutCancel(ctx), ps, l); err != nil {
			k.cfg.Log.Warn("peer revocation list refused", "peer", l.Org, "serial", l.Serial, "err", err.Error())
		}
	}
	if old := k.book.Serial(l.Org); l.Serial < old {
		return wire.Value{}, nil, wire.Errorf(wire.ErrInvalidParam, "p.revocation_list.serial", "%d is below the serial %d held", l.Serial, old)
	}
	data, _ := wire.ValueOf(map[string]any{"serial": l.Serial})
	return data, apply, nil
}

// PushChanged pushes the organisation's list to every peer when it has a
// serial not pushed yet. It is the watch loop's: one caller at a time.
func (k *Lists) PushChanged(ctx context.Context) {
	l := k.Own()
	if l.Serial <= k.pushed {
		return
	}
	k.pushed = l.Serial
	k.push(ctx, l)
}

// push sends l to every peer in a security_alert, each peer on its own, a
// few times over a minute if it is not reached: a peer that stays
// unreachable pulls it before it takes anything more from here.
func (k *Lists) push(ctx context.Context, l *revocation.List) {
	if len(l.Entries) == 0 {
		return
	}
	last := l.Entries[len(l.Entries)-1]
	lv, err := wire.ValueOf(l)
	if err != nil {
		return
	}
	peers.Push(ctx, peers.PushConfig{Go: k.cfg.Go}, k.cfg.Peers, k.cfg.Peers.All(), func(ps *peers.Remote) *wire.Message {
		return &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(k.cfg.Rand), TS: k.cfg.Now().UnixMilli(), Op: wire.OpSecurityAlert,
			To: wire.Ref{Agent: pipeline.GatewayAgent, Org: ps.Peer().Org}, Cls: wire.Int,
			Payload: &wire.SecurityAlertPayload{AlertType: "key_revocation", AffectedAgent: last.Agent, Effective: last.Effective,
				ActionRequired: "terminate_sessions", RevocationList: lv}}
	}, func(ps *peers.Remote, how peers.Pushed, err error) {
		switch {
		case how == peers.Delivered:
			k.cfg.Log.Info("revocation list pushed", "peer", ps.Peer().Org, "serial", l.Serial)
		case how == peers.Refused:
			k.cfg.Log.Warn("revocation list refused by peer", "peer", ps.Peer().Org, "serial", l.Serial, "err", err.Error())
		case ctx.Err() == nil:
			k.cfg.Log.Warn("revocation list not pushed; the peer fetches it on its next contact", "peer", ps.Peer().Org, "serial", l.Serial)
		}
	})
}

// PullAll fetches every peer's list: what a push missed arrives within
// PullEvery.
func (k *Lists) PullAll(ctx context.Context) {
	for _, ps := range k.cfg.Peers.All() {
		if err := k.pull(ctx, ps); err != nil {
			k.cfg.Log.Debug("peer revocation list not fetched", "peer", ps.Peer().Org, "err", err.Error())
			continue
		}
		if v, ok := k.learnt.Load(ps.Peer().Org); ok {
			l := v.(*learning)
			l.mu.Lock()
			l.ok = true
			l.learnt.Store(true)
			l.mu.Unlock()
		}
	}
}

// WriteStatus writes Config.StatusPath for moltgate peer list when what it
// says changed, and every half minute so that its time shows the gateway
// is serving. It is the watch loop's: one caller at a time.
func (k *Lists) WriteStatus() {
	sessions := k.cfg.Sessions.CountByOrg()
	f := &peerstatus.File{}
	for _, ps := range k.cfg.Peers.All() {
		org := ps.Peer().Org
		p := peerstatus.Peer{Org: org, Sessions: sessions[org], RevocationSerial: k.book.Serial(org)}
		if v, ok := k.contacts.Load(org); ok {
			p.LastContact = time.UnixMilli(v.(*atomic.Int64).Load()).UTC()
		}
		f.Peers = append(f.Peers, p)
	}
	key := fmt.Sprint(f.Peers)
	now := k.cfg.Now()
	if key == k.statusOut && now.Sub(k.statusAt) < 30*time.Second {
		return
	}
	f.Written = now.UTC()
	if err := peerstatus.Write(k.cfg.StatusPath, f); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			k.cfg.Log.Debug("peer status not written", "err", err.Error())
		}
		return
	}
	k.statusOut, k.statusAt = key, now
}
