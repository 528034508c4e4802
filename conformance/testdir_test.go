package conformance

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// TestInit: the test directory holds an org key that loads and a peer
// document that checks; a document altered after signing does not, and
// Init never writes over a directory in use.
func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "suite")
	doc, err := Init(dir, InitOptions{Org: "acme-test"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePeerDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	org, err := loadOrg(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Org != "acme-test" || !p.OrgKey.Equal(org.Signing.Public()) || !p.EncKey.Equal(org.Encryption.Public()) {
		t.Fatalf("peer document %+v does not describe the org key %s", p, org.Ref)
	}
	if fromFile, err := PeerDoc(dir); err != nil || !bytes.Equal(bytes.TrimSpace(fromFile), doc) {
		t.Fatalf("PeerDoc: %q, %v", fromFile, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, orgKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("org key file: %v %v", fi, err)
	}

	altered := bytes.Replace(doc, []byte(`"org":"acme-test"`), []byte(`"org":"acme-tesT"`), 1)
	var we *wire.Error
	if _, err := parsePeerDoc(altered); !errors.As(err, &we) || we.Code != wire.ErrSignature {
		t.Fatalf("an altered peer document: %v, want E_SIGNATURE", err)
	}
	if _, err := Init(dir, InitOptions{}); !errors.As(err, &we) || we.Code != wire.ErrInvalidParam || we.Field != "dir" {
		t.Fatalf("Init over a directory in use: %v, want E_INVALID_PARAM at dir", err)
	}
	if _, err := Init(filepath.Join(t.TempDir(), "x"), InitOptions{Org: "not a name"}); !errors.As(err, &we) || we.Field != "org" {
		t.Fatalf("Init with a bad org name: %v, want E_INVALID_PARAM at org", err)
	}
}

// TestRunChecksItsInput: Run refuses a peer document that does not check
// and a known failure that names no case, before it sends anything.
func TestRunChecksItsInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "suite")
	doc, err := Init(dir, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), Config{Dir: dir, PeerDoc: doc}); err == nil {
		t.Fatal("Run against the test organisation's own peer document: no error")
	}
	if _, err := Run(t.Context(), Config{Dir: dir, PeerDoc: []byte(`{"type":"moltgate.peer.v1"`)}); err == nil {
		t.Fatal("Run with a truncated peer document: no error")
	}
	other := filepath.Join(t.TempDir(), "other")
	odoc, err := Init(other, InitOptions{Org: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), Config{Dir: dir, PeerDoc: odoc, KnownFailures: []string{"no.such.case"}}); err == nil {
		t.Fatal("Run with an unknown known failure: no error")
	}
	if len(Names()) < 100 {
		t.Fatalf("only %d cases", len(Names()))
	}
	seen := map[string]bool{}
	for _, n := range Names() {
		if seen[n] {
			t.Errorf("case %s twice", n)
		}
		seen[n] = true
	}
}

// TestJudge: a known failure that fails is XFAIL and one that passes is
// XPASS; a skip is a skip whatever the list says.
func TestJudge(t *testing.T) {
	boom := errors.New("answered 200 pong, want E_REPLAY (401)")
	for _, c := range []struct {
		err   error
		known bool
		want  Status
	}{
		{nil, false, Pass},
		{boom, false, Fail},
		{boom, true, XFail},
		{nil, true, XPass},
		{skipf("needs pii"), false, Skip},
		{skipf("needs pii"), true, Skip},
	} {
		if r := judge("x", "refused", c.err, c.known); r.Status != c.want {
			t.Errorf("judge(%v, known %v) = %s, want %s", c.err, c.known, r.Status, c.want)
		}
	}
	var b bytes.Buffer
	rep := &Report{Target: "acme at https://acme.example", Results: []Result{judge("a.b", "refused 401 E_REPLAY", nil, false), judge("c.d", "", boom, false)}, Passed: 1, Failed: 1}
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "PASS a.b: refused 401 E_REPLAY\nFAIL c.d: answered 200 pong, want E_REPLAY (401)\n1 passed, 1 failed, 0 known failures, 0 skipped (acme at https://acme.example)\n"
	if b.String() != want || rep.OK() {
		t.Errorf("report:\n%s\nwant\n%s (OK %v)", b.String(), want, rep.OK())
	}
}
