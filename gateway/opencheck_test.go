package gateway

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/logbuf"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// openFails opens the gateway of d, which must be refused with a
// *ConfigError naming key, on one line that holds no protocol error code
// (the command line puts the one code in front).
func openFails(t *testing.T, d Dir, key string) *ConfigError {
	t.Helper()
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		s.Shutdown(t.Context())
		t.Fatalf("opened; want a mistake in %s", key)
	}
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v (%T), want a ConfigError naming %s", err, err, key)
	}
	if ce.Key != key {
		t.Errorf("key %q (%v), want %q", ce.Key, err, key)
	}
	line := err.Error()
	if strings.ContainsAny(line, "\n\t\r") {
		t.Errorf("not one line: %q", line)
	}
	for _, c := range wire.Codes() {
		if strings.Contains(line, string(c)) {
			t.Errorf("the line holds the code %s: %q", c, line)
		}
	}
	return ce
}

// truncate cuts the file at path to its first n bytes.
func truncate(t *testing.T, path string, n int64) {
	t.Helper()
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
}

// An identity file that is not one, cut short or empty, is named.
func TestOpenNamesAMalformedKeyFile(t *testing.T) {
	for _, n := range []int64{0, 50} {
		d := initDir(t, "acme", "127.0.0.1:9443")
		truncate(t, d.OrgKeyPath(), n)
		openFails(t, d, "keys/org.json")

		d = initDir(t, "acme", "127.0.0.1:9443")
		if _, err := AddAgent(d, AddAgentOptions{ID: "bot"}); err != nil {
			t.Fatal(err)
		}
		truncate(t, d.AgentKeyPath("bot"), n)
		openFails(t, d, "keys/agents/bot.json")
	}
}

// writeFile writes a file of the gateway directory as an operator editing
// it would.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A mistake in an agent record is named by the file and key, and its
// message does not carry a code of its own.
func TestOpenNamesAnAgentRecordMistake(t *testing.T) {
	d := initDir(t, "acme", "127.0.0.1:9443")
	if _, err := AddAgent(d, AddAgentOptions{ID: "bot"}); err != nil {
		t.Fatal(err)
	}
	path := d.AgentsDir() + "/bot.json"
	writeFile(t, path, `{"id":"bot","max_cls":"ultra"}`)
	ce := openFails(t, d, "agents/bot.json: max_cls")
	if want := "config: agents/bot.json: max_cls: must be one of pub, int, conf, pii, sec"; ce.Error() != want {
		t.Errorf("got %q, want %q", ce, want)
	}
}

// withPeer makes a gateway directory for acme that has imported beta.
func withPeer(t *testing.T) Dir {
	t.Helper()
	d := initDir(t, "acme", "127.0.0.1:9443")
	beta := initDir(t, "beta", "127.0.0.1:9543")
	doc, err := ExportPeer(beta, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPeer(d, doc, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	return d
}

// editJSON rewrites the JSON object in path: each value of set replaces
// the field's (nil removes it).
func editJSON(t *testing.T, path string, set map[string]any) {
	t.Helper()
	var rec map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if v == nil {
			delete(rec, k)
		} else {
			rec[k] = v
		}
	}
	b, _ = json.Marshal(rec)
	writeFile(t, path, string(b))
}

// A peer file is read as strictly as peer import reads a peer document:
// each mistake is named by the file and the key.
func TestOpenNamesAPeerFileMistake(t *testing.T) {
	const file = "peers/beta.json"
	other, _ := keys.GenerateEd25519(strings.NewReader(strings.Repeat("k", 32)))
	for _, c := range []struct {
		name string
		set  map[string]any
		key  string
	}{
		{"endpoint not a URL", map[string]any{"endpoint": "not a url"}, file + ": endpoint"},
		{"endpoint ftp", map[string]any{"endpoint": "ftp://127.0.0.1:9543"}, file + ": endpoint"},
		{"plain http elsewhere", map[string]any{"endpoint": "http://gateway.example.org:80", "tls_pin": nil}, file + ": endpoint"},
		{"grpc not HOST:PORT", map[string]any{"grpc": "nope"}, file + ": grpc"},
		{"misspelt ceiling", map[string]any{"max_cls": nil, "maxcls": "sec"}, file + ": maxcls"},
		{"no ceiling", map[string]any{"max_cls": nil}, file + ": max_cls"},
		{"unknown ceiling", map[string]any{"max_cls": "ultra"}, file + ": max_cls"},
		{"bad pin", map[string]any{"tls_pin": "sha256:xx"}, file + ": tls_pin"},
		{"no pin", map[string]any{"tls_pin": nil}, file + ": tls_pin"},
		{"bad org key", map[string]any{"org_key": "ed25519:AAAA"}, file + ": org_key"},
		{"another org key", map[string]any{"org_key": other.Public().String()}, file + ": org_key"},
		{"bad enc key", map[string]any{"enc_key": 5}, file + ": enc_key"},
		{"other org", map[string]any{"org": "gamma"}, file + ": org"},
		{"bad time", map[string]any{"imported_at": "yesterday"}, file + ": imported_at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := withPeer(t)
			editJSON(t, filepath.Join(d.PeersDir(), "beta.json"), c.set)
			openFails(t, d, c.key)
		})
	}
	for name, text := range map[string]string{"empty": "", "cut short": `{"org":"be`, "not JSON": "hello"} {
		t.Run(name, func(t *testing.T) {
			d := withPeer(t)
			writeFile(t, filepath.Join(d.PeersDir(), "beta.json"), text)
			openFails(t, d, file)
			d = withPeer(t)
			writeFile(t, d.PinsPath(), text)
			openFails(t, d, "peers/pins.json")
		})
	}
	t.Run("pins.json field", func(t *testing.T) {
		d := withPeer(t)
		writeFile(t, d.PinsPath(), `{"pins":[{"name":"beta","key":"ed25519:AAAA"}]}`)
		openFails(t, d, "peers/pins.json: pins[0].key")
		writeFile(t, d.PinsPath(), `{"pins":[],"pinz":[]}`)
		openFails(t, d, "peers/pins.json: pinz")
	})
	t.Run("own organisation", func(t *testing.T) {
		d := withPeer(t)
		path := filepath.Join(d.PeersDir(), "beta.json")
		editJSON(t, path, map[string]any{"org": "acme"})
		if err := os.Rename(path, filepath.Join(d.PeersDir(), "acme.json")); err != nil {
			t.Fatal(err)
		}
		ce := openFails(t, d, "peers/acme.json: org")
		if !strings.Contains(ce.Msg, "own organisation") {
			t.Errorf("got %q", ce)
		}
	})
}

// A directory that holds no gateway says so, whatever else it holds.
func TestOpenNotAGatewayDir(t *testing.T) {
	empty := Dir(t.TempDir())
	d := initDir(t, "acme", "127.0.0.1:9443")
	for _, dir := range []Dir{empty, Dir(filepath.Join(string(empty), "missing")), Dir(d.ConfigPath()), Dir(d.OrgKeyPath())} {
		_, err := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
		if !errors.Is(err, ErrNotInitialised) || strings.Contains(err.Error(), "no such file") || strings.Contains(err.Error(), "not a directory") {
			t.Errorf("%s: %v, want ErrNotInitialised", dir, err)
		}
	}
	// A configuration that is not a file is named.
	if err := os.Remove(d.ConfigPath()); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(d.ConfigPath(), 0o700); err != nil {
		t.Fatal(err)
	}
	openFails(t, d, "moltgate.toml")
}

// Set-up mistakes that only show once the files are read together are
// named by the key to change.
func TestOpenNamesASetupMistake(t *testing.T) {
	t.Run("org", func(t *testing.T) {
		d := initDir(t, "acme", "127.0.0.1:9443")
		setConfig(t, d, `org = "acme"`, `org = "other"`)
		ce := openFails(t, d, "org")
		if !strings.Contains(ce.Msg, "keys/org.json") || !strings.Contains(ce.Msg, "acme") {
			t.Errorf("got %q", ce)
		}
	})
	t.Run("cert_ttl", func(t *testing.T) {
		d := initDir(t, "acme", "127.0.0.1:9443")
		setConfig(t, d, `cert_ttl = "720h"`, `cert_ttl = "2540400h"`)
		openFails(t, d, "security.cert_ttl")
	})
	t.Run("dsn", func(t *testing.T) {
		d := initDir(t, "acme", "127.0.0.1:9443")
		setConfig(t, d, `driver = "sqlite"`, `driver = "postgres"`)
		setConfig(t, d, `dsn = ""`, `dsn = "not a dsn"`)
		t.Setenv("MOLTGATE_POSTGRES_DSN", "")
		openFails(t, d, "storage.dsn")
		t.Setenv("MOLTGATE_POSTGRES_DSN", "port=notaport")
		openFails(t, d, "MOLTGATE_POSTGRES_DSN")
	})
}

// A database that cannot be reached is said in one line, without the
// driver's tabs and newlines.
func TestOpenUnreachableDatabase(t *testing.T) {
	d := initDir(t, "acme", "127.0.0.1:9443")
	setConfig(t, d, `driver = "sqlite"`, `driver = "postgres"`)
	setConfig(t, d, `dsn = ""`, `dsn = "postgres://u:secret@127.0.0.1:1,127.0.0.1:2/db?connect_timeout=5"`)
	t.Setenv("MOLTGATE_POSTGRES_DSN", "")
	_, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.ErrPeerUnavailable {
		t.Fatalf("got %v, want E_PEER_UNAVAILABLE", err)
	}
	if s := err.Error(); strings.ContainsAny(s, "\n\t\r") || strings.Contains(s, "secret") || !strings.Contains(s, "storage.dsn") {
		t.Errorf("got %q", s)
	}
}

// TLS material that cannot be used names the file at fault.
func TestOpenNamesBadTLSFiles(t *testing.T) {
	other := initDir(t, "beta", "127.0.0.1:9543")
	otherKey, err := os.ReadFile(other.TLSKeyPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file, text, key string
	}{
		{"garbage certificate", "cert.pem", "garbage", "tls/cert.pem"},
		{"empty certificate", "cert.pem", "", "tls/cert.pem"},
		{"garbage key", "key.pem", "garbage", "tls/key.pem"},
		{"empty key", "key.pem", "", "tls/key.pem"},
		{"another key", "key.pem", string(otherKey), "tls/key.pem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := initDir(t, "acme", "127.0.0.1:9443")
			writeFile(t, filepath.Join(string(d), "tls", c.file), c.text)
			openFails(t, d, c.key)
		})
	}
}

// An init that stopped half way leaves keys; init again says what to do.
func TestInitAfterACrash(t *testing.T) {
	d := initDir(t, "acme", "127.0.0.1:9443")
	if err := os.Remove(d.ConfigPath()); err != nil {
		t.Fatal(err)
	}
	_, err := Init(d, InitOptions{Org: "acme"})
	if !errors.Is(err, os.ErrExist) || !strings.Contains(err.Error(), "earlier init") || !strings.Contains(err.Error(), "another --dir") {
		t.Fatalf("got %v", err)
	}
	if strings.Count(err.Error(), string(d)) != 1 {
		t.Errorf("the directory is not named once: %v", err)
	}
}

// What group or others may write is not trusted: the configuration (which
// may hold a database password), the records of peers and agents, and
// the directories that hold them and the keys. The message gives the fix.
func TestOpenRefusesWhatOthersMayWrite(t *testing.T) {
	for _, c := range []struct {
		rel  string
		mode os.FileMode
		key  string
	}{
		{"", 0o777, "gateway directory"},
		{"", 0o770, "gateway directory"},
		{"moltgate.toml", 0o666, "moltgate.toml"},
		{"moltgate.toml", 0o620, "moltgate.toml"},
		{"keys", 0o777, "keys/"},
		{"keys/agents", 0o707, "keys/agents/"},
		{"tls", 0o775, "tls/"},
		{"tls/cert.pem", 0o666, "tls/cert.pem"},
		{"peers", 0o777, "peers/"},
		{"peers/beta.json", 0o622, "peers/beta.json"},
		{"agents", 0o777, "agents/"},
		{"agents/bot.json", 0o666, "agents/bot.json"},
		{"data", 0o777, "data/"},
	} {
		t.Run(c.rel+" "+c.mode.String(), func(t *testing.T) {
			d := withPeer(t)
			if _, err := AddAgent(d, AddAgentOptions{ID: "bot"}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(string(d), filepath.FromSlash(c.rel))
			if err := os.Chmod(path, c.mode); err != nil {
				t.Fatal(err)
			}
			ce := openFails(t, d, c.key)
			if !strings.Contains(ce.Msg, "chmod go-w "+path) {
				t.Errorf("no fix in %q", ce)
			}
		})
	}
	// Readable by others is no mistake for what holds no secret.
	d := withPeer(t)
	for _, rel := range []string{"", "keys", "tls", "peers", "agents", "tls/cert.pem", "peers/beta.json"} {
		if err := os.Chmod(filepath.Join(string(d), rel), map[bool]os.FileMode{true: 0o755, false: 0o644}[!strings.Contains(rel, ".")]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown(t.Context())
}

// Init does not make a gateway in a directory others may write, which
// serve would refuse.
func TestInitRefusesADirectoryOthersMayWrite(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "acme"))
	if err := os.Mkdir(string(d), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(string(d), 0o775); err != nil {
		t.Fatal(err)
	}
	var ce *ConfigError
	if _, err := Init(d, InitOptions{Org: "acme"}); !errors.As(err, &ce) || ce.Key != "gateway directory" {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(d.OrgKeyPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("init wrote keys before it refused")
	}
}

// A gateway logs nothing until it serves, so that one that fails to start
// prints only its error; what came before is logged then, in order.
func TestNothingLoggedBeforeServing(t *testing.T) {
	d, ls := newTestDir(t, "acme", AddAgentOptions{ID: "bot", Capabilities: []string{"bot.chat"}})
	var buf logbuf.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	s, err := Open(Options{Dir: d, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	logged := buf.String
	// The local bridge reports the agent from another goroutine.
	time.Sleep(300 * time.Millisecond)
	if l := logged(); l != "" {
		t.Errorf("logged before serving:\n%s", l)
	}
	if ls.Core, err = localbridge.ListenUnix(d.CoreSocket()); err != nil {
		t.Fatal(err)
	}
	if ls.RPC, err = localbridge.ListenUnix(d.RPCSocket()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ls) }()
	eventually(t, "the serving line", func() error {
		l := logged()
		changed, serving := strings.Index(l, `"msg":"agent changed"`), strings.Index(l, `"msg":"gateway serving"`)
		if changed < 0 || serving < 0 {
			return errors.New("not logged")
		}
		if changed > serving {
			return errors.New("the held line came after the serving line")
		}
		return nil
	})
	s.Shutdown(t.Context())
	<-done
}

// A reload says, once per change, that moltgate.toml changed and is applied
// only by a restart, and what is wrong with it if anything is.
func TestReloadWarnsOfAChangedConfig(t *testing.T) {
	d, ls := newTestDir(t, "acme")
	g := start(t, d, ls, TransportWebSocket)
	ctx := t.Context()
	const warning = `"msg":"moltgate.toml changed; restart the gateway to apply it"`
	if err := g.s.Reload(ctx); err != nil || strings.Contains(g.logs(), warning) {
		t.Fatalf("reload of an unchanged config: %v\n%s", err, g.logs())
	}
	setConfig(t, d, `request_timeout = "30s"`, `request_timeout = "20s"`)
	for range 2 {
		if err := g.s.Reload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(g.logs(), warning); n != 1 {
		t.Fatalf("warned %d times, want once:\n%s", n, g.logs())
	}
	if g.s.Config().Listen.RequestTimeout.D() != 30*time.Second {
		t.Fatal("a reload applied the changed setting")
	}
	setConfig(t, d, `request_timeout = "20s"`, `request_timout = "20s"`)
	err := g.s.Reload(ctx)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "listen.request_timout" {
		t.Fatalf("reload of a config with a mistake: %v", err)
	}
	if n := strings.Count(g.logs(), warning); n != 2 {
		t.Fatalf("warned %d times, want twice:\n%s", n, g.logs())
	}
}

// A database server that refuses the gateway is the operator's to put
// right, named by the key that gave it.
func TestOpenRefusedByTheDatabase(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil || u.Scheme == "" {
		t.Skip("the test DSN is not a URL")
	}
	u.Path = "/moltgate_no_such_database"
	t.Setenv("MOLTGATE_POSTGRES_DSN", "")
	d := initDir(t, "acme", "127.0.0.1:9443")
	usePostgres(t, d, u.String())
	ce := openFails(t, d, "storage.dsn")
	if !strings.Contains(ce.Msg, "refused") {
		t.Errorf("got %q", ce)
	}
}

// TestRecordKeysAreExact: records are read with keys spelt exactly and set
// once, as moltgate.toml is: encoding/json alone would take "EXEC" for
// exec, and the last of two max_cls.
func TestRecordKeysAreExact(t *testing.T) {
	d := initDir(t, "acme", "127.0.0.1:9443")
	if _, err := AddAgent(d, AddAgentOptions{ID: "bot"}); err != nil {
		t.Fatal(err)
	}
	path := d.AgentsDir() + "/bot.json"
	for rec, want := range map[string]string{
		`{"id":"bot","max_cls":"pub","EXEC":["/bin/true"]}`: "config: agents/bot.json: EXEC: unknown setting",
		`{"id":"bot","max_cls":"pub","Max_Cls":"sec"}`:      "config: agents/bot.json: Max_Cls: unknown setting",
		`{"id":"bot","max_cls":"pub","max_cls":"sec"}`:      "config: agents/bot.json: max_cls: set twice",
	} {
		writeFile(t, path, rec)
		key := strings.TrimPrefix(want[:strings.LastIndex(want, ": ")], "config: ")
		if ce := openFails(t, d, key); ce.Error() != want {
			t.Errorf("%s: got %q, want %q", rec, ce, want)
		}
	}
}
