package gateway

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Dir is the directory a gateway lives in:
//
//	DIR/moltgate.toml         configuration (commented, every default shown)
//	DIR/keys/org.json         the org key (signs certificates) and the gateway's X25519 key, 0600
//	DIR/keys/agents/ID.json   each local agent's signing key, 0600
//	DIR/tls/cert.pem, key.pem the self-signed TLS certificate peers pin
//	DIR/peers/ORG.json        imported peer organisations
//	DIR/peers/pins.json       their pinned org keys
//	DIR/agents/ID.json        local agents (moltgate agent add)
//	DIR/data/                 storage (SQLite), 0700
//	DIR/run/                  local sockets, 0700
type Dir string

func (d Dir) path(p ...string) string { return filepath.Join(append([]string{string(d)}, p...)...) }

// ConfigPath is DIR/moltgate.toml.
func (d Dir) ConfigPath() string { return d.path("moltgate.toml") }

// OrgKeyPath is DIR/keys/org.json.
func (d Dir) OrgKeyPath() string { return d.path("keys", "org.json") }

// AgentKeyPath is DIR/keys/agents/ID.json.
func (d Dir) AgentKeyPath(id string) string { return d.path("keys", "agents", id+".json") }

// TLSCertPath and TLSKeyPath locate the TLS material.
func (d Dir) TLSCertPath() string { return d.path("tls", "cert.pem") }

// TLSKeyPath is DIR/tls/key.pem.
func (d Dir) TLSKeyPath() string { return d.path("tls", "key.pem") }

// PeersDir is DIR/peers.
func (d Dir) PeersDir() string { return d.path("peers") }

// PinsPath is DIR/peers/pins.json.
func (d Dir) PinsPath() string { return d.path("peers", "pins.json") }

// AgentsDir is DIR/agents.
func (d Dir) AgentsDir() string { return d.path("agents") }

// DataDir is DIR/data.
func (d Dir) DataDir() string { return d.path("data") }

// RunDir is DIR/run, where the local sockets live.
func (d Dir) RunDir() string { return d.path("run") }

// ErrNotInitialised is returned for a directory without a configuration.
var ErrNotInitialised = errors.New("not a gateway directory (run moltgate init)")

// ReadConfig reads and checks DIR/moltgate.toml. A directory without one,
// or a path that is no directory, is ErrNotInitialised; a configuration
// that is not a file, or has a mistake, is a *ConfigError.
func (d Dir) ReadConfig() (*Config, error) {
	text, err := d.configText()
	if err != nil {
		return nil, err
	}
	return ParseConfig(text)
}

// configText returns the text of DIR/moltgate.toml.
func (d Dir) configText() (string, error) {
	st, err := os.Stat(string(d))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: %w", d, ErrNotInitialised)
	case err != nil:
		return "", err
	case !st.IsDir():
		return "", fmt.Errorf("%s is a file: %w", d, ErrNotInitialised)
	}
	dirMode := st
	st, err = os.Stat(d.ConfigPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: %w", d, ErrNotInitialised)
	case err != nil:
		return "", err
	case st.IsDir():
		return "", &ConfigError{Key: "moltgate.toml", Msg: "is a directory, not the configuration file"}
	case !st.Mode().IsRegular():
		return "", &ConfigError{Key: "moltgate.toml", Msg: "is not a regular file"}
	}
	if err := notWritable(string(d), "gateway directory", dirMode); err != nil {
		return "", err
	}
	for _, sub := range []string{"keys", "keys/agents", "tls", "peers", "agents", "data", "run"} {
		path := d.path(filepath.FromSlash(sub))
		if st, err := os.Stat(path); err == nil {
			if err := notWritable(path, sub+"/", st); err != nil {
				return "", err
			}
		}
	}
	f, err := os.Open(d.ConfigPath())
	if err != nil {
		return "", fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	b, err := readChecked(f, "moltgate.toml")
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// notWritable refuses a file or directory of the gateway directory that
// group or others may write: who can change it can change whom the
// gateway trusts, what it runs, or where its data goes. Key files go
// further, and may not be readable either (keys.ErrPermissions).
func notWritable(path, name string, st fs.FileInfo) error {
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		return &ConfigError{Key: name, Msg: fmt.Sprintf("mode %04o: group or others may write it (run chmod go-w %s)", perm, path), Err: fs.ErrPermission}
	}
	return nil
}

// readChecked reads the open file f, named name in messages, refusing it
// if group or others may write it.
func readChecked(f *os.File, name string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := notWritable(f.Name(), name, st); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(f, 16<<20))
}

// InitOptions are the choices of moltgate init.
type InitOptions struct {
	Org    string
	Listen string // HTTPS address; default 127.0.0.1:7443
	// GRPC is the gRPC address; default the HTTPS port + 1.
	GRPC string
	// Passphrase, if set, encrypts the key files.
	Passphrase []byte
	Now        time.Time
}

// InitResult says what Init made.
type InitResult struct {
	OrgKey keys.Ed25519Public
	EncKey keys.X25519Public
	TLSPin string
	Config *Config
}

// Init makes a complete, working gateway directory: keys, a self-signed TLS
// certificate, a commented configuration and the data directories. It
// refuses a directory that already holds a gateway.
func Init(d Dir, opts InitOptions) (*InitResult, error) {
	if !wire.ValidName(opts.Org) {
		return nil, optionErr("init", "--org", "--org must match [A-Za-z0-9_-]{1,128}")
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:7443"
	}
	host, port, err := initListen(opts.Listen)
	if err != nil {
		return nil, err
	}
	if opts.GRPC == "" {
		opts.GRPC = net.JoinHostPort(host, strconv.Itoa(port+1))
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if _, err := os.Stat(d.ConfigPath()); err == nil {
		return nil, fmt.Errorf("init: %s already holds a gateway: %w", string(d), fs.ErrExist)
	}
	// The configuration is written last, so keys without it are those of
	// an init that stopped half way: never overwritten, as they may be in
	// use elsewhere.
	for _, rel := range []string{"keys/org.json", "tls/key.pem"} {
		if _, err := os.Lstat(d.path(filepath.FromSlash(rel))); err == nil {
			return nil, fmt.Errorf("init: %s holds the keys of an earlier init that did not finish (%s); remove the directory or use another --dir: %w",
				string(d), rel, fs.ErrExist)
		}
	}
	// A directory made beforehand must pass serve's check as the ones
	// made here do.
	if st, err := os.Stat(string(d)); err == nil {
		if err := notWritable(string(d), "gateway directory", st); err != nil {
			return nil, err
		}
	}
	tlsOn := true // on by default, loopback included
	cfgText, err := renderConfig(opts.Org, opts.Listen, opts.GRPC, tlsOn)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(cfgText)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	for _, sub := range []string{"", "keys", filepath.Join("keys", "agents"), "tls", "peers", "agents", "data", "run"} {
		if err := os.MkdirAll(d.path(sub), 0o700); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	gw, err := identity.Generate(rand.Reader, wire.Ref{Agent: GatewayAgent, Org: opts.Org})
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	if err := gw.Save(d.OrgKeyPath(), keys.WriteOptions{Passphrase: opts.Passphrase}); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	hosts := []string{host, "localhost", "127.0.0.1", "::1"}
	pin, err := WriteTLSCert(d.TLSCertPath(), d.TLSKeyPath(), opts.Org, hosts, opts.Now)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	// The configuration is written last: its presence marks a complete
	// directory.
	if err := writeFileAtomic(d.ConfigPath(), []byte(cfgText), 0o600); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	return &InitResult{OrgKey: gw.Signing.Public(), EncKey: gw.Encryption.Public(), TLSPin: pin, Config: cfg}, nil
}

// initListen checks init's --listen, from which both faces' addresses and
// what peers are told are written, so that init never writes a directory
// that cannot serve: the host must be one peers can reach, and the port
// must leave the next one for the gRPC face.
func initListen(addr string) (host string, port int, err error) {
	host, p, splitErr := net.SplitHostPort(addr)
	if splitErr != nil {
		return "", 0, optionErr("init", "--listen", "--listen must be HOST:PORT, e.g. 127.0.0.1:7443")
	}
	if everyInterface(addr) {
		return "", 0, optionErr("init", "--listen", "--listen %s names no host peers can reach: give this machine's address or name (to listen on every interface, set listen.address and listen.advertise in moltgate.toml after init)", addr)
	}
	if !validHost(host) {
		return "", 0, optionErr("init", "--listen", "--listen: host %q is neither an IP address nor a host name", host)
	}
	port, atoiErr := strconv.Atoi(p)
	if atoiErr != nil || port < 1 || port > 65534 || p != strconv.Itoa(port) {
		return "", 0, optionErr("init", "--listen", "--listen: port %q must be a number from 1 to 65534: the gRPC face listens on the next port", p)
	}
	return host, port, nil
}

// LoadOrg reads the org identity of d.
func LoadOrg(d Dir, passphrase []byte) (*identity.Agent, error) {
	if _, err := os.Stat(d.ConfigPath()); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", string(d), ErrNotInitialised)
	}
	return loadIdentity(d, "keys/org.json", passphrase)
}

// loadIdentity reads the identity file rel (a slash-separated path in d).
// A file that is not an identity file is a *ConfigError naming it; a wrong
// passphrase or a file others may read is not.
func loadIdentity(d Dir, rel string, passphrase []byte) (*identity.Agent, error) {
	a, err := identity.Load(d.path(filepath.FromSlash(rel)), passphrase)
	var fe *keys.FormatError
	if errors.As(err, &fe) {
		return nil, &ConfigError{Key: rel, Msg: "not a valid identity file: " + fe.Msg, Err: err}
	}
	return a, err
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

var configTemplate = template.Must(template.New("config").Funcs(template.FuncMap{
	"bounds": configBounds,
}).Parse(`# moltgate gateway configuration for organisation "{{.Org}}".
#
# Every setting is shown with its default; delete a line to get the default.
# Durations are written like "5s", "2m" or "1h". The gateway checks this file
# at start and refuses to start on any mistake, naming the key.

org = "{{.Org}}"

[listen]
# The HTTPS face: messages, batches, the WebSocket stream, the registry,
# /healthz, /readyz and /metrics.
address = "{{.Listen}}"
# The gRPC face (Send and Stream).
grpc = "{{.GRPC}}"
# TLS with the self-signed certificate in tls/; peers pin it. Plain HTTP
# (tls = false) is allowed only on loopback addresses.
tls = {{.TLS}}
# The URL peers use to reach this gateway; "" means derived from address.
advertise = ""
advertise_grpc = ""
# Connections held at once on each face, the local JSON-RPC socket too:
# {{bounds "listen.max_connections"}}.
max_connections = 1024
# How long a client may take to send a request's headers (the defence
# against slow senders): {{bounds "listen.read_header_timeout"}}.
read_header_timeout = "5s"
# How long an idle keep-alive connection stays open:
# {{bounds "listen.idle_timeout"}}.
idle_timeout = "2m"
# The deadline of a call that does not name one, and the longest time a
# request may take to arrive: {{bounds "listen.request_timeout"}}.
request_timeout = "30s"
# On shutdown, how long /readyz answers 503 while everything else is still
# served, so that a load balancer stops sending new connections here before
# they would be refused. Set it to at least the balancer's check interval
# times the failed checks it needs to take a backend out. Taken only if
# /readyz was asked within the last minute (or drain_delay, if longer); "0s"
# never waits; a second SIGINT or SIGTERM ends it:
# {{bounds "listen.drain_delay"}}.
drain_delay = "5s"
# After a request body is refused as too large, how long each further MiB
# of it may take to arrive; it is read and thrown away (16 MiB at most) so
# that a client that sends its whole body before reading sees the 413:
# {{bounds "listen.drain_time"}}.
drain_time = "5s"
# Who may read /metrics, which names this gateway's peers: networks or
# addresses, e.g. ["127.0.0.0/8", "::1/128", "10.1.2.0/24"]. [] serves it to
# nobody; everyone else gets 403.
metrics_from = ["127.0.0.0/8", "::1/128"]
# Also serve the local JSON-RPC socket (run/rpc.sock) where OpenAgent-Terminal
# clients look for it: $XDG_RUNTIME_DIR/openagent-terminal-PID.sock
# (/tmp/openagent-terminal-PID.sock without XDG_RUNTIME_DIR).
terminal_socket = false

[limits]
# The largest message, in bytes:
# {{bounds "limits.message_bytes"}}.
message_bytes = 1048576
# The largest batch request, at least message_bytes:
# {{bounds "limits.batch_bytes"}}.
batch_bytes = 10485760
# The largest stream chunk, at most message_bytes:
# {{bounds "limits.chunk_bytes"}}.
chunk_bytes = 65536
# The bytes one session carries before it is renewed, at least message_bytes:
# {{bounds "limits.session_bytes"}}.
session_bytes = 104857600
# Sessions held at once: {{bounds "limits.max_sessions"}}.
max_sessions = 10000
# Calls handled at once: {{bounds "limits.max_in_flight"}}.
max_in_flight = 1024
# How many gateways a message may cross before it is dropped:
# {{bounds "limits.max_hops"}}.
max_hops = 4

[security]
# How far a message's ts may be from now; ids are remembered this long:
# {{bounds "security.replay_window"}}.
replay_window = "5m"
# How long a handshake may take: {{bounds "security.handshake_timeout"}}.
handshake_timeout = "10s"
# A session's lifetime: {{bounds "security.session_ttl"}}.
session_ttl = "1h"
# Highest classification sent to or accepted from a peer imported without
# --max-cls, and a local agent added without --max-cls.
peer_max_cls = "int"
agent_max_cls = "conf"
# Validity of the identity certificates issued to local agents, renewed
# when half has passed: {{bounds "security.cert_ttl"}}.
cert_ttl = "720h"

[rate]
# Token buckets per peer organisation and per sending agent. Messages a
# second: {{bounds "rate.peer_org_per_second"}}.
peer_org_per_second = 200.0
# Messages at once above the rate: {{bounds "rate.peer_org_burst"}}.
peer_org_burst = 400
# Messages a second: {{bounds "rate.agent_per_second"}}.
agent_per_second = 50.0
# Messages at once above the rate: {{bounds "rate.agent_burst"}}.
agent_burst = 100
# Calls of one peer organisation in flight at once:
# {{bounds "rate.peer_concurrency"}}.
peer_concurrency = 64
# Discovery queries a minute per caller:
# {{bounds "rate.discovery_per_minute"}}.
discovery_per_minute = 600
# Queries one connection to the local JSON-RPC socket runs at once:
# {{bounds "rate.local_queries"}}.
local_queries = 3
# Requests a second one connection to the local JSON-RPC socket sends; a
# client above it is read more slowly: {{bounds "rate.local_requests_per_second"}},
# or negative for no limit.
local_requests_per_second = 100

[local]
# Agents this gateway does not launch (added without --exec; see moltgate
# agent token). The directory of the agent socket, core.sock: "" is DIR/run,
# private to this user; another (absolute) directory, owned by this user and
# writable by nobody else, can be shared with a container.
agent_socket_dir = ""
# User ids besides this gateway's own whose processes may connect to it.
agent_uids = []
# How long such an agent may stay disconnected before its directory entry
# is withdrawn: {{bounds "local.withdraw_after"}}.
withdraw_after = "2m"

[storage]
# "sqlite" keeps everything in data/moltgate.db. "postgres" shares the
# directory, replay window, revocations and rate state between replicas;
# give dsn here or in MOLTGATE_POSTGRES_DSN.
driver = "sqlite"
dsn = ""

[directory]
# The shortest ttl a registration may ask for:
# {{bounds "directory.min_ttl"}}.
min_ttl = "1m"
# The longest, which a registration without a ttl gets; at least min_ttl:
# {{bounds "directory.max_ttl"}}.
max_ttl = "24h"
# How often peer registries are pulled: {{bounds "directory.sync_interval"}};
# a negative value (e.g. "-1s") turns it off.
sync_interval = "5m"

[peers]
# How this gateway calls peer gateways: "websocket" (one pipelined
# connection per peer), "grpc" (one bidirectional stream per peer) or
# "http" (a request per message).
transport = "websocket"
# How long the HTTP face holds a request for its reply before answering
# 202 and delivering the reply to the sender's gateway later:
# {{bounds "peers.reply_wait"}}.
reply_wait = "10s"

# How calls to peers handle failures follows OSSA's default error handling
# (docs/protocol.md, "Retries and the circuit breaker"): a peer that cannot
# be reached or answers E_INTERNAL (TOOL_ERROR) is tried 3 more times, an
# E_TIMEOUT (TOOL_TIMEOUT) 2, an E_RATE_LIMIT (RATE_LIMITED) 3 after its
# retry_after, each only if the peer cannot have acted on the call or it is
# idempotent; 5 failures in a row open the peer's breaker for 1s, doubling
# to 32s. Every key may be set for all peers, or for one:
# [peers.policy]
# breaker_failures = 5
# breaker_cooldown = "1s"
# breaker_max_cooldown = "32s"
# [peers.policy.retry.TOOL_ERROR]
# retries = 3
# backoff = "100ms"
# max_backoff = "2s"
# breaker = true
# [peers.org.globex.retry.RATE_LIMITED]
# retries = 0

[log]
# debug, info, warn or error. Logs never hold keys, tokens, secret-class
# data, or unmasked personal data.
level = "info"
# The share of calls from peers answered without error that are logged at
# info ("call answered"): {{bounds "log.success_sample"}}. Every refusal is
# logged, at the level its kind has.
success_sample = 1.0

[tracing]
# OpenTelemetry spans, one per message and per pipeline step, per call to
# a peer and to a local agent: "none", "otlp-http", "otlp-grpc" (to the
# collector at endpoint, such as "http://127.0.0.1:4318") or "file" (JSON
# lines, one span a line, appended to path, relative to this directory).
exporter = "none"
# endpoint = "http://127.0.0.1:4318"
# path = "data/spans.jsonl"
# The share of new traces recorded, from 0 to 1, default 1; a trace a peer
# continues keeps the peer's decision.
# sample_ratio = 1.0
# "continue" (a trusted peer's trace is this gateway's parent) or "link"
# (a trace of this gateway's own, linked to the peer's). Default continue.
# peer_traces = "continue"

[audit]
# Which boundary decisions go in the audit ledger (data/audit.db, or the
# PostgreSQL database of [storage]), as CloudEvents chained by hash:
# "blocked" (every refusal) or "all" (every message allowed too, at a cost
# per message). Personal data sent or received under a consent is
# recorded either way. moltgate audit verify checks the chain.
decisions = "blocked"
# Have each exchange with a peer signed in a receipt by both gateways,
# kept in both ledgers (moltgate receipt verify checks one). Each side
# signs its receipts in batches, one signature a batch.
receipts = false
# How long a batch of receipts gathers before it is signed, and how many
# have it signed at once: a receipt is complete a few windows after its
# reply. {{bounds "audit.receipt_window"}}.
receipt_window = "50ms"
# {{bounds "audit.receipt_batch"}}.
receipt_batch = 256
# An HTTP collector sent a copy of each event, in the background; copies
# it cannot take in time are dropped and counted, never waited for.
sink_url = ""
`))

// configBounds says key's range and default in the configuration file's
// comments, from the table Validate holds the file to.
func configBounds(key string) (string, error) {
	def := defaultConfig()
	for _, r := range settingRanges() {
		if r.key == key {
			v, _ := settingNumber(&def, key)
			return r.text() + ", default " + r.format(v), nil
		}
	}
	return "", fmt.Errorf("config template: %s has no range", key)
}

func renderConfig(org, listen, grpc string, tlsOn bool) (string, error) {
	var b strings.Builder
	err := configTemplate.Execute(&b, map[string]any{"Org": org, "Listen": listen, "GRPC": grpc, "TLS": tlsOn})
	return b.String(), err
}
