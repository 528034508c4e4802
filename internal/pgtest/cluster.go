package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

// Cluster is a PostgreSQL server of one test's own, which the test may stop
// and start again: a database outage, for real. It needs the server's
// binaries, in MOLTGATE_PG_BIN (which .ci/postgres.sh sets).
type Cluster struct {
	// DSN connects to the cluster's database.
	DSN string

	t     testing.TB
	bin   string
	dir   string
	port  int
	owner *user.User // the cluster's owner when the test runs as root
}

// NewCluster makes and starts a cluster, stopped and removed when the test
// ends. Without MOLTGATE_PG_BIN the test is skipped, or fails if
// MOLTGATE_REQUIRE_POSTGRES is set.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin := os.Getenv("MOLTGATE_PG_BIN")
	if bin == "" {
		if os.Getenv("MOLTGATE_REQUIRE_POSTGRES") != "" {
			t.Fatal("MOLTGATE_PG_BIN is not set")
		}
		t.Skip("no PostgreSQL binaries: set MOLTGATE_PG_BIN (see .ci/postgres.sh)")
	}
	// Not t.TempDir: the cluster's owner must be able to reach it, and a
	// test's temporary directory is private to the user running the test.
	dir, err := os.MkdirTemp("", "moltgate-pgcluster")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, bin: bin, dir: dir}
	t.Cleanup(func() { c.pgctl("-m", "immediate", "stop"); os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		if c.owner, err = user.Lookup("postgres"); err != nil {
			t.Fatalf("running as root needs a postgres user to own the cluster: %v", err)
		}
		uid, _ := strconv.Atoi(c.owner.Uid)
		gid, _ := strconv.Atoi(c.owner.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := c.run(filepath.Join(bin, "initdb"), "-D", c.data(), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	c.Start()
	c.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	return c
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// Start starts the server, on the same port as before, and waits until it
// accepts connections.
func (c *Cluster) Start() {
	c.t.Helper()
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off", c.port, c.dir)
	if out, err := c.pgctl("-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		c.t.Fatalf("start PostgreSQL: %v\n%s\n%s", err, out, log)
	}
}

// Stop stops the server at once, as a crash or an outage would: every
// connection is cut.
func (c *Cluster) Stop() {
	c.t.Helper()
	if out, err := c.pgctl("-m", "immediate", "-w", "stop"); err != nil {
		c.t.Fatalf("stop PostgreSQL: %v\n%s", err, out)
	}
}

func (c *Cluster) pgctl(args ...string) ([]byte, error) {
	return c.run(filepath.Join(c.bin, "pg_ctl"), append([]string{"-D", c.data()}, args...)...)
}

// run runs a server binary as the cluster's owner.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	if c.owner != nil {
		args = append([]string{"-u", c.owner.Username, "--", name}, args...)
		name = "runuser"
	}
	return exec.Command(name, args...).CombinedOutput()
}
