package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestRotationAcrossReplicas: two replicas of globex on one PostgreSQL.
// The org key and the TLS certificate are rotated once, in one replica's
// directory, and the files copied to the other's, as an operator does;
// each replica pushes the statements, acme takes them once, and both
// replicas switch while serving, with no restart: both sign under the new
// key, present the new certificate and serve the list signed under the
// new key, and acme's calls to globex go on.
func TestRotationAcrossReplicas(t *testing.T) {
	rr := replicaRig(t)
	acme, globex, replica, db, replicaDir := rr.acme, rr.globex, rr.replica, rr.globexDir, rr.replicaDir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	echo := func(text string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"` + text + `"}`)}, nil)
		return err
	}
	if err := echo("before"); err != nil {
		t.Fatal(err)
	}

	if _, err := RotateOrgKey(db, RotateOptions{Overlap: time.Hour}); err != nil {
		t.Fatal(err)
	}
	r, err := RotateTLS(db, RotateOptions{Overlap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"keys/org.json", "tls/cert.pem", "tls/key.pem", "handovers.json", "revocations.json"} {
		b, err := os.ReadFile(filepath.Join(string(db), rel))
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(string(replicaDir), rel+".new")
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(string(replicaDir), rel)); err != nil {
			t.Fatal(err)
		}
	}
	nw, err := LoadOrg(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, g := range []*testGateway{globex, replica} {
		for {
			set := g.s.keys.Load()
			if set.Self.Signing.Public().Equal(nw.Signing.Public()) && set.TLSPin == r.New {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never switched:\n%s", g.dir, g.logs())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := g.s.revoked.Own().Serial; got != 1 {
			t.Fatalf("%s serves the revocation list of serial %d, want the one signed under the new key", g.dir, got)
		}
		if !g.s.roster.Agent("echo").Cert.Issuer.Equal(nw.Signing.Public()) {
			t.Fatalf("%s's agent is not certified under the new key", g.dir)
		}
	}
	if p, ok := acme.s.pins.Lookup("globex"); !ok || (p.Next == nil || !p.Next.Key.Equal(nw.Signing.Public())) && !p.Key.Equal(nw.Signing.Public()) {
		t.Fatalf("acme's pin of globex: %+v", p)
	}
	if err := echo("after"); err != nil {
		t.Fatalf("a call after both replicas switched: %v", err)
	}
	// acme's session made under globex's old key is renewed under the new
	// one within seconds, on its next calls; the handshake shows acme the
	// new key, its pin takes it and its peer file names it.
	gw := wire.Ref{Agent: pipeline.GatewayAgent, Org: "globex"}
	for {
		sess, err := acme.s.sessions.Peer(gw)
		if err == nil && sess.Peer().Key.Equal(nw.Signing.Public()) && acme.s.peers.Get("globex").Peer().OrgKey.Equal(nw.Signing.Public()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("acme's session with globex and its peer file still under the old key:\n%s", acme.logs())
		}
		if err := echo("renew"); err != nil {
			t.Fatalf("a call while acme moves to globex's new key: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
