package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/peerstatus"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// RevocationsPath is DIR/revocations.json, the organisation's own signed
// revocation list (moltgate agent revoke writes it).
func (d Dir) RevocationsPath() string { return d.path("revocations.json") }

// revocationsRoute is where a gateway serves its own revocation list.
const revocationsRoute = "/registry/v1/revocations"

// Retrying a peer's revocation list that could not be fetched: not more
// often than this, and in any case every pullEvery.
const (
	refetchAfter = 30 * time.Second
	pullEvery    = time.Minute
	fetchTimeout = 5 * time.Second
)

// keyState is what the gateway holds of revocations: its own list, which
// it serves and pushes, and the book of its peers' lists, which it
// enforces; and what peer list reports of each peer.
type keyState struct {
	own      atomic.Pointer[revocation.List]
	ownMu    sync.Mutex
	ownStamp fileStamp // of the file own was read from
	// pushed is the serial of the list last pushed to the peers; the
	// watch loop's own.
	pushed    int64
	book      *revocation.Book
	contacts  sync.Map // org → *atomic.Int64, unix ms of the last message
	learnt    sync.Map // org → *learning
	statusOut string   // the status last written, less its time
	statusAt  time.Time
}

// learning is whether this gateway has heard a peer's list since it
// started: its first message waits for it.
type learning struct {
	learnt  atomic.Bool // ok, read without the lock
	mu      sync.Mutex
	ok      bool
	trying  bool // a fetch runs in the background
	failed  time.Time
	lastErr error
}

// openKeys reads the gateway's own revocation list and the book of its
// peers' (DIR/data/revocations).
func (s *Server) openKeys() error {
	ks := &keyState{}
	own, err := revocation.LoadFile(s.dir.RevocationsPath(), s.cfg.Org, s.org.Signing.Public())
	if err != nil {
		return &ConfigError{Key: "revocations.json", Msg: err.Error(), Err: err}
	}
	if own.Serial == 0 {
		// Nothing revoked yet: the empty list is served signed all the
		// same, so that a peer can tell it from a forgery.
		if err := own.Sign(s.org.Signing); err != nil {
			return err
		}
	}
	ks.own.Store(own)
	ks.ownStamp = stampOf(s.dir.RevocationsPath())
	ks.pushed = own.Serial
	if ks.book, err = revocation.OpenBook(filepath.Join(s.dir.DataDir(), "revocations")); err != nil {
		return err
	}
	s.keys = ks
	return nil
}

// checkPeerMessage is the pipeline's hook for every message of a peer
// organisation: it notes the contact, learns the peer's revocation list
// first if it has not since it started, and refuses a message signed with
// a key the list revokes, in a session or not.
func (s *Server) checkPeerMessage(ctx context.Context, m *wire.Message, inSession bool) error {
	org := m.From.Org
	s.noteContact(org)
	var bad *badListError
	if err := s.learnRevocations(ctx, org); errors.As(err, &bad) && !inSession {
		// Outside a session anyone holding a stolen key can send; a list
		// the peer's registry serves that does not hold (forged, older
		// than the one held, two lists of one serial) may be hiding a
		// revocation. In a session the peer's own gateway sends, and it
		// enforces its own list. A registry that cannot be reached is
		// tried again after refetchAfter, and every pullEvery; meanwhile
		// messages are taken against the list held.
		return wire.Errorf(wire.ErrSignature, "from.org", "the revocation list %s serves does not hold (%v): send in a session", org, bad.err)
	}
	if e, ok := s.keys.book.AgentKey(org, m.From.Key); ok {
		return wire.Errorf(wire.ErrAuthFailed, "from.key", "the key of %s is revoked by %s (revocation list serial %d, since %s)",
			m.From.Ref(), org, s.keys.book.Serial(org), time.UnixMilli(e.Effective).UTC().Format(time.RFC3339))
	}
	return nil
}

func (s *Server) noteContact(org string) {
	v, ok := s.keys.contacts.Load(org)
	if !ok {
		v, _ = s.keys.contacts.LoadOrStore(org, new(atomic.Int64))
	}
	v.(*atomic.Int64).Store(s.now().UnixMilli())
}

// learnRevocations fetches org's revocation list once after start, before
// the first of its messages is taken. When that fetch fails, the next
// messages do not wait on another: it is tried again in the background
// after refetchAfter, and the last error is returned meanwhile.
func (s *Server) learnRevocations(ctx context.Context, org string) error {
	v, ok := s.keys.learnt.Load(org)
	if !ok {
		v, _ = s.keys.learnt.LoadOrStore(org, new(learning))
	}
	l := v.(*learning)
	if l.learnt.Load() {
		return nil // every message but the first few: no lock
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok {
		return nil
	}
	ps := s.peers.Get(org)
	if ps == nil {
		return nil
	}
	if l.failed.IsZero() {
		l.take(s, org, s.pullRevocations(ctx, ps))
		return l.lastErr
	}
	if !l.trying && s.now().Sub(l.failed) >= refetchAfter {
		l.trying = true
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			err := s.pullRevocations(s.bgCtx, ps)
			l.mu.Lock()
			defer l.mu.Unlock()
			l.trying = false
			l.take(s, org, err)
		}()
	}
	return l.lastErr
}

// take records the outcome of a fetch. The caller holds l.mu.
func (l *learning) take(s *Server, org string, err error) {
	if err != nil {
		l.failed, l.lastErr = s.now(), err
		s.log.Warn("peer revocation list not fetched", "peer", org, "err", err.Error())
		return
	}
	l.ok, l.failed, l.lastErr = true, time.Time{}, nil
	l.learnt.Store(true)
}

// pullRevocations fetches ps's revocation list from its registry and takes
// it if it is newer. A gateway that serves none (404) has revoked nothing.
func (s *Server) pullRevocations(ctx context.Context, ps *peers.Remote) error {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ps.Peer().Endpoint+revocationsRoute, nil)
	if err != nil {
		return err
	}
	resp, err := ps.Client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", revocationsRoute, resp.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, int64(s.cfg.Limits.MessageBytes)))
	if err != nil {
		return err
	}
	l, err := revocation.Parse(raw)
	if err != nil {
		return &badListError{err}
	}
	if _, err = s.takeRevocations(ctx, ps, l); err != nil {
		return &badListError{err}
	}
	return nil
}

// badListError is a revocation list a peer's registry served that was
// refused: not the peer's, not signed by its org key, or older than the
// one held.
type badListError struct{ err error }

func (e *badListError) Error() string { return e.err.Error() }
func (e *badListError) Unwrap() error { return e.err }

// takeRevocations accepts l as ps's list if ps's org key signed it and it
// is newer than the one held, and enforces it at once: the sessions with
// the peer end (they may have carried the revoked agents' messages; new
// ones are made on next use), and the revoked agents' entries leave the
// directory.
func (s *Server) takeRevocations(ctx context.Context, ps *peers.Remote, l *revocation.List) (bool, error) {
	if l.Org != ps.Peer().Org {
		return false, wire.Errorf(wire.ErrAuthFailed, "revocation_list.org", "the list of %s came from %s", l.Org, ps.Peer().Org)
	}
	prev := s.keys.book.List(l.Org)
	changed, err := s.keys.book.Accept(l, ps.Peer().OrgKey)
	if err != nil || !changed {
		return false, err
	}
	fresh := 0
	for _, e := range l.Entries {
		if prev == nil {
			fresh++
		} else if _, ok := prev.Find(e.Kind, e.Value); !ok {
			fresh++
		}
	}
	if fresh == 0 {
		s.log.Info("peer revocation list taken", "peer", l.Org, "serial", l.Serial, "entries", len(l.Entries))
		return true, nil
	}
	n := s.sessions.RemoveOrg(l.Org)
	// The connections made for those sessions go too: the next call
	// makes new ones, with new sessions.
	ps.Close()
	s.metrics.sessions.Set(float64(s.sessions.Len()))
	removed := 0
	for _, e := range l.Entries {
		if e.Kind != revocation.KindAgentKey || e.Agent == "" {
			continue
		}
		id := directory.ID{Agent: e.Agent, Org: l.Org}
		got, err := s.store.Get(ctx, id, directory.Viewer{Local: true})
		if err != nil || got.PublicKey != e.Value {
			continue
		}
		if err := s.store.Delete(ctx, id, directory.Deletion{SignedAt: s.now()}); err == nil {
			removed++
		}
	}
	s.log.Warn("peer revoked keys", "peer", l.Org, "serial", l.Serial, "revoked", fresh, "sessions_ended", n, "entries_removed", removed)
	return true, nil
}

// securityAlert takes a peer gateway's security_alert: the revocation list
// it carries, signed by the peer's org key, is what counts.
func (s *Server) securityAlert(ctx context.Context, in *pipeline.Inbound, p *wire.SecurityAlertPayload) (wire.Value, func(), error) {
	m := in.M
	ps := s.peers.Get(m.From.Org)
	if !in.FromPeer || ps == nil || m.From.Agent != GatewayAgent {
		return wire.Value{}, nil, wire.Errorf(wire.ErrAuthFailed, "from", "a security_alert comes from the gateway of a peer organisation")
	}
	l, err := revocation.FromValue(p.RevocationList)
	if err != nil {
		return wire.Value{}, nil, wire.Errorf(wire.ErrInvalidParam, "p.revocation_list", "%v", err)
	}
	if l.Org != m.From.Org {
		return wire.Value{}, nil, wire.Errorf(wire.ErrAuthFailed, "p.revocation_list.org", "the list of %s came from %s", l.Org, m.From.Org)
	}
	if err := l.Verify(ps.Peer().OrgKey); err != nil {
		s.log.Warn("forged revocation list refused", "peer", m.From.Org, "err", err.Error())
		return wire.Value{}, nil, wire.Errorf(wire.ErrSignature, "p.revocation_list.sig", "%v", err)
	}
	// The list is taken after the answer is sealed: taking it ends the
	// sessions with the peer, this one among them.
	apply := func() {
		if _, err := s.takeRevocations(context.WithoutCancel(ctx), ps, l); err != nil {
			s.log.Warn("peer revocation list refused", "peer", l.Org, "serial", l.Serial, "err", err.Error())
		}
	}
	if old := s.keys.book.Serial(l.Org); l.Serial < old {
		return wire.Value{}, nil, wire.Errorf(wire.ErrInvalidParam, "p.revocation_list.serial", "%d is below the serial %d held", l.Serial, old)
	}
	data, _ := wire.ValueOf(map[string]any{"serial": l.Serial})
	return data, apply, nil
}

// serveRevocations serves the gateway's own signed list.
func (s *Server) serveRevocations(w http.ResponseWriter, r *http.Request) {
	raw, err := s.ownList().Marshal()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(append(raw, '\n'))
}

// ownList returns the organisation's own list as DIR/revocations.json
// has it now: moltgate agent revoke writes the file, and a peer that asks
// right after must get what it says.
func (s *Server) ownList() *revocation.List {
	ks := s.keys
	ks.ownMu.Lock()
	defer ks.ownMu.Unlock()
	st := stampOf(s.dir.RevocationsPath())
	if st.same(ks.ownStamp) {
		return ks.own.Load()
	}
	ks.ownStamp = st
	l, err := revocation.LoadFile(s.dir.RevocationsPath(), s.cfg.Org, s.org.Signing.Public())
	if err != nil {
		s.log.Error("own revocation list not taken up", "err", err.Error())
		return ks.own.Load()
	}
	if old := ks.own.Load(); l.Serial <= old.Serial {
		return old
	}
	ks.own.Store(l)
	s.log.Warn("revocation list updated", "serial", l.Serial, "entries", len(l.Entries))
	return l
}

// ownListChanged pushes the organisation's list to every peer when it
// has a serial not pushed yet.
func (s *Server) ownListChanged(ctx context.Context) {
	l := s.ownList()
	if l.Serial <= s.keys.pushed {
		return
	}
	s.keys.pushed = l.Serial
	s.pushRevocations(ctx, l)
}

// pushRevocations sends l to every peer in a security_alert, each peer on
// its own, a few times over a minute if it is not reached: a peer that
// stays unreachable pulls it before it takes anything more from here.
func (s *Server) pushRevocations(ctx context.Context, l *revocation.List) {
	if len(l.Entries) == 0 {
		return
	}
	last := l.Entries[len(l.Entries)-1]
	lv, err := wire.ValueOf(l)
	if err != nil {
		return
	}
	for _, ps := range s.peers.All() {
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			for try, wait := 0, time.Second; try < 5; try, wait = try+1, wait*3 {
				m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpSecurityAlert,
					From: s.org.Sender(), To: wire.Ref{Agent: GatewayAgent, Org: ps.Peer().Org}, Cls: wire.Int,
					Payload: &wire.SecurityAlertPayload{AlertType: "key_revocation", AffectedAgent: last.Agent, Effective: last.Effective,
						ActionRequired: "terminate_sessions", RevocationList: lv}}
				err := s.peers.CallAsGateway(ctx, ps, m, func(r *wire.Message) (bool, error) {
					_, ok := r.Payload.(*wire.RespondPayload)
					return ok, nil
				})
				if err == nil {
					s.log.Info("revocation list pushed", "peer", ps.Peer().Org, "serial", l.Serial)
					return
				}
				if we := pipeline.AsWire(err); !we.Code.Recoverable() && we.Code != wire.ErrPeerUnavailable {
					s.log.Warn("revocation list refused by peer", "peer", ps.Peer().Org, "serial", l.Serial, "err", err.Error())
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
			s.log.Warn("revocation list not pushed; the peer fetches it on its next contact", "peer", ps.Peer().Org, "serial", l.Serial)
		}()
	}
}

// pullAll fetches every peer's list: what a push missed arrives within
// pullEvery.
func (s *Server) pullAll(ctx context.Context) {
	for _, ps := range s.peers.All() {
		if err := s.pullRevocations(ctx, ps); err != nil {
			s.log.Debug("peer revocation list not fetched", "peer", ps.Peer().Org, "err", err.Error())
			continue
		}
		if v, ok := s.keys.learnt.Load(ps.Peer().Org); ok {
			l := v.(*learning)
			l.mu.Lock()
			l.ok = true
			l.learnt.Store(true)
			l.mu.Unlock()
		}
	}
}

// forgetPeerKeys drops what is held of a peer that is removed, or whose
// org key changed: its list was signed by a key no longer trusted.
func (s *Server) forgetPeerKeys(org string) {
	if err := s.keys.book.Forget(org); err != nil {
		s.log.Warn("peer revocation list not forgotten", "peer", org, "err", err.Error())
	}
	s.keys.learnt.Delete(org)
}

// writePeerStatus writes DIR/data/peers.json for moltgate peer list when
// what it says changed, and every half minute so that its time shows the
// gateway is serving.
func (s *Server) writePeerStatus() {
	sessions := s.sessions.CountByOrg()
	f := &peerstatus.File{}
	for _, ps := range s.peers.All() {
		org := ps.Peer().Org
		p := peerstatus.Peer{Org: org, Sessions: sessions[org], RevocationSerial: s.keys.book.Serial(org)}
		if v, ok := s.keys.contacts.Load(org); ok {
			p.LastContact = time.UnixMilli(v.(*atomic.Int64).Load()).UTC()
		}
		f.Peers = append(f.Peers, p)
	}
	key := fmt.Sprint(f.Peers)
	now := s.now()
	if key == s.keys.statusOut && now.Sub(s.keys.statusAt) < 30*time.Second {
		return
	}
	f.Written = now.UTC()
	if err := peerstatus.Write(filepath.Join(s.dir.DataDir(), peerstatus.FileName), f); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.log.Debug("peer status not written", "err", err.Error())
		}
		return
	}
	s.keys.statusOut, s.keys.statusAt = key, now
}
