package e2e

import (
	"crypto/rand"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// TestReplayWindowSurvivesRestart: a signed ping that globex accepted
// outside a session is refused as a replay after globex restarts, within
// its ±5 minutes, on the embedded (SQLite) backend.
func TestReplayWindowSurvivesRestart(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	p := newRawPeer(t, acme, globex, "raw")

	ping := p.ping()
	if a := p.post(ping); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("first ping: %d %v", a.status, a.reply)
	}
	globex.signal(syscall.SIGTERM)
	if err := globex.wait(60 * time.Second); err != nil {
		t.Fatalf("globex did not stop cleanly: %v", err)
	}
	globex.start()
	wantRefusal(t, "ping replayed after a restart", p.post(ping), wire.ErrReplay)
	if a := p.post(p.ping()); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("a fresh ping after the restart: %d %v", a.status, a.reply)
	}
}

// TestStrangersSpendNoIDs: a fresh key that claims to be one of acme's
// agents is refused for what it is, each time, and its message ids are not
// recorded, so that it cannot fill the window the real agent needs.
func TestStrangersSpendNoIDs(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	p := newRawPeer(t, acme, globex, "raw")

	liar, err := identity.Generate(rand.Reader, wire.Ref{Agent: "raw", Org: acme.name})
	if err != nil {
		t.Fatal(err)
	}
	stranger := *p
	stranger.agent, stranger.ext = liar, wire.Value{}
	ping := stranger.ping()
	wantRefusal(t, "a stranger's ping", stranger.post(ping), wire.ErrAuthFailed)
	wantRefusal(t, "the same ping again", stranger.post(ping), wire.ErrAuthFailed)

	if a := p.post(p.ping()); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("the real agent's ping: %d %v", a.status, a.reply)
	}
}
