package gateway

import (
	"context"
	"fmt"
	"os"
	"time"
)

// peerWatchEvery is how often a serving gateway looks for peers imported
// or removed since it started.
const peerWatchEvery = 2 * time.Second

// ReloadPeers makes the peers imported since the gateway opened, or changed
// or removed since, take effect without a restart: moltgate peer import
// writes DIR/peers, and this reads it again. A new peer is trusted at
// once; a peer whose org key, endpoints or TLS pin changed loses its
// sessions and connections, which are made again on next use; a peer
// whose file was removed is no longer trusted, its sessions end, and the
// entries of its organisation leave this gateway's directory (as they do
// when its org key changes; they come back with the next sync). A serving
// gateway does this by itself within seconds of a change, and on SIGHUP
// under moltgate serve.
//
// On error (a peer file that does not parse, or that does not match its
// pin) nothing changes.
func (s *Server) ReloadPeers(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	if err := s.pins.Reload(); err != nil {
		return fmt.Errorf("reload peers: %w", err)
	}
	peers, err := LoadPeers(s.dir)
	if err != nil {
		return fmt.Errorf("reload peers: %w", err)
	}
	// First everything that can fail, then the changes.
	type change struct {
		p       *Peer
		old, ps *peerState // ps nil: the connections serve as they are
	}
	var changes []change
	seen := make(map[string]bool, len(peers))
	for _, p := range peers {
		seen[p.Org] = true
		c := change{p: p, old: s.peer(p.Org)}
		if c.old == nil || !sameTransport(c.old.p, p) {
			if c.ps, err = s.newPeerState(p); err != nil {
				return fmt.Errorf("reload peers: %w", err)
			}
		} else if s.policy.PeerCeiling(p.Org) == p.MaxCls {
			continue
		}
		changes = append(changes, c)
	}

	for _, c := range changes {
		p := c.p
		if err := s.policy.SetPeer(p.Org, p.MaxCls); err != nil {
			s.log.Warn("peer ceiling not set", "peer", p.Org, "err", err.Error())
		}
		if c.ps == nil {
			s.log.Info("peer updated", "peer", p.Org, "max_cls", p.MaxCls.String())
			continue
		}
		if c.old != nil && !c.old.p.OrgKey.Equal(p.OrgKey) {
			// Sessions, trust and directory entries made under the old
			// key end with it.
			s.trust.Remove(p.Org)
			s.sessions.RemoveOrg(p.Org)
			s.purgeOrg(ctx, p.Org)
		}
		s.trust.Add(p.Org, p.OrgKey)
		s.peersMu.Lock()
		s.peers[p.Org] = c.ps
		s.peersMu.Unlock()
		s.wantSync(p.Org)
		if c.old == nil {
			s.log.Info("peer added", "peer", p.Org, "endpoint", p.Endpoint, "max_cls", p.MaxCls.String())
			continue
		}
		c.old.close()
		s.log.Info("peer updated", "peer", p.Org, "endpoint", p.Endpoint, "max_cls", p.MaxCls.String())
	}

	s.peersMu.Lock()
	var gone []*peerState
	for org, ps := range s.peers {
		if !seen[org] {
			delete(s.peers, org)
			gone = append(gone, ps)
		}
	}
	s.peersMu.Unlock()
	for _, ps := range gone {
		s.trust.Remove(ps.p.Org)
		s.policy.RemovePeer(ps.p.Org)
		n := s.sessions.RemoveOrg(ps.p.Org)
		ps.close()
		s.log.Info("peer removed", "peer", ps.p.Org, "sessions_ended", n, "entries_removed", s.purgeOrg(ctx, ps.p.Org))
	}
	s.metrics.sessions.Set(float64(s.sessions.Len()))
	return nil
}

// sameTransport reports whether a and b reach and authenticate the same
// gateway the same way, so that connections made for a serve b.
func sameTransport(a, b *Peer) bool {
	return a.OrgKey.Equal(b.OrgKey) && a.EncKey.Equal(b.EncKey) && a.Endpoint == b.Endpoint &&
		a.GRPC == b.GRPC && a.TLSPin == b.TLSPin
}

// close ends the connections made to the peer.
func (ps *peerState) close() {
	ps.closeWS()
	ps.closeGRPC()
	ps.client.CloseIdleConnections()
}

// peersStamp is what changes on disk when a peer is imported or removed:
// the peers directory (files are renamed into it) and the pin file.
type peersStamp struct {
	dir, pins time.Time
	pinsSize  int64
}

func (s *Server) peersStamp() peersStamp {
	var st peersStamp
	if fi, err := os.Stat(s.dir.PeersDir()); err == nil {
		st.dir = fi.ModTime()
	}
	if fi, err := os.Stat(s.dir.PinsPath()); err == nil {
		st.pins, st.pinsSize = fi.ModTime(), fi.Size()
	}
	return st
}

func (a peersStamp) same(b peersStamp) bool {
	return a.dir.Equal(b.dir) && a.pins.Equal(b.pins) && a.pinsSize == b.pinsSize
}

// purgeOrg removes what this gateway's directory holds of org, which it no
// longer trusts (or trusts under another key), and forgets how far it had
// synced with it. It returns how many entries it removed.
func (s *Server) purgeOrg(ctx context.Context, org string) int {
	s.registry.forget(org)
	n, err := s.store.PurgeOrg(ctx, org)
	if err != nil {
		s.log.Warn("directory entries of a former peer not removed", "peer", org, "err", err.Error())
	}
	return n
}
