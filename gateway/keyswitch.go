package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/gateway/ownfile"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
)

// A rotation (moltgate key rotate, tls rotate) writes a signed handover
// statement, then the new org key or TLS certificate, while the gateway
// serves. The gateway takes the new one up without a restart: once the
// statement has reached the peers (rotation.Room.Handover), it swaps its
// key material (orgkey.Source), so that what starts from then on is
// signed with the new org key or presents the new certificate, while what
// started before finishes under the old, which the overlap keeps good.

// keyWatch is what the gateway knows of its key files: their stamps as
// last read, and a key or certificate read but not yet in use, waiting for
// its handover to reach the peers.
type keyWatch struct {
	mu         sync.Mutex
	dir        Dir
	passphrase []byte // unlocks the org key
	orgStamp   ownfile.Stamp
	tlsStamp   ownfile.Stamp
	nextOrg    *identity.Agent
	nextTLS    *tls.Certificate
	nextPin    string
	waiting    string // what the log last said is waiting, once per change
}

func newKeyWatch(d Dir, passphrase []byte) *keyWatch {
	return &keyWatch{dir: d, passphrase: passphrase, orgStamp: ownfile.StampOf(d.OrgKeyPath()), tlsStamp: ownfile.StampOf(d.TLSCertPath())}
}

// ReloadKeys takes up a new org key in keys/org.json, and a new TLS
// certificate in tls/, once the handover that announces each has reached
// the peers: pushed to each, or offered for PullEvery. A serving gateway
// does this by itself within seconds of moltgate key rotate or tls rotate,
// and Reload (SIGHUP) does it at once when the handover has been had.
//
// A key or certificate that no handover from the one in use names, or an
// org key with another name or encryption key, is not taken up: the error
// says why, and a restart takes it as it is.
func (s *Server) ReloadKeys(ctx context.Context) error {
	w := s.keyWatch
	w.mu.Lock()
	defer w.mu.Unlock()
	err := s.reloadOrgKey(ctx)
	if s.cfg.TLSEnabled() {
		err = errors.Join(err, s.reloadTLS())
	}
	return err
}

// reloadOrgKey is ReloadKeys for the org key. The caller holds w.mu.
func (s *Server) reloadOrgKey(ctx context.Context) error {
	w := s.keyWatch
	if st := ownfile.StampOf(s.dir.OrgKeyPath()); !st.Same(w.orgStamp) {
		w.orgStamp, w.nextOrg = st, nil
		next, err := LoadOrg(s.dir, w.passphrase)
		if err != nil {
			return fmt.Errorf("reload org key: %w", err)
		}
		w.nextOrg = next
	}
	next, cur := w.nextOrg, s.self()
	if next == nil {
		return nil
	}
	if next.Signing.Public().Equal(cur.Signing.Public()) {
		w.nextOrg = nil
		return nil
	}
	refuse := func(msg string) error {
		w.nextOrg = nil
		return &ConfigError{Key: "keys/org.json", Msg: msg + "; the gateway goes on under the key in use, and takes the new one as it is at its next start"}
	}
	switch {
	case next.Ref != cur.Ref:
		return refuse(fmt.Sprintf("is now the key of %s, not of %s", next.Ref, cur.Ref))
	case !next.Encryption.Public().Equal(cur.Encryption.Public()):
		return refuse("holds another X25519 encryption key, which the local agents share and a running gateway does not change")
	}
	st, had := s.rotation.Handover(handover.KindOrgKey, cur.Signing.Public().String(), next.Signing.Public().String())
	if st == nil {
		return refuse(fmt.Sprintf("holds the key %s, which no handover from the key in use (%s) names in handovers.json: peers would refuse it (rotate with moltgate key rotate)",
			next.Signing.Public().Fingerprint(), cur.Signing.Public().Fingerprint()))
	}
	if !had {
		w.wait(s, "org key", next.Signing.Public().Fingerprint())
		return nil
	}
	w.nextOrg = nil
	return s.switchOrgKey(ctx, next, st)
}

// wait logs, once, that what is waiting for its handover to reach the
// peers.
func (w *keyWatch) wait(s *Server, what, next string) {
	if w.waiting == what+next {
		return
	}
	w.waiting = what + next
	s.log.Info("new "+what+" waits for its handover to reach the peers", "new", next)
}

// switchOrgKey makes next, which st hands over to, the org key in use: the
// gateway's identity certificate and its agents' certificates are issued
// again under it, and their directory entries published again; new
// handshakes present it, and what the gateway signs from now on is signed
// with it. Sessions made under the old key go on until the overlap ends
// (the peers' sessions renew under the new one before), and the old key
// stays trusted for the organisation's own certificates until then.
func (s *Server) switchOrgKey(ctx context.Context, next *identity.Agent, st *handover.Statement) error {
	now := s.now()
	cert, err := s.certifySelf(next, now)
	if err != nil {
		return fmt.Errorf("reload org key: %w", err)
	}
	old, err := s.keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
		set.Self, set.Cert = next, cert
		return set, nil
	})
	if err != nil {
		return fmt.Errorf("reload org key: %w", err)
	}
	s.trust.Add(s.cfg.Org, next.Signing.Public())
	s.rotation.HandedFrom(st)
	// The revocation list was signed again under the new key; the
	// gateway serves it from now on.
	s.revoked.Own()
	renewed := s.roster.Recertify(ctx, now)
	until := time.UnixMilli(st.Effective + st.OverlapMS)
	s.log.Warn("org key switched", "old", old.Self.Signing.Public().Fingerprint(), "new", next.Signing.Public().Fingerprint(),
		"agents_certified", len(renewed), "old_refused_from", until.UTC().Format(time.RFC3339))
	return nil
}

// reloadTLS is ReloadKeys for the TLS certificate. The caller holds w.mu.
func (s *Server) reloadTLS() error {
	w := s.keyWatch
	if st := ownfile.StampOf(s.dir.TLSCertPath()); !st.Same(w.tlsStamp) {
		w.tlsStamp, w.nextTLS, w.nextPin = st, nil, ""
		c, pin, err := loadTLSCert(s.dir)
		if err != nil {
			// tls rotate renames the key, then the certificate: a
			// certificate read between the two does not go with its
			// key, and is read again at the next change.
			return fmt.Errorf("reload TLS certificate: %w", err)
		}
		w.nextTLS, w.nextPin = &c, pin
	}
	cur := s.keys.Load()
	if w.nextTLS == nil {
		return nil
	}
	if w.nextPin == cur.TLSPin {
		w.nextTLS, w.nextPin = nil, ""
		return nil
	}
	st, had := s.rotation.Handover(handover.KindTLSPin, cur.TLSPin, w.nextPin)
	if st == nil {
		pin := w.nextPin
		w.nextTLS, w.nextPin = nil, ""
		return &ConfigError{Key: "tls/cert.pem", Msg: fmt.Sprintf("holds a certificate of pin %s, which no handover from the pin in use (%s) names in handovers.json: peers would refuse it (rotate with moltgate tls rotate); the gateway presents the certificate in use, and the new one as it is at its next start",
			pin, cur.TLSPin)}
	}
	if !had {
		w.wait(s, "TLS certificate", w.nextPin)
		return nil
	}
	next, pin := w.nextTLS, w.nextPin
	w.nextTLS, w.nextPin = nil, ""
	if _, err := s.keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
		set.TLS, set.TLSPin = next, pin
		return set, nil
	}); err != nil {
		return fmt.Errorf("reload TLS certificate: %w", err)
	}
	s.log.Warn("TLS certificate switched", "old_pin", cur.TLSPin, "new_pin", pin,
		"old_refused_from", time.UnixMilli(st.Effective+st.OverlapMS).UTC().Format(time.RFC3339))
	return nil
}

// peerKeys returns the org keys accepted for org now and the newest of
// them: the key a handover named once it is in effect, else the pinned
// one.
func (s *Server) peerKeys(org string) (keys.Ed25519Public, []keys.Ed25519Public) {
	accepted := s.pins.Accepted(org)
	if len(accepted) == 0 {
		return keys.Ed25519Public{}, nil
	}
	newest := accepted[0]
	if p, ok := s.pins.Lookup(org); ok && p.Next != nil {
		for _, k := range accepted {
			if k.Equal(p.Next.Key) {
				newest = k
			}
		}
	}
	return newest, accepted
}

// pendingOrgKeys are the org keys the organisation's own handovers hand
// the key in use over to: made by key rotate, not in use here yet.
func (s *Server) pendingOrgKeys() []keys.Ed25519Public {
	cur := s.self().Signing.Public().String()
	var out []keys.Ed25519Public
	for _, st := range s.rotation.Own().Handovers {
		if st.Kind != handover.KindOrgKey || st.Old != cur {
			continue
		}
		if k, err := keys.ParseEd25519Public(st.New); err == nil {
			out = append(out, k)
		}
	}
	return out
}
