package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
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
		if len(names) == 0 {
			return nil, wire.Errorf(wire.ErrInvalidParam, "org", "peer remove: %s is not an imported peer: this gateway trusts no peer", org)
		}
		return nil, wire.Errorf(wire.ErrInvalidParam, "org", "peer remove: %s is not an imported peer (peers: %s)", org, strings.Join(names, ", "))
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

// exportRevocations is the organisation's list for its peer document: nil
// until it has revoked something.
func exportRevocations(d Dir, org string, key keys.Ed25519Public) (wire.Value, error) {
	l, err := revocation.LoadFile(d.RevocationsPath(), org, key)
	if err != nil {
		return wire.Value{}, &ConfigError{Key: "revocations.json", Msg: err.Error(), Err: err}
	}
	if l.Serial == 0 {
		return wire.Value{}, nil
	}
	return wire.ValueOf(l)
}

// docRevocations is the list a peer document carries, checked: its
// organisation's, signed by the document's org key. nil when it carries
// none.
func docRevocations(doc *PeerDoc) (*revocation.List, error) {
	if doc.Revocations.IsAbsent() {
		return nil, nil
	}
	l, err := revocation.FromValue(doc.Revocations)
	if err == nil && l.Org != doc.Org {
		err = fmt.Errorf("the list of %s in the document of %s", l.Org, doc.Org)
	}
	if err == nil {
		err = l.Verify(doc.OrgKey)
	}
	if err != nil {
		return nil, wire.Errorf(wire.ErrSignature, "revocations", "peer document: %v", err)
	}
	return l, nil
}

// importRevocations keeps the list an imported document carries, as the
// gateway keeps one it fetched: a gateway imports a peer knowing what it
// revoked. A list older than one held is left alone.
func importRevocations(d Dir, doc *PeerDoc, replace bool) error {
	l, err := docRevocations(doc)
	if err != nil || (l == nil && !replace) {
		return err
	}
	book, err := revocation.OpenBook(filepath.Join(d.DataDir(), "revocations"))
	if err != nil {
		return fmt.Errorf("peer import: %w", err)
	}
	if replace {
		// A list is good only under the key that signed it.
		if err := book.Forget(doc.Org); err != nil {
			return fmt.Errorf("peer import: %w", err)
		}
	}
	if l == nil {
		return nil
	}
	if _, err := book.Accept(l, doc.OrgKey); err != nil && !errors.Is(err, revocation.ErrStale) {
		return fmt.Errorf("peer import: %w", err)
	}
	return nil
}
