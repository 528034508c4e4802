package sqlitestore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
)

func Example() {
	dir, err := os.MkdirTemp("", "directory-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	s, err := sqlitestore.Open(ctx, filepath.Join(dir, "directory.db"), directory.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	now := time.Now()
	_, err = s.Put(ctx, &directory.Entry{
		AgentID:      "calendar-bot",
		Org:          "acme",
		Endpoint:     directory.Endpoint{URL: "https://gw.acme.example/moltspeak/v0.1"},
		PublicKey:    "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
		Capabilities: []string{"calendar.check", "calendar.schedule"},
		Metadata:     []byte(`{"languages": ["en", "de"], "max_attendees": 100}`),
		Visibility:   directory.Public,
		ExpiresAt:    now.Add(24 * time.Hour),
		SignedAt:     now,
		Registration: []byte(`{"op":"register", "…": "the signed message, as received"}`),
	}, directory.PutOptions{})
	if err != nil {
		log.Fatal(err)
	}

	req, _ := directory.ParseRequirements([]byte(`{"languages": ["en"], "max_attendees": {"gte": 50}}`))
	page, err := s.Search(ctx, &directory.Query{
		Capability:   "calendar.schedule",
		Requirements: req,
		Viewer:       directory.Viewer{Org: "globex"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range page.Results {
		fmt.Println(r.Entry.ID(), r.MatchScore, r.CapabilitiesMatched)
	}
	fmt.Println("total", page.Total)
	// Output:
	// calendar-bot@acme 1 [calendar.schedule]
	// total 1
}
