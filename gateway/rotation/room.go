package rotation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/moltgate/moltgate/gateway/ownfile"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Route is where a gateway serves its own handover statements.
const Route = "/registry/v1/handovers"

// PullEvery is how often every peer's statements are fetched (PullAll):
// what a push missed arrives within it.
const PullEvery = time.Minute

const fetchTimeout = 5 * time.Second

// Peers are the imported peers and the calls to them (a *peers.Table).
type Peers interface {
	Get(org string) *peers.Remote
	All() []*peers.Remote
	CallAsGateway(ctx context.Context, ps *peers.Remote, m *wire.Message, onMsg func(*wire.Message) (done bool, err error)) error
}

// Sessions are the handshake sessions held with peers.
type Sessions interface {
	// RemoveKey ends the sessions with org made under key and says how
	// many ended.
	RemoveKey(org string, key keys.Ed25519Public) int
	// RemoveSelfKey ends the sessions this gateway made under its own
	// former org key key and says how many ended.
	RemoveSelfKey(key keys.Ed25519Public) int
}

// Config is what the room needs. Every field is required unless it says
// otherwise.
type Config struct {
	// Self is gateway@org: it sends the security_alerts.
	Self identity.Holder
	// OwnPath is the organisation's own statements, DIR/handovers.json.
	OwnPath string
	// MessageBytes bounds a peer's statements as fetched.
	MessageBytes int
	// Pins are the peers' pinned org keys, which a handover moves on.
	Pins *keys.PinStore
	// Trust is the trust store: a key handed over to is trusted for the
	// peer's certificates at once, the one handed from until the overlap
	// ends.
	Trust *identity.TrustStore
	// Peers are the imported peers and the calls to them.
	Peers Peers
	// Sessions are ended for a key whose overlap ended.
	Sessions Sessions
	// EditPeer rewrites the peer file of org with what edit changes; edit
	// reports whether it changed anything.
	EditPeer func(org string, edit func(p *peers.Peer) bool) error
	// TLSPinRevoked says whether org's revocation list revokes pin: a
	// former pin it revokes is refused before the overlap ends. Default:
	// none is.
	TLSPinRevoked func(org, pin string) bool
	// Go runs f in the background, tracked so that shutdown waits for it.
	Go  func(f func())
	Log *slog.Logger
	// Rand is the source of the security_alerts' ids.
	Rand io.Reader
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Room holds the organisation's own statements and takes its peers'.
type Room struct {
	cfg Config

	// own is the organisation's own statements as DIR/handovers.json
	// has them.
	own *ownfile.File[*handover.Set]
	// ownOld are this organisation's own org keys handed from, trusted
	// for its own certificates until their overlap ends.
	ownMu  sync.Mutex
	ownOld map[keys.Ed25519Public]time.Time
	// pushed are the statements pushed (or there at start), by
	// signature; the watch loop's own.
	pushed map[string]bool

	// deliveries are the own statements pushed, by signature, and how
	// far each got; those there at start count as delivered.
	deliveryMu sync.Mutex
	deliveries map[string]*delivery

	// soon is when PullSoon last fetched each org's statements.
	soonMu sync.Mutex
	soon   map[string]time.Time
}

// delivery is how far the push of one statement got.
type delivery struct {
	since   time.Time // when it was pushed
	waiting int       // peers that have not taken it yet
}

// SetError is the organisation's own statements at Config.OwnPath that
// could not be read.
type SetError struct{ Err error }

func (e *SetError) Error() string { return e.Err.Error() }
func (e *SetError) Unwrap() error { return e.Err }

// New reads the organisation's own statements. A file that does not read
// is a *SetError. The org keys this organisation handed from are trusted
// for its own certificates until their overlap ends.
func New(cfg Config) (*Room, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TLSPinRevoked == nil {
		cfg.TLSPinRevoked = func(string, string) bool { return false }
	}
	set, err := handover.LoadFile(cfg.OwnPath)
	if err != nil {
		return nil, &SetError{err}
	}
	r := &Room{cfg: cfg, ownOld: map[keys.Ed25519Public]time.Time{}, pushed: map[string]bool{}, deliveries: map[string]*delivery{}, soon: map[string]time.Time{}}
	r.own = ownfile.New(ownfile.Config[*handover.Set]{
		Path: cfg.OwnPath, Read: handover.LoadFile, Marshal: (*handover.Set).Marshal,
		Failed: func(err error) { cfg.Log.Error("own handover statements not taken up", "err", err.Error()) },
	}, set)
	now := cfg.Now()
	self := cfg.Self.Current()
	org := self.Ref.Org
	for _, st := range set.Handovers {
		r.pushed[st.Sig.String()] = true
		r.deliveries[st.Sig.String()] = &delivery{}
		if st.Kind != handover.KindOrgKey || st.Org != org || !st.OldValidAt(now) {
			continue
		}
		if old, err := keys.ParseEd25519Public(st.Old); err == nil && !old.Equal(self.Signing.Public()) {
			cfg.Trust.Add(org, old)
			r.ownOld[old] = until(st)
		}
	}
	return r, nil
}

func until(st *handover.Statement) time.Time {
	return time.UnixMilli(st.Effective + st.OverlapMS)
}

// ServeHTTP serves the organisation's own statements.
func (r *Room) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.own.ServeHTTP(w, req) }

// Own returns the organisation's statements as Config.OwnPath has them
// now: moltgate key rotate and tls rotate write the file while the
// gateway serves.
func (r *Room) Own() *handover.Set { return r.own.Get() }

// Take verifies st, a statement of org's, against the key pinned for org
// and takes it: an org key handover moves the pin on (keys.PinStore.
// Handover), a TLS one the peer file's pins. It reports whether st was
// new. A statement whose signatures do not hold under the key pinned for
// org, or that hands over from another key, is refused with E_SIGNATURE
// and logged at ERROR.
func (r *Room) Take(org string, st *handover.Statement) (bool, error) {
	return r.take(org, st, false)
}

// take is Take; a stale statement (one of a chain already followed, as a
// fetched set holds) is passed over quietly.
func (r *Room) take(org string, st *handover.Statement, quiet bool) (bool, error) {
	if st.Org != org {
		return false, wire.Errorf(wire.ErrAuthFailed, "handover.org", "the handover of %s came from %s", st.Org, org)
	}
	pin, ok := r.cfg.Pins.Lookup(org)
	if !ok {
		return false, wire.Errorf(wire.ErrAuthFailed, "handover.org", "%s is not a peer of this gateway", org)
	}
	if st.Kind == handover.KindTLSPin {
		return r.takeTLS(org, st, quiet)
	}
	if pin.Key.String() == st.New || (pin.Next != nil && pin.Next.Key.String() == st.New) {
		return false, nil
	}
	var from keys.Ed25519Public
	switch {
	case pin.Key.String() == st.Old:
		from = pin.Key
	case pin.Next != nil && pin.Next.Key.String() == st.Old:
		from = pin.Next.Key
	case quiet:
		return false, nil
	default:
		return false, r.forged(org, st, &handover.Error{Field: "old", Reason: fmt.Sprintf("is not the org key pinned for %s (%s)", org, pin.Key.Fingerprint())})
	}
	if err := st.Verify(from); err != nil {
		return false, r.forged(org, st, err)
	}
	to, _ := keys.ParseEd25519Public(st.New)
	enc, _ := keys.ParseX25519Public(st.NewEncKey)
	took, err := r.cfg.Pins.Handover(org, from, to, enc, time.UnixMilli(st.Effective), until(st))
	if err != nil || !took {
		return false, err
	}
	r.cfg.Trust.Add(org, to)
	r.cfg.Log.Warn("peer handed its org key over", "peer", org, "old", from.Fingerprint(), "new", to.Fingerprint(),
		"old_refused_from", until(st).UTC().Format(time.RFC3339))
	return true, nil
}

// takeTLS takes a TLS handover: signed by an org key accepted for org now,
// from the pin held.
func (r *Room) takeTLS(org string, st *handover.Statement, quiet bool) (bool, error) {
	var verr error
	for _, k := range r.cfg.Pins.Accepted(org) {
		if verr = st.Verify(k); verr == nil {
			break
		}
	}
	if verr != nil {
		return false, r.forged(org, st, verr)
	}
	end := until(st)
	took, stale := false, ""
	err := r.cfg.EditPeer(org, func(p *peers.Peer) bool {
		switch {
		case p.TLSPin == st.New || p.TLSPrevious == st.New:
			return false
		case p.TLSPin != st.Old:
			stale = p.TLSPin
			return false
		}
		p.TLSPin, p.TLSPrevious, p.TLSUntil = st.New, st.Old, end.UTC()
		if !r.cfg.Now().Before(end) {
			p.TLSPrevious, p.TLSUntil = "", time.Time{}
		}
		took = true
		return true
	})
	if err != nil {
		return false, err
	}
	if stale != "" && !quiet {
		return false, wire.Errorf(wire.ErrInvalidParam, "handover.old", "hands over from TLS pin %s; the pin held for %s is %s", st.Old, org, stale)
	}
	if took {
		r.cfg.Log.Warn("peer announced a new TLS certificate", "peer", org, "old_pin", st.Old, "new_pin", st.New,
			"old_refused_from", end.UTC().Format(time.RFC3339))
	}
	return took, nil
}

// forged logs a refused statement as the security event it is: someone
// who does not hold the peer's org key tried to move this gateway's trust.
func (r *Room) forged(org string, st *handover.Statement, err error) error {
	field := "sig"
	var he *handover.Error
	if errors.As(err, &he) {
		field = he.Field
	}
	r.cfg.Log.Error("forged handover refused", "peer", org, "kind", st.Kind, "old", st.Old, "new", st.New, "err", err.Error())
	return wire.Errorf(wire.ErrSignature, "handover."+field, "%v", err)
}

// TakeSet takes each statement of set, org's as its registry or peer
// document gives them, oldest first: a peer away through several
// rotations follows them to the key of today. Statements of a chain
// already followed are passed over.
func (r *Room) TakeSet(org string, set *handover.Set) (int, error) {
	n := 0
	for _, st := range set.Handovers {
		took, err := r.take(org, st, true)
		if err != nil {
			return n, err
		}
		if took {
			n++
		}
	}
	return n, nil
}

// Alert takes a peer gateway's security_alert of type key_rotation: the
// statement it carries, signed by the peer's pinned org key, is what
// counts.
func (r *Room) Alert(ctx context.Context, in *pipeline.Inbound, p *wire.SecurityAlertPayload) (wire.Value, error) {
	m := in.M
	if !in.FromPeer || r.cfg.Peers.Get(m.From.Org) == nil || m.From.Agent != pipeline.GatewayAgent {
		return wire.Value{}, wire.Errorf(wire.ErrAuthFailed, "from", "a security_alert comes from the gateway of a peer organisation")
	}
	if p.Handover.IsAbsent() {
		return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p.handover", "a key_rotation alert carries the signed handover statement")
	}
	st, err := handover.Parse(wire.AppendCanonical(nil, p.Handover))
	if err != nil {
		return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p.handover", "%v", err)
	}
	took, err := r.Take(m.From.Org, st)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			e := *we
			e.Field = "p." + e.Field
			return wire.Value{}, &e
		}
		return wire.Value{}, err
	}
	data, _ := wire.ValueOf(map[string]any{"taken": took})
	return data, nil
}

// Handover returns the organisation's own statement handing old over to
// next (org keys or TLS pins, as kind says), if Config.OwnPath has one,
// and whether the peers have had it: every peer it was pushed to took it,
// or PullEvery and a fetch have passed since it was pushed, within which
// a peer the push missed fetches it. A statement that was there when the
// room opened counts as had. The gateway switches to next only then, so
// that no peer meets a key or certificate it has not heard of.
func (r *Room) Handover(kind, old, next string) (*handover.Statement, bool) {
	found := r.Own().Find(kind, old, next)
	if found == nil {
		return nil, false
	}
	return found, r.had(found)
}

// HandedFrom notes that the gateway now signs with the org key st handed
// over to: the key it handed from stays trusted for the organisation's own
// certificates until the overlap ends, when the sessions this gateway made
// under it end too (Tick).
func (r *Room) HandedFrom(st *handover.Statement) {
	old, err := keys.ParseEd25519Public(st.Old)
	if err != nil || st.Kind != handover.KindOrgKey {
		return
	}
	r.ownMu.Lock()
	r.ownOld[old] = until(st)
	r.ownMu.Unlock()
}

// PushChanged pushes each of the organisation's statements not pushed yet
// to every peer. It is the watch loop's: one caller at a time.
//
// Statements go one at a time, oldest first: one is pushed once the one
// before has reached every peer (or has had its PullEvery), since a
// statement may be signed by the key the one before handed over to (tls
// rotate right after key rotate), which a peer accepts only once it took
// that one.
func (r *Room) PushChanged(ctx context.Context) {
	var before *handover.Statement
	for _, st := range r.Own().Handovers {
		if r.pushed[st.Sig.String()] {
			before = st
			continue
		}
		if before != nil && !r.had(before) {
			return // on a later tick
		}
		r.pushed[st.Sig.String()] = true
		r.push(ctx, st)
		return
	}
}

// had reports whether the peers have had st: see Handover.
func (r *Room) had(st *handover.Statement) bool {
	r.deliveryMu.Lock()
	defer r.deliveryMu.Unlock()
	d := r.deliveries[st.Sig.String()]
	return d != nil && (d.waiting == 0 || !r.cfg.Now().Before(d.since.Add(PullEvery+fetchTimeout)))
}

// push sends st to every peer in a security_alert, each peer on its own,
// a few times over about two minutes if it is not reached: a peer that
// stays unreachable fetches it on its next pull.
func (r *Room) push(ctx context.Context, st *handover.Statement) {
	sv, err := wire.ValueOf(st)
	if err != nil {
		return
	}
	all := r.cfg.Peers.All()
	d := &delivery{since: r.cfg.Now(), waiting: len(all)}
	r.deliveryMu.Lock()
	r.deliveries[st.Sig.String()] = d
	r.deliveryMu.Unlock()
	peers.Push(ctx, peers.PushConfig{Go: r.cfg.Go}, r.cfg.Peers, all, func(ps *peers.Remote) *wire.Message {
		return &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(r.cfg.Rand), TS: r.cfg.Now().UnixMilli(), Op: wire.OpSecurityAlert,
			To: wire.Ref{Agent: pipeline.GatewayAgent, Org: ps.Peer().Org}, Cls: wire.Int,
			Payload: &wire.SecurityAlertPayload{AlertType: "key_rotation", Effective: st.Effective,
				ActionRequired: "update_pin", Handover: sv}}
	}, func(ps *peers.Remote, how peers.Pushed, err error) {
		switch {
		case how == peers.Delivered:
			r.deliveryMu.Lock()
			d.waiting--
			r.deliveryMu.Unlock()
			r.cfg.Log.Info("handover pushed", "peer", ps.Peer().Org, "kind", st.Kind)
		case how == peers.Refused:
			r.cfg.Log.Warn("handover refused by peer", "peer", ps.Peer().Org, "kind", st.Kind, "err", err.Error())
		case ctx.Err() == nil:
			r.cfg.Log.Warn("handover not pushed; the peer fetches it on its next pull", "peer", ps.Peer().Org, "kind", st.Kind)
		}
	})
}

// PullSoon fetches org's statements in the background, at most once per
// pullSoonEvery: a handshake from org was signed with a key its pin does
// not accept, as when org rotated and its push missed this gateway. The
// handshake is refused all the same; the peer's next one finds the pin
// moved on if the statement checks.
func (r *Room) PullSoon(org string) {
	ps := r.cfg.Peers.Get(org)
	if ps == nil {
		return
	}
	now := r.cfg.Now()
	r.soonMu.Lock()
	if last, ok := r.soon[org]; ok && now.Sub(last) < pullSoonEvery {
		r.soonMu.Unlock()
		return
	}
	r.soon[org] = now
	r.soonMu.Unlock()
	r.cfg.Go(func() {
		if err := r.pull(context.Background(), ps); err != nil {
			r.cfg.Log.Warn("peer handovers not fetched after a key its pin does not accept", "peer", org, "err", err.Error())
		}
	})
}

// pullSoonEvery bounds the fetches a peer's (or a stranger's) handshakes
// under another key can cause.
const pullSoonEvery = 5 * time.Second

// PullAll fetches every peer's statements and takes what is new: what a
// push missed arrives within PullEvery.
func (r *Room) PullAll(ctx context.Context) {
	for _, ps := range r.cfg.Peers.All() {
		if err := r.pull(ctx, ps); err != nil {
			r.cfg.Log.Debug("peer handovers not fetched", "peer", ps.Peer().Org, "err", err.Error())
		}
	}
}

func (r *Room) pull(ctx context.Context, ps *peers.Remote) error {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ps.Peer().Endpoint+Route, nil)
	if err != nil {
		return err
	}
	resp, err := ps.Client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil // a gateway of a release without handovers
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", Route, resp.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, int64(r.cfg.MessageBytes)))
	if err != nil {
		return err
	}
	set, err := handover.ParseSet(raw)
	if err != nil {
		return err
	}
	_, err = r.TakeSet(ps.Peer().Org, set)
	return err
}

// Tick ends the handovers whose overlap is over: the keys handed from
// are refused from now on, and the sessions made under them end; a
// peer's former TLS pin is dropped from its peer file. It also writes a
// key taken in use into the peer file. It is the watch loop's: one caller
// at a time.
func (r *Room) Tick() {
	ended, err := r.cfg.Pins.Expire()
	if err != nil {
		r.cfg.Log.Warn("handover overlaps not ended", "err", err.Error())
	}
	now := r.cfg.Now()
	for _, e := range ended {
		r.cfg.Trust.RemoveKey(e.Name, e.Key)
		n := r.cfg.Sessions.RemoveKey(e.Name, e.Key)
		r.cfg.Log.Info("peer's former org key refused from now on", "peer", e.Name, "key", e.Key.Fingerprint(), "sessions_ended", n)
		r.syncKey(e.Name, e.Key)
	}
	for _, ps := range r.cfg.Peers.All() {
		p := ps.Peer()
		if pin, ok := r.cfg.Pins.Lookup(p.Org); ok && pin.Previous != nil {
			r.syncKey(p.Org, pin.Previous.Key)
		}
		if p.TLSPrevious != "" && (!now.Before(p.TLSUntil) || r.cfg.TLSPinRevoked(p.Org, p.TLSPrevious)) {
			err := r.cfg.EditPeer(p.Org, func(p *peers.Peer) bool {
				if p.TLSPrevious == "" || (now.Before(p.TLSUntil) && !r.cfg.TLSPinRevoked(p.Org, p.TLSPrevious)) {
					return false
				}
				p.TLSPrevious, p.TLSUntil = "", time.Time{}
				return true
			})
			if err != nil {
				r.cfg.Log.Warn("peer's former TLS pin not dropped", "peer", p.Org, "err", err.Error())
			} else {
				r.cfg.Log.Info("peer's former TLS pin refused from now on", "peer", p.Org)
			}
		}
	}
	r.ownMu.Lock()
	for k, end := range r.ownOld {
		if !now.Before(end) {
			r.cfg.Trust.RemoveKey(r.cfg.Self.Current().Ref.Org, k)
			delete(r.ownOld, k)
			if n := r.cfg.Sessions.RemoveSelfKey(k); n > 0 {
				r.cfg.Log.Info("sessions made under the former org key ended", "key", k.Fingerprint(), "sessions_ended", n)
			}
		}
	}
	r.ownMu.Unlock()
}

// syncKey writes the key pinned for org into its peer file where the file
// still has old, the key it was handed from.
func (r *Room) syncKey(org string, old keys.Ed25519Public) {
	pin, ok := r.cfg.Pins.Lookup(org)
	if !ok {
		return
	}
	err := r.cfg.EditPeer(org, func(p *peers.Peer) bool {
		if !p.OrgKey.Equal(old) || p.OrgKey.Equal(pin.Key) {
			return false
		}
		p.OrgKey = pin.Key
		if !pin.EncKey.IsZero() {
			p.EncKey = pin.EncKey
		}
		return true
	})
	if err != nil {
		r.cfg.Log.Warn("peer file not updated to the key pinned", "peer", org, "err", err.Error())
	}
}
