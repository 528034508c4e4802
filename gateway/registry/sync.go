package registry

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// maxSyncPages bounds one sync run with one peer.
const maxSyncPages = 1000

// SyncStats says what one registry sync with a peer did.
type SyncStats struct {
	Peer      string `json:"peer"`
	Pages     int    `json:"pages"`
	Applied   int    `json:"applied"`   // entries and removals written here
	Unchanged int    `json:"unchanged"` // already held, or older than what is held
	Refused   int    `json:"refused"`   // failed a check (logged, with the reason)
	Err       error  `json:"-"`         // why the pull stopped, if it did
}

// peer returns the peer of that name, if it is one.
func (s *Service) peer(org string) (Peer, bool) {
	for _, p := range s.cfg.Peers.Peers() {
		if p.Org == org {
			return p, true
		}
	}
	return Peer{}, false
}

// Sync pulls from the registry of peer org, or of every peer when org is
// "", the entries written since the last sync (everything, the first
// time), and applies those that pass every check (see directory.Import). It
// runs on the schedule of Config.SyncInterval and may be called at any
// time. It returns a line per peer, in the order of their names. A failure
// with one peer does not stop the others: it is on that peer's line, and
// the failures are joined in the error.
func (s *Service) Sync(ctx context.Context, org string) ([]SyncStats, error) {
	var peers []Peer
	if org != "" {
		p, ok := s.peer(org)
		if !ok {
			return nil, wire.Errorf(wire.ErrInvalidParam, "peer", "%s is not a peer of this gateway", org).
				WithSuggestion(wire.Suggestion{Action: wire.ActionRetry, Fix: "import its peer document with moltgate peer import"})
		}
		peers = append(peers, p)
	} else {
		peers = s.cfg.Peers.Peers()
		slices.SortFunc(peers, func(a, b Peer) int { return strings.Compare(a.Org, b.Org) })
	}
	stats := make([]SyncStats, 0, len(peers))
	var errs []error
	for _, p := range peers {
		st, err := s.syncPeer(ctx, p)
		st.Err = err
		stats = append(stats, st)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return stats, errors.Join(errs...)
}

// syncPeer pages through one peer's changes. The position reached is kept
// in memory only: after a restart the first sync asks for everything, which
// costs a transfer but changes nothing that is already held. A pull that
// stops part of the way keeps the position of the pages it applied, so
// that the next one goes on from there.
func (s *Service) syncPeer(ctx context.Context, p Peer) (SyncStats, error) {
	org := p.Org
	st := SyncStats{Peer: org}
	s.mu.Lock()
	since := s.since[org]
	s.mu.Unlock()
	q := directory.SyncRequest{IncludeRemoved: true, Limit: directory.MaxChangesLimit}
	if !since.IsZero() {
		q.Since = since.Add(-syncOverlap)
	}
	newest := since
	defer func() {
		s.mu.Lock()
		if newest.After(s.since[org]) {
			s.since[org] = newest
		}
		s.mu.Unlock()
	}()
	src := directory.Source{Org: org, Key: p.Key}
	for waits := 0; st.Pages < maxSyncPages; {
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.cfg.Rand), TS: s.cfg.Now().UnixMilli(), Op: wire.OpQuery,
			From: s.cfg.Signer.Current().Sender(), To: wire.Ref{Agent: Agent, Org: org}, Cls: wire.Pub,
			Payload: &wire.QueryPayload{Domain: syncDomain, Intent: syncIntent, Params: q.Params()}}
		var data wire.Value
		err := s.cfg.Peers.CallAsGateway(ctx, org, m, func(r *wire.Message) (bool, error) {
			rp, ok := r.Payload.(*wire.RespondPayload)
			if !ok {
				return false, nil
			}
			data = rp.Data
			return true, nil
		})
		if wait, ok := retryAfter(ctx, err); ok && waits < maxSyncPages {
			waits++
			// The peer limits how fast we ask: a page of a large
			// registry comes quickly, and the next one may wait.
			select {
			case <-ctx.Done():
				return st, err
			case <-time.After(wait):
			}
			continue
		}
		if err != nil {
			return st, err
		}
		res, err := s.reg.Import(ctx, data, src)
		st.Pages++
		st.Applied += res.Applied
		st.Unchanged += res.Unchanged
		st.Refused += len(res.Refused)
		for _, r := range res.Refused {
			we := pipeline.AsWire(r.Err)
			s.cfg.Log.Warn("registry sync refused an entry", "peer", org, "agent", r.ID, "code", string(we.Code), "field", we.Field, "reason", we.Message)
		}
		if err != nil {
			return st, err
		}
		if res.Newest.After(newest) {
			newest = res.Newest
		}
		if res.Next == "" {
			break
		}
		q.Cursor = res.Next
	}
	if st.Applied > 0 || st.Refused > 0 {
		s.cfg.Log.Info("registry synced", "peer", org, "applied", st.Applied, "unchanged", st.Unchanged, "refused", st.Refused)
	}
	return st, nil
}

// retryAfter reports how long to wait before asking again, when err is a
// peer's rate limit whose wait ends before ctx does.
func retryAfter(ctx context.Context, err error) (time.Duration, bool) {
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.ErrRateLimit || we.Suggestion == nil || we.Suggestion.DelayMS <= 0 {
		return 0, false
	}
	wait := time.Duration(we.Suggestion.DelayMS) * time.Millisecond
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
		return 0, false
	}
	return wait, true
}

// MonitorOnce records the health of the local agents, and pings the
// agents of each peer that this directory lists (a bounded number per
// round), recording their pongs, or their silence as offline.
func (s *Service) MonitorOnce(ctx context.Context) {
	for _, info := range s.cfg.Locals.Agents() {
		s.RecordLocal(ctx, info)
	}
	for _, p := range s.cfg.Peers.Peers() {
		page, err := s.cfg.Store.Search(ctx, &directory.Query{Orgs: []string{p.Org}, Viewer: directory.Viewer{Local: true},
			IncludeHidden: true, Limit: monitorPerPeer, Sort: directory.SortRecent})
		if err != nil {
			s.cfg.Log.Warn("liveness monitor: directory search failed", "err", err.Error())
			return
		}
		for _, r := range page.Results {
			if ctx.Err() != nil {
				return
			}
			s.pingListed(ctx, p.Org, r.Entry.ID())
		}
	}
}

// pingListed pings one of a peer's agents and records the answer.
func (s *Service) pingListed(ctx context.Context, org string, id directory.ID) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nonce := pipeline.NewMessageID(s.cfg.Rand)
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.cfg.Rand), TS: s.cfg.Now().UnixMilli(), Op: wire.OpPing,
		From: s.cfg.Signer.Current().Sender(), To: wire.Ref{Agent: id.Agent, Org: id.Org}, Cls: wire.Pub, Payload: &wire.PingPayload{Nonce: nonce}}
	var pong *wire.PongPayload
	err := s.cfg.Peers.CallAsGateway(ctx, org, m, func(r *wire.Message) (bool, error) {
		p, ok := r.Payload.(*wire.PongPayload)
		if !ok {
			return false, nil
		}
		if p.Nonce != nonce {
			return true, wire.Errorf(wire.ErrAuthFailed, "p.nonce", "pong answers another ping")
		}
		pong = p
		return true, nil
	})
	switch {
	case err == nil:
		err = s.reg.RecordPong(ctx, id, pong)
	case pipeline.Code(err) == wire.ErrAgentNotFound || pipeline.Code(err) == wire.ErrTimeout || pipeline.Code(err) == wire.ErrPeerUnavailable:
		err = s.reg.RecordUnreachable(ctx, id)
	default:
		return
	}
	if err != nil {
		s.cfg.Log.Warn("cannot record liveness", "agent", id.String(), "err", err.Error())
	}
}

// Background starts the directory's loops on the gateway's ticker: registry
// sync with every peer on Config.SyncInterval (unless it is off), a first
// sync with each peer as soon as it answers, and the liveness monitor.
func (s *Service) Background(tick func(time.Duration, func(context.Context))) {
	if every := s.cfg.SyncInterval(); every > 0 {
		for _, p := range s.cfg.Peers.Peers() {
			s.WantSync(p.Org)
		}
		tick(catchUpEvery, s.catchUpOnce)
		tick(every, func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, syncTimeout)
			defer cancel()
			if _, err := s.Sync(ctx, ""); err != nil {
				s.cfg.Log.Warn("registry sync failed", "err", err.Error())
			}
		})
	}
	tick(monitorEvery, s.MonitorOnce)
}

const (
	// syncTimeout bounds one scheduled sync with every peer, and
	// catchUpTimeout one catch-up sync with one peer, so that a peer that
	// accepts connections and then says nothing cannot stall the loop.
	syncTimeout    = 5 * time.Minute
	catchUpTimeout = 30 * time.Second
	// catchUpEvery is how often syncs asked for by WantSync are looked at.
	catchUpEvery = time.Second
	// catchUpFirst is the first wait after a failed catch-up sync; it
	// doubles up to the sync interval.
	catchUpFirst = 2 * time.Second
)

// pendingSync is a sync with one peer that is wanted before the schedule.
type pendingSync struct {
	next time.Time     // not before
	wait time.Duration // the last wait after a failure
}

// WantSync asks for a sync with peer org as soon as it answers: when the
// gateway starts and when the peer is imported or changes, so that the
// peer's agents can be discovered here at once rather than after the sync
// interval. It does nothing when scheduled sync is off.
func (s *Service) WantSync(org string) {
	if s.cfg.SyncInterval() <= 0 {
		return
	}
	s.mu.Lock()
	s.pending[org] = &pendingSync{next: s.cfg.Now()}
	s.mu.Unlock()
}

// PeerUp is told that peer org's gateway answers (it established a
// session with this one): a catch-up sync still wanted with it, waiting
// out the doubling wait after its failures, is due at once. A peer that
// starts after this gateway is then listed within a second of starting,
// not after up to the sync interval. Nothing else is synced.
func (s *Service) PeerUp(org string) {
	s.mu.Lock()
	if p := s.pending[org]; p != nil {
		p.next = s.cfg.Now()
	}
	s.mu.Unlock()
}

// PendingSyncs is how many peers a sync asked for by WantSync is still
// wanted with.
func (s *Service) PendingSyncs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// catchUpOnce runs the syncs WantSync asked for that are due. One that fails
// (the peer is not up yet, say) is tried again after a wait that doubles
// from catchUpFirst up to the sync interval; one that succeeds is done.
func (s *Service) catchUpOnce(ctx context.Context) {
	now := s.cfg.Now()
	due := map[string]*pendingSync{}
	s.mu.Lock()
	for org, p := range s.pending {
		if !now.Before(p.next) {
			due[org] = p
		}
	}
	s.mu.Unlock()
	for org, p := range due {
		sctx, cancel := context.WithTimeout(ctx, catchUpTimeout)
		_, err := s.Sync(sctx, org)
		cancel()
		_, isPeer := s.peer(org)
		s.mu.Lock()
		// A newer request made while this sync ran stays for the next round.
		if s.pending[org] == p {
			if err == nil || !isPeer || ctx.Err() != nil {
				delete(s.pending, org)
			} else {
				p.wait = min(max(2*p.wait, catchUpFirst), s.cfg.SyncInterval())
				p.next = s.cfg.Now().Add(p.wait)
			}
		}
		s.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			s.cfg.Log.Info("registry sync with a new peer failed; retrying", "peer", org, "retry_in", p.wait.String(), "err", err.Error())
		}
	}
}

// Forget drops what is held about syncing with a peer that is gone, so that
// one imported again under the same name starts from the beginning.
func (s *Service) Forget(org string) {
	s.mu.Lock()
	delete(s.since, org)
	delete(s.pending, org)
	s.mu.Unlock()
}

// syncReport is the answer to directory.sync: one line per peer, with the
// error of a pull that failed.
type syncReport struct {
	Peers []syncLine `json:"peers"`
}

type syncLine struct {
	SyncStats
	Error *wire.ErrorPayload `json:"error,omitempty"`
}

// SyncDirectory answers directory.sync for a local caller: it pulls the
// registry of req.Peer, or of every peer, now. A peer that fails is
// reported on its line; the others are still pulled.
func (s *Service) SyncDirectory(ctx context.Context, req localbridge.SyncRequest) (json.RawMessage, error) {
	stats, err := s.Sync(ctx, req.Peer)
	if stats == nil && err != nil {
		return nil, err
	}
	rep := syncReport{Peers: make([]syncLine, len(stats))}
	for i, st := range stats {
		rep.Peers[i].SyncStats = st
		if st.Err != nil {
			rep.Peers[i].Error = pipeline.AsWire(st.Err).Payload()
		}
	}
	return json.Marshal(rep)
}
