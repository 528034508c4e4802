package rotation

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// pushPeers are the rig's peers with the calls held: each push to a peer
// runs when the test says, and is answered as the test says.
type pushPeers struct {
	*peers.Table
	mu      sync.Mutex
	queued  []func()
	refuse  map[string]bool     // peers that refuse what is pushed
	arrived map[string][]string // per peer, the new key or pin of each statement pushed to it, in order
}

func (p *pushPeers) CallAsGateway(_ context.Context, ps *peers.Remote, m *wire.Message, _ func(*wire.Message) (bool, error)) error {
	a := m.Payload.(*wire.SecurityAlertPayload)
	next, _ := a.Handover.Get("new").Str()
	p.mu.Lock()
	defer p.mu.Unlock()
	org := ps.Peer().Org
	p.arrived[org] = append(p.arrived[org], next)
	if p.refuse[org] {
		return wire.Errorf(wire.ErrAuthFailed, "from", "refused")
	}
	return nil
}

// goLater is Config.Go: the push to each peer waits in the queue.
func (p *pushPeers) goLater(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queued = append(p.queued, f)
}

// run runs the pushes queued, in order, and says how many.
func (p *pushPeers) run() int {
	p.mu.Lock()
	q := p.queued
	p.queued = nil
	p.mu.Unlock()
	for _, f := range q {
		f()
	}
	return len(q)
}

func (p *pushPeers) pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queued)
}

// The organisation's statements are pushed one at a time, oldest first:
// the second goes out only once the first reached every peer, since a peer
// takes a statement signed by the key the one before handed over to only
// once it took that one; a peer that never answers holds the next back
// only until PullEvery and a fetch have passed, within which it pulls.
func TestPushOldestFirstOneAtATime(t *testing.T) {
	r := newRig(t)
	initech := &peers.Peer{Org: "initech", OrgKey: r.globexKey.Public(), EncKey: r.peer.EncKey, Endpoint: "http://127.0.0.1:3", GRPC: "127.0.0.1:4", TLSPin: pin(3)}
	if err := r.table.Add(initech); err != nil {
		t.Fatal(err)
	}
	pp := &pushPeers{Table: r.table, refuse: map[string]bool{}, arrived: map[string][]string{}}
	cfg := r.room.cfg
	cfg.Peers, cfg.Go = pp, pp.goLater
	room, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Three rotations written at once: key rotate, tls rotate, key rotate.
	self := cfg.Self.Current()
	k1, _ := keys.GenerateEd25519(rand.Reader)
	k2, _ := keys.GenerateEd25519(rand.Reader)
	enc, _ := keys.GenerateX25519(rand.Reader)
	first, _ := handover.OrgKey("acme", self.Signing, k1, enc.Public(), r.now, time.Hour, r.now)
	second, _ := handover.TLSPin("acme", k1, pin(7), pin(8), r.now, time.Hour, r.now)
	third, _ := handover.OrgKey("acme", k1, k2, enc.Public(), r.now, time.Hour, r.now)
	set := &handover.Set{Handovers: []*handover.Statement{first, second, third}}
	if err := set.WriteFile(r.ownPath); err != nil {
		t.Fatal(err)
	}
	want := func(when string, sts ...*handover.Statement) {
		t.Helper()
		var news []string
		for _, st := range sts {
			news = append(news, st.New)
		}
		for _, org := range []string{"globex", "initech"} {
			pp.mu.Lock()
			got := fmt.Sprint(pp.arrived[org])
			pp.mu.Unlock()
			if got != fmt.Sprint(news) {
				t.Fatalf("%s: %s was pushed %s, want %s", when, org, got, news)
			}
		}
	}

	room.PushChanged(ctx)
	if n := pp.pending(); n != 2 {
		t.Fatalf("the first push made %d calls, want one per peer", n)
	}
	if _, had := room.Handover(handover.KindOrgKey, first.Old, first.New); had {
		t.Fatal("the first statement counts as had before any peer took it")
	}
	// Only the first is pushed, however often the loop looks, until it
	// has reached both peers.
	for range 3 {
		room.PushChanged(ctx)
	}
	if n := pp.pending(); n != 2 {
		t.Fatalf("%d calls queued before the first statement reached the peers, want its 2", n)
	}
	pp.run()
	want("after the first push", first)
	if _, had := room.Handover(handover.KindOrgKey, first.Old, first.New); !had {
		t.Fatal("the first statement does not count as had once both peers took it")
	}

	// The second goes out now; initech refuses it, so the third waits.
	pp.refuse["initech"] = true
	room.PushChanged(ctx)
	if n := pp.run(); n != 2 {
		t.Fatalf("the second push made %d calls, want one per peer", n)
	}
	want("after the second push", first, second)
	room.PushChanged(ctx)
	if n := pp.pending(); n != 0 {
		t.Fatalf("the third statement was pushed while initech had not the second (%d calls)", n)
	}
	// Until PullEvery and a fetch have passed, within which initech pulls.
	r.now = r.now.Add(PullEvery + fetchTimeout)
	room.PushChanged(ctx)
	if n := pp.run(); n != 2 {
		t.Fatalf("the third push made %d calls, want one per peer", n)
	}
	want("after the third push", first, second, third)
	room.PushChanged(ctx)
	if n := pp.pending(); n != 0 {
		t.Fatalf("%d calls once every statement was pushed, want none", n)
	}
}

var _ Peers = (*pushPeers)(nil)

// Statements there when the room opens count as pushed and had: a restart
// pushes nothing again.
func TestPushNothingAtStart(t *testing.T) {
	r := newRig(t)
	k1, _ := keys.GenerateEd25519(rand.Reader)
	enc, _ := keys.GenerateX25519(rand.Reader)
	st, _ := handover.OrgKey("acme", r.room.cfg.Self.Current().Signing, k1, enc.Public(), r.now, time.Hour, r.now)
	if err := (&handover.Set{Handovers: []*handover.Statement{st}}).WriteFile(r.ownPath); err != nil {
		t.Fatal(err)
	}
	pp := &pushPeers{Table: r.table, refuse: map[string]bool{}, arrived: map[string][]string{}}
	cfg := r.room.cfg
	cfg.Peers, cfg.Go, cfg.Log = pp, pp.goLater, slog.New(slog.DiscardHandler)
	room, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	room.PushChanged(context.Background())
	if n := pp.pending(); n != 0 {
		t.Fatalf("%d calls for a statement there at start, want none", n)
	}
	if _, had := room.Handover(handover.KindOrgKey, st.Old, st.New); !had {
		t.Fatal("a statement there at start does not count as had")
	}
}
