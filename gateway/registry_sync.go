package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/wire"
)

// maxSyncPages bounds one sync run with one peer.
const maxSyncPages = 1000

// SyncStats says what one registry sync with a peer did.
type SyncStats struct {
	Peer      string
	Pages     int
	Applied   int // entries and removals written here
	Unchanged int // already held, or older than what is held
	Refused   int // failed a check (logged, with the reason)
}

// SyncRegistry pulls from the registry of peer org, or of every peer when
// org is "", the entries written since the last sync (everything, the first
// time), and applies those that pass every check (see directory.Import). It
// runs on the schedule of directory.sync_interval and may be called at any
// time. A failure with one peer does not stop the others; their errors are
// joined.
func (s *Server) SyncRegistry(ctx context.Context, org string) ([]SyncStats, error) {
	var peers []*peerState
	if org != "" {
		ps := s.peer(org)
		if ps == nil {
			return nil, wire.Errorf(wire.ErrAgentNotFound, "org", "%s is not a peer of this gateway", org)
		}
		peers = append(peers, ps)
	} else {
		s.peersMu.RLock()
		for _, ps := range s.peers {
			peers = append(peers, ps)
		}
		s.peersMu.RUnlock()
	}
	var stats []SyncStats
	var errs []error
	for _, ps := range peers {
		st, err := s.syncPeer(ctx, ps)
		stats = append(stats, st)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return stats, errors.Join(errs...)
}

// syncPeer pages through one peer's changes. The position reached is kept
// in memory only: after a restart the first sync asks for everything, which
// costs a transfer but changes nothing that is already held.
func (s *Server) syncPeer(ctx context.Context, ps *peerState) (SyncStats, error) {
	org := ps.p.Org
	st := SyncStats{Peer: org}
	rs := s.registry
	rs.mu.Lock()
	since := rs.since[org]
	rs.mu.Unlock()
	q := directory.SyncRequest{IncludeRemoved: true, Limit: directory.MaxChangesLimit}
	if !since.IsZero() {
		q.Since = since.Add(-syncOverlap)
	}
	newest := since
	src := directory.Source{Org: org, Key: ps.p.OrgKey}
	for st.Pages < maxSyncPages {
		m := &wire.Message{V: wire.Version, ID: newMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpQuery,
			From: s.org.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: org}, Cls: wire.Pub,
			Payload: &wire.QueryPayload{Domain: syncDomain, Intent: syncIntent, Params: q.Params()}}
		var data wire.Value
		err := s.callAsGateway(ctx, ps, m, func(r *wire.Message) (bool, error) {
			rp, ok := r.Payload.(*wire.RespondPayload)
			if !ok {
				return false, nil
			}
			data = rp.Data
			return true, nil
		})
		if err != nil {
			return st, err
		}
		res, err := rs.reg.Import(ctx, data, src)
		st.Pages++
		st.Applied += res.Applied
		st.Unchanged += res.Unchanged
		st.Refused += len(res.Refused)
		for _, r := range res.Refused {
			we := asWire(r.Err)
			s.log.Warn("registry sync refused an entry", "peer", org, "agent", r.ID, "code", string(we.Code), "field", we.Field, "reason", we.Message)
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
	rs.mu.Lock()
	if newest.After(rs.since[org]) {
		rs.since[org] = newest
	}
	rs.mu.Unlock()
	if st.Applied > 0 || st.Refused > 0 {
		s.log.Info("registry synced", "peer", org, "applied", st.Applied, "unchanged", st.Unchanged, "refused", st.Refused)
	}
	return st, nil
}

// monitorOnce records the health of the local agents, and pings the
// agents of each peer that this directory lists (a bounded number per
// round), recording their pongs, or their silence as offline.
func (s *Server) monitorOnce(ctx context.Context) {
	for _, info := range s.core.Agents() {
		s.recordLocal(ctx, info)
	}
	s.peersMu.RLock()
	peers := make([]*peerState, 0, len(s.peers))
	for _, ps := range s.peers {
		peers = append(peers, ps)
	}
	s.peersMu.RUnlock()
	for _, ps := range peers {
		page, err := s.store.Search(ctx, &directory.Query{Orgs: []string{ps.p.Org}, Viewer: directory.Viewer{Local: true},
			IncludeHidden: true, Limit: monitorPerPeer, Sort: directory.SortRecent})
		if err != nil {
			s.log.Warn("liveness monitor: directory search failed", "err", err.Error())
			return
		}
		for _, r := range page.Results {
			if ctx.Err() != nil {
				return
			}
			s.pingListed(ctx, ps, r.Entry.ID())
		}
	}
}

// pingListed pings one of a peer's agents and records the answer.
func (s *Server) pingListed(ctx context.Context, ps *peerState, id directory.ID) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nonce := newMessageID(s.rand)
	m := &wire.Message{V: wire.Version, ID: newMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpPing,
		From: s.org.Sender(), To: wire.Ref{Agent: id.Agent, Org: id.Org}, Cls: wire.Pub, Payload: &wire.PingPayload{Nonce: nonce}}
	var pong *wire.PongPayload
	err := s.callAsGateway(ctx, ps, m, func(r *wire.Message) (bool, error) {
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
		err = s.registry.reg.RecordPong(ctx, id, pong)
	case code(err) == wire.ErrAgentNotFound || code(err) == wire.ErrTimeout || code(err) == wire.ErrPeerUnavailable:
		err = s.registry.reg.RecordUnreachable(ctx, id)
	default:
		return
	}
	if err != nil {
		s.log.Warn("cannot record liveness", "agent", id.String(), "err", err.Error())
	}
}

// registryBackground starts the directory's loops on the gateway's
// ticker: registry sync with every peer on directory.sync_interval (unless
// it is negative), and the liveness monitor.
func (s *Server) registryBackground(tick func(time.Duration, func(context.Context))) {
	if every := s.cfg.Directory.SyncInterval.D(); every > 0 {
		tick(every, func(ctx context.Context) {
			if _, err := s.SyncRegistry(ctx, ""); err != nil {
				s.log.Warn("registry sync failed", "err", err.Error())
			}
		})
	}
	tick(monitorEvery, s.monitorOnce)
}
