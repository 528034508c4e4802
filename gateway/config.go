package gateway

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

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
	Storage   StorageConfig   `toml:"storage"`
	Directory DirectoryConfig `toml:"directory"`
	Peers     PeersConfig     `toml:"peers"`
	Log       LogConfig       `toml:"log"`
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
	// MetricsFrom lists the networks ("10.0.0.0/8") and addresses that may
	// read /metrics, which names the peers and their circuits; anyone else
	// gets 403. An empty list serves it to nobody. Default loopback only:
	// ["127.0.0.0/8", "::1/128"].
	MetricsFrom []string `toml:"metrics_from"`
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
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
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
	case reflect.Slice: // of strings, the only lists the file has
		list, ok := v.([]any)
		for _, e := range list {
			if _, isString := e.(string); !isString {
				ok = false
			}
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
			DrainDelay: Duration(5 * time.Second), MetricsFrom: []string{"127.0.0.0/8", "::1/128"},
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
			PeerConcurrency: 64, DiscoveryPerMinute: 600,
		},
		Storage: StorageConfig{Driver: "sqlite"},
		Directory: DirectoryConfig{
			MinTTL: Duration(time.Minute), MaxTTL: Duration(24 * time.Hour), SyncInterval: Duration(5 * time.Minute),
		},
		Peers: PeersConfig{Transport: TransportWebSocket, ReplyWait: Duration(10 * time.Second)},
		Log:   LogConfig{Level: "info"},
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

// Validate checks a configuration read over defaultConfig.
func (c *Config) Validate() error {
	bad := func(key, format string, a ...any) error {
		return &ConfigError{Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	if c.Org == "" {
		return bad("org", "required")
	}
	if !wire.ValidName(c.Org) {
		return bad("org", "must match [A-Za-z0-9_-]{1,128}")
	}
	l := &c.Listen
	for _, a := range []struct{ key, addr string }{{"listen.address", l.Address}, {"listen.grpc", l.GRPC}} {
		if msg := hostPortMistake(a.addr); msg != "" {
			return bad(a.key, "%s", msg)
		}
	}
	if l.Address == l.GRPC {
		return bad("listen.grpc", "must differ from listen.address")
	}
	if !c.TLSEnabled() && (!loopback(l.Address) || !loopback(l.GRPC)) {
		return bad("listen.tls", "plain HTTP is allowed only on a loopback address")
	}
	// What peers are told is derived from where the gateway listens unless
	// the file says otherwise; an address on every interface names no
	// host a peer could reach (a peer document would say "https://:7443").
	if l.Advertise == "" {
		if everyInterface(l.Address) {
			return bad("listen.advertise", "required when listen.address (%q) listens on every interface: peers need the URL they reach this gateway at, e.g. \"https://gw.example.com:7443\"", l.Address)
		}
	} else if msg := advertiseMistake(l.Advertise, c.TLSEnabled()); msg != "" {
		return bad("listen.advertise", "%s", msg)
	}
	if l.AdvertiseGRPC == "" {
		if everyInterface(l.GRPC) {
			return bad("listen.advertise_grpc", "required when listen.grpc (%q) listens on every interface: peers need the HOST:PORT they reach its gRPC face at, e.g. \"gw.example.com:7444\"", l.GRPC)
		}
	} else if msg := hostPortMistake(l.AdvertiseGRPC); msg != "" {
		return bad("listen.advertise_grpc", "%s", msg)
	} else if everyInterface(l.AdvertiseGRPC) {
		return bad("listen.advertise_grpc", "%q names no host a peer can reach, e.g. \"gw.example.com:7444\"", l.AdvertiseGRPC)
	}
	for _, v := range l.MetricsFrom {
		if _, err := parseNetwork(v); err != nil {
			return bad("listen.metrics_from", "%q is neither a network such as 10.0.0.0/8 nor an address", v)
		}
	}
	if err := c.checkRanges(); err != nil {
		return err
	}
	lim := &c.Limits
	switch {
	case lim.BatchBytes < lim.MessageBytes:
		return bad("limits.batch_bytes", "must be at least limits.message_bytes (%d)", lim.MessageBytes)
	case lim.ChunkBytes > lim.MessageBytes:
		return bad("limits.chunk_bytes", "must be at most limits.message_bytes (%d)", lim.MessageBytes)
	case lim.SessionBytes < int64(lim.MessageBytes):
		return bad("limits.session_bytes", "must be at least limits.message_bytes (%d)", lim.MessageBytes)
	}
	for _, k := range []struct{ key, v string }{{"security.peer_max_cls", c.Security.PeerMaxCls}, {"security.agent_max_cls", c.Security.AgentMaxCls}} {
		if _, ok := wire.ParseClass(k.v); !ok {
			return bad(k.key, "must be one of pub, int, conf, pii, sec")
		}
	}
	switch c.Storage.Driver {
	case "sqlite":
		if c.Storage.DSN != "" {
			return bad("storage.dsn", "only for driver \"postgres\"")
		}
	case "postgres":
		if c.Storage.DSN == "" && os.Getenv("MOLTGATE_POSTGRES_DSN") == "" {
			return bad("storage.dsn", "required for driver \"postgres\" (or set MOLTGATE_POSTGRES_DSN)")
		}
	default:
		return bad("storage.driver", "must be \"sqlite\" or \"postgres\"")
	}
	if c.Directory.MinTTL > c.Directory.MaxTTL {
		return bad("directory.min_ttl", "must not exceed directory.max_ttl")
	}
	switch c.Peers.Transport {
	case TransportWebSocket, TransportGRPC, TransportHTTP:
	default:
		return bad("peers.transport", "must be \"websocket\", \"grpc\" or \"http\"")
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return bad("log.level", "must be debug, info, warn or error")
	}
	return nil
}

// A settingRange is the range a number in the file must lie in. The
// minima keep a gateway from being busy with itself or cutting off every
// call (a 1ns timeout, a sync every nanosecond, certificates renewed each
// second); the maxima keep one setting from undoing a protection (a
// read_header_timeout of years is no slowloris defence) or asking for
// more memory than a gateway should hold.
type settingRange struct {
	key    string
	lo, hi float64 // durations in nanoseconds
	// off, if set, is what a negative value does instead (sync_interval).
	off string
}

// settingRanges lists every number in the file with its range, in the
// file's order. The configuration file's comments quote them (bounds).
func settingRanges() []settingRange {
	const (
		KiB = 1 << 10
		MiB = 1 << 20
		GiB = 1 << 30
	)
	d := func(v time.Duration) float64 { return float64(v) }
	return []settingRange{
		{key: "listen.max_connections", lo: 1, hi: 100_000},
		{key: "listen.read_header_timeout", lo: d(time.Second), hi: d(time.Minute)},
		{key: "listen.idle_timeout", lo: d(time.Second), hi: d(time.Hour)},
		{key: "listen.request_timeout", lo: d(time.Second), hi: d(time.Hour)},
		// 0 is no delay; beyond minutes a gateway would seem not to stop.
		{key: "listen.drain_delay", lo: 0, hi: d(5 * time.Minute)},
		{key: "limits.message_bytes", lo: 4 * KiB, hi: 16 * MiB},
		{key: "limits.batch_bytes", lo: 4 * KiB, hi: 256 * MiB},
		{key: "limits.chunk_bytes", lo: 1 * KiB, hi: 16 * MiB},
		{key: "limits.session_bytes", lo: 4 * KiB, hi: 64 * GiB},
		{key: "limits.max_sessions", lo: 1, hi: 1_000_000},
		{key: "limits.max_in_flight", lo: 1, hi: 100_000},
		{key: "limits.max_hops", lo: 1, hi: 16},
		{key: "security.replay_window", lo: d(30 * time.Second), hi: d(time.Hour)},
		{key: "security.handshake_timeout", lo: d(time.Second), hi: d(2 * time.Minute)},
		{key: "security.session_ttl", lo: d(time.Minute), hi: d(24 * time.Hour)},
		{key: "security.cert_ttl", lo: d(time.Hour), hi: d(365 * 24 * time.Hour)},
		{key: "rate.peer_org_per_second", lo: 0.001, hi: 1_000_000},
		{key: "rate.peer_org_burst", lo: 1, hi: 10_000_000},
		{key: "rate.agent_per_second", lo: 0.001, hi: 1_000_000},
		{key: "rate.agent_burst", lo: 1, hi: 10_000_000},
		{key: "rate.peer_concurrency", lo: 1, hi: 100_000},
		{key: "rate.discovery_per_minute", lo: 1, hi: 1_000_000},
		{key: "directory.min_ttl", lo: d(10 * time.Second), hi: d(24 * time.Hour)},
		{key: "directory.max_ttl", lo: d(time.Minute), hi: d(30 * 24 * time.Hour)},
		{key: "directory.sync_interval", lo: d(10 * time.Second), hi: d(24 * time.Hour), off: "negative to turn scheduled sync off"},
		{key: "peers.reply_wait", lo: d(100 * time.Millisecond), hi: d(10 * time.Minute)},
	}
}

// checkRanges holds each number of c to its settingRange. NaN lies in no
// range: every comparison with it is false.
func (c *Config) checkRanges() error {
	def := defaultConfig()
	for _, r := range settingRanges() {
		v, ok := settingNumber(c, r.key)
		dv, _ := settingNumber(&def, r.key)
		if !ok {
			return &ConfigError{Key: r.key, Msg: "no such number setting"}
		}
		if (v >= r.lo && v <= r.hi) || (r.off != "" && v < 0) {
			continue
		}
		want := r.text()
		if r.off != "" {
			want += ", or " + r.off
		}
		return &ConfigError{Key: r.key, Msg: fmt.Sprintf("must be %s; leave it out for the default %s", want, r.format(dv))}
	}
	return nil
}

// text is the range as the file's comments and errors say it.
func (r settingRange) text() string {
	return "between " + r.format(r.lo) + " and " + r.format(r.hi)
}

func (r settingRange) format(v float64) string {
	if r.isDuration() {
		return formatDuration(time.Duration(v))
	}
	n := strconv.FormatFloat(v, 'f', -1, 64)
	if strings.HasSuffix(r.key, "_bytes") {
		for _, u := range []struct {
			name string
			size float64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if v >= u.size && v == u.size*float64(int64(v/u.size)) {
				return fmt.Sprintf("%s (%d %s)", n, int64(v/u.size), u.name)
			}
		}
	}
	return n
}

func (r settingRange) isDuration() bool {
	t, _ := settingType(toml.Key(strings.Split(r.key, ".")))
	return t == reflect.TypeFor[Duration]()
}

// formatDuration writes d as the file would: "5m", "720h", not "5m0s".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// settingNumber is the number in c that key names, as a float64
// (durations in nanoseconds).
func settingNumber(c *Config, key string) (float64, bool) {
	v := reflect.ValueOf(c).Elem()
	for _, part := range strings.Split(key, ".") {
		if v.Kind() != reflect.Struct {
			return 0, false
		}
		f, ok := fieldByTag(v.Type(), part)
		if !ok {
			return 0, false
		}
		v = v.FieldByIndex(f.Index)
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Float64:
		return v.Float(), true
	}
	return 0, false
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

// hostPortMistake says what is wrong with addr as a HOST:PORT to listen on
// and to tell peers, or "" if nothing is. The port must be a number: a
// service name or port 0 would listen somewhere other than what peers are
// told. An empty host is left to the caller.
func hostPortMistake(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Sprintf("%q is not HOST:PORT, e.g. \"127.0.0.1:7443\"", addr)
	}
	if host != "" && !validHost(host) {
		return fmt.Sprintf("host %q is neither an IP address nor a host name", host)
	}
	switch n, err := strconv.Atoi(port); {
	case err == nil && n == 0:
		return "port 0 (any free port) cannot be told to peers; give a port from 1 to 65535"
	case err != nil || n < 1 || n > 65535 || port != strconv.Itoa(n):
		return fmt.Sprintf("port %q must be a number from 1 to 65535", port)
	}
	return ""
}

// validHost reports whether h is an IP address or a host name (RFC 1123
// labels). A name whose last label is all digits is a mistyped IPv4
// address such as 300.1.1.1, not a name.
func validHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	name := strings.TrimSuffix(h, ".")
	if name == "" || len(name) > 253 {
		return false
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

// advertiseMistake says what is wrong with u as the base URL peers are
// told, or "" if nothing is. Peers append the paths they call, and pin the
// gateway's own certificate, so the URL is a scheme matching listen.tls and
// a reachable host: a path, query, fragment or user could only be
// mistaken.
func advertiseMistake(raw string, tlsOn bool) string {
	scheme := "https"
	if !tlsOn {
		scheme = "http"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Opaque != "" {
		return fmt.Sprintf("%q is not a URL such as \"%s://gw.example.com:7443\"", raw, scheme)
	}
	switch {
	case u.Scheme != scheme && tlsOn:
		return "must start https://: listen.tls is on"
	case u.Scheme != scheme:
		return "must start http://: listen.tls is off"
	case u.User != nil || u.Path != "" || strings.ContainsAny(raw, "?#"):
		return fmt.Sprintf("must be %s://HOST[:PORT] alone, with no path, query, fragment or user: peers add the paths they call", u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if !validHost(host) {
		return fmt.Sprintf("host %q is neither an IP address nor a host name", host)
	}
	if a, err := netip.ParseAddr(host); err == nil && a.IsUnspecified() {
		return fmt.Sprintf("host %q is no address a peer can reach", host)
	}
	if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 1 || n > 65535 || port != strconv.Itoa(n)) {
		return fmt.Sprintf("port %q must be a number from 1 to 65535", port)
	}
	return ""
}

// everyInterface reports whether addr, a valid HOST:PORT, listens on every
// interface: no host, 0.0.0.0 or ::.
func everyInterface(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	a, err := netip.ParseAddr(host)
	return host == "" || err == nil && a.IsUnspecified()
}

func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
