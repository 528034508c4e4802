package keyswitch

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/logbuf"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// handovers holds one statement, had or not.
type handovers struct {
	st     *handover.Statement
	had    bool
	handed []*handover.Statement
}

func (h *handovers) Handover(kind, old, next string) (*handover.Statement, bool) {
	if h.st == nil || h.st.Kind != kind || h.st.Old != old || h.st.New != next {
		return nil, false
	}
	return h.st, h.had
}

func (h *handovers) HandedFrom(st *handover.Statement) { h.handed = append(h.handed, st) }

// agents counts the calls the switch makes for the local agents.
type agents struct{ recertified, renewed int }

func (a *agents) Recertify(context.Context, time.Time) []string {
	a.recertified++
	return []string{"echo"}
}

func (a *agents) Renew(context.Context, time.Time) { a.renewed++ }

type revocations struct{}

func (revocations) Own() *revocation.List { return nil }

type configError struct{ key, msg string }

func (e *configError) Error() string { return e.key + ": " + e.msg }

// rig is a Switch over an org key file in a temporary directory, whose
// contents LoadOrg returns as next.
type rig struct {
	w     *Switch
	keys  *orgkey.Source
	trust *identity.TrustStore
	hs    *handovers
	ag    *agents
	log   *logbuf.Buffer
	path  string
	next  *identity.Agent
	now   time.Time
}

func certify(self *identity.Agent, now time.Time) (*identity.Cert, error) {
	org := &identity.Org{Name: self.Ref.Org, Signing: self.Signing}
	return org.IssueIdentity(self.Public(), now.Add(-time.Minute), now.Add(time.Hour))
}

func newRig(t *testing.T) *rig {
	t.Helper()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	self, err := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := certify(self, now)
	if err != nil {
		t.Fatal(err)
	}
	src, err := orgkey.New(orgkey.Set{Self: self, Cert: cert})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{keys: src, trust: identity.NewTrustStore(), hs: &handovers{}, ag: &agents{}, log: &logbuf.Buffer{},
		path: filepath.Join(t.TempDir(), "org.json"), now: now}
	if err := os.WriteFile(r.path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.w = New(Config{
		Org: "globex", OrgKeyPath: r.path, TLSCertPath: filepath.Join(t.TempDir(), "cert.pem"),
		LoadOrg:     func() (*identity.Agent, error) { return r.next, nil },
		Certify:     certify,
		HalfSpent:   func(issued, expires int64, now time.Time) bool { return now.UnixMilli() >= issued+(expires-issued)/2 },
		ConfigError: func(key, msg string) error { return &configError{key, msg} },
		Keys:        src, Trust: r.trust, Handovers: r.hs, Agents: r.ag, Revocations: revocations{},
		Log: slog.New(slog.NewTextHandler(r.log, nil)), Now: func() time.Time { return r.now },
	}, See(r.path, filepath.Join(t.TempDir(), "cert.pem")))
	return r
}

// rotate writes a new org key, the same agent under a new signing key and
// a new X25519 key, as key rotate does.
func (r *rig) rotate(t *testing.T) {
	t.Helper()
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := keys.GenerateX25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cur := r.keys.Current()
	r.next = &identity.Agent{Ref: cur.Ref, Signing: sk, Encryption: enc}
	if err := os.WriteFile(r.path, []byte("new, and longer"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// handover is the statement from the key in use to the one rotate wrote,
// naming its X25519 key, with an overlap of an hour.
func (r *rig) handover() *handover.Statement {
	return &handover.Statement{Kind: handover.KindOrgKey, Old: r.keys.Current().Signing.Public().String(), New: r.next.Signing.Public().String(),
		NewEncKey: r.next.Encryption.Public().String(), Effective: r.now.UnixMilli(), OverlapMS: time.Hour.Milliseconds()}
}

// A new org key is taken up only once its handover has reached the
// peers: it waits, logged once, then is swapped in, trusted, and the
// agents are certified again under it.
func TestSwitchWaitsForHandover(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	old := r.keys.Current()
	r.rotate(t)
	r.hs.st = r.handover()
	for range 2 {
		if err := r.w.Reload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if r.keys.Current() != old {
		t.Fatal("the key was taken before its handover reached the peers")
	}
	if n := strings.Count(r.log.String(), "waits for its handover"); n != 1 {
		t.Fatalf("the wait is logged %d times, want once:\n%s", n, r.log)
	}
	r.hs.had = true
	if err := r.w.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	set := r.keys.Load()
	switch {
	case set.Self != r.next:
		t.Fatal("the new key is not in use once its handover was had")
	case !set.Cert.Key.Equal(r.next.Signing.Public()) || !set.Cert.Issuer.Equal(r.next.Signing.Public()):
		t.Fatal("the gateway's certificate is not issued under the new key")
	case !r.trust.Trusts("globex", r.next.Signing.Public()):
		t.Fatal("the new key is not trusted for the organisation")
	case len(r.hs.handed) != 1 || r.hs.handed[0] != r.hs.st:
		t.Fatalf("HandedFrom got %v, want the statement once", r.hs.handed)
	case r.ag.recertified != 1:
		t.Fatalf("agents certified again %d times, want once", r.ag.recertified)
	case !strings.Contains(r.log.String(), "org key switched"):
		t.Fatalf("the switch is not logged:\n%s", r.log)
	}
}

// The X25519 key turns over with the org key, live: once switched, the
// gateway's keyring opens what is sealed to the new key and, until the
// overlap ends, to the one replaced; after it, only the new.
func TestSwitchTakesNewEncKey(t *testing.T) {
	r := newRig(t)
	old := r.keys.Current()
	r.rotate(t)
	r.hs.st, r.hs.had = r.handover(), true
	if err := r.w.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	set := r.keys.Load()
	k := set.Keys
	until := time.UnixMilli(r.hs.st.Effective + r.hs.st.OverlapMS)
	switch {
	case set.Self != r.next || !set.Cert.EncKey.Equal(r.next.Encryption.Public()):
		t.Fatal("the gateway's identity certificate does not name the new X25519 key")
	case !k.Current.Public().Equal(r.next.Encryption.Public()):
		t.Fatal("the keyring does not open with the new X25519 key")
	case len(k.Formers) != 1 || !k.Formers[0].Box.Public().Equal(old.Encryption.Public()) || !k.Formers[0].Until.Equal(until):
		t.Fatalf("the keyring's former key: %+v, want the old one until %v", k, until)
	case len(k.Accepting(until.Add(-time.Millisecond))) != 2 || len(k.Accepting(until)) != 1:
		t.Fatal("the old X25519 key is not accepted until the overlap ends, and only until then")
	case !strings.Contains(r.log.String(), `new_enc_key="`+r.next.Encryption.Public().String()+`"`):
		t.Fatalf("the switch does not log the new X25519 key:\n%s", r.log)
	}
}

// A key file whose X25519 key is not the one its handover names is not
// taken: peers would seal to a key the gateway cannot open with.
func TestSwitchRefusesEncKeyNotNamed(t *testing.T) {
	r := newRig(t)
	old := r.keys.Current()
	r.rotate(t)
	r.hs.st, r.hs.had = r.handover(), true
	other, err := keys.GenerateX25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	r.hs.st.NewEncKey = other.Public().String()
	err = r.w.Reload(context.Background())
	var ce *configError
	if !errors.As(err, &ce) || ce.key != "keys/org.json" || !strings.Contains(ce.msg, "handover to its org key names "+other.Public().String()) {
		t.Fatalf("Reload = %v, want the file named and the X25519 key the handover names", err)
	}
	if r.keys.Current() != old || len(r.keys.Keyring().Formers) != 0 {
		t.Fatal("a key with an X25519 key its handover does not name was taken up")
	}
}

// A new org key no handover names is refused, naming the file, and the
// key in use stays.
func TestSwitchRefusesUnnamedKey(t *testing.T) {
	r := newRig(t)
	old := r.keys.Current()
	r.rotate(t)
	err := r.w.Reload(context.Background())
	var ce *configError
	if !errors.As(err, &ce) || ce.key != "keys/org.json" || !strings.Contains(ce.msg, "no handover") {
		t.Fatalf("Reload = %v, want the file named and no handover said", err)
	}
	if r.keys.Current() != old {
		t.Fatal("a key no handover names was taken up")
	}
	// Refused once: the same file is not refused again until it changes.
	if err := r.w.Reload(context.Background()); err != nil {
		t.Fatalf("Reload again = %v, want nil until the file changes", err)
	}
}

// Renew issues the gateway's certificate again once half spent, and
// always asks the agents to renew theirs.
func TestRenewHalfSpent(t *testing.T) {
	r := newRig(t)
	before := r.keys.Load().Cert
	r.w.Renew(context.Background())
	if r.keys.Load().Cert != before || r.ag.renewed != 1 {
		t.Fatal("a fresh certificate was issued again, or the agents were not asked")
	}
	r.now = r.now.Add(31 * time.Minute)
	r.w.Renew(context.Background())
	if after := r.keys.Load().Cert; after == before || after.IssuedAt <= before.IssuedAt || r.ag.renewed != 2 {
		t.Fatal("a half-spent certificate was not issued again")
	}
}

func TestRenewEvery(t *testing.T) {
	for _, c := range []struct{ ttl, want time.Duration }{
		{30 * 24 * time.Hour, time.Hour},
		{time.Hour, 6 * time.Minute},
		{time.Second, time.Second},
	} {
		if got := RenewEvery(c.ttl); got != c.want {
			t.Errorf("RenewEvery(%s) = %s, want %s", c.ttl, got, c.want)
		}
	}
}
