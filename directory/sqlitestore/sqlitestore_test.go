package sqlitestore_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/directory/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) func(directory.Options) directory.Store {
		path := filepath.Join(t.TempDir(), "directory.db")
		return func(o directory.Options) directory.Store {
			s, err := sqlitestore.Open(t.Context(), path, o)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return s
		}
	})
}

func TestFileMode(t *testing.T) {
	// A path that needs escaping in a file: URI.
	path := filepath.Join(t.TempDir(), "data dir %41", "directory.db")
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := sqlitestore.Open(t.Context(), path, directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("database file mode %v, want 0600", fi.Mode().Perm())
	}
	if err := s.Check(t.Context()); err != nil {
		t.Error(err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "directory.db")
	s, err := sqlitestore.Open(t.Context(), path, directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO directory_schema (version, applied_at) VALUES (999, 0)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := sqlitestore.Open(t.Context(), path, directory.Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open on a newer schema: %v", err)
	}
}

func TestBadPath(t *testing.T) {
	for _, p := range []string{"", "a?b", filepath.Join(t.TempDir(), "missing", "dir", "x.db")} {
		if s, err := sqlitestore.Open(t.Context(), p, directory.Options{}); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

// TestPing: Ping reads the directory's own tables, so it fails on a store
// that is closed and on a database whose tables are gone, which a bare
// connection check would not notice.
func TestPing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "directory.db")
	s, err := sqlitestore.Open(t.Context(), path, directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping on an open store: %v", err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("ALTER TABLE directory_caps RENAME TO gone"); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); err == nil || !strings.Contains(err.Error(), "ping directory database") {
		t.Errorf("Ping without the directory's tables: %v", err)
	}
	s.Close()
	if err := s.Ping(t.Context()); err == nil {
		t.Error("Ping on a closed store succeeded")
	}
}
