package registry

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/outage"
	"github.com/moltgate/moltgate/wire"
)

// A full disk while serving: registrations fail with
// E_STORAGE_UNAVAILABLE, the failure is logged at ERROR as "disk full",
// counted, and the directory is reported failing until a write goes
// through again. The disk is a real one: a small tmpfs, filled.
func TestFullDiskIsReported(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): the test needs CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "dir.db"), directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() }) // before the unmount
	var (
		mu     sync.Mutex
		log    bytes.Buffer
		counts = map[string]int{}
	)
	w := outage.New(outage.Config{Log: slog.New(slog.NewJSONHandler(lockedBuffer{&mu, &log}, nil)),
		Count: func(store, cause string) { mu.Lock(); counts[store+"/"+cause]++; mu.Unlock() }})
	r := newRig(t, func(c *Config) { c.Store = outage.WatchStore(st, w) })
	register := func(i int) error {
		pr := &wire.Profile{AgentID: fmt.Sprintf("pad%d", i), Name: "pad", Description: strings.Repeat("cd", 2000),
			Endpoint: &wire.Endpoint{URL: "https://acme.example/m", Transport: "https"}, PublicKey: r.org.Signing.Public(),
			Capabilities: []string{"pad.cap"}, Visibility: "public",
			Metadata: wire.ObjectValue(wire.Member{Key: "blob", Value: wire.StringValue(strings.Repeat("ab", 7000))})}
		_, err := r.s.RegisterAsOrg(ctx, &wire.RegisterPayload{Action: "create", Profile: pr})
		return err
	}
	var failed error
	n := 0
	for ; n < 1000 && failed == nil; n++ {
		failed = register(n)
	}
	if failed == nil {
		t.Fatalf("%d registrations of 20 KB each fit on a 256 KiB disk", n)
	}
	if c := pipeline.Code(failed); c != wire.ErrStorageUnavailable {
		t.Fatalf("registration on a full disk: %v, want E_STORAGE_UNAVAILABLE", failed)
	}
	f := w.Failing()
	if len(f) != 1 || f[0].Store != outage.Directory || f[0].Cause != outage.DiskFull {
		t.Fatalf("failing stores %+v, want the directory, disk full", f)
	}
	mu.Lock()
	text, counted := log.String(), counts["directory/disk full"]
	mu.Unlock()
	if !strings.Contains(text, `"level":"ERROR"`) || !strings.Contains(text, `"cause":"disk full"`) {
		t.Fatalf("log of the failure: %s", text)
	}
	if counted < 1 {
		t.Fatalf("failures counted %v", counts)
	}
	// More room: the next write goes through, and the outage is over.
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "size=16m"); err != nil {
		t.Fatalf("growing the tmpfs: %v", err)
	}
	if err := register(n + 1); err != nil {
		t.Fatalf("registration with room again: %v", err)
	}
	if f := w.Failing(); len(f) != 0 {
		t.Fatalf("still failing after a write went through: %+v", f)
	}
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
