package gateway

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// Config is a gateway's configuration, read from DIR/moltgate.toml. Every
// field states its default, which a key left out of the file takes; the
// range of every number is in settingRanges.
type Config struct {
	// Org is this gateway's organisation. Required.
	Org string `toml:"org"`

	Listen    ListenConfig    `toml:"listen"`
	Limits    LimitsConfig    `toml:"limits"`
	Security  SecurityConfig  `toml:"security"`
	Rate      RateConfig      `toml:"rate"`
	Local     LocalConfig     `toml:"local"`
	Storage   StorageConfig   `toml:"storage"`
	Directory DirectoryConfig `toml:"directory"`
	Peers     PeersConfig     `toml:"peers"`
	Log       LogConfig       `toml:"log"`
	// Tracing exports OpenTelemetry spans; see package tracing. Default
	// exporter "none".
	Tracing tracing.Config `toml:"tracing"`
	Audit   AuditConfig    `toml:"audit"`
}

// Audit decisions recorded.
const (
	AuditBlocked = "blocked"
	AuditAll     = "all"
)

// AuditConfig sets the audit trail: the boundary's decisions, as
// CloudEvents in a hash-chained ledger (DATA/data/audit.db, or the shared
// PostgreSQL database), and receipts of exchanges with peers.
type AuditConfig struct {
	// Decisions is which boundary decisions are recorded: "blocked"
	// (every message refused) or "all" (every message allowed too, at
	// a cost per message; see docs/benchmarks.md). Personal data sent or
	// received under a consent is recorded whatever this says. Default
	// "blocked".
	Decisions string `toml:"decisions"`
	// Receipts has the caller and callee of each exchange with a peer
	// sign a receipt of it, kept in both ledgers. Each side signs its
	// receipts in batches, one signature per batch, and sends the batch's
	// signed root to the other in one message; a receipt is complete a
	// few windows after its reply. Default false.
	Receipts bool `toml:"receipts"`
	// ReceiptWindow is how long a batch of receipts gathers before it is
	// signed. Default 50ms.
	ReceiptWindow Duration `toml:"receipt_window"`
	// ReceiptBatch is the number of receipts that has a batch signed
	// before its window ends. Default 256.
	ReceiptBatch int `toml:"receipt_batch"`
	// SinkURL, if set, is an HTTP collector that is sent a copy of each
	// event, in the background, never holding a call up: when it falls
	// behind, copies are dropped and counted. Default "" (none).
	SinkURL string `toml:"sink_url"`
}

// PeersConfig sets how this gateway calls its peers.
type PeersConfig struct {
	// Transport carries calls to peer gateways: "websocket" (default; one
	// connection per peer, pipelined), "grpc" (a bidirectional stream per
	// peer) or "http" (a request per message).
	Transport string `toml:"transport"`
	// ReplyWait is how long the HTTP face holds a request for its reply
	// before answering 202 and delivering the reply to the sender's
	// gateway later. Default 10s.
	ReplyWait Duration `toml:"reply_wait"`
	// Policy is how calls to every peer handle failures: retries per
	// OSSA class of failure and the circuit breaker. Default OSSA's
	// default handling (see PeerPolicyConfig).
	Policy PeerPolicyConfig `toml:"policy"`
	// Org overrides Policy for the peer of one organisation, key by key
	// ([peers.org.globex]). Default none.
	Org map[string]PeerPolicyConfig `toml:"org"`
}

// ListenConfig sets where and how the gateway listens.
type ListenConfig struct {
	// Address of the HTTPS face (messages, batch, WebSocket stream,
	// registry, health and metrics). Default "127.0.0.1:7443".
	Address string `toml:"address"`
	// GRPC is the address of the gRPC face. Default "127.0.0.1:7444".
	GRPC string `toml:"grpc"`
	// TLS turns TLS on. Default true; plain HTTP is allowed only when both
	// addresses are loopback.
	TLS *bool `toml:"tls"`
	// Advertise is the base URL peers use to reach the HTTPS face. Default
	// derived from Address ("https://ADDRESS").
	Advertise string `toml:"advertise"`
	// AdvertiseGRPC is the gRPC address given to peers. Default GRPC.
	AdvertiseGRPC string `toml:"advertise_grpc"`
	// MaxConnections bounds concurrent connections per face. Default 1024.
	MaxConnections int `toml:"max_connections"`
	// ReadHeaderTimeout bounds reading request headers. Default 5s.
	ReadHeaderTimeout Duration `toml:"read_header_timeout"`
	// IdleTimeout closes idle keep-alive connections. Default 2m.
	IdleTimeout Duration `toml:"idle_timeout"`
	// RequestTimeout is the deadline of a call that names none. Default 30s.
	RequestTimeout Duration `toml:"request_timeout"`
	// DrainDelay is how long a gateway that is shutting down answers
	// /readyz with 503 while it still serves everything else, so that a
	// load balancer polling it stops sending it connections before they
	// would be refused. It is taken only if /readyz was asked within the
	// last minute (or the last DrainDelay, if longer): a gateway that no
	// one polls for readiness has no one to warn, and stops at once. 0 never
	// waits. Default 5s.
	DrainDelay Duration `toml:"drain_delay"`
	// DrainTime is how long, after a body is refused as too large, the
	// HTTPS face waits for each further MiB of it, read and thrown away so
	// that a client that sends its whole body before it reads gets the 413
	// rather than a reset. At most 16 MiB is read. Default 5s.
	DrainTime Duration `toml:"drain_time"`
	// MetricsFrom lists the networks ("10.0.0.0/8") and addresses that may
	// read /metrics, which names the peers and their circuits; anyone else
	// gets 403. An empty list serves it to nobody. Default loopback only:
	// ["127.0.0.0/8", "::1/128"].
	MetricsFrom []string `toml:"metrics_from"`
	// TerminalSocket also serves the local JSON-RPC face where terminals of
	// the OpenAgent-Terminal IPC spec look for it:
	// $XDG_RUNTIME_DIR/openagent-terminal-PID.sock, or
	// /tmp/openagent-terminal-PID.sock without XDG_RUNTIME_DIR. Default
	// false: DIR/run/rpc.sock only.
	TerminalSocket bool `toml:"terminal_socket"`
}

// MetricsNetworks is MetricsFrom parsed; addresses are networks of one.
// It is meant for a validated configuration and skips what does not parse.
func (l *ListenConfig) MetricsNetworks() []netip.Prefix {
	var out []netip.Prefix
	for _, v := range l.MetricsFrom {
		if p, err := parseNetwork(v); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func parseNetwork(v string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(v); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(v)
	return p.Masked(), err
}

// LimitsConfig bounds sizes and counts.
type LimitsConfig struct {
	// MessageBytes bounds one message. Default 1 MiB.
	MessageBytes int `toml:"message_bytes"`
	// BatchBytes bounds a batch request. Default 10 MiB.
	BatchBytes int `toml:"batch_bytes"`
	// ChunkBytes bounds one stream chunk. Default 64 KiB.
	ChunkBytes int `toml:"chunk_bytes"`
	// SessionBytes bounds the bytes of one session. Default 100 MiB.
	SessionBytes int64 `toml:"session_bytes"`
	// MaxSessions bounds the sessions held at once. Default 10000.
	MaxSessions int `toml:"max_sessions"`
	// MaxInFlight bounds the calls being handled at once. Default 1024.
	MaxInFlight int `toml:"max_in_flight"`
	// MaxHops bounds how many gateways a message may cross. Default 4.
	MaxHops int `toml:"max_hops"`
}

// SecurityConfig sets the time windows and default ceilings.
type SecurityConfig struct {
	// ReplayWindow is how far ts may be from now. Default 5m.
	ReplayWindow Duration `toml:"replay_window"`
	// HandshakeTimeout bounds a handshake. Default 10s.
	HandshakeTimeout Duration `toml:"handshake_timeout"`
	// SessionTTL is a session's lifetime. Default 1h.
	SessionTTL Duration `toml:"session_ttl"`
	// PeerMaxCls is the ceiling of a peer imported without --max-cls.
	// Default "int".
	PeerMaxCls string `toml:"peer_max_cls"`
	// AgentMaxCls is the ceiling of a local agent added without
	// --max-cls. Default "conf".
	AgentMaxCls string `toml:"agent_max_cls"`
	// CertTTL is the validity of the identity certificates the gateway
	// issues to its agents. Default 720h.
	CertTTL Duration `toml:"cert_ttl"`
}

// RateConfig sets the token buckets and concurrency limits.
type RateConfig struct {
	// PeerOrgPerSecond and PeerOrgBurst limit each peer org. Defaults
	// 200/s, burst 400.
	PeerOrgPerSecond float64 `toml:"peer_org_per_second"`
	PeerOrgBurst     int     `toml:"peer_org_burst"`
	// AgentPerSecond and AgentBurst limit each sending agent. Defaults
	// 50/s, burst 100.
	AgentPerSecond float64 `toml:"agent_per_second"`
	AgentBurst     int     `toml:"agent_burst"`
	// PeerConcurrency bounds the calls of one peer org in flight. Default 64.
	PeerConcurrency int `toml:"peer_concurrency"`
	// DiscoveryPerMinute limits discovery queries per caller. Default 600.
	DiscoveryPerMinute int `toml:"discovery_per_minute"`
	// LocalQueries bounds the queries one connection to the local
	// JSON-RPC socket runs at once (OpenAgent-Terminal IPC's "max
	// concurrent queries"). Default 3.
	LocalQueries int `toml:"local_queries"`
	// LocalRequestsPerSecond bounds the requests one connection to the
	// local JSON-RPC socket sends a second; a client above it is read more
	// slowly. Negative: no limit. Default 100, the IPC protocol's.
	LocalRequestsPerSecond int `toml:"local_requests_per_second"`
}

// StorageConfig chooses the storage backend.
type StorageConfig struct {
	// Driver is "sqlite" (default; DIR/data/moltgate.db) or "postgres".
	Driver string `toml:"driver"`
	// DSN is the PostgreSQL connection string (postgres only). It may
	// also come from MOLTGATE_POSTGRES_DSN, which keeps the password out
	// of the file.
	DSN string `toml:"dsn"`
}

// DirectoryConfig tunes the directory.
type DirectoryConfig struct {
	// MinTTL and MaxTTL bound a registration's ttl. Defaults 1m and 24h.
	MinTTL Duration `toml:"min_ttl"`
	MaxTTL Duration `toml:"max_ttl"`
	// SyncInterval is how often peer registries are pulled. Default 5m;
	// a negative value turns scheduled sync off.
	SyncInterval Duration `toml:"sync_interval"`
}

// LogConfig tunes logging.
type LogConfig struct {
	// Level is debug, info, warn or error. Default info.
	Level string `toml:"level"`
	// SuccessSample is the share of calls from peers answered without
	// error that are logged at info ("call answered"), from 0 to 1.
	// Refusals are always logged. Default 1.
	SuccessSample float64 `toml:"success_sample"`
}

// Duration is a time.Duration written as a Go duration string in the file.
type Duration time.Duration

// UnmarshalText parses "5s", "2m", "1h30m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration (use e.g. \"5s\", \"1h\")")
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// ConfigError is one mistake in the configuration, naming its key.
type ConfigError struct {
	Key string
	Msg string
	Err error // the cause, if any
}

func (e *ConfigError) Error() string { return "config: " + e.Key + ": " + e.Msg }

func (e *ConfigError) Unwrap() error { return e.Err }

// OptionError is a command-line option given to a set-up command (init,
// agent add and remove, peer import) that is not valid: the caller's
// mistake, which moltgate reports as E_INVALID_PARAM.
type OptionError struct {
	Cmd    string // the command, e.g. "agent add"
	Option string // the option, e.g. "--id"
	Msg    string // what is wrong, starting with the option
	Err    error  // the cause, if any
}

func (e *OptionError) Error() string { return e.Cmd + ": " + e.Msg }

func (e *OptionError) Unwrap() error { return e.Err }

func optionErr(cmd, option, format string, args ...any) *OptionError {
	return &OptionError{Cmd: cmd, Option: option, Msg: fmt.Sprintf(format, args...)}
}

// ParseConfig reads a configuration file's text, fills the defaults and
// validates it. The first mistake is returned as a *ConfigError; unknown
// keys are mistakes too, so a misspelt setting is never silently ignored.
func ParseConfig(text string) (*Config, error) {
	// The file is read twice: first as plain TOML, to hold each key to its
	// exact spelling (the decoder matches struct fields case-insensitively,
	// so "TLS" after "tls" would silently win), then into Config.
	var raw map[string]any
	md, err := toml.Decode(text, &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, readMistake(text, pe)
		}
		return nil, &ConfigError{Key: "file", Msg: oneLine(err.Error()), Err: err}
	}
	for _, k := range md.Keys() {
		t, ok := settingType(k)
		if !ok {
			return nil, &ConfigError{Key: k.String(), Msg: "unknown setting"}
		}
		if msg := valueMistake(t, lookup(raw, k)); msg != "" {
			if t.Kind() == reflect.Struct {
				msg += " ([" + k.String() + "])"
			}
			return nil, &ConfigError{Key: k.String(), Msg: msg}
		}
	}
	c := defaultConfig()
	if _, err := toml.Decode(text, &c); err != nil {
		// Every value was checked against its field above.
		return nil, &ConfigError{Key: "file", Msg: oneLine(err.Error()), Err: err}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.deriveAdvertise()
	return &c, nil
}

// readMistake reports what the TOML reader refused. A mistake in a value
// names the key it was for; one in the file's structure, where the
// reader's last key may be an earlier line's, names only the line.
func readMistake(text string, pe toml.ParseError) *ConfigError {
	line := pe.Position.Line
	msg := strings.Replace(oneLine(pe.Message), " is out of range for int64", " is out of range", 1)
	if pe.LastKey != "" && assigns(text, line, pe.LastKey) {
		return &ConfigError{Key: pe.LastKey, Msg: fmt.Sprintf("line %d: %s", line, msg), Err: pe}
	}
	return &ConfigError{Key: fmt.Sprintf("line %d", line), Msg: msg, Err: pe}
}

// assigns reports whether line n (from 1) of text sets key's last part.
func assigns(text string, n int, key string) bool {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return false
	}
	name := key[strings.LastIndexByte(key, '.')+1:]
	rest, ok := strings.CutPrefix(strings.TrimSpace(lines[n-1]), name)
	return ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=")
}

// lookup is the value of key in the file as plain TOML, nil if it is not
// there (a part of it that is no table).
func lookup(raw map[string]any, key toml.Key) any {
	var v any = raw
	for _, part := range key {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	return v
}

// valueMistake says what is wrong with v as the value of a setting of
// type t, or "" if nothing is. Durations are parsed here, where the key is
// known, rather than in UnmarshalText, whose error the decoder reports by
// line only.
func valueMistake(t reflect.Type, v any) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[Duration]() {
		s, ok := v.(string)
		if !ok {
			return `must be a duration in quotes, e.g. "30s"`
		}
		if _, err := time.ParseDuration(s); err != nil {
			return fmt.Sprintf(`%q is not a duration; write e.g. "30s", "5m" or "1h"`, s)
		}
		return ""
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if _, ok := v.(map[string]any); !ok {
			return "must be a table"
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return "must be a string in quotes"
		}
	case reflect.Int, reflect.Int64:
		if _, ok := v.(int64); !ok {
			return "must be a whole number"
		}
	case reflect.Float64:
		switch v.(type) {
		case float64, int64:
		default:
			return "must be a number"
		}
	case reflect.Slice: // of strings, or of whole numbers (local.agent_uids)
		list, ok := v.([]any)
		for _, e := range list {
			switch e.(type) {
			case string:
				ok = ok && t.Elem().Kind() == reflect.String
			case int64:
				ok = ok && t.Elem().Kind() == reflect.Int64
			default:
				ok = false
			}
		}
		if !ok && t.Elem().Kind() == reflect.Int64 {
			return "must be a list of whole numbers, e.g. [1001, 1002]"
		}
		if !ok {
			return `must be a list of strings, e.g. ["10.0.0.0/8"]`
		}
	}
	return ""
}

// settingType is the type of the Config field that key names, spelt
// exactly as its toml tag; ok is false for a key that is no setting. It
// walks the key one part at a time, so that a quoted key holding a dot
// ("listen.tls" = …) is not taken for a nested one.
func settingType(key toml.Key) (t reflect.Type, ok bool) {
	t = reflect.TypeFor[Config]()
	for _, part := range key {
		if t.Kind() == reflect.Map {
			// A table of tables by name ([peers.org.ORG]): any name.
			t = t.Elem()
			continue
		}
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		f, found := fieldByTag(t, part)
		if !found {
			return nil, false
		}
		t = f.Type
	}
	return t, true
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("toml") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// LoadConfig reads DIR/moltgate.toml.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(string(b))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// defaultConfig is the configuration of a file that sets nothing but org.
// The file is decoded over it, so that a key left out keeps its default
// while a key written as 0 or "" is 0 or "", for Validate to refuse where
// that means nothing: an explicit zero is never silently a default.
func defaultConfig() Config {
	wl := wire.DefaultLimits()
	tlsOn := true
	return Config{
		Listen: ListenConfig{
			Address: "127.0.0.1:7443", GRPC: "127.0.0.1:7444", TLS: &tlsOn,
			MaxConnections: 1024, ReadHeaderTimeout: Duration(5 * time.Second),
			IdleTimeout: Duration(2 * time.Minute), RequestTimeout: Duration(30 * time.Second),
			DrainDelay: Duration(5 * time.Second), DrainTime: Duration(5 * time.Second), MetricsFrom: []string{"127.0.0.0/8", "::1/128"},
		},
		Limits: LimitsConfig{
			MessageBytes: wl.MaxMessage, BatchBytes: wl.MaxBatch, ChunkBytes: wl.MaxChunk,
			SessionBytes: wl.MaxSession, MaxSessions: 10000, MaxInFlight: 1024, MaxHops: 4,
		},
		Security: SecurityConfig{
			ReplayWindow: Duration(5 * time.Minute), HandshakeTimeout: Duration(10 * time.Second),
			SessionTTL: Duration(time.Hour), PeerMaxCls: "int", AgentMaxCls: "conf",
			CertTTL: Duration(720 * time.Hour),
		},
		Rate: RateConfig{
			PeerOrgPerSecond: 200, PeerOrgBurst: 400, AgentPerSecond: 50, AgentBurst: 100,
			PeerConcurrency: 64, DiscoveryPerMinute: 600, LocalQueries: 3, LocalRequestsPerSecond: 100,
		},
		Local:   defaultLocal(),
		Storage: StorageConfig{Driver: "sqlite"},
		Directory: DirectoryConfig{
			MinTTL: Duration(time.Minute), MaxTTL: Duration(24 * time.Hour), SyncInterval: Duration(5 * time.Minute),
		},
		Peers:   PeersConfig{Transport: TransportWebSocket, ReplyWait: Duration(10 * time.Second)},
		Log:     LogConfig{Level: "info", SuccessSample: 1},
		Tracing: tracing.Config{Exporter: tracing.ExporterNone},
		Audit:   AuditConfig{Decisions: AuditBlocked, ReceiptWindow: Duration(50 * time.Millisecond), ReceiptBatch: 256},
	}
}

// deriveAdvertise fills the addresses given to peers that the file leaves
// empty ("" is documented as "derived") from the addresses listened on.
func (c *Config) deriveAdvertise() {
	l := &c.Listen
	if l.Advertise == "" {
		scheme := "https"
		if !c.TLSEnabled() {
			scheme = "http"
		}
		l.Advertise = scheme + "://" + l.Address
	}
	if l.AdvertiseGRPC == "" {
		l.AdvertiseGRPC = l.GRPC
	}
}

// TLSEnabled reports whether the faces use TLS.
func (c *Config) TLSEnabled() bool { return c.Listen.TLS == nil || *c.Listen.TLS }

// WireLimits returns the codec limits the configuration sets.
func (c *Config) WireLimits() wire.Limits {
	return wire.Limits{
		MaxMessage: c.Limits.MessageBytes, MaxBatch: c.Limits.BatchBytes,
		MaxChunk: c.Limits.ChunkBytes, MaxSession: c.Limits.SessionBytes,
	}
}
