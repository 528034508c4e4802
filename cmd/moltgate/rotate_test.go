package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/revocation"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, now: time.Now}
	code := run(context.Background(), e, args)
	return code, out.String(), errOut.String()
}

func TestKeyAndTLSRotate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "globex")
	if code, _, stderr, _ := initWith(t, nil, "--dir", dir, "--org", "globex", "--listen", "127.0.0.1:17643"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	before, _ := gateway.LoadOrg(gateway.Dir(dir), nil)
	code, stdout, stderr := runCmd(t, "key", "rotate", "--dir", dir, "--overlap", "3s")
	if code != 0 {
		t.Fatalf("key rotate: exit %d: %s", code, stderr)
	}
	after, _ := gateway.LoadOrg(gateway.Dir(dir), nil)
	for _, want := range []string{before.Signing.Public().Fingerprint(), after.Signing.Public().Fingerprint(), "while it serves",
		"X25519 encryption key rotated with it: " + before.Encryption.Public().String() + " -> " + after.Encryption.Public().String(),
		"kept in " + filepath.Join(dir, "keys", "retired") + " until the overlap ends"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("key rotate said:\n%s\nwant %q", stdout, want)
		}
	}
	code, stdout, stderr = runCmd(t, "tls", "rotate", "--dir", dir)
	if code != 0 || !strings.Contains(stdout, "pin sha256:") {
		t.Fatalf("tls rotate: exit %d: %s%s", code, stdout, stderr)
	}
	set, err := handover.LoadFile(gateway.Dir(dir).HandoversPath())
	if err != nil || len(set.Handovers) != 2 || set.Handovers[1].Kind != handover.KindTLSPin {
		t.Fatalf("handovers: %v %v", set, err)
	}
	// The TLS statement is signed by the org key of now, the new one.
	if err := set.Handovers[1].Verify(after.Signing.Public()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"key", "rotate", "--dir", dir, "--overlap", "-1s"}, 2, "--overlap"},
		{[]string{"key", "rotate", "--dir", dir, "--overlap", "1ms"}, 1, "--overlap"},
		{[]string{"key", "rotate"}, 2, "--dir"},
		{[]string{"tls", "spin", "--dir", dir}, 2, "rotate"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want exit %d naming %s on one line", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestCertAndTLSRevoke(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "globex")
	if code, _, stderr, _ := initWith(t, nil, "--dir", dir, "--org", "globex", "--listen", "127.0.0.1:17645"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	doc, err := gateway.ExportPeer(gateway.Dir(dir), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pd, err := gateway.ParsePeerDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	digest := "sha256:" + strings.Repeat("0f", 32)
	code, stdout, stderr := runCmd(t, "cert", "revoke", "--dir", dir, "--digest", digest, "--capability")
	if code != 0 || !strings.Contains(stdout, "capability_cert "+digest) || !strings.Contains(stdout, "serial 1") {
		t.Fatalf("cert revoke: exit %d: %s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tls", "revoke", "--dir", dir, "--pin", pd.TLSPin}, 1, "tls rotate"},
		{[]string{"tls", "revoke", "--dir", dir, "--pin", "sha256:nope"}, 1, "--pin"},
		{[]string{"cert", "revoke", "--dir", dir, "--digest", "sha256:ABC"}, 1, "--digest"},
		{[]string{"cert", "revoke", "--dir", dir}, 2, "--digest or --cert"},
		{[]string{"cert", "revoke", "--dir", dir, "--digest", digest, "--cert", "x.json"}, 2, "not both"},
		{[]string{"cert", "revoke", "--dir", dir, "--cert", filepath.Join(dir, "moltgate.toml")}, 2, "--cert"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want exit %d naming %s on one line", c.args, code, stderr, c.code, c.want)
		}
	}
}

// agent rotate gives the agent a new key and revokes the old one; agent
// remove revokes the key it held; both sign the list under the org key, a
// serial higher each time.
func TestAgentRotateAndRemoveRevoke(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "globex")
	if code, _, stderr, _ := initWith(t, nil, "--dir", dir, "--org", "globex", "--listen", "127.0.0.1:17647"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	if code, _, stderr := runCmd(t, "agent", "add", "--dir", dir, "--id", "echo"); code != 0 {
		t.Fatalf("agent add: %s", stderr)
	}
	d := gateway.Dir(dir)
	first, err := gateway.LoadAgentIdentity(d, "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "agent", "rotate", "--dir", dir, "--id", "echo")
	if code != 0 {
		t.Fatalf("agent rotate: exit %d: %s", code, stderr)
	}
	second, err := gateway.LoadAgentIdentity(d, "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.Signing.Public().Equal(first.Signing.Public()) {
		t.Fatalf("agent rotate kept the key:\n%s", stdout)
	}
	org, _ := gateway.LoadOrg(d, nil)
	list, err := revocation.LoadFile(d.RevocationsPath(), "globex", org.Signing.Public())
	if err != nil || list.Serial != 1 || len(list.Entries) != 1 || list.Entries[0].Agent != "echo" || list.Entries[0].Value != first.Signing.Public().String() {
		t.Fatalf("after agent rotate: %+v %v", list, err)
	}
	if code, _, stderr := runCmd(t, "agent", "remove", "--dir", dir, "--id", "echo"); code != 0 {
		t.Fatalf("agent remove: exit %d: %s", code, stderr)
	}
	list, err = revocation.LoadFile(d.RevocationsPath(), "globex", org.Signing.Public())
	if err != nil || list.Serial != 2 || len(list.Entries) != 2 || list.Entries[1].Value != second.Signing.Public().String() {
		t.Fatalf("after agent remove: %+v %v", list, err)
	}
	if _, err := gateway.LoadAgentIdentity(d, "echo", nil); err == nil {
		t.Fatal("agent remove left the agent's key")
	}
}
