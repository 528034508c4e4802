package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func TestConfigDefaultsAndTemplate(t *testing.T) {
	// The commented template init writes is exactly the defaults.
	text, err := renderConfig("acme", "127.0.0.1:7443", "127.0.0.1:7444", true)
	if err != nil {
		t.Fatal(err)
	}
	fromTemplate, err := ParseConfig(text)
	if err != nil {
		t.Fatal(err)
	}
	minimal, err := ParseConfig(`org = "acme"`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromTemplate, minimal) {
		t.Fatalf("template differs from defaults:\n%+v\n%+v", fromTemplate, minimal)
	}
	if minimal.Listen.Advertise != "https://127.0.0.1:7443" || minimal.Security.SessionTTL.D() != time.Hour {
		t.Fatalf("defaults: %+v", minimal)
	}
}

func TestConfigMistakesNameTheKey(t *testing.T) {
	cases := map[string]string{
		``:                       "org",
		`org = "a b"`:            "org",
		"org = \"a\"\nlimts = 1": "limts",
		"org = \"a\"\n[limits]\nmesage_bytes = 1":                      "limits.mesage_bytes",
		"org = \"a\"\n[limits]\nmessage_bytes = \"big\"":               "limits.message_bytes",
		"org = \"a\"\n[limits]\nmessage_bytes = 100":                   "limits.message_bytes",
		"org = \"a\"\n[security]\nreplay_window = \"forever\"":         "security.replay_window",
		"org = \"a\"\n[security]\npeer_max_cls = \"top\"":              "security.peer_max_cls",
		"org = \"a\"\n[listen]\naddress = \"0.0.0.0:80\"\ntls = false": "listen.tls",
		"org = \"a\"\n[listen]\ngrpc = \"127.0.0.1:7443\"":             "listen.grpc",
		"org = \"a\"\n[storage]\ndriver = \"mysql\"":                   "storage.driver",
		"org = \"a\"\n[log]\nlevel = \"loud\"":                         "log.level",
		"org = \"a\"\n[limits]\nmax_hops = 99":                         "limits.max_hops",
		"org = \"a\"\n[listen]\nmetrics_from = [\"10.0.0.0/33\"]":      "listen.metrics_from",
		"org = \"a\"\n[listen]\nmetrics_from = [\"localhost\"]":        "listen.metrics_from",
		"org = [":              "org",
		"org = \"a\"\nfoo bar": "line 2",
		// An explicit zero or empty value is not the default: where it
		// means nothing it is refused.
		"org = \"\"":                                          "org",
		"org = \"a\"\n[listen]\naddress = \"\"":               "listen.address",
		"org = \"a\"\n[listen]\nmax_connections = 0":          "listen.max_connections",
		"org = \"a\"\n[listen]\nread_header_timeout = \"0s\"": "listen.read_header_timeout",
		"org = \"a\"\n[listen]\nrequest_timeout = \"0s\"":     "listen.request_timeout",
		"org = \"a\"\n[limits]\nmessage_bytes = 0":            "limits.message_bytes",
		"org = \"a\"\n[limits]\nmax_sessions = 0":             "limits.max_sessions",
		"org = \"a\"\n[limits]\nmax_in_flight = 0":            "limits.max_in_flight",
		"org = \"a\"\n[limits]\nmax_hops = 0":                 "limits.max_hops",
		"org = \"a\"\n[rate]\npeer_org_per_second = 0.0":      "rate.peer_org_per_second",
		"org = \"a\"\n[rate]\nagent_per_second = 0":           "rate.agent_per_second",
		"org = \"a\"\n[rate]\npeer_org_burst = 0":             "rate.peer_org_burst",
		"org = \"a\"\n[rate]\nagent_burst = 0":                "rate.agent_burst",
		"org = \"a\"\n[rate]\npeer_concurrency = 0":           "rate.peer_concurrency",
		"org = \"a\"\n[security]\nagent_max_cls = \"\"":       "security.agent_max_cls",
		"org = \"a\"\n[security]\ncert_ttl = \"0s\"":          "security.cert_ttl",
		"org = \"a\"\n[storage]\ndriver = \"\"":               "storage.driver",
		"org = \"a\"\n[directory]\nsync_interval = \"0s\"":    "directory.sync_interval",
		"org = \"a\"\n[peers]\nreply_wait = \"0s\"":           "peers.reply_wait",
		"org = \"a\"\n[peers]\ntransport = \"\"":              "peers.transport",
		"org = \"a\"\n[log]\nlevel = \"\"":                    "log.level",
		// Keys are case-sensitive: a key spelt otherwise is not the
		// setting, even if the TOML decoder would match it loosely.
		"org = \"a\"\n[listen]\ntls = true\nTLS = false":           "listen.TLS",
		"org = \"a\"\n[Listen]\ntls = false":                       "Listen",
		"org = \"a\"\nORG = \"b\"":                                 "ORG",
		"Org = \"a\"":                                              "Org",
		"org = \"a\"\n[limits]\nMax_Hops = 2":                      "limits.Max_Hops",
		"org = \"a\"\n\"listen.tls\" = false":                      `"listen.tls"`,
		"org = \"a\"\n[limits.x]\ny = 1":                           "limits.x",
		"org = \"a\"\nlisten = {address = \"127.0.0.1:1\", X = 1}": "listen.X",
	}
	for text, key := range cases {
		_, err := ParseConfig(text)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%q: got %v, want a ConfigError", text, err)
			continue
		}
		if ce.Key != key {
			t.Errorf("%q: key %q (%v), want %q", text, ce.Key, err, key)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is not one line: %q", text, err)
		}
	}
}

// TestConfigMistakeLines: each mistake is one line that names the key and
// says, in the file's own terms, what the key takes.
func TestConfigMistakeLines(t *testing.T) {
	cases := []struct{ text, want string }{
		// A value that is not of the key's kind.
		{"[listen]\ntls = \"yes\"", `listen.tls: must be true or false`},
		{"[listen]\ntls = 1", `listen.tls: must be true or false`},
		{"[[log]]\nlevel = \"info\"", `log: must be a table ([log])`},
		{"log = 3", `log: must be a table ([log])`},
		{"[listen]\naddress = 7443", `listen.address: must be a string in quotes`},
		{"[listen]\nmax_connections = \"10\"", `listen.max_connections: must be a whole number`},
		{"[listen]\nmax_connections = 10.5", `listen.max_connections: must be a whole number`},
		{"[rate]\nagent_per_second = \"5\"", `rate.agent_per_second: must be a number`},
		{"[listen]\nmetrics_from = \"10.0.0.0/8\"", `listen.metrics_from: must be a list of strings, e.g. ["10.0.0.0/8"]`},
		{"[listen]\nmetrics_from = [\"10.0.0.0/8\", 1]", `listen.metrics_from: must be a list of strings, e.g. ["10.0.0.0/8"]`},
		{"[local]\nagent_uids = [\"1001\"]", `local.agent_uids: must be a list of whole numbers, e.g. [1001, 1002]`},
		{"[local]\nagent_uids = [-1]", `local.agent_uids: -1 is not a user id (0 to 4294967294)`},
		{"[local]\nagent_socket_dir = \"run/agents\"", `local.agent_socket_dir: must be an absolute path, not "run/agents"`},
		{"[local]\nwithdraw_after = \"500ms\"", `local.withdraw_after: must be between 1s and 24h; leave it out for the default 2m`},
		// Durations name their key, whatever is wrong with them.
		{"[security]\nreplay_window = \"forever\"", `security.replay_window: "forever" is not a duration; write e.g. "30s", "5m" or "1h"`},
		{"[listen]\nread_header_timeout = 5", `listen.read_header_timeout: must be a duration in quotes, e.g. "30s"`},
		{"[directory]\nsync_interval = \"5\"", `directory.sync_interval: "5" is not a duration; write e.g. "30s", "5m" or "1h"`},
		// Rates are finite, and each rate key is blamed for itself.
		{"[rate]\npeer_org_per_second = nan", `rate.peer_org_per_second: must be between 0.001 and 1000000; leave it out for the default 200`},
		{"[rate]\nagent_per_second = inf", `rate.agent_per_second: must be between 0.001 and 1000000; leave it out for the default 50`},
		{"[rate]\nagent_per_second = -inf", `rate.agent_per_second: must be between 0.001 and 1000000; leave it out for the default 50`},
		{"[rate]\npeer_org_burst = -1", `rate.peer_org_burst: must be between 1 and 10000000; leave it out for the default 400`},
		{"[rate]\nagent_burst = -1", `rate.agent_burst: must be between 1 and 10000000; leave it out for the default 100`},
		// Durations, sizes and counts have bounds, which the line states.
		{"[listen]\nread_header_timeout = \"1ns\"", `listen.read_header_timeout: must be between 1s and 1m; leave it out for the default 5s`},
		{"[listen]\nread_header_timeout = \"100000h\"", `listen.read_header_timeout: must be between 1s and 1m; leave it out for the default 5s`},
		{"[listen]\nrequest_timeout = \"1ns\"", `listen.request_timeout: must be between 1s and 1h; leave it out for the default 30s`},
		{"[listen]\nidle_timeout = \"1ns\"", `listen.idle_timeout: must be between 1s and 1h; leave it out for the default 2m`},
		{"[listen]\ndrain_delay = \"-1s\"", `listen.drain_delay: must be between 0s and 5m; leave it out for the default 5s`},
		{"[listen]\ndrain_delay = \"1h\"", `listen.drain_delay: must be between 0s and 5m; leave it out for the default 5s`},
		{"[directory]\nsync_interval = \"1ns\"", `directory.sync_interval: must be between 10s and 24h, or negative to turn scheduled sync off; leave it out for the default 5m`},
		{"[security]\ncert_ttl = \"1s\"", `security.cert_ttl: must be between 1h and 8760h; leave it out for the default 720h`},
		{"[security]\nreplay_window = \"1ns\"", `security.replay_window: must be between 30s and 1h; leave it out for the default 5m`},
		{"[security]\nhandshake_timeout = \"1ns\"", `security.handshake_timeout: must be between 1s and 2m; leave it out for the default 10s`},
		{"[security]\nsession_ttl = \"1ns\"", `security.session_ttl: must be between 1m and 24h; leave it out for the default 1h`},
		{"[peers]\nreply_wait = \"1ns\"", `peers.reply_wait: must be between 100ms and 10m; leave it out for the default 10s`},
		{"[limits]\nmessage_bytes = 9000000000000", `limits.message_bytes: must be between 4096 (4 KiB) and 16777216 (16 MiB); leave it out for the default 1048576 (1 MiB)`},
		{"[limits]\nbatch_bytes = 9000000000000", `limits.batch_bytes: must be between 4096 (4 KiB) and 268435456 (256 MiB); leave it out for the default 10485760 (10 MiB)`},
		{"[limits]\nsession_bytes = 9000000000000", `limits.session_bytes: must be between 4096 (4 KiB) and 68719476736 (64 GiB); leave it out for the default 104857600 (100 MiB)`},
		{"[listen]\nmax_connections = 99999999999999", `listen.max_connections: must be between 1 and 100000; leave it out for the default 1024`},
		{"[limits]\nmax_sessions = 99999999999999", `limits.max_sessions: must be between 1 and 1000000; leave it out for the default 10000`},
		{"[limits]\nbatch_bytes = 8192\nmessage_bytes = 16384", `limits.batch_bytes: must be at least limits.message_bytes (16384)`},
		{"[limits]\nchunk_bytes = 16384\nmessage_bytes = 8192\nbatch_bytes = 8192", `limits.chunk_bytes: must be at most limits.message_bytes (8192)`},
		// Listen addresses: a real host (or none), a numeric port peers
		// can be told; each mistake names the address's key, not the
		// advertised URL derived from it.
		{"[listen]\naddress = \"127.0.0.1:0\"", `listen.address: port 0 (any free port) cannot be told to peers; give a port from 1 to 65535`},
		{"[listen]\ngrpc = \"127.0.0.1:0\"", `listen.grpc: port 0 (any free port) cannot be told to peers; give a port from 1 to 65535`},
		{"[listen]\naddress = \"127.0.0.1:-1\"", `listen.address: port "-1" must be a number from 1 to 65535`},
		{"[listen]\naddress = \"127.0.0.1:https\"", `listen.address: port "https" must be a number from 1 to 65535`},
		{"[listen]\naddress = \"127.0.0.1:65536\"", `listen.address: port "65536" must be a number from 1 to 65535`},
		{"[listen]\naddress = \"127.0.0.1:+80\"", `listen.address: port "+80" must be a number from 1 to 65535`},
		{"[listen]\naddress = \" 127.0.0.1:7443\"", `listen.address: host " 127.0.0.1" is neither an IP address nor a host name`},
		{"[listen]\naddress = \"300.1.1.1:7443\"", `listen.address: host "300.1.1.1" is neither an IP address nor a host name`},
		{"[listen]\naddress = \"gw_1.example:7443\"", `listen.address: host "gw_1.example" is neither an IP address nor a host name`},
		{"[listen]\naddress = \"127.0.0.1\"", `listen.address: "127.0.0.1" is not HOST:PORT, e.g. "127.0.0.1:7443"`},
		{"[listen]\ngrpc = \"\"", `listen.grpc: "" is not HOST:PORT, e.g. "127.0.0.1:7443"`},
		// Listening on every interface names no host peers can reach, so
		// what they are told must be given.
		{"[listen]\naddress = \":7443\"", `listen.advertise: required when listen.address (":7443") listens on every interface: peers need the URL they reach this gateway at, e.g. "https://gw.example.com:7443"`},
		{"[listen]\naddress = \"0.0.0.0:7443\"", `listen.advertise: required when listen.address ("0.0.0.0:7443") listens on every interface: peers need the URL they reach this gateway at, e.g. "https://gw.example.com:7443"`},
		{"[listen]\naddress = \"[::]:7443\"\nadvertise = \"\"", `listen.advertise: required when listen.address ("[::]:7443") listens on every interface: peers need the URL they reach this gateway at, e.g. "https://gw.example.com:7443"`},
		{"[listen]\naddress = \"0.0.0.0:7443\"\ngrpc = \"0.0.0.0:7444\"\nadvertise = \"https://gw.example.com:7443\"", `listen.advertise_grpc: required when listen.grpc ("0.0.0.0:7444") listens on every interface: peers need the HOST:PORT they reach its gRPC face at, e.g. "gw.example.com:7444"`},
		// The advertised URL matches listen.tls and is a base alone.
		{"[listen]\nadvertise = \"http://gw.example.com:7443\"", `listen.advertise: must start https://: listen.tls is on`},
		{"[listen]\ntls = false\nadvertise = \"https://127.0.0.1:7443\"", `listen.advertise: must start http://: listen.tls is off`},
		{"[listen]\nadvertise = \"https://gw.example.com:7443?x=1\"", `listen.advertise: must be https://HOST[:PORT] alone, with no path, query, fragment or user: peers add the paths they call`},
		{"[listen]\nadvertise = \"https://gw.example.com:7443?\"", `listen.advertise: must be https://HOST[:PORT] alone, with no path, query, fragment or user: peers add the paths they call`},
		{"[listen]\nadvertise = \"https://gw.example.com:7443#top\"", `listen.advertise: must be https://HOST[:PORT] alone, with no path, query, fragment or user: peers add the paths they call`},
		{"[listen]\nadvertise = \"https://gw.example.com:7443/\"", `listen.advertise: must be https://HOST[:PORT] alone, with no path, query, fragment or user: peers add the paths they call`},
		{"[listen]\nadvertise = \"https://me:pw@gw.example.com:7443\"", `listen.advertise: must be https://HOST[:PORT] alone, with no path, query, fragment or user: peers add the paths they call`},
		{"[listen]\nadvertise = \"https://0.0.0.0:7443\"", `listen.advertise: host "0.0.0.0" is no address a peer can reach`},
		{"[listen]\nadvertise = \"https://gw_1.example.com\"", `listen.advertise: host "gw_1.example.com" is neither an IP address nor a host name`},
		{"[listen]\nadvertise = \"https://gw.example.com:0\"", `listen.advertise: port "0" must be a number from 1 to 65535`},
		{"[listen]\nadvertise = \"gw.example.com:7443\"", `listen.advertise: "gw.example.com:7443" is not a URL such as "https://gw.example.com:7443"`},
		{"[listen]\ntls = false\nadvertise = \"ftp://127.0.0.1\"", `listen.advertise: "ftp://127.0.0.1" is not a URL such as "http://gw.example.com:7443"`},
		// So is the gRPC address peers are told.
		{"[listen]\nadvertise_grpc = \"not an address\"", `listen.advertise_grpc: "not an address" is not HOST:PORT, e.g. "127.0.0.1:7443"`},
		{"[listen]\nadvertise_grpc = \"gw.example.com:0\"", `listen.advertise_grpc: port 0 (any free port) cannot be told to peers; give a port from 1 to 65535`},
		{"[listen]\nadvertise_grpc = \"gw.example.com:grpc\"", `listen.advertise_grpc: port "grpc" must be a number from 1 to 65535`},
		{"[listen]\nadvertise_grpc = \"https://gw.example.com:7444\"", `listen.advertise_grpc: "https://gw.example.com:7444" is not HOST:PORT, e.g. "127.0.0.1:7443"`},
		{"[listen]\nadvertise_grpc = \"300.1.1.1:7444\"", `listen.advertise_grpc: host "300.1.1.1" is neither an IP address nor a host name`},
		{"[listen]\nadvertise_grpc = \":7444\"", `listen.advertise_grpc: ":7444" names no host a peer can reach, e.g. "gw.example.com:7444"`},
		{"[listen]\nadvertise_grpc = \"0.0.0.0:7444\"", `listen.advertise_grpc: "0.0.0.0:7444" names no host a peer can reach, e.g. "gw.example.com:7444"`},
		// So do values the TOML reader itself refuses, with their line.
		{"[listen]\nmax_connections = 99999999999999999999", `listen.max_connections: line 3: 99999999999999999999 is out of range`},
		{"[listen]\ntls = tru", `listen.tls: line 3: expected value but found "tru" instead`},
		{"[listen]\ntls = true\n\nfoo bar", `line 5: expected '.' or '=', but got 'b' instead`},
		{"[listen] x = 1", `line 2: expected a top-level item to end with a newline, comment, or EOF, but got 'x' instead`},
	}
	for _, c := range cases {
		text := "org = \"a\"\n" + c.text
		_, err := ParseConfig(text)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%q: got %v, want a ConfigError", text, err)
			continue
		}
		if got, want := err.Error(), "config: "+c.want; got != want {
			t.Errorf("%q:\n got %s\nwant %s", text, got, want)
		}
	}
}

// TestConfigAccepts: what a file may say about where the gateway listens
// and what it tells peers.
func TestConfigAccepts(t *testing.T) {
	for _, listen := range []string{
		"address = \"localhost:7443\"\ngrpc = \"localhost:7444\"",
		"address = \"[::1]:7443\"\ngrpc = \"[::1]:7444\"",
		"address = \"gw.example.com:443\"\ngrpc = \"gw.example.com:444\"",
		"address = \"gw-1.example.com.:443\"\ngrpc = \"10.0.0.1:444\"",
		"advertise = \"https://gw.example.com\"",
		"advertise = \"https://[2001:db8::1]:7443\"",
		"tls = false\nadvertise = \"http://localhost:7443\"",
	} {
		text := "org = \"a\"\n[listen]\n" + listen
		if _, err := ParseConfig(text); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
	// On every interface, with what peers are told given.
	c, err := ParseConfig("org = \"a\"\n[listen]\naddress = \"0.0.0.0:7443\"\ngrpc = \":7444\"\n" +
		"advertise = \"https://gw.example.com:7443\"\nadvertise_grpc = \"gw.example.com:7444\"")
	if err != nil || c.Listen.Advertise != "https://gw.example.com:7443" || c.Listen.AdvertiseGRPC != "gw.example.com:7444" {
		t.Fatalf("every interface: %v", err)
	}
}

// TestConfigRanges: every bounded number is refused just outside its range,
// naming its key and the range, and the file's comment for the key states
// the same range.
func TestConfigRanges(t *testing.T) {
	text, err := renderConfig("acme", "127.0.0.1:7443", "127.0.0.1:7444", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range settingRanges() {
		section, name, _ := strings.Cut(r.key, ".")
		// Just outside: one below and above, or a millionth for the
		// large numbers a float64 holds only roughly.
		for _, v := range []float64{r.lo - max(1, math.Ceil(r.lo/1e6)), r.hi + max(1, math.Ceil(r.hi/1e6))} {
			value := strconv.FormatFloat(v, 'f', -1, 64)
			if r.isDuration() {
				value = strconv.Quote(time.Duration(v).String())
			}
			if r.off != "" && v < 0 {
				continue
			}
			file := fmt.Sprintf("org = \"a\"\n[%s]\n%s = %s", section, name, value)
			_, err := ParseConfig(file)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Key != r.key || !strings.Contains(ce.Msg, r.text()) {
				t.Errorf("%s = %s: got %v, want %s and %q", r.key, value, err, r.key, r.text())
			}
		}
		def := defaultConfig()
		dv, _ := settingNumber(&def, r.key)
		if want := r.text() + ", default " + r.format(dv); !strings.Contains(commentOf(text, section, name), want) {
			t.Errorf("the comment of %s in the configuration file does not say %q:\n%s", r.key, want, commentOf(text, section, name))
		}
	}
	// Every number the file may hold has a range.
	ranged := map[string]bool{}
	for _, r := range settingRanges() {
		ranged[r.key] = true
	}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			key := prefix + f.Tag.Get("toml")
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(key+".", f.Type)
			case reflect.Int, reflect.Int64, reflect.Float64:
				if !ranged[key] {
					t.Errorf("%s has no range", key)
				}
			}
		}
	}
	walk("", reflect.TypeFor[Config]())
	// A negative sync interval is not out of range: it turns sync off.
	c, err := ParseConfig("org = \"a\"\n[directory]\nsync_interval = \"-1s\"")
	if err != nil || c.Directory.SyncInterval.D() >= 0 {
		t.Fatalf("negative sync_interval: %v %v", c, err)
	}
	// Nor is an explicit zero drain delay: it is how to say "no delay",
	// not a mistaken default.
	c, err = ParseConfig("org = \"a\"\n[listen]\ndrain_delay = \"0s\"")
	if err != nil || c.Listen.DrainDelay != 0 {
		t.Fatalf("zero drain_delay: %v %v", c, err)
	}
}

// commentOf is the comment above key in section of a configuration file:
// the lines starting with # between the key and the previous setting.
func commentOf(text, section, key string) string {
	var comment []string
	in := ""
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "["):
			in, comment = strings.Trim(line, "[]"), nil
		case strings.HasPrefix(line, "#"):
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case line == "":
		default:
			if in == section && strings.HasPrefix(line, key+" ") {
				return strings.Join(comment, " ")
			}
			comment = nil
		}
	}
	return ""
}

func initDir(t *testing.T, org, listen string) Dir {
	t.Helper()
	d := Dir(filepath.Join(t.TempDir(), org))
	if _, err := Init(d, InitOptions{Org: org, Listen: listen}); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestInitMakesWorkingDir(t *testing.T) {
	d := initDir(t, "acme", "127.0.0.1:9443")
	cfg, err := d.ReadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Org != "acme" || cfg.Listen.GRPC != "127.0.0.1:9444" || !cfg.TLSEnabled() {
		t.Fatalf("config: %+v", cfg.Listen)
	}
	for _, p := range []string{d.OrgKeyPath(), d.TLSKeyPath(), d.ConfigPath()} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", p, st.Mode(), err)
		}
	}
	for _, p := range []string{d.DataDir(), d.RunDir(), string(d)} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v", p, st.Mode(), err)
		}
	}
	if _, err := Init(d, InitOptions{Org: "acme"}); err == nil {
		t.Fatal("init over an existing gateway")
	}
	if _, _, err := loadTLSCert(d); err != nil {
		t.Fatal(err)
	}
}

// TestInitChecksListen: init refuses a --listen it could not make a
// working gateway of, naming the option, and writes nothing.
func TestInitChecksListen(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":       `init: --listen must be HOST:PORT, e.g. 127.0.0.1:7443`,
		"127.0.0.1:65535": `init: --listen: port "65535" must be a number from 1 to 65534: the gRPC face listens on the next port`,
		"127.0.0.1:99999": `init: --listen: port "99999" must be a number from 1 to 65534: the gRPC face listens on the next port`,
		"127.0.0.1:0":     `init: --listen: port "0" must be a number from 1 to 65534: the gRPC face listens on the next port`,
		"127.0.0.1:https": `init: --listen: port "https" must be a number from 1 to 65534: the gRPC face listens on the next port`,
		"127.0.0.1:-5":    `init: --listen: port "-5" must be a number from 1 to 65534: the gRPC face listens on the next port`,
		"300.1.1.1:24851": `init: --listen: host "300.1.1.1" is neither an IP address nor a host name`,
		"0.0.0.0:7443":    `init: --listen 0.0.0.0:7443 names no host peers can reach: give this machine's address or name (to listen on every interface, set listen.address and listen.advertise in moltgate.toml after init)`,
		":7443":           `init: --listen :7443 names no host peers can reach: give this machine's address or name (to listen on every interface, set listen.address and listen.advertise in moltgate.toml after init)`,
	}
	for listen, want := range cases {
		d := Dir(filepath.Join(t.TempDir(), "acme"))
		_, err := Init(d, InitOptions{Org: "acme", Listen: listen})
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "--listen" || err.Error() != want {
			t.Errorf("--listen %s: got %v, want %s", listen, err, want)
		}
		if _, err := os.Stat(string(d)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("--listen %s: init wrote %s", listen, d)
		}
	}
	// The highest port that leaves one for gRPC.
	cfg, err := LoadConfig(initDir(t, "acme", "localhost:65534").ConfigPath())
	if err != nil || cfg.Listen.GRPC != "localhost:65535" {
		t.Fatalf("--listen localhost:65534: %v", err)
	}
}

func TestPeerExportImport(t *testing.T) {
	acme := initDir(t, "acme", "127.0.0.1:9443")
	globex := initDir(t, "globex", "127.0.0.1:9543")
	doc, err := ExportPeer(acme, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	p, err := ImportPeer(globex, doc, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Org != "acme" || p.MaxCls != wire.Int || !strings.HasPrefix(p.TLSPin, PinPrefix) || p.Endpoint != "https://127.0.0.1:9443" {
		t.Fatalf("peer: %+v", p)
	}
	peers, err := LoadPeers(globex, "globex")
	if err != nil || len(peers) != 1 {
		t.Fatalf("load peers: %v %v", peers, err)
	}
	if _, err := ImportPeer(globex, doc, ImportOptions{MaxCls: "conf"}); err != nil {
		t.Fatalf("re-import: %v", err)
	}
	// What is not a good peer document is the input's mistake, named by
	// its field, and says it is about the peer document.
	for _, c := range []struct {
		doc, code, field string
	}{
		{`not json`, string(wire.ErrParse), ""},
		{`{"type":"something.else"}`, string(wire.ErrInvalidParam), "type"},
		{strings.Replace(string(doc), `"endpoint":"https`, `"endpoint":"ftp`, 1), string(wire.ErrInvalidParam), "endpoint"},
		// What a peer file may not hold, a peer document may not either.
		{strings.Replace(string(doc), `"endpoint":"https://127.0.0.1`, `"endpoint":"http://gateway.example.org`, 1), string(wire.ErrInvalidParam), "endpoint"},
		{strings.Replace(string(doc), `"grpc":"127.0.0.1:9444"`, `"grpc":"nope"`, 1), string(wire.ErrInvalidParam), "grpc"},
		{strings.Replace(string(doc), `"tls_pin":"sha256:`, `"tls_pin":"sha256:x`, 1), string(wire.ErrInvalidParam), "tls_pin"},
		{`{"type":"moltgate.peer.v1","org":5}`, string(wire.ErrSchema), "org"},
	} {
		_, err := ImportPeer(globex, []byte(c.doc), ImportOptions{})
		var we *wire.Error
		if !errors.As(err, &we) || string(we.Code) != c.code || we.Field != c.field || !strings.Contains(err.Error(), "peer document") {
			t.Errorf("%.40s: got %v, want %s at %q", c.doc, err, c.code, c.field)
		}
	}
	// A document altered in transit is refused.
	bad := strings.Replace(string(doc), "9443", "6666", 1)
	if _, err := ImportPeer(globex, []byte(bad), ImportOptions{}); err == nil {
		t.Fatal("imported an altered document")
	}
	// Another key for acme is refused without --replace.
	impostor := initDir(t, "acme", "127.0.0.1:9643")
	doc2, _ := ExportPeer(impostor, nil, time.Now())
	if _, err := ImportPeer(globex, doc2, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("key change: %v", err)
	}
	if _, err := ImportPeer(globex, doc2, ImportOptions{Replace: true}); err != nil {
		t.Fatalf("replace: %v", err)
	}
	// Own org.
	own, _ := ExportPeer(globex, nil, time.Now())
	if _, err := ImportPeer(globex, own, ImportOptions{}); err == nil {
		t.Fatal("imported itself")
	}
	// A tampered peer file is caught by the pin.
	raw, _ := os.ReadFile(filepath.Join(globex.PeersDir(), "acme.json"))
	k, _ := keys.GenerateEd25519(strings.NewReader(strings.Repeat("x", 32)))
	cur, _ := LoadPeers(globex, "globex")
	tampered := strings.Replace(string(raw), cur[0].OrgKey.String(), k.Public().String(), 1)
	if tampered == string(raw) {
		t.Fatal("test did not change the file")
	}
	os.WriteFile(filepath.Join(globex.PeersDir(), "acme.json"), []byte(tampered), 0o600)
	if _, err := LoadPeers(globex, "globex"); err == nil {
		t.Fatal("a peer file with another key loaded")
	}
}

func TestAgentAdd(t *testing.T) {
	d := initDir(t, "acme", "127.0.0.1:9443")
	a, err := AddAgent(d, AddAgentOptions{ID: "weather", Exec: `/usr/bin/env python3 -c 'print("hi there")'`, Capabilities: []string{"weather.forecast"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/usr/bin/env", "python3", "-c", `print("hi there")`}; !reflect.DeepEqual(a.Exec, want) {
		t.Fatalf("exec %q", a.Exec)
	}
	if a.MaxCls != wire.Conf || a.Visibility != "public" {
		t.Fatalf("defaults: %+v", a)
	}
	id, err := LoadAgentIdentity(d, "weather", nil)
	if err != nil {
		t.Fatal(err)
	}
	org, _ := LoadOrg(d, nil)
	if !id.Encryption.Public().Equal(org.Encryption.Public()) || id.Ref.Org != "acme" {
		t.Fatal("agent identity does not receive through the gateway")
	}
	if _, err := AddAgent(d, AddAgentOptions{ID: "weather"}); err == nil {
		t.Fatal("added twice")
	}
	for _, bad := range []AddAgentOptions{{ID: "gateway"}, {ID: "x y"}, {ID: "a", MaxCls: "top"}, {ID: "b", Capabilities: []string{"not a cap"}}, {ID: "c", Exec: `"open`}} {
		if _, err := AddAgent(d, bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	all, err := LoadAgents(d)
	if err != nil || len(all) != 1 {
		t.Fatalf("load: %v %v", all, err)
	}
}

func TestSplitCommand(t *testing.T) {
	cases := map[string][]string{
		`a b  c`:               {"a", "b", "c"},
		`a 'b c' "d \"e\" \\"`: {"a", "b c", `d "e" \`},
		`a\ b`:                 {"a b"},
		``:                     nil,
		`x '' y`:               {"x", "", "y"},
	}
	for in, want := range cases {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}

// An address another process holds fails with the config key to change,
// the address, and the system's reason, which errors.Is still finds.
func TestListenNamesTheKey(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	_, err = listenTCP("listen.grpc", addr)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "listen.grpc" || !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("got %v", err)
	}
	if want := "config: listen.grpc: cannot listen on " + addr + ": bind: address already in use"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}

// TestListenSocketMistakes: what stops a local socket from being made is the operator's to put
// right (the run directory open to others, a file in the way), so it is a ConfigError naming
// the socket and saying what to do, as other mistakes in the gateway directory are.
func TestListenSocketMistakes(t *testing.T) {
	d, ls := newTestDir(t, "acme")
	ls.HTTP.Close()
	ls.GRPC.Close()
	if err := os.Chmod(d.RunDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(t.Context())
	_, err = s.Listen()
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "run/core.sock" {
		t.Fatalf("got %v, want a ConfigError naming run/core.sock", err)
	}
	want := "config: run/core.sock: socket directory " + d.RunDir() + " has mode 0755; it must be 0700 (run chmod 700 " + d.RunDir() + ")"
	if err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}
