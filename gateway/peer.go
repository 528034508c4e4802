package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// PeerDocType marks an exported peer document.
const PeerDocType = "moltgate.peer.v1"

// PeerDoc is what `moltgate peer export` prints: an organisation's public
// identity, where to reach its gateway and the pin of its TLS certificate,
// signed with its org key:
//
//	{"type":"moltgate.peer.v1","org":"acme","org_key":"ed25519:…","enc_key":"x25519:…",
//	 "endpoint":"https://127.0.0.1:7443","grpc":"127.0.0.1:7444","tls_pin":"sha256:…",
//	 "issued_at":1800000000000,"sig":"ed25519:…"}
//
// The signature (over the RFC 8785 form without "sig") shows the document
// was made by the holder of org_key and was not altered in transit; whether
// to trust that key is the importer's decision.
type PeerDoc struct {
	Type     string             `json:"type"`
	Org      string             `json:"org"`
	OrgKey   keys.Ed25519Public `json:"org_key"`
	EncKey   keys.X25519Public  `json:"enc_key"`
	Endpoint string             `json:"endpoint"`
	GRPC     string             `json:"grpc"`
	TLSPin   string             `json:"tls_pin"`
	IssuedAt int64              `json:"issued_at"`
	// Revocations is the organisation's signed revocation list, when it
	// has revoked anything: an importer holds it from the start.
	Revocations wire.Value `json:"revocations,omitempty"`
	// Handovers are the organisation's signed handover statements, when
	// it has rotated its org key or TLS certificate: an importer that
	// pinned an earlier key follows them to this document's.
	Handovers wire.Value     `json:"handovers,omitempty"`
	Sig       keys.Signature `json:"sig"`
}

func (p *PeerDoc) signingBytes() ([]byte, error) {
	v, err := wire.ValueOf(p)
	if err != nil {
		return nil, err
	}
	return wire.AppendCanonical(nil, v.Without("sig")), nil
}

// ExportPeer makes this gateway's signed peer document.
func ExportPeer(d Dir, passphrase []byte, now time.Time) ([]byte, error) {
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	org, err := LoadOrg(d, passphrase)
	if err != nil {
		return nil, err
	}
	_, pin, err := loadTLSCert(d)
	if err != nil {
		return nil, err
	}
	doc := &PeerDoc{
		Type: PeerDocType, Org: cfg.Org, OrgKey: org.Signing.Public(), EncKey: org.Encryption.Public(),
		Endpoint: cfg.Listen.Advertise, GRPC: cfg.Listen.AdvertiseGRPC, TLSPin: pin, IssuedAt: now.UnixMilli(),
	}
	if !cfg.TLSEnabled() {
		doc.TLSPin = ""
	}
	if doc.Revocations, err = exportRevocations(d, cfg.Org, org.Signing.Public()); err != nil {
		return nil, err
	}
	if doc.Handovers, err = exportHandovers(d); err != nil {
		return nil, err
	}
	msg, err := doc.signingBytes()
	if err != nil {
		return nil, err
	}
	doc.Sig = org.Signing.Sign(msg)
	v, _ := wire.ValueOf(doc)
	return wire.AppendCanonical(nil, v), nil
}

// ParsePeerDoc reads and checks a peer document: its shape and its
// self-signature.
func ParsePeerDoc(b []byte) (*PeerDoc, error) {
	v, err := wire.Parse(b, 8)
	if err != nil {
		return nil, inPeerDoc(err)
	}
	doc := new(PeerDoc)
	if err := wire.Bind(v, doc, ""); err != nil {
		return nil, inPeerDoc(err)
	}
	// What is wrong with a document is the input's mistake, named by its
	// field: E_INVALID_PARAM, as for any other bad input to a command.
	bad := func(field, msg string) (*PeerDoc, error) {
		return nil, wire.Errorf(wire.ErrInvalidParam, field, "%s", msg)
	}
	switch {
	case doc.Type != PeerDocType:
		return bad("type", "not a peer document: want "+PeerDocType+", as moltgate peer export prints")
	case !wire.ValidName(doc.Org):
		return bad("org", "the peer document's org is not a valid name")
	case doc.OrgKey.IsZero():
		return bad("org_key", "the peer document has no org key")
	case doc.EncKey.IsZero():
		return bad("enc_key", "the peer document has no encryption key")
	}
	// The same checks as a peer file's at start, so that what is imported
	// is never refused there.
	if field, msg := checkReach(doc.Endpoint, doc.GRPC, doc.TLSPin); field != "" {
		return bad(field, "the peer document's "+field+" "+msg)
	}
	msg := wire.AppendCanonical(nil, v.Without("sig"))
	if !doc.OrgKey.Verify(msg, doc.Sig) {
		return nil, wire.Errorf(wire.ErrSignature, "sig", "peer document signature does not verify")
	}
	if _, err := docRevocations(doc); err != nil {
		return nil, err
	}
	if _, err := docHandovers(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// inPeerDoc says that err, from reading a peer document, is about one: the
// protocol error keeps its code and field, and its message says where.
func inPeerDoc(err error) error {
	var we *wire.Error
	if !errors.As(err, &we) {
		return fmt.Errorf("peer document: %w", err)
	}
	e := *we
	e.Message = "peer document: " + e.Message
	return &e
}

// Peer is an imported peer organisation.
type Peer = peers.Peer

// Transports for calls to peers.
const (
	TransportWebSocket = peers.TransportWebSocket
	TransportGRPC      = peers.TransportGRPC
	TransportHTTP      = peers.TransportHTTP
)

// ImportOptions are the choices of moltgate peer import.
type ImportOptions struct {
	// MaxCls is the peer's ceiling; empty means the configured default.
	MaxCls string
	// Replace allows a new org key for an already imported org (rotation).
	Replace bool
	// ExpectFingerprint, if set, is the fingerprint of the org key agreed
	// out of band (keys.Ed25519Public.Fingerprint): a document under any
	// other key is refused before anything is trusted.
	ExpectFingerprint string
	Now               time.Time
}

// ImportPeer trusts the organisation of a peer document: it pins its org
// key and records its endpoint, TLS pin and ceiling.
func ImportPeer(d Dir, b []byte, opts ImportOptions) (*Peer, error) {
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	doc, err := ParsePeerDoc(b)
	if err != nil {
		return nil, err
	}
	if doc.Org == cfg.Org {
		return nil, wire.Errorf(wire.ErrInvalidParam, "org", "peer import: %s is this gateway's own organisation: import the other organisation's document", doc.Org)
	}
	if opts.ExpectFingerprint != "" && !doc.OrgKey.FingerprintMatches(opts.ExpectFingerprint) {
		return nil, fingerprintRefusal(&FingerprintError{Org: doc.Org, Got: doc.OrgKey.Fingerprint(), Want: opts.ExpectFingerprint})
	}
	clsText := opts.MaxCls
	if clsText == "" {
		clsText = cfg.Security.PeerMaxCls
	}
	cls, ok := wire.ParseClass(clsText)
	if !ok {
		return nil, optionErr("peer import", "--max-cls", "--max-cls must be one of pub, int, conf, pii, sec")
	}
	pins, err := openPins(d)
	if err != nil {
		return nil, err
	}
	if opts.Replace {
		err = pins.Replace(doc.Org, doc.OrgKey, doc.EncKey)
	} else {
		// A peer that rotated its org key since it was imported carries
		// the statements its old key signed: followed from the key
		// pinned, they lead to the document's.
		sts, _ := docHandovers(doc)
		if _, err := followHandovers(pins, doc.Org, sts); err != nil {
			return nil, err
		}
		err = pins.Pin(doc.Org, doc.OrgKey, doc.EncKey)
	}
	var mm *keys.MismatchError
	if errors.As(err, &mm) {
		return nil, fmt.Errorf("peer import: %s is already imported with another org key; check with them out of band, then import with --replace: %w", doc.Org, mm)
	}
	if err != nil {
		return nil, err
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	p := &Peer{Org: doc.Org, OrgKey: doc.OrgKey, EncKey: doc.EncKey, Endpoint: doc.Endpoint, GRPC: doc.GRPC,
		TLSPin: doc.TLSPin, MaxCls: cls, ImportedAt: opts.Now.UTC()}
	out, _ := json.MarshalIndent(p, "", "  ")
	if err := writeFileAtomic(filepath.Join(d.PeersDir(), doc.Org+".json"), append(out, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("peer import: %w", err)
	}
	if err := importRevocations(d, doc, opts.Replace); err != nil {
		return nil, err
	}
	return p, nil
}

// EditPeer rewrites the peer file of org with what edit changes, as a
// serving gateway does when a peer hands over its org key or TLS pin;
// edit reports whether it changed anything. The file is read as at start
// but for its pin, which the handover moved on: edit makes the file agree
// with it.
func EditPeer(d Dir, org string, edit func(p *Peer) bool) error {
	path := filepath.Join(d.PeersDir(), org+".json")
	var f peerFile
	if err := readRecord(path, "peers/"+org+".json", &f); err != nil {
		return err
	}
	p, err := f.peer()
	if err != nil {
		return err
	}
	if !edit(p) {
		return nil
	}
	out, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, append(out, '\n'), 0o600); err != nil {
		return fmt.Errorf("peer %s: %w", org, err)
	}
	return nil
}

// LoadPeers reads every imported peer of the gateway of org own, checking
// each as peer import checks a peer document and against its pin. A
// mistake in a peer file or the pin file is a *ConfigError naming the file
// and the key.
func LoadPeers(d Dir, own string) ([]*Peer, error) {
	pins, err := openPins(d)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(d.PeersDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var out []*Peer
	for _, e := range ents {
		name := e.Name()
		// Files being written (".ORG.json.tmp…") are not peers yet.
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") || name == "pins.json" {
			continue
		}
		p, err := readPeer(filepath.Join(d.PeersDir(), name), own, pins)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Org < out[j].Org })
	return out, nil
}

// openPins opens DIR/peers/pins.json. A mistake in it is a *ConfigError
// naming the file and the entry's field.
func openPins(d Dir) (*keys.PinStore, error) {
	pins, err := keys.OpenPinStore(d.PinsPath(), nil)
	return pins, pinsError(err)
}

func pinsError(err error) error {
	var pe *keys.PinFileError
	if !errors.As(err, &pe) {
		return err
	}
	key := "peers/pins.json"
	if pe.Field != "" {
		key += ": " + pe.Field
	}
	return &ConfigError{Key: key, Msg: pe.Msg, Err: err}
}

// peerFile is a peer file as it is spelt. Each field is parsed on its own,
// so that a mistake names it.
type peerFile struct {
	Org      string `json:"org"`
	OrgKey   string `json:"org_key"`
	EncKey   string `json:"enc_key"`
	Endpoint string `json:"endpoint"`
	GRPC     string `json:"grpc"`
	TLSPin   string `json:"tls_pin"`
	// Written by a serving gateway that took the peer's TLS handover.
	TLSPrevious string `json:"tls_pin_previous"`
	TLSUntil    string `json:"tls_pin_until"`
	MaxCls      string `json:"max_cls"`
	ImportedAt  string `json:"imported_at"`
}

// readPeer reads and checks one peer file.
func readPeer(path, own string, pins *keys.PinStore) (*Peer, error) {
	file := "peers/" + filepath.Base(path)
	var f peerFile
	if err := readRecord(path, file, &f); err != nil {
		return nil, err
	}
	p, err := f.peer()
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			ce.Key = file + ": " + ce.Key
		}
		return nil, err
	}
	bad := func(key, format string, args ...any) error {
		return &ConfigError{Key: file + ": " + key, Msg: fmt.Sprintf(format, args...)}
	}
	pin, pinned := pins.Lookup(p.Org)
	if pinned && !pin.Key.Equal(p.OrgKey) && pin.Previous != nil && pin.Previous.Key.Equal(p.OrgKey) {
		// The peer handed its org key over, and has been seen using the
		// new one since this file was written: the pin holds it, and a
		// serving gateway writes it here too within seconds.
		p.OrgKey = pin.Key
		if !pin.EncKey.IsZero() {
			p.EncKey = pin.EncKey
		}
	}
	switch {
	case p.Org+".json" != filepath.Base(path):
		return nil, bad("org", "%q does not match the file name", p.Org)
	case p.Org == own:
		return nil, bad("org", "%s is this gateway's own organisation, not a peer (remove the file)", p.Org)
	case !pinned:
		return nil, bad("org_key", "%s has no pin in peers/pins.json (import its peer document with moltgate peer import)", p.Org)
	case !pin.Key.Equal(p.OrgKey):
		ce := bad("org_key", "is not the key pinned for %s in peers/pins.json (import its peer document again; a new key needs --replace)", p.Org).(*ConfigError)
		ce.Err = &keys.MismatchError{Name: p.Org, Pinned: pin.Key, Got: p.OrgKey}
		return nil, ce
	case !pin.EncKey.IsZero() && !pin.EncKey.Equal(p.EncKey):
		return nil, bad("enc_key", "is not the key pinned for %s in peers/pins.json (import its peer document again)", p.Org)
	}
	return p, nil
}

// peer checks f field by field, as peer import checks a peer document. A
// mistake is a *ConfigError naming the field.
func (f *peerFile) peer() (*Peer, error) {
	bad := func(key, msg string, err error) (*Peer, error) {
		return nil, &ConfigError{Key: key, Msg: msg, Err: err}
	}
	p := &Peer{Org: f.Org, Endpoint: f.Endpoint, GRPC: f.GRPC, TLSPin: f.TLSPin}
	var err error
	if !wire.ValidName(f.Org) {
		return bad("org", "must match [A-Za-z0-9_-]{1,128}", nil)
	}
	if p.OrgKey, err = keys.ParseEd25519Public(f.OrgKey); err != nil {
		return bad("org_key", "must be an ed25519 public key (ed25519:…): "+keyCause(err), err)
	}
	if p.EncKey, err = keys.ParseX25519Public(f.EncKey); err != nil {
		return bad("enc_key", "must be an x25519 public key (x25519:…): "+keyCause(err), err)
	}
	if field, msg := checkReach(f.Endpoint, f.GRPC, f.TLSPin); field != "" {
		return bad(field, msg, nil)
	}
	if f.TLSPrevious != "" {
		if _, err := parsePin(f.TLSPrevious); err != nil {
			return bad("tls_pin_previous", err.Error(), err)
		}
		if p.TLSUntil, err = time.Parse(time.RFC3339Nano, f.TLSUntil); err != nil {
			return bad("tls_pin_until", "must be an RFC 3339 time, the end of the TLS handover's overlap", err)
		}
		p.TLSPrevious = f.TLSPrevious
	}
	var ok bool
	if p.MaxCls, ok = wire.ParseClass(f.MaxCls); !ok {
		return bad("max_cls", classChoice, nil)
	}
	if f.ImportedAt != "" {
		if p.ImportedAt, err = time.Parse(time.RFC3339Nano, f.ImportedAt); err != nil {
			return bad("imported_at", "must be an RFC 3339 time", err)
		}
	}
	return p, nil
}

// keyCause is why a key did not parse, without the key's kind again.
func keyCause(err error) string {
	var pe *keys.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkReach checks how a peer is reached, as its peer document and its
// peer file give it. It returns the field at fault and what that must be,
// or "" when all is well.
func checkReach(endpoint, grpcAddr, pin string) (field, msg string) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" {
		return "endpoint", "must be an http(s) URL such as https://gateway.example.org:7443"
	}
	if !validHostPort(grpcAddr) {
		return "grpc", "must be HOST:PORT"
	}
	if u.Scheme == "http" {
		// Without TLS nothing shows whom a connection reached, so plain
		// HTTP (and gRPC) is for loopback only, as for this gateway's own
		// faces.
		if !loopbackHost(u.Hostname()) {
			return "endpoint", "may be plain http only on a loopback address (use https)"
		}
		if !loopback(grpcAddr) {
			return "grpc", "must be a loopback address with an http endpoint (gRPC without TLS is for loopback only)"
		}
	} else if pin == "" {
		return "tls_pin", "must be given with an https endpoint"
	}
	if pin != "" {
		if _, err := parsePin(pin); err != nil {
			return "tls_pin", err.Error()
		}
	}
	return "", ""
}

func validHostPort(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	n, err := strconv.ParseUint(port, 10, 16)
	return err == nil && n > 0
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// TrustStore builds the trust store of a gateway: its own org key and the
// org keys of its peers.
func TrustStore(own *identity.Agent, peers []*Peer) *identity.TrustStore {
	t := identity.NewTrustStore()
	t.Add(own.Ref.Org, own.Signing.Public())
	for _, p := range peers {
		t.Add(p.Org, p.OrgKey)
	}
	return t
}

// peerUp is told of each session a peer's gateway establishes with this
// one: the peer is up, so a circuit its failures opened lets the next call
// through, and a catch-up sync of its registry waiting out its wait goes
// at once. A peer that comes back is then called, and its agents listed,
// within a second, not after cool-downs that doubled while it was down.
func (s *Server) peerUp(org string) {
	if ps := s.peers.Get(org); ps != nil {
		ps.Up()
	}
	s.registry.PeerUp(org)
}
