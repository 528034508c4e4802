package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/localbridge"
)

// replica copies o's directory, as an operator sets up a second replica:
// the same keys, peers and agents, its own run/ and data/, on two other
// ports. Call it before o starts.
func (o *org) replica() *org {
	t := o.t
	t.Helper()
	root, err := os.MkdirTemp("", "mg") // socket paths must stay short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	r := &org{t: t, name: o.name, dir: filepath.Join(root, o.name), port: freePorts(t), agents: o.agents}
	if err := os.CopyFS(r.dir, os.DirFS(o.dir)); err != nil {
		t.Fatal(err)
	}
	d := gateway.Dir(r.dir)
	os.RemoveAll(d.RunDir())
	os.Remove(filepath.Join(d.DataDir(), "moltgate.db"))
	// CopyFS makes what it copies writable by the group, which the
	// gateway refuses; the copy is as private as the original.
	err = filepath.WalkDir(r.dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case e.IsDir():
			return os.Chmod(p, 0o700)
		}
		return os.Chmod(p, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	r.set(`address = "127.0.0.1:`+strconv.Itoa(o.port)+`"`, `address = "127.0.0.1:`+strconv.Itoa(r.port)+`"`)
	r.set(`grpc = "127.0.0.1:`+strconv.Itoa(o.port+1)+`"`, `grpc = "127.0.0.1:`+strconv.Itoa(r.port+1)+`"`)
	if r.doc, err = gateway.ParsePeerDoc([]byte(mg(t, "peer", "export", "--dir", r.dir))); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOneTimeConsentAcrossReplicaProcesses: globex runs as two replicas,
// two `moltgate serve` processes of one directory on one PostgreSQL. A
// consent acme marked one_time is answered once, then refused E_CONSENT
// at the replica that spent it, and at the other replica too.
func TestOneTimeConsentAcrossReplicaProcesses(t *testing.T) {
	needProcesses(t)
	dsn := pgtest.DSN(t)
	acme, globex := newOrg(t, "acme", "client"), newOrg(t, "globex", "echo")
	trust(t, globex, acme, "pii")
	globex.set("driver = \"sqlite\"\ndsn = \"\"", fmt.Sprintf("driver = \"postgres\"\ndsn = %q", dsn))
	other := globex.replica()
	trust(t, acme, globex, "pii") // acme calls the first replica
	globex.start()
	other.start()
	acme.start()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	issue := func() string {
		return strings.TrimSpace(mg(t, "consent", "issue", "--dir", acme.dir, "--grantee", "echo@globex",
			"--purpose", "support", "--types", "email", "--one-time"))
	}
	use := func(c *localbridge.Client, tok string) error {
		_, err := c.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
			Input: json.RawMessage(`{"text":"write to jane.doe@example.com"}`), Consent: tok}, nil)
		return err
	}

	spent := issue()
	c := acme.client()
	if err := use(c, spent); err != nil {
		t.Fatalf("first use, at the first replica: %v", err)
	}
	if err := use(c, spent); codeOf(err) != "E_CONSENT" {
		t.Fatalf("second use, at the same replica: %v, want E_CONSENT", err)
	}

	// acme now knows globex at the other replica's address only, and the
	// first replica stops: a call can reach globex at the other one alone.
	acme.signal(syscall.SIGTERM)
	if err := acme.wait(time.Minute); err != nil {
		t.Fatalf("acme stopping: %v", err)
	}
	if _, errOut, err := mgRun([]byte(mg(t, "peer", "export", "--dir", other.dir)), "peer", "import", "--dir", acme.dir, "--max-cls", "pii"); err != nil {
		t.Fatalf("peer import of the other replica: %v\n%s", err, errOut)
	}
	globex.signal(syscall.SIGTERM)
	if err := globex.wait(time.Minute); err != nil {
		t.Fatalf("the first replica stopping: %v", err)
	}
	acme.start()
	c = acme.client()
	if err := use(c, spent); codeOf(err) != "E_CONSENT" {
		t.Fatalf("use at the other replica of a consent spent at the first: %v, want E_CONSENT\n%s", err, other.log.String())
	}
	// The other replica answers a one-time consent of its own: what it
	// refused was the spent consent, not acme.
	fresh := issue()
	if err := use(c, fresh); err != nil {
		t.Fatalf("a fresh consent, at the other replica: %v", err)
	}
	if err := use(c, fresh); codeOf(err) != "E_CONSENT" {
		t.Fatalf("its second use: %v, want E_CONSENT", err)
	}
}
