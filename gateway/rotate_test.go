package gateway

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
)

// key rotate: a new org key in keys/org.json, a handover the old key
// signed and the new one countersigned, the revocation list signed again
// under the new key a serial higher, and a gateway that opens with it all.
func TestRotateOrgKey(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9743")
	before, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddAgent(d, AddAgentOptions{ID: "echo", MaxCls: "int"}); err != nil {
		t.Fatal(err)
	}
	agentBefore, err := LoadAgentIdentity(d, "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	r, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	after, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after.Signing.Public().Equal(before.Signing.Public()) || r.New != after.Signing.Public().String() || r.Old != before.Signing.Public().String() {
		t.Fatalf("keys: before %s, after %s, rotated %s -> %s", before.Signing.Public(), after.Signing.Public(), r.Old, r.New)
	}
	if after.Ref != before.Ref {
		t.Fatal("the name changed")
	}
	// A new X25519 key goes with the new org key, and the statement the
	// old key signed names it, so that peers learn it before it is used.
	if after.Encryption.Public().Equal(before.Encryption.Public()) || r.OldEncKey != before.Encryption.Public().String() || r.NewEncKey != after.Encryption.Public().String() {
		t.Fatalf("X25519 keys: before %s, after %s, rotated %s -> %s", before.Encryption.Public(), after.Encryption.Public(), r.OldEncKey, r.NewEncKey)
	}
	if !r.Until.Equal(time.UnixMilli(now.UnixMilli()).Add(time.Hour)) {
		t.Fatalf("until %v", r.Until)
	}
	set, err := handover.LoadFile(d.HandoversPath())
	if err != nil || len(set.Handovers) != 1 {
		t.Fatalf("handovers: %v %v", set, err)
	}
	if err := set.Handovers[0].Verify(before.Signing.Public()); err != nil {
		t.Fatalf("a peer holding the old key: %v", err)
	}
	if set.Handovers[0].NewEncKey != r.NewEncKey {
		t.Fatalf("the handover names X25519 key %s, want the new %s", set.Handovers[0].NewEncKey, r.NewEncKey)
	}
	// The agent's key file holds the new X25519 key in place of its copy
	// of the old one, and its own signing key as before.
	agentAfter, err := LoadAgentIdentity(d, "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !agentAfter.Encryption.Equal(after.Encryption) || !agentAfter.Signing.Public().Equal(agentBefore.Signing.Public()) {
		t.Fatal("the agent's key file does not hold the new X25519 key beside its own signing key")
	}
	if _, err := os.Stat(d.nextOrgKeyPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the next key file stayed: %v", err)
	}
	list, err := revocation.LoadFile(d.RevocationsPath(), "globex", after.Signing.Public())
	if err != nil || list.Serial != 1 {
		t.Fatalf("revocation list under the new key: %v %v", list, err)
	}
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("open after the rotation: %v", err)
	}
	if !s.keys.Load().Cert.Issuer.Equal(after.Signing.Public()) {
		t.Fatal("the gateway's certificate is not issued under the new key")
	}
	s.Shutdown(t.Context())

	// A second rotation chains from the first.
	r2, err := RotateOrgKey(d, RotateOptions{Now: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	set, _ = handover.LoadFile(d.HandoversPath())
	if len(set.Handovers) != 2 || r2.Old != r.New || set.Handovers[1].Verify(after.Signing.Public()) != nil {
		t.Fatalf("second rotation: %+v", set.Handovers)
	}
	if r2.Until.Sub(r2.Effective) != DefaultOverlap {
		t.Fatalf("default overlap %v", r2.Until.Sub(r2.Effective))
	}
}

// A rotation that stopped after writing its statement is finished with
// the key the statement names when run again.
func TestRotateOrgKeyResumes(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9745")
	before, _ := LoadOrg(d, nil)
	r, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// As if it had stopped before the rename: the new key is back at
	// org.next.json and the old one at org.json.
	if err := os.Rename(d.OrgKeyPath(), d.nextOrgKeyPath()); err != nil {
		t.Fatal(err)
	}
	if err := before.Save(d.OrgKeyPath(), keys.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	again, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if again.New != r.New {
		t.Fatalf("run again: new key %s, want %s", again.New, r.New)
	}
	set, _ := handover.LoadFile(d.HandoversPath())
	if len(set.Handovers) != 1 {
		t.Fatalf("%d statements, want the one", len(set.Handovers))
	}
	after, _ := LoadOrg(d, nil)
	if after.Signing.Public().String() != r.New || after.Encryption.Public().String() != r.NewEncKey || again.NewEncKey != r.NewEncKey {
		t.Fatal("org.json is not the new key, or not with the X25519 key the statement names")
	}
	if _, err := revocation.LoadFile(d.RevocationsPath(), "globex", after.Signing.Public()); err != nil {
		t.Fatal(err)
	}
}

// tls rotate: a new certificate for the same addresses, its pin announced
// in a statement the org key signed.
func TestRotateTLS(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9747")
	old, oldPin, err := loadTLSCert(d)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RotateTLS(d, RotateOptions{Overlap: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	cur, newPin, err := loadTLSCert(d)
	if err != nil {
		t.Fatal(err)
	}
	if newPin == oldPin || r.Old != oldPin || r.New != newPin {
		t.Fatalf("pins: %s -> %s, rotated %s -> %s", oldPin, newPin, r.Old, r.New)
	}
	if got, want := certHosts(cur.Leaf), certHosts(old.Leaf); len(got) != len(want) || got[0] != want[0] {
		t.Fatalf("hosts %v, want %v", got, want)
	}
	org, _ := LoadOrg(d, nil)
	set, _ := handover.LoadFile(d.HandoversPath())
	if len(set.Handovers) != 1 || set.Handovers[0].Kind != handover.KindTLSPin || set.Handovers[0].Verify(org.Signing.Public()) != nil {
		t.Fatalf("statement: %+v", set.Handovers)
	}
}

func TestRotateOptions(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9749")
	for _, o := range []time.Duration{time.Millisecond, handover.MaxOverlap + time.Hour} {
		_, err := RotateOrgKey(d, RotateOptions{Overlap: o})
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "--overlap" {
			t.Errorf("overlap %v: %v", o, err)
		}
	}
	if _, err := os.Stat(d.HandoversPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused rotation wrote a handover")
	}
}

// A peer document carries the organisation's statements: an importer that
// pinned the key before a rotation follows them to the document's key
// without --replace; one that pinned another key still needs it.
func TestImportFollowsHandovers(t *testing.T) {
	acme := initDir(t, "acme", "127.0.0.1:9751")
	globex := initDir(t, "globex", "127.0.0.1:9753")
	doc, err := ExportPeer(globex, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPeer(acme, doc, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := LoadOrg(globex, nil)
	if _, err := RotateOrgKey(globex, RotateOptions{Overlap: time.Hour}); err != nil {
		t.Fatal(err)
	}
	after, _ := LoadOrg(globex, nil)
	doc2, err := ExportPeer(globex, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pd, err := ParsePeerDoc(doc2)
	if err != nil || pd.Handovers.Len() != 1 {
		t.Fatalf("document: %v", err)
	}
	p, err := ImportPeer(acme, doc2, ImportOptions{})
	if err != nil {
		t.Fatalf("import after the rotation: %v", err)
	}
	if !p.OrgKey.Equal(after.Signing.Public()) {
		t.Fatal("imported another key")
	}
	pins, _ := openPins(acme)
	pin, _ := pins.Lookup("globex")
	if !pin.Key.Equal(after.Signing.Public()) || pin.Previous == nil || !pin.Previous.Key.Equal(before.Signing.Public()) {
		t.Fatalf("pin: %+v", pin)
	}
	// The X25519 key to seal to moved on with the org key.
	if !pin.EncKey.Equal(after.Encryption.Public()) || !pin.Previous.EncKey.Equal(before.Encryption.Public()) || !p.EncKey.Equal(after.Encryption.Public()) {
		t.Fatalf("X25519 keys after the import: pin %s (previous %s), peer %s; want %s", pin.EncKey, pin.Previous.EncKey, p.EncKey, after.Encryption.Public())
	}
	if peers, err := LoadPeers(acme, "acme"); err != nil || len(peers) != 1 || !peers[0].OrgKey.Equal(after.Signing.Public()) || !peers[0].EncKey.Equal(after.Encryption.Public()) {
		t.Fatalf("load peers: %v", err)
	}
	// An importer that pinned yet another key for globex needs --replace:
	// the statements do not start from its key.
	initech := initDir(t, "initech", "127.0.0.1:9755")
	impostor := initDir(t, "globex", "127.0.0.1:9757")
	idoc, _ := ExportPeer(impostor, nil, time.Now())
	if _, err := ImportPeer(initech, idoc, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPeer(initech, doc2, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("a chain from another key: %v", err)
	}
}

// A peer file written by a gateway that took a TLS handover reads back,
// and its former pin is checked as the pin is.
func TestEditPeerTLS(t *testing.T) {
	acme := initDir(t, "acme", "127.0.0.1:9759")
	globex := initDir(t, "globex", "127.0.0.1:9761")
	doc, _ := ExportPeer(globex, nil, time.Now())
	p, err := ImportPeer(acme, doc, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := RotateTLS(globex, RotateOptions{Overlap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	if err := EditPeer(acme, "globex", func(q *Peer) bool { q.TLSPin, q.TLSPrevious, q.TLSUntil = r.New, p.TLSPin, until; return true }); err != nil {
		t.Fatal(err)
	}
	peers, err := LoadPeers(acme, "acme")
	if err != nil || peers[0].TLSPin != r.New || peers[0].TLSPrevious != r.Old || !peers[0].TLSUntil.Equal(until) {
		t.Fatalf("read back: %+v %v", peers, err)
	}
	if got := peers[0].TLSPins(time.Now()); len(got) != 2 {
		t.Fatalf("pins during the overlap: %v", got)
	}
	raw, _ := os.ReadFile(filepath.Join(acme.PeersDir(), "globex.json"))
	os.WriteFile(filepath.Join(acme.PeersDir(), "globex.json"), []byte(strings.Replace(string(raw), r.Old, "sha256:nope", 1)), 0o600)
	var ce *ConfigError
	if _, err := LoadPeers(acme, "acme"); !errors.As(err, &ce) || !strings.HasSuffix(ce.Key, "tls_pin_previous") {
		t.Fatalf("a bad former pin: %v", err)
	}
}
