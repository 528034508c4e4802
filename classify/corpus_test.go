package classify

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// TestGateDecidesAsTheCorpusScores holds pii's accuracy test to the gate: for rows of the pii
// corpus, the gate's decision on an int query carrying the row, with no consent, is the one
// pii.TestAccuracy scores (block when the scan of the payload finds any secret or personal
// data). If the gate's rules change, the corpus figures no longer describe it and this fails.
func TestGateDecidesAsTheCorpusScores(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "pii", "testdata", "corpus", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	f := newFixture(t)
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var n, blocked int
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		in := bufio.NewScanner(fh)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 0; in.Scan(); line++ {
			// A sample of every family: the whole corpus is pii's test to run.
			if line%5 != 0 {
				continue
			}
			var r struct {
				ID   string          `json:"id"`
				Text *string         `json:"text"`
				JSON json.RawMessage `json:"json"`
			}
			if err := json.Unmarshal(in.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var p wire.Value
			if r.Text != nil {
				p = wire.ObjectValue(wire.Member{Key: "text", Value: wire.StringValue(*r.Text)})
			} else if p, err = wire.Parse(r.JSON, 0); err != nil {
				t.Fatalf("%s: %v", r.ID, err)
			}
			sum := pii.Summarize(sc.ScanTree("", wire.ObjectValue(wire.Member{Key: "p", Value: p}), nil))
			want := sum.Secret || len(sum.Types) > 0
			m := decoded(t, &wire.Message{V: wire.Version, ID: f.id(), TS: t0.UnixMilli(), Op: wire.OpQuery,
				From: wire.Sender{Agent: alice.Agent, Org: alice.Org}, To: bob, Cls: wire.Int,
				Payload: &wire.QueryPayload{Domain: "support", Params: p}})
			d := f.gate.Check(ctx, m, Outbound, "globex", nil)
			if d.Allow == want {
				t.Errorf("%s: the gate allows=%v, the corpus scores block=%v (%v)", r.ID, d.Allow, want, d.Err)
			}
			n++
			if want {
				blocked++
			}
		}
		fh.Close()
	}
	if n < 2000 || blocked == 0 || blocked == n {
		t.Fatalf("%d rows checked, %d blocked: the sample is not the corpus", n, blocked)
	}
}
