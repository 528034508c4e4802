package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLedgerSurvivesKill: a process appending to a SQLite ledger, most
// events queued and every tenth waited for, is killed (SIGKILL) while it
// writes. The ledger it leaves verifies (a prefix of the chain, whatever
// the commit it died in) and holds every event whose Append had returned.
func TestLedgerSurvivesKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerKillHelper$")
	cmd.Env = append(os.Environ(), "MOLTGATE_AUDIT_KILL_PATH="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]bool{}
	sc := bufio.NewScanner(out)
	for len(acked) < 40 && sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "acked "); ok {
			acked[id] = true
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(acked) < 40 {
		t.Fatalf("the writer stopped after %d acknowledged events", len(acked))
	}
	l, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n, err := l.Verify(context.Background())
	if err != nil {
		t.Fatalf("Verify after the kill: %v", err)
	}
	es, err := l.Entries(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		var ev Event
		if err := json.Unmarshal(e.Event, &ev); err != nil {
			t.Fatal(err)
		}
		delete(acked, ev.Subject)
	}
	if len(acked) > 0 {
		t.Fatalf("%d acknowledged events lost (of %d in the ledger), such as %v", len(acked), n, acked)
	}
	if n < 400 {
		t.Fatalf("%d events in the ledger; the writer had acknowledged 40 with nine queued before each", n)
	}
}

// TestLedgerKillHelper is the process TestLedgerSurvivesKill kills: it
// appends until it dies, printing the subject of each event whose Append
// returned.
func TestLedgerKillHelper(t *testing.T) {
	path := os.Getenv("MOLTGATE_AUDIT_KILL_PATH")
	if path == "" {
		t.Skip("the process TestLedgerSurvivesKill starts and kills")
	}
	l, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Source: "moltgate://acme"}
	for i := 0; ; i++ {
		subject := fmt.Sprintf("m-%d", i)
		ev, err := c.NewEvent(TypeAllowed, subject, benchDecision)
		if err != nil {
			t.Fatal(err)
		}
		if i%10 != 9 {
			if err := l.Enqueue(context.Background(), ev, nil); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := l.Append(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("acked %s\n", subject)
	}
}
