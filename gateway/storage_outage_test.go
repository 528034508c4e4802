package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/wire"
)

// outageRig is acme calling globex's echo agent over HTTPS outside any
// session, so that every message goes through globex's replay window.
type outageRig struct {
	t            *testing.T
	acme, globex *testGateway
	client       *http.Client
}

// answer is what globex answered one message with.
type answer struct {
	status     int
	code       wire.Code
	retryAfter string // the Retry-After header
	suggestion *wire.Suggestion
}

func newOutageRig(t *testing.T, configure func(globex Dir)) *outageRig {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", QueryTool: "echo"})
	trustEachOther(t, da, db, "conf")
	configure(db)
	r := &outageRig{t: t, acme: start(t, da, la, TransportHTTP), globex: start(t, db, lb, TransportHTTP, noDrainDelay)}
	tcfg, err := pinnedClientTLS(r.acme.s.peers.Get("globex").Peer().TLSPin, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.client = &http.Client{Transport: &http.Transport{TLSClientConfig: tcfg}}
	t.Cleanup(r.client.CloseIdleConnections)
	return r
}

// ping seals a new public ping from acme's agent to globex's, with the
// identity certificate that vouches for its sender outside a session.
func (r *outageRig) ping() []byte {
	r.t.Helper()
	st := r.acme.s.roster.Agent("client")
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(r.acme.s.rand), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: st.Identity.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "n-1"},
		Ext:     wire.ObjectValue(wire.Member{Key: pipeline.ExtIdentity, Value: wire.ObjectValue(wire.Member{Key: "cert", Value: st.Cert.Value()})})}
	env, err := crypto.SealMessage(r.acme.s.codec, m, st.Identity.Signing, r.acme.s.keys.Keyring().Current, r.acme.s.peers.Get("globex").Peer().EncKey)
	if err != nil {
		r.t.Fatal(err)
	}
	return env
}

func (r *outageRig) post(env []byte) answer {
	r.t.Helper()
	resp, err := r.client.Post("https://"+r.globex.ls.HTTP.Addr().String()+"/moltspeak/v0.1/message", "application/json", bytes.NewReader(env))
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	e, err := r.acme.s.codec.DecodeEnvelope(b)
	if err != nil {
		r.t.Fatalf("answer %d: %v", resp.StatusCode, err)
	}
	if e.Message != nil {
		if p, ok := e.Message.Payload.(*wire.ErrorPayload); ok {
			a.code, a.suggestion = p.Code, p.Suggestion
		}
	}
	return a
}

// ready is globex's /readyz: its status and reason.
func (r *outageRig) ready() (int, string) {
	r.t.Helper()
	resp, err := r.client.Get("https://" + r.globex.ls.HTTP.Addr().String() + "/readyz")
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		r.t.Fatal(err)
	}
	return resp.StatusCode, body["reason"]
}

// wantOutage checks that a is the refusal of every storage outage:
// E_STORAGE_UNAVAILABLE, 503, with retry_after in the payload and the
// header.
func (r *outageRig) wantOutage(a answer, what string) {
	r.t.Helper()
	if a.status != http.StatusServiceUnavailable || a.code != wire.ErrStorageUnavailable {
		r.t.Fatalf("%s: %d %s, want 503 E_STORAGE_UNAVAILABLE\n%s", what, a.status, a.code, r.globex.logs())
	}
	if s := a.suggestion; s == nil || s.Action != wire.ActionRetryAfter || s.DelayMS <= 0 || a.retryAfter == "" {
		r.t.Fatalf("%s: suggestion %+v, Retry-After %q: want retry_after with a delay", what, a.suggestion, a.retryAfter)
	}
}

// TestReplayWindowOutageOnSQLite: with globex's data on a disk that fills up
// while serving, a signed message outside a session is refused with
// E_STORAGE_UNAVAILABLE and retry_after (the code a directory outage
// answers, and a PostgreSQL outage), never accepted unrecorded; /readyz names
// the replay window, the log says "disk full" at ERROR; and once there is
// room the same message, retried, goes through. The disk is a real tmpfs.
func TestReplayWindowOutageOnSQLite(t *testing.T) {
	var data string
	r := newOutageRig(t, func(globex Dir) {
		data = globex.DataDir()
		mountSmallDisk(t, data)
	})
	if a := r.post(r.ping()); a.status != http.StatusOK || a.code != "" {
		t.Fatalf("with room: %d %s\n%s", a.status, a.code, r.globex.logs())
	}
	filler := filepath.Join(data, "filler")
	fill(t, filler)
	env := r.ping()
	r.wantOutage(r.post(env), "a message while the disk is full")
	// The directory may have failed to write on the same disk too (an
	// agent's liveness, say): /readyz names one failing store.
	if status, reason := r.ready(); status != http.StatusServiceUnavailable || !strings.HasPrefix(reason, "storage_failing: ") || !strings.HasSuffix(reason, ": disk full") {
		t.Fatalf("/readyz with the disk full: %d %q", status, reason)
	}
	if !failing(r.globex.s, "replay window", "disk full") {
		t.Fatalf("failing stores %+v, want the replay window among them", r.globex.s.outages.Failing())
	}
	if l := r.globex.logs(); !strings.Contains(l, `"level":"ERROR","msg":"storage failing: disk full"`) || !strings.Contains(l, `"store":"replay window"`) {
		t.Fatalf("no ERROR line naming the replay window and the disk full:\n%s", l)
	}
	os.Remove(filler)
	if a := r.post(env); a.status != http.StatusOK || a.code != "" {
		t.Fatalf("the refused message, retried with room again: %d %s", a.status, a.code)
	}
	if a := r.post(env); a.code != wire.ErrReplay {
		t.Fatalf("the same message a third time: %d %s, want E_REPLAY", a.status, a.code)
	}
	if failing(r.globex.s, "replay window", "disk full") {
		t.Fatalf("the replay window still failing after a write went through: %+v", r.globex.s.outages.Failing())
	}
}

// TestReplayWindowOutageOnPostgres: the same with the replicas' shared
// replay window in a real PostgreSQL, stopped while serving and started
// again: the same code, where it used to be E_INTERNAL.
func TestReplayWindowOutageOnPostgres(t *testing.T) {
	c := pgtest.NewCluster(t)
	r := newOutageRig(t, func(globex Dir) { usePostgres(t, globex, c.DSN) })
	if a := r.post(r.ping()); a.status != http.StatusOK || a.code != "" {
		t.Fatalf("with the database up: %d %s\n%s", a.status, a.code, r.globex.logs())
	}
	c.Stop()
	env := r.ping()
	r.wantOutage(r.post(env), "a message with the database stopped")
	if status, _ := r.ready(); status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz with the database stopped: %d", status)
	}
	if l := r.globex.logs(); !strings.Contains(l, `"msg":"storage failing: database unreachable"`) || !strings.Contains(l, `"store":"replay window"`) {
		t.Fatalf("no ERROR line naming the replay window and the database:\n%s", l)
	}
	c.Start()
	// The pool's connections were cut: the first statements after the
	// restart may find them so, and are refused as the outage was.
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := r.post(env)
		if a.status == http.StatusOK && a.code == "" {
			break
		}
		r.wantOutage(a, "a message just after the restart")
		if time.Now().After(deadline) {
			t.Fatalf("still refused 30 s after the database came back")
		}
	}
	if a := r.post(env); a.code != wire.ErrReplay {
		t.Fatalf("the same message again: %d %s, want E_REPLAY", a.status, a.code)
	}
}

// failing reports whether store is failing in s with cause.
func failing(s *Server, store, cause string) bool {
	for _, f := range s.outages.Failing() {
		if f.Store == store && f.Cause == cause {
			return true
		}
	}
	return false
}

// mountSmallDisk mounts a 1 MiB tmpfs on dir, keeping what dir held, or
// skips the test where mounting is not permitted.
func mountSmallDisk(t *testing.T, dir string) {
	t.Helper()
	saved := dir + ".saved"
	if err := os.Rename(dir, saved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): the test needs CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err := os.CopyFS(dir, os.DirFS(saved)); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			os.Chmod(p, 0o600)
		}
		return nil
	})
}

// fill writes path until its disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// TestReadOnlyDiskIsReported: globex's data on an ext4 filesystem that goes
// read-only under the serving gateway, as ext4 does on an error when
// mounted errors=remount-ro (here the error is triggered through sysfs).
// SQLite says only "disk I/O error"; the gateway finds the filesystem
// read-only and says so: the log at ERROR says "database read-only",
// moltgate_storage_errors_total counts it, /readyz names it, and the
// message is refused with E_STORAGE_UNAVAILABLE.
func TestReadOnlyDiskIsReported(t *testing.T) {
	var dev string
	r := newOutageRig(t, func(globex Dir) { dev = mountExt4(t, globex.DataDir()) })
	if a := r.post(r.ping()); a.status != http.StatusOK || a.code != "" {
		t.Fatalf("with the disk writable: %d %s\n%s", a.status, a.code, r.globex.logs())
	}
	if err := os.WriteFile("/sys/fs/ext4/"+dev+"/trigger_fs_error", []byte("moltgate test\n"), 0); err != nil {
		t.Skipf("cannot make ext4 fail through sysfs (%v)", err)
	}
	r.wantOutage(r.post(r.ping()), "a message on a read-only disk")
	if !failing(r.globex.s, "replay window", "database read-only") {
		t.Fatalf("failing stores %+v, want the replay window, database read-only\n%s", r.globex.s.outages.Failing(), r.globex.logs())
	}
	if status, reason := r.ready(); status != http.StatusServiceUnavailable || !strings.HasSuffix(reason, ": database read-only") {
		t.Fatalf("/readyz on a read-only disk: %d %q", status, reason)
	}
	if l := r.globex.logs(); !strings.Contains(l, `"level":"ERROR","msg":"storage failing: database read-only"`) {
		t.Fatalf("no ERROR line saying the database is read-only:\n%s", l)
	}
	resp, err := r.client.Get("https://" + r.globex.ls.HTTP.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `moltgate_storage_errors_total{cause="database read-only",store="replay window"}`) {
		t.Fatalf("/metrics counts no read-only failure:\n%s", b)
	}
}

// mountExt4 mounts a small ext4 filesystem, errors=remount-ro, on dir,
// keeping what dir held, and returns its block device's name; it skips the
// test where that cannot be done.
func mountExt4(t *testing.T, dir string) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 32<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		t.Skipf("cannot make an ext4 filesystem (%v): %s", err, out)
	}
	saved := dir + ".saved"
	if err := os.Rename(dir, saved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-o", "loop,errors=remount-ro", img, dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a loop device (%v): %s: the test needs CAP_SYS_ADMIN and /dev/loop*", err, out)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	out, err := exec.Command("findmnt", "-n", "-o", "SOURCE", dir).Output()
	if err != nil {
		t.Skipf("cannot find the loop device: %v", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(saved)); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			os.Chmod(p, 0o600)
		}
		return nil
	})
	return filepath.Base(strings.TrimSpace(string(out)))
}
