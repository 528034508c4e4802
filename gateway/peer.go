package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
	Sig      keys.Signature     `json:"sig"`
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
	cfg, err := LoadConfig(d.ConfigPath())
	if err != nil {
		return nil, err
	}
	org, err := LoadOrg(d, passphrase)
	if err != nil {
		return nil, err
	}
	_, pin, err := loadTLSCert(d.TLSCertPath(), d.TLSKeyPath())
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
	case !strings.HasPrefix(doc.Endpoint, "https://") && !strings.HasPrefix(doc.Endpoint, "http://"):
		return bad("endpoint", "the peer document's endpoint is not an http(s) URL")
	case strings.HasPrefix(doc.Endpoint, "https://") && !strings.HasPrefix(doc.TLSPin, PinPrefix):
		return bad("tls_pin", "the peer document has an https endpoint and no TLS pin")
	}
	msg := wire.AppendCanonical(nil, v.Without("sig"))
	if !doc.OrgKey.Verify(msg, doc.Sig) {
		return nil, wire.Errorf(wire.ErrSignature, "sig", "peer document signature does not verify")
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
type Peer struct {
	Org        string             `json:"org"`
	OrgKey     keys.Ed25519Public `json:"org_key"`
	EncKey     keys.X25519Public  `json:"enc_key"`
	Endpoint   string             `json:"endpoint"`
	GRPC       string             `json:"grpc"`
	TLSPin     string             `json:"tls_pin,omitempty"`
	MaxCls     wire.Class         `json:"max_cls"`
	ImportedAt time.Time          `json:"imported_at"`
}

// ImportOptions are the choices of moltgate peer import.
type ImportOptions struct {
	// MaxCls is the peer's ceiling; empty means the configured default.
	MaxCls string
	// Replace allows a new org key for an already imported org (rotation).
	Replace bool
	Now     time.Time
}

// ImportPeer trusts the organisation of a peer document: it pins its org
// key and records its endpoint, TLS pin and ceiling.
func ImportPeer(d Dir, b []byte, opts ImportOptions) (*Peer, error) {
	cfg, err := LoadConfig(d.ConfigPath())
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
	clsText := opts.MaxCls
	if clsText == "" {
		clsText = cfg.Security.PeerMaxCls
	}
	cls, ok := wire.ParseClass(clsText)
	if !ok {
		return nil, optionErr("peer import", "--max-cls", "--max-cls must be one of pub, int, conf, pii, sec")
	}
	pins, err := keys.OpenPinStore(d.PinsPath(), nil)
	if err != nil {
		return nil, err
	}
	if opts.Replace {
		err = pins.Replace(doc.Org, doc.OrgKey, doc.EncKey)
	} else {
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
	return p, nil
}

// LoadPeers reads every imported peer, checking each against its pin.
func LoadPeers(d Dir) ([]*Peer, error) {
	pins, err := keys.OpenPinStore(d.PinsPath(), nil)
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
		if e.IsDir() || !strings.HasSuffix(name, ".json") || name == "pins.json" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d.PeersDir(), name))
		if err != nil {
			return nil, err
		}
		p := new(Peer)
		if err := json.Unmarshal(b, p); err != nil {
			return nil, fmt.Errorf("peer %s: %w", name, err)
		}
		if p.Org+".json" != name {
			return nil, fmt.Errorf("peer %s: names org %q", name, p.Org)
		}
		if err := pins.Check(p.Org, p.OrgKey); err != nil {
			return nil, fmt.Errorf("peer %s: %w", p.Org, err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Org < out[j].Org })
	return out, nil
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
