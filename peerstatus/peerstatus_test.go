package peerstatus

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if f, err := Read(path); f != nil || err != nil {
		t.Fatalf("no file: got %v, %v", f, err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	in := &File{Written: now, Peers: []Peer{{Org: "zeta", Sessions: 1, RevocationSerial: -1}, {Org: "globex", LastContact: now, Sessions: 2, RevocationSerial: 3}}}
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Written.Equal(now) || len(got.Peers) != 2 || got.Peers[0].Org != "globex" {
		t.Fatalf("got %+v", got)
	}
	g, ok := got.Find("globex")
	if !ok || g.Sessions != 2 || g.RevocationSerial != 3 || !g.LastContact.Equal(now) {
		t.Fatalf("globex: %+v %v", g, ok)
	}
	if z, _ := got.Find("zeta"); !z.LastContact.IsZero() {
		t.Fatalf("zeta: %+v", z)
	}
	if _, ok := got.Find("acme"); ok {
		t.Fatal("found acme")
	}
	os.WriteFile(path, []byte("{"), 0o600)
	if _, err := Read(path); err == nil {
		t.Fatal("a torn file read")
	}
}
