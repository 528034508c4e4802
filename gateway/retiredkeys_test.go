package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/retired"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// key rotate keeps the X25519 key it replaces in keys/retired until the
// overlap ends; a gateway opened during the overlap, a restart, opens
// what is sealed to it, and to the key of a rotation before whose overlap
// has not ended; once an overlap ends, the watch loop's ReloadKeys drops
// the key and removes its file, and the key is refused.
func TestRetiredEncKeysSurviveRestart(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9759")
	clk := &clock{t: time.Now()}
	first, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := RotateOrgKey(d, RotateOptions{Overlap: 2 * time.Hour, Now: clk.now()})
	if err != nil {
		t.Fatal(err)
	}
	second, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d.RetiredKeysDir(), retired.Name(first.Encryption.Public()))
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key replaced is not kept in keys/retired, mode 0600: %v", err)
	}
	clk.set(clk.now().Add(time.Minute))
	r2, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour, Now: clk.now()})
	if err != nil {
		t.Fatal(err)
	}
	third, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Until.Before(r1.Until) {
		t.Fatalf("the second overlap ends %v, the first %v: the test wants the second to end first", r2.Until, r1.Until)
	}

	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	s.held.release()
	id, err := identity.Generate(rand.Reader, wire.Ref{Agent: "client", Org: "initech"})
	if err != nil {
		t.Fatal(err)
	}
	st := &stranger{t: t, s: s, clk: clk, id: id, codec: wire.NewCodec(wire.Limits{})}
	for _, k := range []keys.X25519Public{first.Encryption.Public(), second.Encryption.Public(), third.Encryption.Public()} {
		if m := st.ping(k); m.Op != wire.OpPong || !m.From.EncKey.Equal(third.Encryption.Public()) {
			t.Fatalf("opened during both overlaps, sealed to %s: %s", k, m.Op)
		}
	}

	// The second rotation's overlap ends first: the second key goes, the
	// first stays until its own.
	clk.set(r2.Until)
	if err := s.ReloadKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m := st.ping(second.Encryption.Public()); m.Op != wire.OpError || !strings.Contains(m.Payload.(*wire.ErrorPayload).Message, second.Encryption.Public().String()+", refused since") {
		t.Fatalf("the second key after its overlap: %s %v", m.Op, m.Payload)
	}
	if _, err := os.Stat(filepath.Join(d.RetiredKeysDir(), retired.Name(second.Encryption.Public()))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the second key's file after its overlap: %v", err)
	}
	if m := st.ping(first.Encryption.Public()); m.Op != wire.OpPong {
		t.Fatalf("the first key during its overlap, after the second's ended: %s", m.Op)
	}

	clk.set(r1.Until)
	if err := s.ReloadKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m := st.ping(first.Encryption.Public()); m.Op != wire.OpError || m.Payload.(*wire.ErrorPayload).Code != wire.ErrAuthFailed {
		t.Fatalf("the first key after its overlap: %s", m.Op)
	}
	if entries, _ := os.ReadDir(d.RetiredKeysDir()); len(entries) != 0 || len(s.keys.Keyring().Formers) != 0 {
		t.Fatalf("after every overlap: files %v, %d keys replaced held", entries, len(s.keys.Keyring().Formers))
	}
}

// A gateway opened after an overlap removes the file of the key it
// replaced, and a retired key file it cannot read stops it with an error
// naming the file.
func TestOpenSweepsRetiredEncKeys(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9761")
	clk := &clock{t: time.Now()}
	r, err := RotateOrgKey(d, RotateOptions{Overlap: time.Minute, Now: clk.now()})
	if err != nil {
		t.Fatal(err)
	}
	clk.set(r.Until)
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(d.RetiredKeysDir()); len(entries) != 0 || len(s.keys.Keyring().Formers) != 0 {
		t.Fatalf("opened after the overlap: files %v, %d keys replaced held", entries, len(s.keys.Keyring().Formers))
	}
	s.Shutdown(context.Background())

	os.WriteFile(filepath.Join(d.RetiredKeysDir(), "x.json"), []byte(`{"moltgate_retired_key":1`), 0o600)
	_, err = Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler), Now: clk.now})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "keys/retired/x.json" || !strings.Contains(err.Error(), "restore the file") || strings.Count(err.Error(), "x.json") != 1 {
		t.Fatalf("Open with a broken retired key file = %v", err)
	}
}
