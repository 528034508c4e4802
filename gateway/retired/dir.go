package retired

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// FileError is a retired key file that cannot be read: it names the file
// and the way out.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s: %v (a key a rotation replaced; restore the file from a backup, or remove it to refuse what is still sealed to that key)", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// Name is the name of the file of the retired key pub in its directory.
func Name(pub keys.X25519Public) string { return "x25519-" + hex.EncodeToString(pub[:8]) + ".json" }

// Save writes k to dir (created mode 0700 if missing) as Name of its
// public key, mode 0600, replacing a file of the same key: a rotation run
// again writes the same key with the same end of overlap.
func Save(dir string, k Key, opts keys.WriteOptions) error {
	b, err := k.Marshal(opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save retired key: %w", err)
	}
	return keys.WritePrivateFile(filepath.Join(dir, Name(k.Key.Public())), b, true)
}

// files lists the retired key files in dir: none if dir does not exist.
func files(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

// Sweep removes the files in dir whose overlap has ended at now, reading
// only their headers, and returns the paths removed. A file it cannot
// read is a *FileError, and the others are swept all the same.
func Sweep(dir string, now time.Time) ([]string, error) {
	paths, err := files(dir)
	if err != nil {
		return nil, fmt.Errorf("sweep retired keys: %w", err)
	}
	var removed []string
	var errs []error
	for _, p := range paths {
		b, err := keys.ReadPrivateFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile, by a replica sharing the directory
		}
		if err != nil {
			errs = append(errs, &FileError{p, err})
			continue
		}
		until, err := Until(b)
		if err != nil {
			errs = append(errs, &FileError{p, err})
			continue
		}
		if now.Before(until) {
			continue
		}
		switch err := os.Remove(p); {
		case errors.Is(err, fs.ErrNotExist):
			continue // a replica sharing the directory removed it first
		case err != nil:
			errs = append(errs, &FileError{p, err})
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

// Load removes the files in dir whose overlap has ended at now (Sweep)
// and returns the keys of the others, the latest end of overlap first,
// opened with passphrase if they are encrypted. A key of another org than
// org is refused: the file was copied from another gateway.
func Load(dir, org string, passphrase []byte, now time.Time) ([]Key, error) {
	if _, err := Sweep(dir, now); err != nil {
		return nil, err
	}
	paths, err := files(dir)
	if err != nil {
		return nil, fmt.Errorf("load retired keys: %w", err)
	}
	var out []Key
	for _, p := range paths {
		b, err := keys.ReadPrivateFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &FileError{p, err}
		}
		k, err := Unmarshal(b, passphrase)
		if err != nil {
			return nil, &FileError{p, err}
		}
		if k.Org != org {
			return nil, &FileError{p, fmt.Errorf("org: the key of %s, not of %s", k.Org, org)}
		}
		if now.Before(k.Until) {
			out = append(out, *k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Until.After(out[j].Until) })
	return out, nil
}
