package revocation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Book holds the revocation lists of other organisations, the newest
// accepted of each, in a directory of its own (ORG.json), so that what a
// gateway learnt survives its restart. It answers, on every message,
// whether a key is revoked. It is safe for concurrent use.
type Book struct {
	dir string

	mu    sync.RWMutex
	lists map[string]*List
	// agentKeys indexes the agent_key entries of every list, by org.
	agentKeys map[string]map[keys.Ed25519Public]Entry
	// material indexes the other entries (certificates, TLS pins), by
	// org, then kind and value.
	material map[string]map[materialKey]Entry
}

type materialKey struct {
	kind  Kind
	value string
}

// OpenBook opens the book kept in dir, making dir (0700) if need be. The
// files there were verified when they were accepted; one that no longer
// parses is an error naming it.
func OpenBook(dir string) (*Book, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("revocation book: %w", err)
	}
	b := &Book{dir: dir, lists: map[string]*List{}, agentKeys: map[string]map[keys.Ed25519Public]Entry{}, material: map[string]map[materialKey]Entry{}}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("revocation book: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		org, ok := strings.CutSuffix(name, ".json")
		if !ok || e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("revocation book: %w", err)
		}
		l, err := Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("revocation book: %s: %w (remove the file: the list is fetched again from %s)", filepath.Join(dir, name), err, org)
		}
		if l.Org != org {
			return nil, fmt.Errorf("revocation book: %s holds the list of %s", filepath.Join(dir, name), l.Org)
		}
		b.setLocked(l)
	}
	return b, nil
}

func (b *Book) setLocked(l *List) {
	b.lists[l.Org] = l
	idx := map[keys.Ed25519Public]Entry{}
	mat := map[materialKey]Entry{}
	for _, e := range l.Entries {
		if e.Kind == KindAgentKey {
			k, _ := keys.ParseEd25519Public(e.Value)
			idx[k] = e
		} else {
			mat[materialKey{e.Kind, e.Value}] = e
		}
	}
	b.agentKeys[l.Org] = idx
	b.material[l.Org] = mat
}

// Material returns the entry of org's list revoking, as kind, the
// certificate or TLS pin whose value is value(). value is called only
// when org's list revokes material of some kind: a message of an
// organisation that revoked none costs a map lookup.
func (b *Book) Material(org string, kind Kind, value func() string) (Entry, bool) {
	b.mu.RLock()
	mat := b.material[org]
	b.mu.RUnlock()
	if len(mat) == 0 {
		return Entry{}, false
	}
	e, ok := mat[materialKey{kind, value()}]
	return e, ok
}

// Accept takes l, a list that claims to be of its organisation, if the org
// key the gateway trusts for that organisation signed it and it is not
// older than the list held (Replaces). It reports whether l is new (then
// it is kept on disk before Accept returns), and an *Error or ErrStale for
// a list refused.
func (b *Book) Accept(l *List, trusted keys.Ed25519Public) (bool, error) {
	if err := l.Verify(trusted); err != nil {
		return false, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ok, err := Replaces(b.lists[l.Org], l)
	if err != nil || !ok {
		return false, err
	}
	raw, err := l.Marshal()
	if err != nil {
		return false, err
	}
	if err := writeAtomic(filepath.Join(b.dir, l.Org+".json"), raw); err != nil {
		return false, fmt.Errorf("revocation book: %w", err)
	}
	b.setLocked(l)
	return true, nil
}

// AgentKey returns the entry revoking key as an agent key of org.
func (b *Book) AgentKey(org string, key keys.Ed25519Public) (Entry, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	e, ok := b.agentKeys[org][key]
	return e, ok
}

// Revoked returns the entry of org's list revoking value as kind.
func (b *Book) Revoked(org string, kind Kind, value string) (Entry, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	l := b.lists[org]
	if l == nil {
		return Entry{}, false
	}
	return l.Find(kind, value)
}

// Serial is the serial of org's list held, or -1 when none is.
func (b *Book) Serial(org string) int64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if l := b.lists[org]; l != nil {
		return l.Serial
	}
	return -1
}

// List returns org's list held, or nil.
func (b *Book) List(org string) *List {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.lists[org]
}

// Forget drops org's list, as when org is no longer a peer or its org key
// changed: a list is only good under the key that signed it.
func (b *Book) Forget(org string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.lists, org)
	delete(b.agentKeys, org)
	delete(b.material, org)
	if err := os.Remove(filepath.Join(b.dir, org+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("revocation book: %w", err)
	}
	return nil
}

// LoadFile reads an organisation's own list from path, verified under its
// org key; a missing file is org's empty list, serial 0.
func LoadFile(path, org string, orgKey keys.Ed25519Public) (*List, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(org), nil
	}
	if err != nil {
		return nil, fmt.Errorf("revocation list: %w", err)
	}
	l, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if l.Org != org {
		return nil, bad("org", "%s holds the list of %s, not of %s", path, l.Org, org)
	}
	if err := l.Verify(orgKey); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// WriteFile writes l to path atomically, mode 0600.
func (l *List) WriteFile(path string) error {
	raw, err := l.Marshal()
	if err != nil {
		return err
	}
	if err := writeAtomic(path, raw); err != nil {
		return fmt.Errorf("revocation list: %w", err)
	}
	return nil
}

func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// FromValue reads a list carried as a member of a message (a
// security_alert's revocation_list), strictly, as Parse does.
func FromValue(v wire.Value) (*List, error) {
	if v.IsAbsent() {
		return nil, bad("revocation_list", "is missing")
	}
	return Parse(wire.AppendCanonical(nil, v))
}
