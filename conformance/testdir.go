package conformance

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// The files of a test directory.
const (
	orgKeyFile  = "org.json"  // the test organisation's key, agent "gateway"
	peerDocFile = "peer.json" // its peer document, for the operator to import
)

// peerDocType marks a peer document, as `moltgate peer export` prints it.
const peerDocType = "moltgate.peer.v1"

// peerDoc is a signed peer document (docs/protocol.md, "Peers of a serving
// gateway"): an organisation's keys and where its gateway is reached,
// signed over its RFC 8785 form without "sig" by the org key.
type peerDoc struct {
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

// InitOptions describe the test organisation Init makes.
type InitOptions struct {
	// Org is its name. Default "conformance".
	Org string
	// Endpoint and GRPC are the addresses its peer document gives. The
	// suite serves nothing, so they only need to pass the importer's
	// checks. Default "http://127.0.0.1:9" and "127.0.0.1:9" (discard),
	// which a gateway accepts for a peer on loopback; give addresses
	// that fit its rules for a gateway elsewhere.
	Endpoint, GRPC string
	// TLSPin goes with an https Endpoint. Default "" (none, for http).
	TLSPin string
	// Rand is the key source. Default crypto/rand.
	Rand io.Reader
	// Now stamps the peer document. Default time.Now.
	Now func() time.Time
}

// Init makes a test organisation in dir, which must not exist yet or be
// empty: its org key (dir/org.json, mode 0600) and its signed peer
// document (dir/peer.json), which it also returns. The operator of the
// gateway under test imports that document as a peer's.
func Init(dir string, opts InitOptions) ([]byte, error) {
	if opts.Org == "" {
		opts.Org = "conformance"
	}
	if opts.Endpoint == "" {
		opts.Endpoint = "http://127.0.0.1:9"
	}
	if opts.GRPC == "" {
		opts.GRPC = "127.0.0.1:9"
	}
	if opts.Rand == nil {
		opts.Rand = randReader()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if !wire.ValidName(opts.Org) {
		return nil, wire.Errorf(wire.ErrInvalidParam, "org", "%q is not a valid organisation name ([A-Za-z0-9_-], 1 to 128)", opts.Org)
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, wire.Errorf(wire.ErrInvalidParam, "dir", "%s is not empty: give a new directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("conformance init: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("conformance init: %w", err)
	}
	org, err := identity.Generate(opts.Rand, wire.Ref{Agent: "gateway", Org: opts.Org})
	if err != nil {
		return nil, err
	}
	if err := org.Save(filepath.Join(dir, orgKeyFile), keys.WriteOptions{}); err != nil {
		return nil, err
	}
	doc := &peerDoc{Type: peerDocType, Org: opts.Org, OrgKey: org.Signing.Public(), EncKey: org.Encryption.Public(),
		Endpoint: opts.Endpoint, GRPC: opts.GRPC, TLSPin: opts.TLSPin, IssuedAt: opts.Now().UnixMilli()}
	b, err := signPeerDoc(doc, org.Signing)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, peerDocFile), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("conformance init: %w", err)
	}
	return b, nil
}

// PeerDoc returns the peer document of the test organisation in dir.
func PeerDoc(dir string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, peerDocFile))
	if err != nil {
		return nil, fmt.Errorf("conformance: %w (run moltgate conformance init --dir %s)", err, dir)
	}
	return b, nil
}

func signPeerDoc(doc *peerDoc, sk keys.Ed25519Private) ([]byte, error) {
	v, err := wire.ValueOf(doc)
	if err != nil {
		return nil, err
	}
	doc.Sig = sk.Sign(wire.AppendCanonical(nil, v.Without("sig")))
	v = v.With("sig", wire.StringValue(doc.Sig.String()))
	return wire.AppendCanonical(nil, v), nil
}

// parsePeerDoc reads a peer document and checks its self-signature.
func parsePeerDoc(b []byte) (*peerDoc, error) {
	v, err := wire.Parse(b, 8)
	if err != nil {
		return nil, fmt.Errorf("peer document: %w", err)
	}
	doc := new(peerDoc)
	if err := wire.Bind(v, doc, ""); err != nil {
		return nil, fmt.Errorf("peer document: %w", err)
	}
	switch {
	case doc.Type != peerDocType:
		return nil, wire.Errorf(wire.ErrInvalidParam, "type", "peer document: want %s, as moltgate peer export prints", peerDocType)
	case !wire.ValidName(doc.Org):
		return nil, wire.Errorf(wire.ErrInvalidParam, "org", "peer document: not a valid organisation name")
	case doc.OrgKey.IsZero() || doc.EncKey.IsZero():
		return nil, wire.Errorf(wire.ErrInvalidParam, "org_key", "peer document: org_key and enc_key are required")
	case doc.Endpoint == "":
		return nil, wire.Errorf(wire.ErrInvalidParam, "endpoint", "peer document: no endpoint")
	}
	if !doc.OrgKey.Verify(wire.AppendCanonical(nil, v.Without("sig")), doc.Sig) {
		return nil, wire.Errorf(wire.ErrSignature, "sig", "peer document: signature does not verify under its org_key")
	}
	return doc, nil
}

// loadOrg reads the test organisation's key from dir.
func loadOrg(dir string) (*identity.Agent, error) {
	a, err := identity.Load(filepath.Join(dir, orgKeyFile), nil)
	if err != nil {
		return nil, fmt.Errorf("conformance: test directory %s: %w (run moltgate conformance init --dir %s)", dir, err, dir)
	}
	if a.Ref.Agent != "gateway" {
		return nil, fmt.Errorf("conformance: test directory %s: %s is %s, not an org key (agent gateway)", dir, orgKeyFile, a.Ref)
	}
	return a, nil
}
