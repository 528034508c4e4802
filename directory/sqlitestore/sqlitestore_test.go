package sqlitestore_test

import (
	"path/filepath"
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
