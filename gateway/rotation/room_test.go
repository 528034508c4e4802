package rotation

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// rig is a room of acme's gateway with one peer, globex, pinned under
// globexKey, on a clock the test moves.
type rig struct {
	t         *testing.T
	now       time.Time
	room      *Room
	pins      *keys.PinStore
	trust     *identity.TrustStore
	table     *peers.Table
	log       *bytes.Buffer
	ended     []keys.Ed25519Public // sessions.RemoveKey's keys
	selfEnded []keys.Ed25519Public // sessions.RemoveSelfKey's keys
	mu        sync.Mutex
	peer      peers.Peer // globex's peer file
	globexKey keys.Ed25519Private
	ownPath   string
}

func (r *rig) clock() time.Time { return r.now }

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: t, now: time.UnixMilli(1_800_000_000_000), log: &bytes.Buffer{}}
	var err error
	r.globexKey, _ = keys.GenerateEd25519(rand.Reader)
	enc, _ := keys.GenerateX25519(rand.Reader)
	if r.pins, err = keys.OpenPinStore(filepath.Join(t.TempDir(), "pins.json"), r.clock); err != nil {
		t.Fatal(err)
	}
	if err := r.pins.Pin("globex", r.globexKey.Public(), enc.Public()); err != nil {
		t.Fatal(err)
	}
	r.trust = identity.NewTrustStore()
	r.trust.Add("globex", r.globexKey.Public())
	r.peer = peers.Peer{Org: "globex", OrgKey: r.globexKey.Public(), EncKey: enc.Public(), Endpoint: "http://127.0.0.1:1", GRPC: "127.0.0.1:2",
		TLSPin: pin(1)}
	r.table = peers.New(peers.Config{Now: r.clock, Rand: rand.Reader, Log: slog.New(slog.DiscardHandler)})
	p := r.peer
	if err := r.table.Add(&p); err != nil {
		t.Fatal(err)
	}
	self, err := identity.Generate(rand.Reader, wire.Ref{Agent: "gateway", Org: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	r.ownPath = filepath.Join(t.TempDir(), "handovers.json")
	r.room, err = New(Config{Self: self, OwnPath: r.ownPath, MessageBytes: 1 << 20, Pins: r.pins, Trust: r.trust,
		Peers: r.table, Sessions: r, EditPeer: r.editPeer, Go: func(f func()) { f() },
		Log: slog.New(slog.NewJSONHandler(r.log, nil)), Rand: rand.Reader, Now: r.clock})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) RemoveKey(org string, key keys.Ed25519Public) int {
	r.ended = append(r.ended, key)
	return 1
}

func (r *rig) RemoveSelfKey(key keys.Ed25519Public) int {
	r.selfEnded = append(r.selfEnded, key)
	return 1
}

func (r *rig) editPeer(org string, edit func(*peers.Peer) bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.peer
	if edit(&p) {
		r.peer = p
		// As the gateway's reload does when the file changes.
		q := p
		r.table.Put(mustPrepare(r.t, r.table, &q))
	}
	return nil
}

func mustPrepare(t *testing.T, tb *peers.Table, p *peers.Peer) *peers.Remote {
	t.Helper()
	ps, err := tb.Prepare(p)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// pin is a well-formed TLS pin, different for each n.
func pin(n byte) string {
	return "sha256:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{n}, 32))
}

func wantCode(t *testing.T, err error, c wire.Code, field string) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != c || we.Field != field {
		t.Fatalf("got %v, want %s on %s", err, c, field)
	}
}

// A handover signed by the pinned key moves the pin on and trusts the new
// key; once the overlap ends, the old key leaves the trust store, its
// sessions end and the peer file names the new key.
func TestTakeOrgKeyHandover(t *testing.T) {
	r := newRig(t)
	next, _ := keys.GenerateEd25519(rand.Reader)
	enc, _ := keys.GenerateX25519(rand.Reader)
	st, err := handover.OrgKey("globex", r.globexKey, next, enc.Public(), r.now, time.Minute, r.now)
	if err != nil {
		t.Fatal(err)
	}
	if took, err := r.room.Take("globex", st); err != nil || !took {
		t.Fatalf("take: %v %v", took, err)
	}
	if took, err := r.room.Take("globex", st); err != nil || took {
		t.Fatalf("the same statement again: %v %v", took, err)
	}
	if p, _ := r.pins.Lookup("globex"); p.Next == nil || !p.Next.Key.Equal(next.Public()) {
		t.Fatalf("pin: %+v", p)
	}
	if !r.trust.Trusts("globex", next.Public()) || !r.trust.Trusts("globex", r.globexKey.Public()) {
		t.Fatal("both keys are not trusted during the overlap")
	}
	if !strings.Contains(r.log.String(), "peer handed its org key over") {
		t.Fatal("the handover is not logged")
	}
	// The peer presents its new key: the pin takes it.
	if err := r.pins.Check("globex", next.Public()); err != nil {
		t.Fatal(err)
	}
	r.room.Tick()
	if !r.peer.OrgKey.Equal(next.Public()) || !r.peer.EncKey.Equal(enc.Public()) {
		t.Fatalf("the peer file was not written to the new key: %+v", r.peer)
	}
	if len(r.ended) != 0 || !r.trust.Trusts("globex", r.globexKey.Public()) {
		t.Fatal("the old key was let go during the overlap")
	}
	r.now = r.now.Add(time.Minute)
	r.room.Tick()
	if r.trust.Trusts("globex", r.globexKey.Public()) || !r.trust.Trusts("globex", next.Public()) {
		t.Fatal("after the overlap the old key is still trusted, or the new one not")
	}
	if len(r.ended) != 1 || !r.ended[0].Equal(r.globexKey.Public()) {
		t.Fatalf("sessions ended under %v", r.ended)
	}
}

// Statements that do not hold under the pinned key are refused and logged
// at ERROR; a fetched set passes over what is stale but not what is forged.
func TestForgedHandoversRefused(t *testing.T) {
	r := newRig(t)
	forger, _ := keys.GenerateEd25519(rand.Reader)
	next, _ := keys.GenerateEd25519(rand.Reader)
	enc, _ := keys.GenerateX25519(rand.Reader)
	fromForger, _ := handover.OrgKey("globex", forger, next, enc.Public(), r.now, time.Hour, r.now)
	_, err := r.room.Take("globex", fromForger)
	wantCode(t, err, wire.ErrSignature, "handover.old")
	claimed := *fromForger
	claimed.Old = r.globexKey.Public().String()
	_, err = r.room.Take("globex", &claimed)
	wantCode(t, err, wire.ErrSignature, "handover.sig")
	tlsByForger, _ := handover.TLSPin("globex", forger, pin(1), pin(2), r.now, time.Hour, r.now)
	_, err = r.room.Take("globex", tlsByForger)
	wantCode(t, err, wire.ErrSignature, "handover.sig")
	if got := strings.Count(r.log.String(), `"level":"ERROR","msg":"forged handover refused"`); got != 3 {
		t.Fatalf("%d forged handovers logged at ERROR, want 3:\n%s", got, r.log)
	}
	if p, _ := r.pins.Lookup("globex"); p.Next != nil || r.trust.Trusts("globex", next.Public()) || r.peer.TLSPin != pin(1) {
		t.Fatal("a forged statement changed something")
	}
	// In a fetched set: the one from another key is passed over quietly
	// (it may be a step of a chain already followed); the one that claims
	// the pinned key is refused.
	n, err := r.room.TakeSet("globex", &handover.Set{Handovers: []*handover.Statement{fromForger}})
	if n != 0 || err != nil {
		t.Fatalf("a set with a statement from another key: %d %v", n, err)
	}
	_, err = r.room.TakeSet("globex", &handover.Set{Handovers: []*handover.Statement{&claimed}})
	wantCode(t, err, wire.ErrSignature, "handover.sig")
	_, err = r.room.Take("acme", fromForger)
	wantCode(t, err, wire.ErrAuthFailed, "handover.org")
}

// A set followed from the pinned key through two rotations ends at the
// key of today.
func TestTakeSetFollowsChain(t *testing.T) {
	r := newRig(t)
	mid, _ := keys.GenerateEd25519(rand.Reader)
	last, _ := keys.GenerateEd25519(rand.Reader)
	enc, _ := keys.GenerateX25519(rand.Reader)
	s1, _ := handover.OrgKey("globex", r.globexKey, mid, enc.Public(), r.now.Add(-2*time.Hour), time.Minute, r.now.Add(-2*time.Hour))
	s2, _ := handover.OrgKey("globex", mid, last, enc.Public(), r.now.Add(-time.Minute), time.Hour, r.now.Add(-time.Minute))
	n, err := r.room.TakeSet("globex", &handover.Set{Handovers: []*handover.Statement{s1, s2}})
	if err != nil || n != 2 {
		t.Fatalf("took %d: %v", n, err)
	}
	got := r.pins.Accepted("globex")
	if len(got) != 2 || !got[0].Equal(mid.Public()) || !got[1].Equal(last.Public()) {
		t.Fatalf("accepted after the chain: %v", got)
	}
	if n, _ := r.room.TakeSet("globex", &handover.Set{Handovers: []*handover.Statement{s1, s2}}); n != 0 {
		t.Fatalf("the chain taken twice: %d", n)
	}
}

// A TLS handover signed by the org key puts both pins in the peer file
// until the overlap ends, and the new one alone after; a former pin the
// peer revokes goes at once.
func TestTakeTLSHandover(t *testing.T) {
	r := newRig(t)
	st, _ := handover.TLSPin("globex", r.globexKey, pin(1), pin(2), r.now, time.Minute, r.now)
	if took, err := r.room.Take("globex", st); err != nil || !took {
		t.Fatalf("take: %v %v", took, err)
	}
	if r.peer.TLSPin != pin(2) || r.peer.TLSPrevious != pin(1) || !r.peer.TLSUntil.Equal(r.now.Add(time.Minute)) {
		t.Fatalf("peer file: %+v", r.peer)
	}
	if got := r.table.Get("globex").Peer().TLSPins(r.now); len(got) != 2 {
		t.Fatalf("pins accepted during the overlap: %v", got)
	}
	stale, _ := handover.TLSPin("globex", r.globexKey, pin(3), pin(4), r.now, time.Minute, r.now)
	_, err := r.room.Take("globex", stale)
	wantCode(t, err, wire.ErrInvalidParam, "handover.old")
	r.room.Tick()
	if r.peer.TLSPrevious == "" {
		t.Fatal("the former pin went during the overlap")
	}
	r.now = r.now.Add(time.Minute)
	r.room.Tick()
	if r.peer.TLSPrevious != "" || r.peer.TLSPin != pin(2) {
		t.Fatalf("after the overlap: %+v", r.peer)
	}

	// Revoked: gone before the overlap ends.
	r2 := newRig(t)
	revoked := false
	r2.room.cfg.TLSPinRevoked = func(org, p string) bool { return revoked && p == pin(1) }
	st, _ = handover.TLSPin("globex", r2.globexKey, pin(1), pin(2), r2.now, time.Hour, r2.now)
	if _, err := r2.room.Take("globex", st); err != nil {
		t.Fatal(err)
	}
	r2.room.Tick()
	if r2.peer.TLSPrevious != pin(1) {
		t.Fatal("the former pin went before it was revoked")
	}
	revoked = true
	r2.room.Tick()
	if r2.peer.TLSPrevious != "" {
		t.Fatal("a revoked former pin is still accepted")
	}
}

// The organisation's own statements are served as the file has them, and
// the key it handed from is trusted for its own certificates until the
// overlap ends.
func TestOwnStatements(t *testing.T) {
	r := newRig(t)
	old, _ := keys.GenerateEd25519(rand.Reader)
	st, _ := handover.OrgKey("acme", old, r.room.cfg.Self.Current().Signing, r.room.cfg.Self.Current().Encryption.Public(), r.now, time.Minute, r.now)
	set := &handover.Set{Handovers: []*handover.Statement{st}}
	if err := set.WriteFile(r.ownPath); err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	r.room.ServeHTTP(w, httptest.NewRequest("GET", Route, nil))
	body, _ := io.ReadAll(w.Result().Body)
	got, err := handover.ParseSet(body)
	if err != nil || len(got.Handovers) != 1 || got.Handovers[0].New != st.New {
		t.Fatalf("served %s: %v", body, err)
	}
	r2, err := New(r.room.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !r.trust.Trusts("acme", old.Public()) {
		t.Fatal("the key handed from is not trusted during the overlap")
	}
	r.now = r.now.Add(time.Minute)
	r2.Tick()
	if r.trust.Trusts("acme", old.Public()) {
		t.Fatal("the key handed from is trusted after the overlap")
	}
}
