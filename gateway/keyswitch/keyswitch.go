// Package keyswitch is the gateway's live key switch: it takes up a
// rotated org key or TLS certificate while the gateway serves, and issues
// the gateway's own certificates again before they expire.
//
// A rotation (moltgate key rotate, tls rotate) writes a signed handover
// statement, then the new org key or TLS certificate, while the gateway
// serves. The gateway takes the new one up without a restart: once the
// statement has reached the peers (rotation.Room.Handover), it swaps its
// key material (orgkey.Source), so that what starts from then on is
// signed with the new org key or presents the new certificate, while what
// started before finishes under the old, which the overlap keeps good. The
// org key's X25519 key turns over with it: envelopes sealed to the key
// replaced open until the overlap ends, and are refused after, when the
// switch drops the key and removes the file key rotate kept it in
// (package retired).
//
// Switch reaches the rest of the gateway through interfaces and hooks of
// its own (Handovers, Agents, Revocations, Config's function fields), so
// it knows no face, no storage and no other room.
package keyswitch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/filestamp"
	"github.com/moltgate/moltgate/revocation"
)

// Handovers are the organisation's own handover statements
// (rotation.Room).
type Handovers interface {
	// Handover returns the statement of kind from old to next, and
	// whether the peers have had it.
	Handover(kind, old, next string) (*handover.Statement, bool)
	// HandedFrom notes that the gateway now signs with the org key st
	// handed over to.
	HandedFrom(st *handover.Statement)
}

// Agents are the local agents' certificates (roster.Roster).
type Agents interface {
	// Recertify issues every agent's certificates again under the org
	// key in use, returning the agents certified.
	Recertify(ctx context.Context, now time.Time) []string
	// Renew issues again the agents' certificates that are half spent.
	Renew(ctx context.Context, now time.Time)
}

// Revocations are the revocation lists (revoke.Lists).
type Revocations interface {
	// Own is the organisation's own list, as served.
	Own() *revocation.List
}

// Config is what a Switch is given. Every field is required unless it
// says otherwise.
type Config struct {
	// Org is the organisation's name, under which a new org key is
	// trusted.
	Org string
	// OrgKeyPath and TLSCertPath are the files watched (keys/org.json,
	// tls/cert.pem).
	OrgKeyPath, TLSCertPath string
	// TLS is whether the faces serve TLS; without it the TLS certificate
	// is not watched. Default false.
	TLS bool
	// LoadOrg reads the org key file.
	LoadOrg func() (*identity.Agent, error)
	// LoadTLS reads the TLS certificate and key, and the certificate's
	// pin. Unused unless TLS.
	LoadTLS func() (tls.Certificate, string, error)
	// Certify issues self's identity certificate under self's own key at
	// now.
	Certify func(self *identity.Agent, now time.Time) (*identity.Cert, error)
	// HalfSpent says whether a certificate issued and expiring at these
	// Unix milliseconds is due for renewal at now.
	HalfSpent func(issued, expires int64, now time.Time) bool
	// ConfigError makes the error that names the configuration key (a
	// file of the gateway directory) a refused key is read from.
	ConfigError func(key, msg string) error
	// RetiredDir is where key rotate keeps the X25519 keys it replaced
	// (keys/retired, package retired); Reload removes each file once its
	// overlap has ended. Default "": no file is removed, and the keys
	// replaced are dropped from memory all the same.
	RetiredDir string

	// Keys is the key material in use, which the switch replaces; Trust
	// takes a new org key for Org; the rest are the rooms and the log and
	// clock the switch reports to and reads.
	Keys        *orgkey.Source
	Trust       *identity.TrustStore
	Handovers   Handovers
	Agents      Agents
	Revocations Revocations
	Log         *slog.Logger
	Now         func() time.Time
}

// Switch is what the gateway knows of its key files: their stamps as
// last read, and a key or certificate read but not yet in use, waiting for
// its handover to reach the peers.
type Switch struct {
	cfg Config

	mu       sync.Mutex
	orgStamp filestamp.Stamp
	tlsStamp filestamp.Stamp
	nextOrg  *identity.Agent
	nextTLS  *tls.Certificate
	nextPin  string
	waiting  string        // what the log last said is waiting, once per change
	forget   []*crypto.Box // boxes of keys dropped, zeroed at the next Reload
}

// Seen is the key files as they were when the key material in use was
// read: a change after it is a rotation.
type Seen struct {
	org, tls filestamp.Stamp
}

// See stamps the org key file and the TLS certificate file as they are
// now. The gateway calls it once it has read them, before it builds the
// rooms New needs, so that a rotation written meanwhile is not missed.
func See(orgKeyPath, tlsCertPath string) Seen {
	return Seen{org: filestamp.Of(orgKeyPath), tls: filestamp.Of(tlsCertPath)}
}

// New returns a Switch that takes the key files as seen as the ones in
// use.
func New(cfg Config, seen Seen) *Switch {
	return &Switch{cfg: cfg, orgStamp: seen.org, tlsStamp: seen.tls}
}

// Reload takes up a new org key (with its X25519 key), and a new TLS
// certificate, once the handover that announces each has reached the
// peers. A key or certificate that no handover from the one in use names,
// or an org key with another name or with another X25519 key than its
// handover names, is not taken up: the error says why, and a restart
// takes it as it is. An X25519 key replaced whose overlap has ended is
// dropped, and its file in RetiredDir removed.
func (w *Switch) Reload(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.reloadOrgKey(ctx)
	if w.cfg.TLS {
		err = errors.Join(err, w.reloadTLS())
	}
	return errors.Join(err, w.expire())
}

// reloadOrgKey is Reload for the org key. The caller holds w.mu.
func (w *Switch) reloadOrgKey(ctx context.Context) error {
	if st := filestamp.Of(w.cfg.OrgKeyPath); !st.Same(w.orgStamp) {
		w.orgStamp, w.nextOrg = st, nil
		next, err := w.cfg.LoadOrg()
		if err != nil {
			return fmt.Errorf("reload org key: %w", err)
		}
		w.nextOrg = next
	}
	next, cur := w.nextOrg, w.cfg.Keys.Current()
	if next == nil {
		return nil
	}
	if next.Signing.Public().Equal(cur.Signing.Public()) {
		w.nextOrg = nil
		return nil
	}
	refuse := func(msg string) error {
		w.nextOrg = nil
		return w.cfg.ConfigError("keys/org.json", msg+"; the gateway goes on under the key in use, and takes the new one as it is at its next start")
	}
	if next.Ref != cur.Ref {
		return refuse(fmt.Sprintf("is now the key of %s, not of %s", next.Ref, cur.Ref))
	}
	st, had := w.cfg.Handovers.Handover(handover.KindOrgKey, cur.Signing.Public().String(), next.Signing.Public().String())
	if st == nil {
		return refuse(fmt.Sprintf("holds the key %s, which no handover from the key in use (%s) names in handovers.json: peers would refuse it (rotate with moltgate key rotate)",
			next.Signing.Public().Fingerprint(), cur.Signing.Public().Fingerprint()))
	}
	// Peers take the X25519 key the handover names as the one to seal
	// to; a key file holding another would have them seal to a key this
	// gateway cannot open with.
	if enc := next.Encryption.Public().String(); st.NewEncKey != enc {
		return refuse(fmt.Sprintf("holds the X25519 key %s, but the handover to its org key names %s, which peers would seal to (rotate again with moltgate key rotate)",
			enc, st.NewEncKey))
	}
	if !had {
		w.wait("org key", next.Signing.Public().Fingerprint())
		return nil
	}
	w.nextOrg = nil
	return w.switchOrgKey(ctx, next, st)
}

// wait logs, once, that what is waiting for its handover to reach the
// peers.
func (w *Switch) wait(what, next string) {
	if w.waiting == what+next {
		return
	}
	w.waiting = what + next
	w.cfg.Log.Info("new "+what+" waits for its handover to reach the peers", "new", next)
}

// switchOrgKey makes next, which st hands over to, the org key in use: the
// gateway's identity certificate and its agents' certificates are issued
// again under it (naming its X25519 key, which the agents share), and
// their directory entries published again; new handshakes present it, and
// what the gateway signs from now on is signed with it. What is sealed to
// the X25519 key replaced opens until the overlap ends. Sessions made under the old key go on until the overlap ends
// (the peers' sessions renew under the new one before), and the old key
// stays trusted for the organisation's own certificates until then.
func (w *Switch) switchOrgKey(ctx context.Context, next *identity.Agent, st *handover.Statement) error {
	now := w.cfg.Now()
	cert, err := w.cfg.Certify(next, now)
	if err != nil {
		return fmt.Errorf("reload org key: %w", err)
	}
	until := time.UnixMilli(st.Effective + st.OverlapMS)
	old, err := w.cfg.Keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
		set.Self, set.Cert = next, cert
		// What was sealed to the X25519 key replaced still opens until
		// the overlap ends: senders move to the new key as they take the
		// handover or the directory entries published again under it.
		set.Keys = set.Keys.Rotated(crypto.NewBox(next.Encryption, 0), until)
		return set, nil
	})
	if err != nil {
		return fmt.Errorf("reload org key: %w", err)
	}
	w.cfg.Trust.Add(w.cfg.Org, next.Signing.Public())
	w.cfg.Handovers.HandedFrom(st)
	// The revocation list was signed again under the new key; the
	// gateway serves it from now on.
	w.cfg.Revocations.Own()
	renewed := w.cfg.Agents.Recertify(ctx, now)
	w.cfg.Log.Warn("org key switched", "old", old.Self.Signing.Public().Fingerprint(), "new", next.Signing.Public().Fingerprint(),
		"old_enc_key", old.Self.Encryption.Public().String(), "new_enc_key", next.Encryption.Public().String(),
		"agents_certified", len(renewed), "old_refused_from", until.UTC().Format(time.RFC3339))
	return nil
}

// reloadTLS is Reload for the TLS certificate. The caller holds w.mu.
func (w *Switch) reloadTLS() error {
	if st := filestamp.Of(w.cfg.TLSCertPath); !st.Same(w.tlsStamp) {
		w.tlsStamp, w.nextTLS, w.nextPin = st, nil, ""
		c, pin, err := w.cfg.LoadTLS()
		if err != nil {
			// tls rotate renames the key, then the certificate: a
			// certificate read between the two does not go with its
			// key, and is read again at the next change.
			return fmt.Errorf("reload TLS certificate: %w", err)
		}
		w.nextTLS, w.nextPin = &c, pin
	}
	cur := w.cfg.Keys.Load()
	if w.nextTLS == nil {
		return nil
	}
	if w.nextPin == cur.TLSPin {
		w.nextTLS, w.nextPin = nil, ""
		return nil
	}
	st, had := w.cfg.Handovers.Handover(handover.KindTLSPin, cur.TLSPin, w.nextPin)
	if st == nil {
		pin := w.nextPin
		w.nextTLS, w.nextPin = nil, ""
		return w.cfg.ConfigError("tls/cert.pem", fmt.Sprintf("holds a certificate of pin %s, which no handover from the pin in use (%s) names in handovers.json: peers would refuse it (rotate with moltgate tls rotate); the gateway presents the certificate in use, and the new one as it is at its next start",
			pin, cur.TLSPin))
	}
	if !had {
		w.wait("TLS certificate", w.nextPin)
		return nil
	}
	next, pin := w.nextTLS, w.nextPin
	w.nextTLS, w.nextPin = nil, ""
	if _, err := w.cfg.Keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
		set.TLS, set.TLSPin = next, pin
		return set, nil
	}); err != nil {
		return fmt.Errorf("reload TLS certificate: %w", err)
	}
	w.cfg.Log.Warn("TLS certificate switched", "old_pin", cur.TLSPin, "new_pin", pin,
		"old_refused_from", time.UnixMilli(st.Effective+st.OverlapMS).UTC().Format(time.RFC3339))
	return nil
}
