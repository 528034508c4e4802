package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// FingerprintError is a peer document whose org key is not the one whose
// fingerprint the operator expected: nothing of it was trusted.
type FingerprintError struct {
	Org       string
	Got, Want string
}

func (e *FingerprintError) Error() string {
	return fmt.Sprintf("the org key of %s has fingerprint %s, not the expected %s: nothing was trusted; check with %s out of band which document is theirs",
		e.Org, e.Got, e.Want, e.Org)
}

// fingerprintRefusal is the protocol error for a document under a key other
// than the one agreed: E_AUTH_FAILED at org_key.
func fingerprintRefusal(e *FingerprintError) error {
	return &wire.Error{Code: wire.ErrAuthFailed, Field: "org_key", Message: "peer import: " + e.Error(), Err: e}
}

// RemovePeer stops trusting org: its peer file and its pin go. A serving
// gateway sees the change within seconds (at once on SIGHUP): it ends the
// peer's sessions and connections and purges its organisation's entries
// from the directory. Removing a peer that is not imported is an error
// that names the peers there are.
func RemovePeer(d Dir, org string) (*Peer, error) {
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	if !wire.ValidName(org) {
		return nil, optionErr("peer remove", "--org", "--org must match [A-Za-z0-9_-]{1,128}")
	}
	peers, err := LoadPeers(d, cfg.Org)
	if err != nil {
		return nil, err
	}
	var p *Peer
	var names []string
	for _, q := range peers {
		names = append(names, q.Org)
		if q.Org == org {
			p = q
		}
	}
	if p == nil {
		return nil, wire.Errorf(wire.ErrInvalidParam, "org", "peer remove: %s is not an imported peer (peers: %v; moltgate peer list shows them)", org, names)
	}
	// The peer file first: without it the gateway no longer trusts the
	// org, whatever the pin file says; a pin left alone is refused by
	// nothing.
	if err := os.Remove(filepath.Join(d.PeersDir(), org+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("peer remove: %w", err)
	}
	pins, err := openPins(d)
	if err != nil {
		return nil, err
	}
	if err := pins.Remove(org); err != nil && !errors.Is(err, keys.ErrNotPinned) {
		return nil, fmt.Errorf("peer remove: %w", err)
	}
	return p, nil
}
