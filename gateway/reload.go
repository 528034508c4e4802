package gateway

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/internal/filestamp"
	"github.com/moltgate/moltgate/keys"
)

// watchEvery is how often a serving gateway looks for peers and local
// agents added, changed or removed since it started.
const watchEvery = 2 * time.Second

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
	// The peers first: they are read with a pin file of their own, so a
	// mistake in either leaves the pins in use as they were.
	imported, err := LoadPeers(s.dir, s.cfg.Org)
	if err != nil {
		return fmt.Errorf("reload peers: %w", err)
	}
	if err := s.pins.Reload(); err != nil {
		return fmt.Errorf("reload peers: %w", pinsError(err))
	}
	// First everything that can fail, then the changes.
	type change struct {
		p       *Peer
		old, ps *peers.Remote // ps nil: the connections serve as they are
	}
	var changes []change
	seen := make(map[string]bool, len(imported))
	for _, p := range imported {
		seen[p.Org] = true
		c := change{p: p, old: s.peers.Get(p.Org)}
		if c.old == nil || !peers.SameTransport(c.old.Peer(), p) {
			if c.ps, err = s.peers.Prepare(p); err != nil {
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
		rekeyed := c.old != nil && !c.old.Peer().OrgKey.Equal(p.OrgKey)
		pin, _ := s.pins.Lookup(p.Org)
		handed := c.old != nil && handedOver(c.old.Peer(), p, pin)
		if rekeyed && !handed {
			s.trust.Remove(p.Org)
		}
		s.trust.Add(p.Org, p.OrgKey)
		s.peers.Put(c.ps)
		if rekeyed && !handed {
			// Sessions and directory entries made under the old key end
			// with it. After the swap: a handshake that a call on the old
			// peer was making meanwhile keeps its session only if it was
			// kept before this, and then it ends here (see adopt).
			s.sessions.RemoveOrg(p.Org)
			s.purgeOrg(ctx, p.Org)
			s.revoked.Forget(p.Org)
		}
		s.registry.WantSync(p.Org)
		if c.old == nil {
			s.log.Info("peer added", "peer", p.Org, "endpoint", p.Endpoint, "max_cls", p.MaxCls.String())
			continue
		}
		if handed {
			// The peer moved to a key or certificate it had announced:
			// the calls under way on the connections made before finish
			// there, and new calls connect anew.
			time.AfterFunc(s.cfg.Listen.RequestTimeout.D(), c.old.Close)
		} else {
			c.old.Close()
		}
		s.log.Info("peer updated", "peer", p.Org, "endpoint", p.Endpoint, "max_cls", p.MaxCls.String())
	}

	for _, ps := range s.peers.Keep(func(org string) bool { return seen[org] }) {
		org := ps.Peer().Org
		s.trust.Remove(org)
		s.policy.RemovePeer(org)
		n := s.sessions.RemoveOrg(org)
		s.revoked.Forget(org)
		ps.Close()
		s.log.Info("peer removed", "peer", org, "sessions_ended", n, "entries_removed", s.purgeOrg(ctx, org))
	}
	s.metrics.sessions.Set(float64(s.sessions.Len()))
	return nil
}

// handedOver reports whether p differs from old only by what the peer
// handed over in signed statements (package handover): its org key, now
// the one pinned with old's kept during the overlap, or its TLS pin,
// with old's kept as the previous one (or let go at the end of the
// overlap). Sessions, trust and directory entries made under old's key
// stay until the overlap ends.
func handedOver(old, p *Peer, pin keys.Pin) bool {
	if old.Endpoint != p.Endpoint || old.GRPC != p.GRPC {
		return false
	}
	keyHanded := old.OrgKey.Equal(p.OrgKey) ||
		(pin.Key.Equal(p.OrgKey) && pin.Previous != nil && pin.Previous.Key.Equal(old.OrgKey))
	tlsHanded := old.TLSPin == p.TLSPin || old.TLSPin == p.TLSPrevious || old.TLSPrevious == p.TLSPin
	return keyHanded && tlsHanded
}

// peersStamp is what changes on disk when a peer is imported, removed or
// edited: the name, time and size of each file in the peers directory, and
// of the pin file.
func (s *Server) peersStamp() string {
	st := filestamp.Dir(s.dir.PeersDir())
	if fi, err := os.Stat(s.dir.PinsPath()); err == nil {
		st += fmt.Sprintf("pins %d %d\n", fi.ModTime().UnixNano(), fi.Size())
	}
	return st
}

// purgeOrg removes what this gateway's directory holds of org, which it no
// longer trusts (or trusts under another key), and forgets how far it had
// synced with it. It returns how many entries it removed.
func (s *Server) purgeOrg(ctx context.Context, org string) int {
	s.registry.Forget(org)
	n, err := s.store.PurgeOrg(ctx, org)
	if err != nil {
		s.log.Warn("directory entries of a former peer not removed", "peer", org, "err", err.Error())
	}
	return n
}

// Reload reads the peers, the local agents and the key files again
// (ReloadPeers, ReloadAgents, then ReloadKeys), as a serving gateway does
// by itself when their files change and moltgate serve does on SIGHUP. Each takes effect whole or not
// at all, and a mistake in one does not hold up the other. moltgate.toml
// is not applied (its settings are built into the running gateway), but a
// change to it is logged once, and a mistake in it returned too.
func (s *Server) Reload(ctx context.Context) error {
	return errors.Join(s.ReloadPeers(ctx), s.ReloadAgents(ctx), s.ReloadKeys(ctx), s.checkConfig())
}

// checkConfig logs, once per change, that moltgate.toml is not as the
// gateway read it, so that an operator who sent SIGHUP after editing it
// learns it needs a restart; it returns the new file's mistake, if any.
func (s *Server) checkConfig() error {
	text, err := s.dir.configText()
	seen := text
	if err != nil {
		seen = "\x00" + err.Error() // never a file's text
	}
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if seen == s.cfgSeen {
		return nil
	}
	s.cfgSeen = seen
	s.log.Warn("moltgate.toml changed; restart the gateway to apply it")
	if err == nil {
		_, err = ParseConfig(text)
	}
	return err
}

// ReloadAgents makes the local agents added, changed or removed since the
// gateway opened take effect without a restart: moltgate agent add and
// agent remove write DIR/agents, and this reads it again.
//
// A new agent gets its ceiling, is launched under supervision with a fresh
// single-use token (or waits for its provisioned one), and is published in
// the directory as its tools register. A changed agent's ceiling,
// capabilities, visibility, query tool and approval apply to calls that
// start from then on, without a restart; a new exec relaunches it: its
// session is told goodbye, so its calls in flight fail at once (E_TASK_FAILED,
// the agent disconnected), its process has the local bridge's grace to exit
// before SIGTERM and then SIGKILL, and the new command is launched once it
// is gone. A removed agent is refused at once as unknown (E_AGENT_NOT_FOUND),
// its directory entry is withdrawn, and it is stopped the same way, which
// ReloadAgents waits for.
//
// On error (a record that does not parse or check, a key that does not
// load) nothing changes.
func (s *Server) ReloadAgents(ctx context.Context) error {
	if s.closing.Load() {
		return ErrServerClosed
	}
	if err := s.roster.Reload(ctx); err != nil {
		return fmt.Errorf("reload agents: %w", err)
	}
	return nil
}
