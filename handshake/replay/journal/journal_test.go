package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// TestReplayAcrossRestart is the embedded backend's guarantee: a signed
// message accepted before a restart is refused after it, within its window.
func TestReplayAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	now := time.UnixMilli(1_800_000_000_000)
	clock := func() time.Time { return now }
	var k keys.Ed25519Public
	k[0] = 7
	m := &wire.Message{ID: "00000000-0000-4000-8000-000000000001", TS: now.UnixMilli(), From: wire.Sender{Agent: "assistant", Org: "acme", Key: k}}

	open := func() (*replay.Window, *Journal) {
		j, err := OpenSQLite(context.Background(), path, clock)
		if err != nil {
			t.Fatal(err)
		}
		d, err := replay.NewDurable(context.Background(), replay.NewMemory(replay.MemoryConfig{Now: clock}), j)
		if err != nil {
			t.Fatal(err)
		}
		return replay.New(replay.Config{Storage: d, Now: clock}), j
	}
	w, j := open()
	if err := w.Check(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	j.Close()

	now = now.Add(2 * time.Minute)
	w, j = open()
	defer j.Close()
	err := w.Check(context.Background(), m)
	if we, ok := err.(*wire.Error); !ok || we.Code != wire.ErrReplay {
		t.Fatalf("the same message after a restart: %v; want E_REPLAY", err)
	}
}

func TestPrune(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	now := time.UnixMilli(1_800_000_000_000)
	j, err := OpenSQLite(context.Background(), path, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := range pruneEvery {
		if err := j.Record(context.Background(), "id:x", fmt.Sprint(i), now.Add(time.Duration(i%2)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := j.db.QueryRow(`SELECT COUNT(*) FROM replay`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != pruneEvery/2 {
		t.Fatalf("%d rows after pruning; want the %d unexpired", n, pruneEvery/2)
	}
	loaded := 0
	if err := j.Load(context.Background(), now, func(string, string, time.Time) { loaded++ }); err != nil {
		t.Fatal(err)
	}
	if loaded != pruneEvery/2 {
		t.Fatalf("loaded %d", loaded)
	}
}
