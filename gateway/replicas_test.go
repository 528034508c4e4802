package gateway

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/wire"
)

// usePostgres points a gateway directory's configuration at dsn.
func usePostgres(t *testing.T, d Dir, dsn string) {
	t.Helper()
	b, err := os.ReadFile(d.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "driver = \"sqlite\"\ndsn = \"\"", fmt.Sprintf("driver = \"postgres\"\ndsn = %q", dsn), 1)
	if text == string(b) {
		t.Fatal("could not set the storage driver")
	}
	if err := os.WriteFile(d.ConfigPath(), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies a gateway directory, as an operator sets up a replica.
func copyDir(t *testing.T, d Dir) Dir {
	t.Helper()
	root, err := os.MkdirTemp("", "mg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	dst := Dir(filepath.Join(root, "replica"))
	if err := os.CopyFS(string(dst), os.DirFS(string(d))); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dst.RunDir())
	os.Remove(filepath.Join(dst.DataDir(), "moltgate.db"))
	for _, p := range []string{string(dst), dst.DataDir(), dst.PeersDir(), filepath.Join(string(dst), "keys"), filepath.Join(string(dst), "keys", "agents")} {
		os.Chmod(p, 0o700)
	}
	filepath.WalkDir(string(dst), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			os.Chmod(p, 0o600)
		}
		return nil
	})
	return dst
}

// replicas is acme's gateway, with a client agent, and two replicas of
// globex's, with an echo agent, on one PostgreSQL: globex in its directory
// and replica in a copy of it. They trust each other up to conf and call
// over HTTP.
type replicas struct {
	acme, globex, replica *testGateway
	globexDir, replicaDir Dir
}

func replicaRig(t *testing.T) replicas {
	t.Helper()
	dsn := pgtest.DSN(t)
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", QueryTool: "echo"})
	trustEachOther(t, da, db, "conf")
	usePostgres(t, db, dsn)
	rr := replicas{globexDir: db, replicaDir: copyDir(t, db)}
	rr.acme = start(t, da, la, TransportHTTP)
	rr.globex = start(t, db, lb, TransportHTTP)
	_, lr := newTestDir(t, "ports")
	rr.replica = start(t, rr.replicaDir, &Listeners{HTTP: lr.HTTP, GRPC: lr.GRPC}, TransportHTTP)
	return rr
}

// TestReplicasShareReplayWindow runs two replicas of one organisation's
// gateway on one PostgreSQL: a message that one replica accepted is a
// replay for the other.
func TestReplicasShareReplayWindow(t *testing.T) {
	rr := replicaRig(t)
	acme, globex, replica := rr.acme, rr.globex, rr.replica

	// acme seals one ping to globex's agent outside any session: a public
	// ping needs a valid signature, and the identity certificate that shows,
	// outside a session, that the sender is acme's.
	st := acme.s.roster.Agent("client")
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(acme.s.rand), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: st.Identity.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "n-1"},
		Ext:     wire.ObjectValue(wire.Member{Key: pipeline.ExtIdentity, Value: wire.ObjectValue(wire.Member{Key: "cert", Value: st.Cert.Value()})})}
	peer := acme.s.peers.Get("globex").Peer()
	env, err := crypto.SealMessage(acme.s.codec, m, st.Identity.Signing, acme.s.keys.Keyring().Current, peer.EncKey)
	if err != nil {
		t.Fatal(err)
	}
	// The replicas share globex's certificate, and so its pin.
	tcfg, err := pinnedClientTLS(peer.TLSPin, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tcfg}}
	defer client.CloseIdleConnections()
	post := func(g *testGateway) (int, wire.Code) {
		url := "https://" + g.ls.HTTP.Addr().String() + "/moltspeak/v0.1/message"
		resp, err := client.Post(url, "application/json", bytes.NewReader(env))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		r, err := acme.s.codec.DecodeEnvelope(b)
		if err != nil {
			t.Fatalf("reply: %v", err)
		}
		if r.Message != nil {
			if e, ok := r.Message.Payload.(*wire.ErrorPayload); ok {
				return resp.StatusCode, e.Code
			}
		}
		return resp.StatusCode, ""
	}
	if status, c := post(globex); status != http.StatusOK || c != "" {
		t.Fatalf("first delivery: %d %s\n%s", status, c, globex.logs())
	}
	if status, c := post(replica); status != http.StatusUnauthorized || c != wire.ErrReplay {
		t.Fatalf("replay to the other replica: %d %s", status, c)
	}
}
