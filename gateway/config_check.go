package gateway

import (
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

// Validation of a configuration read over the defaults: the checks of each
// setting, the ranges numbers must lie in, and the addresses to listen on
// and to tell peers.

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
	if err := c.Peers.checkPeerPolicies(); err != nil {
		return err
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return bad("log.level", "must be debug, info, warn or error")
	}
	switch c.Audit.Decisions {
	case AuditBlocked, AuditAll:
	default:
		return bad("audit.decisions", "must be \"blocked\" or \"all\"")
	}
	if err := c.Tracing.Check(); err != nil {
		key, msg, _ := strings.Cut(err.Error(), ": ")
		return bad(key, "%s", msg)
	}
	return c.checkLocal()
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
		// A receipt waits at most a second for its batch's signature.
		{key: "audit.receipt_window", lo: d(time.Millisecond), hi: d(time.Second)},
		{key: "audit.receipt_batch", lo: 1, hi: 16384},
		{key: "listen.read_header_timeout", lo: d(time.Second), hi: d(time.Minute)},
		{key: "listen.idle_timeout", lo: d(time.Second), hi: d(time.Hour)},
		{key: "listen.request_timeout", lo: d(time.Second), hi: d(time.Hour)},
		// 0 is no delay; beyond minutes a gateway would seem not to stop.
		{key: "listen.drain_delay", lo: 0, hi: d(5 * time.Minute)},
		{key: "listen.drain_time", lo: d(100 * time.Millisecond), hi: d(time.Minute)},
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
		{key: "rate.local_queries", lo: 1, hi: 10_000},
		{key: "rate.local_requests_per_second", lo: 1, hi: 1_000_000, off: "negative for no limit"},
		{key: "local.withdraw_after", lo: d(time.Second), hi: d(24 * time.Hour)},
		{key: "directory.min_ttl", lo: d(10 * time.Second), hi: d(24 * time.Hour)},
		{key: "directory.max_ttl", lo: d(time.Minute), hi: d(30 * 24 * time.Hour)},
		{key: "directory.sync_interval", lo: d(10 * time.Second), hi: d(24 * time.Hour), off: "negative to turn scheduled sync off"},
		{key: "peers.reply_wait", lo: d(100 * time.Millisecond), hi: d(10 * time.Minute)},
		{key: "log.success_sample", lo: 0, hi: 1},
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
