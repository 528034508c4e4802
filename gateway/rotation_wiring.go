package gateway

import (
	"errors"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/rotation"
)

// openRotation builds the handover room from what Open made: the pins,
// the trust store, the peer table and the sessions. A peer mid-handover
// has the keys its pin accepts now trusted for its certificates, as the
// room would have left them before a restart.
func openRotation(s *Server) (*rotation.Room, error) {
	for _, pin := range s.pins.All() {
		if !s.trust.Known(pin.Name) {
			continue // pinned, but not (or no longer) a peer
		}
		for _, k := range s.pins.Accepted(pin.Name) {
			s.trust.Add(pin.Name, k)
		}
	}
	// A peer's certificate its organisation revoked is refused wherever
	// it is checked.
	s.trust.SetRevoked(s.revoked.CertRevoked)
	r, err := rotation.New(rotation.Config{
		Self: s.keys, OwnPath: s.dir.HandoversPath(), MessageBytes: s.cfg.Limits.MessageBytes,
		Pins: s.pins, Trust: s.trust, Peers: s.peers, Sessions: s.sessions,
		EditPeer:      func(org string, edit func(*peers.Peer) bool) error { return EditPeer(s.dir, org, edit) },
		TLSPinRevoked: s.revoked.TLSPinRevoked,
		Go:            func(f func()) { s.bg.Add(1); go func() { defer s.bg.Done(); f() }() },
		Log:           s.log, Rand: s.rand, Now: s.now,
	})
	var se *rotation.SetError
	if errors.As(err, &se) {
		return nil, &ConfigError{Key: "handovers.json", Msg: se.Err.Error(), Err: se.Err}
	}
	return r, err
}
