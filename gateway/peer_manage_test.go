package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// TestPeerDocCarriesRevocations: once an organisation revoked a key, its
// peer document carries the signed list, and an importer holds it from the
// start; a document whose list was changed does not verify.
func TestPeerDocCarriesRevocations(t *testing.T) {
	acme := initDir(t, "acme", "127.0.0.1:9443")
	globex := initDir(t, "globex", "127.0.0.1:9543")
	if _, err := AddAgent(globex, AddAgentOptions{ID: "echo"}); err != nil {
		t.Fatal(err)
	}
	doc, err := ExportPeer(globex, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), `"revocations"`) {
		t.Fatal("a document of an org that revoked nothing carries a list")
	}
	r, err := RevokeAgent(globex, RevokeOptions{ID: "echo", Reason: "leaked"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Serial != 1 || r.NewKey.IsZero() || r.NewKey.Equal(r.OldKey) {
		t.Fatalf("revoked: %+v", r)
	}
	if doc, err = ExportPeer(globex, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPeer(acme, doc, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	book, err := revocation.OpenBook(filepath.Join(acme.DataDir(), "revocations"))
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := book.AgentKey("globex", r.OldKey); !ok || e.Agent != "echo" || e.Reason != "leaked" {
		t.Fatalf("the importer does not hold the revocation: %+v %v", e, ok)
	}
	if _, ok := book.AgentKey("globex", r.NewKey); ok {
		t.Fatal("the agent's new key is revoked")
	}
	// The list is signed with the document: a list changed in transit
	// breaks the document's signature.
	forged := strings.Replace(string(doc), `"reason":"leaked"`, `"reason":"fine"`, 1)
	var we *wire.Error
	if _, err := ParsePeerDoc([]byte(forged)); !errors.As(err, &we) || we.Code != wire.ErrSignature {
		t.Fatalf("a changed list: %v", err)
	}
}

// TestRemovePeer: peer remove deletes the peer file and the pin, and names
// the peers there are when asked for one that is not.
func TestRemovePeer(t *testing.T) {
	acme := initDir(t, "acme", "127.0.0.1:9443")
	globex := initDir(t, "globex", "127.0.0.1:9543")
	doc, err := ExportPeer(globex, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPeer(acme, doc, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := RemovePeer(acme, "initech"); err == nil || !strings.Contains(err.Error(), "globex") {
		t.Fatalf("removing a peer that is not there: %v", err)
	}
	p, err := RemovePeer(acme, "globex")
	if err != nil || p.Org != "globex" {
		t.Fatalf("remove: %+v %v", p, err)
	}
	if peers, err := LoadPeers(acme, "acme"); err != nil || len(peers) != 0 {
		t.Fatalf("peers after remove: %v %v", peers, err)
	}
	if pins, _ := os.ReadFile(acme.PinsPath()); strings.Contains(string(pins), "globex") {
		t.Fatal("the pin is kept")
	}
	// Imported again, it is trusted again, with no --replace.
	if _, err := ImportPeer(acme, doc, ImportOptions{}); err != nil {
		t.Fatalf("import after remove: %v", err)
	}
	// A wrong fingerprint refuses before anything is written.
	if _, err := RemovePeer(acme, "globex"); err != nil {
		t.Fatal(err)
	}
	var we *wire.Error
	if _, err := ImportPeer(acme, doc, ImportOptions{ExpectFingerprint: "SHA256:00000000"}); !errors.As(err, &we) || we.Code != wire.ErrAuthFailed {
		t.Fatalf("wrong fingerprint: %v", err)
	}
	if peers, _ := LoadPeers(acme, "acme"); len(peers) != 0 {
		t.Fatal("a refused document was imported")
	}
}
