// Package peerstatus is what a serving gateway says of each of its peers,
// for moltgate peer list to show: when it last heard from it, how many
// sessions it holds with it, and the serial of the peer's revocation list
// it last accepted.
//
// The gateway writes the file DIR/data/peers.json whenever that changes
// (at most every few seconds); the command reads it. Nothing decides on
// it: it is a report.
package peerstatus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// FileName is the file's name in a gateway's data directory.
const FileName = "peers.json"

// Peer is what the gateway knows of one peer organisation at run time.
type Peer struct {
	Org string `json:"org"`
	// LastContact is when a message of the peer last passed its
	// signature or session check; zero if never since the gateway
	// started.
	LastContact time.Time `json:"last_contact,omitzero"`
	// Sessions is how many live sessions the gateway holds with it.
	Sessions int `json:"sessions"`
	// RevocationSerial is the serial of the peer's revocation list the
	// gateway holds, or -1 when it holds none.
	RevocationSerial int64 `json:"revocation_serial"`
}

// File is the whole report.
type File struct {
	// Written is when the gateway wrote it; a file much older than a
	// few seconds is that of a gateway that stopped.
	Written time.Time `json:"written"`
	Peers   []Peer    `json:"peers"`
}

// Find returns the report on org.
func (f *File) Find(org string) (Peer, bool) {
	for _, p := range f.Peers {
		if p.Org == org {
			return p, true
		}
	}
	return Peer{}, false
}

// Write replaces the file at path with f, atomically, mode 0600.
func Write(path string, f *File) error {
	sort.Slice(f.Peers, func(i, j int) bool { return f.Peers[i].Org < f.Peers[j].Org })
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("peer status: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("peer status: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("peer status: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("peer status: %w", err)
	}
	return nil
}

// Read reads the file at path. A gateway that never served has none:
// that is (nil, nil).
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("peer status: %w", err)
	}
	f := new(File)
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("peer status: %s: not a status file (a serving gateway writes it again within seconds): %w", path, err)
	}
	return f, nil
}
