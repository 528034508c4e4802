package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moltgate/moltgate/audit"
)

func ExampleLedger() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	l, err := audit.OpenSQLite(ctx, filepath.Join(dir, "audit.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	events := audit.Config{Source: "moltgate://acme"}
	ev, _ := events.NewEvent(audit.TypePIITransmitted, "5b0e1c3a-8f1e-4a57-9a43-2f4f0c9d6a11", audit.Decision{
		Direction: "outbound", Peer: "globex", Class: "pii", ConsentID: "c-17", PIITypes: []string{"email"},
	})
	e, err := l.Append(ctx, ev)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := l.Verify(ctx)
	fmt.Println(e.Seq, n, err)
	// Output: 1 1 <nil>
}
