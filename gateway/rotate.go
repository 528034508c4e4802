package gateway

import (
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
)

// HandoversPath is DIR/handovers.json, the organisation's own signed
// handover statements (moltgate key rotate and tls rotate write it).
func (d Dir) HandoversPath() string { return d.path("handovers.json") }

// nextOrgKeyPath is where key rotate keeps the new org key until the
// handover naming it is written.
func (d Dir) nextOrgKeyPath() string { return d.path("keys", "org.next.json") }

// DefaultOverlap is how long, by default, the key or certificate a
// rotation replaces stays good beside the new one: a day, for every peer
// to hear of the change, the sessions made under the old one to be
// renewed, and a replica or a gateway that was down to take the change.
const DefaultOverlap = 24 * time.Hour

// RotateOptions are the choices of moltgate key rotate and tls rotate.
type RotateOptions struct {
	// Overlap is how long the old key or pin stays good after the new one
	// takes effect. Default DefaultOverlap; at most handover.MaxOverlap.
	Overlap time.Duration
	// Passphrase unlocks the org key, which signs the handover, and locks
	// the new one.
	Passphrase []byte
	// Now is the time of the rotation. Default time.Now().
	Now time.Time
	// Rand makes the new key. Default crypto/rand.
	Rand io.Reader
}

// Rotated says what a rotation did.
type Rotated struct {
	Org string
	// Old and New are the org keys ("ed25519:…") or TLS pins ("sha256:…").
	Old, New string
	// OldEncKey and NewEncKey are the X25519 keys ("x25519:…") that go
	// with the org keys; "" for a TLS rotation.
	OldEncKey, NewEncKey string
	// Effective is when the new one took effect; Until when the old one
	// stops being good.
	Effective, Until time.Time
	// Statement is the signed handover.
	Statement *handover.Statement
}

func (o *RotateOptions) fill(verb string) error {
	if o.Overlap == 0 {
		o.Overlap = DefaultOverlap
	}
	if o.Overlap < time.Second || o.Overlap > handover.MaxOverlap {
		return optionErr(verb, "--overlap", "--overlap must be between 1s and %v (the old key stays good that long beside the new one)", handover.MaxOverlap)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	return nil
}

// RotateOrgKey gives the organisation a new org key. The old key signs a
// handover statement naming the new one (and the new key countersigns
// it), kept in DIR/handovers.json: a serving gateway pushes it to every
// peer within seconds and serves it on its registry and in its peer
// document, and each peer, holding the old key, takes the new one because
// the old one vouched for it. The revocation list is signed again under
// the new key (serial one higher). A new X25519 encryption key goes with
// the new org key, and the statement names it: the peers, and the local
// agents who share the gateway's, take it up with the org key, and what
// was sealed to the old one still opens until the overlap ends. The local
// agents' key files get the new X25519 key too.
//
// The new key is written to keys/org.json last, after the statement: a
// rotation that stops half way is finished by running it again. A serving
// gateway takes the new key up once its peers have the statement
// (Server.ReloadKeys): it signs with it, and issues its own and its
// agents' identity and capability certificates under it, without a
// restart.
func RotateOrgKey(d Dir, o RotateOptions) (*Rotated, error) {
	const verb = "key rotate"
	if err := o.fill(verb); err != nil {
		return nil, err
	}
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	org, err := LoadOrg(d, o.Passphrase)
	if errors.Is(err, keys.ErrPassphrase) {
		return nil, fmt.Errorf("%s: the org key signs the handover, and it is encrypted: set %s or %s: %w", verb, keys.PassphraseEnv, keys.PassphraseFileEnv, err)
	}
	if err != nil {
		return nil, err
	}
	set, err := handover.LoadFile(d.HandoversPath())
	if err != nil {
		return nil, &ConfigError{Key: "handovers.json", Msg: err.Error(), Err: err}
	}
	wo := keys.WriteOptions{Passphrase: o.Passphrase, Overwrite: true}
	// A rotation that stopped after its statement was written is finished
	// with the key the statement names.
	next, err := identity.Load(d.nextOrgKeyPath(), o.Passphrase)
	var st *handover.Statement
	if err == nil {
		st = set.Find(handover.KindOrgKey, org.Signing.Public().String(), next.Signing.Public().String())
	}
	if st == nil {
		sk, err := keys.GenerateEd25519(o.Rand)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
		enc, err := keys.GenerateX25519(o.Rand)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
		next = &identity.Agent{Ref: org.Ref, Signing: sk, Encryption: enc}
		if err := next.Save(d.nextOrgKeyPath(), wo); err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
		if st, err = handover.OrgKey(cfg.Org, org.Signing, sk, enc.Public(), o.Now, o.Overlap, o.Now); err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
		set.Add(st)
		if err := set.WriteFile(d.HandoversPath()); err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
	}
	// The revocation list is signed again under the new key, a serial
	// higher, so that the gateway reads it at its next start and peers
	// take it as new; unless a rotation that stopped half way did that.
	list, err := revocation.LoadFile(d.RevocationsPath(), cfg.Org, org.Signing.Public())
	if err != nil {
		if _, again := revocation.LoadFile(d.RevocationsPath(), cfg.Org, next.Signing.Public()); again != nil {
			return nil, &ConfigError{Key: "revocations.json", Msg: err.Error(), Err: err}
		}
	} else {
		resigned, err := list.Revoke(next.Signing, o.Now)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
		if err := resigned.WriteFile(d.RevocationsPath()); err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
	}
	// The X25519 key replaced opens what senders that have not taken the
	// handover seal to it until the overlap ends, a restart meanwhile
	// included: it is kept in keys/retired until then, and removed by the
	// gateway after. Unless the rotation that stopped half way kept it.
	eff := time.UnixMilli(st.Effective)
	until := eff.Add(time.Duration(st.OverlapMS) * time.Millisecond)
	if !org.Encryption.Equal(next.Encryption) {
		if err := retireEncKey(d, cfg.Org, org.Encryption, until, wo); err != nil {
			return nil, fmt.Errorf("%s: %w (run it again to finish the rotation)", verb, err)
		}
	}
	// The local agents' key files hold a copy of the gateway's X25519
	// key (agent add writes it): they get the new one, so that the old
	// one leaves keys/agents and keys/org.json. A serving gateway does
	// not read it from them.
	if err := rekeyAgents(d, next.Encryption, wo); err != nil {
		return nil, fmt.Errorf("%s: %w (run it again to finish the rotation)", verb, err)
	}
	if err := os.Rename(d.nextOrgKeyPath(), d.OrgKeyPath()); err != nil {
		return nil, fmt.Errorf("%s: %w", verb, err)
	}
	return &Rotated{Org: cfg.Org, Old: st.Old, New: st.New, OldEncKey: org.Encryption.Public().String(), NewEncKey: st.NewEncKey,
		Effective: eff, Until: until, Statement: st}, nil
}

// rekeyAgents writes enc into every local agent's key file that holds
// another X25519 key, keeping its signing key.
func rekeyAgents(d Dir, enc keys.X25519Private, wo keys.WriteOptions) error {
	dir := d.path("keys", "agents")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		id, err := loadIdentity(d, "keys/agents/"+name, wo.Passphrase)
		if err != nil {
			return err
		}
		if id.Encryption.Equal(enc) {
			continue
		}
		id.Encryption = enc
		if err := id.Save(filepath.Join(dir, name), wo); err != nil {
			return err
		}
	}
	return nil
}

// RotateTLS gives the gateway a new TLS certificate, for the same names
// and addresses as the one it replaces. The org key signs a handover
// statement announcing the new pin, kept in DIR/handovers.json, which a
// serving gateway pushes to every peer and serves as RotateOrgKey's; peers
// accept both pins until the overlap ends, and only the new one after.
// A serving gateway presents the new certificate to new connections once
// its peers have the statement (Server.ReloadKeys).
func RotateTLS(d Dir, o RotateOptions) (*Rotated, error) {
	const verb = "tls rotate"
	if err := o.fill(verb); err != nil {
		return nil, err
	}
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	if !cfg.TLSEnabled() {
		return nil, optionErr(verb, "--dir", "TLS is off in %s (listen.tls = false): there is no certificate to rotate", d.ConfigPath())
	}
	org, err := LoadOrg(d, o.Passphrase)
	if errors.Is(err, keys.ErrPassphrase) {
		return nil, fmt.Errorf("%s: the org key signs the handover, and it is encrypted: set %s or %s: %w", verb, keys.PassphraseEnv, keys.PassphraseFileEnv, err)
	}
	if err != nil {
		return nil, err
	}
	set, err := handover.LoadFile(d.HandoversPath())
	if err != nil {
		return nil, &ConfigError{Key: "handovers.json", Msg: err.Error(), Err: err}
	}
	cur, oldPin, err := loadTLSCert(d)
	if err != nil {
		return nil, err
	}
	nextCert, nextKey := d.path("tls", "cert.next.pem"), d.path("tls", "key.next.pem")
	for _, p := range []string{nextCert, nextKey} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
	}
	newPin, err := WriteTLSCert(nextCert, nextKey, cfg.Org, certHosts(cur.Leaf), o.Now)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", verb, err)
	}
	st, err := handover.TLSPin(cfg.Org, org.Signing, oldPin, newPin, o.Now, o.Overlap, o.Now)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", verb, err)
	}
	set.Add(st)
	// The pin is announced before the certificate is put in place.
	if err := set.WriteFile(d.HandoversPath()); err != nil {
		return nil, fmt.Errorf("%s: %w", verb, err)
	}
	if err := os.Rename(nextKey, d.TLSKeyPath()); err != nil {
		return nil, fmt.Errorf("%s: %w", verb, err)
	}
	if err := os.Rename(nextCert, d.TLSCertPath()); err != nil {
		return nil, fmt.Errorf("%s: %w (run it again)", verb, err)
	}
	eff := time.UnixMilli(st.Effective)
	return &Rotated{Org: cfg.Org, Old: oldPin, New: newPin, Effective: eff, Until: eff.Add(o.Overlap), Statement: st}, nil
}

// certHosts is what c was made for: its addresses and names.
func certHosts(c *x509.Certificate) []string {
	var out []string
	for _, ip := range c.IPAddresses {
		out = append(out, ip.String())
	}
	return append(out, c.DNSNames...)
}
