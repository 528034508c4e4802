package gateway

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/logbuf"
	"github.com/moltgate/moltgate/keys"
)

// switchRig is a gateway opened on a directory with one local agent,
// whose log is kept.
func switchRig(t *testing.T, port string) (Dir, *Server, *logbuf.Buffer) {
	t.Helper()
	d := initDir(t, "globex", "127.0.0.1:"+port)
	if _, err := AddAgent(d, AddAgentOptions{ID: "echo", MaxCls: "int"}); err != nil {
		t.Fatal(err)
	}
	log := &logbuf.Buffer{}
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.NewJSONHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	s.held.release() // as Serve does
	return d, s, log
}

// An org key rotated while the gateway serves is taken up once its
// handover has reached the peers (here none, so once pushed): the gateway
// signs and certifies under the new key, its agents' certificates are
// issued under it, the revocation list signed under it is served, and the
// old key stays trusted for the organisation's own certificates.
func TestOrgKeySwitchedWhileServing(t *testing.T) {
	d, s, log := switchRig(t, "9751")
	ctx := context.Background()
	before := s.self()
	oldCert := s.keys.Load().Cert
	if _, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour}); err != nil {
		t.Fatal(err)
	}
	// Not pushed yet: the gateway waits.
	if err := s.ReloadKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.self().Signing.Public().Equal(before.Signing.Public()) {
		t.Fatal("the key was taken before its handover was pushed")
	}
	if !strings.Contains(log.String(), "new org key waits for its handover to reach the peers") {
		t.Fatalf("the wait is not logged:\n%s", log)
	}
	s.rotation.PushChanged(ctx)
	if err := s.ReloadKeys(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := s.keys.Load()
	switch {
	case !set.Self.Signing.Public().Equal(after.Signing.Public()):
		t.Fatal("the gateway does not sign with the new key")
	case !set.Cert.Issuer.Equal(after.Signing.Public()) || !set.Cert.Key.Equal(after.Signing.Public()):
		t.Fatal("the gateway's certificate is not of and under the new key")
	case !s.roster.Agent("echo").Cert.Issuer.Equal(after.Signing.Public()) || !s.roster.Agent("echo").Caps[0].Attestation.Issuer.Equal(after.Signing.Public()):
		t.Fatal("the agent's certificates are not issued under the new key")
	case !s.trust.Trusts("globex", before.Signing.Public()) || !s.trust.Trusts("globex", after.Signing.Public()):
		t.Fatal("both keys are not trusted for the organisation's certificates during the overlap")
	case s.revoked.Own().Serial != 1:
		t.Fatalf("the revocation list served is serial %d, want the one signed under the new key", s.revoked.Own().Serial)
	case !strings.Contains(log.String(), `"msg":"org key switched"`):
		t.Fatal("the switch is not logged")
	}
	if oldCert.Key.Equal(set.Cert.Key) {
		t.Fatal("the certificate was not issued again")
	}
	// Nothing more to take.
	if err := s.ReloadKeys(ctx); err != nil {
		t.Fatal(err)
	}
}

// A key put in keys/org.json without a handover is not taken up while
// serving: the error says why and that a restart takes it.
func TestOrgKeyWithoutHandoverNotTaken(t *testing.T) {
	d, s, _ := switchRig(t, "9753")
	before := s.self()
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	stray := *before
	stray.Signing = sk
	time.Sleep(10 * time.Millisecond) // a new modification time
	if err := stray.Save(d.OrgKeyPath(), keys.WriteOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	err = s.ReloadKeys(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no handover") || !strings.Contains(err.Error(), "next start") {
		t.Fatalf("a key without a handover: %v", err)
	}
	if !s.self().Signing.Public().Equal(before.Signing.Public()) {
		t.Fatal("a key without a handover was taken")
	}
	// Reported once per change of the file.
	if err := s.ReloadKeys(context.Background()); err != nil {
		t.Fatalf("reported again: %v", err)
	}
}

// A TLS certificate rotated while serving is presented to new connections
// once its handover has been pushed.
func TestTLSSwitchedWhileServing(t *testing.T) {
	d, s, log := switchRig(t, "9755")
	ctx := context.Background()
	hello := &tls.ClientHelloInfo{}
	old, _ := s.keys.GetCertificate(hello)
	r, err := RotateTLS(d, RotateOptions{Overlap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReloadKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.keys.GetCertificate(hello); c != old {
		t.Fatal("the new certificate was presented before its pin was pushed")
	}
	s.rotation.PushChanged(ctx)
	if err := s.ReloadKeys(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := s.keys.GetCertificate(hello)
	if err != nil || spkiPin(c.Leaf) != r.New || s.keys.Load().TLSPin != r.New {
		t.Fatalf("presented %v (%v), want pin %s", c, err, r.New)
	}
	if !strings.Contains(log.String(), `"msg":"TLS certificate switched"`) {
		t.Fatal("the switch is not logged")
	}
	// A certificate no handover announced is not presented.
	keep := s.keys.Load().TLS
	time.Sleep(10 * time.Millisecond)
	os.Remove(d.TLSKeyPath())
	os.Remove(d.TLSCertPath())
	if _, err := WriteTLSCert(d.TLSCertPath(), d.TLSKeyPath(), "globex", []string{"127.0.0.1"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.ReloadKeys(ctx); err == nil || !strings.Contains(err.Error(), "no handover") {
		t.Fatalf("a certificate without a handover: %v", err)
	}
	if s.keys.Load().TLS != keep {
		t.Fatal("a certificate without a handover was taken")
	}
}

// Every certificate the gateway issues is logged with its digest, which
// moltgate cert revoke names: its own and its agents', at start and
// again under a new org key.
func TestIssuedCertificatesLogged(t *testing.T) {
	d, s, log := switchRig(t, "9757")
	st := s.roster.Agent("echo")
	for _, want := range []string{st.Cert.Digest(), st.Caps[0].Digest(), "tool.invoke=" + st.Caps[0].Digest(), s.keys.Load().Cert.Digest()} {
		if !strings.Contains(log.String(), want) {
			t.Fatalf("%s is not in the log:\n%s", want, log)
		}
	}
	if _, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour}); err != nil {
		t.Fatal(err)
	}
	s.rotation.PushChanged(context.Background())
	if err := s.ReloadKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st = s.roster.Agent("echo"); !strings.Contains(log.String(), st.Cert.Digest()) || !strings.Contains(log.String(), s.keys.Load().Cert.Digest()) {
		t.Fatalf("the certificates issued under the new key are not logged:\n%s", log)
	}
}
