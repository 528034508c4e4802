package handshake

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

func TestHandshakeEstablishesSession(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	cr.Capabilities = []string{"stream", "query", "tool"}
	cr.Classes = []wire.Class{wire.Pub, wire.Int, wire.Conf}
	cr.SessionLifetime = 30 * time.Minute
	ci.MaxMessageSize = 64 << 10
	si, sr, errI, errR := pair(t, ci, cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatalf("initiator: %v; responder: %v", errI, errR)
	}
	if si.ID() != sr.ID() || !validSessionID(si.ID()) {
		t.Fatalf("session ids %q %q", si.ID(), sr.ID())
	}
	if si.Role() != RoleInitiator || sr.Role() != RoleResponder {
		t.Fatal("roles")
	}
	if si.Peer() != c.gw.agent.Public() || sr.Peer() != c.alice.agent.Public() {
		t.Fatal("peers")
	}
	for _, s := range []*Session{si, sr} {
		if s.Level() != identity.Authenticated {
			t.Fatalf("level %v, want authenticated", s.Level())
		}
		if s.Version() != "0.1" {
			t.Fatalf("version %q", s.Version())
		}
		// Capabilities in the order of each side's own list.
		if got := s.Capabilities(); len(got) != 2 || !slices.Contains(got, "query") || !slices.Contains(got, "stream") {
			t.Fatalf("capabilities %v", got)
		}
		if !s.HasCapability("query") || s.HasCapability("tool") || s.HasCapability("task") {
			t.Fatal("HasCapability")
		}
		if got := s.Classes(); !slices.Equal(got, []wire.Class{wire.Pub, wire.Int, wire.Conf}) {
			t.Fatalf("classes %v", got)
		}
		if s.Allows(wire.PII) || !s.Allows(wire.Conf) {
			t.Fatal("Allows")
		}
		if got := s.Extensions(); !slices.Equal(got, []string{"acme.memory", "tool-use"}) {
			t.Fatalf("extensions %v", got)
		}
		if s.MaxMessageSize() != 64<<10 {
			t.Fatalf("max message %d", s.MaxMessageSize())
		}
		if !s.Expires().Equal(t0.Add(30 * time.Minute)) {
			t.Fatalf("expires %v, want the shorter lifetime", s.Expires().Sub(t0))
		}
	}
	if !si.Created().Equal(t0) {
		t.Fatal("created")
	}
}

func TestSessionCarriesMessagesBothWays(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	si, sr, errI, errR := pair(t, ci, cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	codec := wire.NewCodec(wire.Limits{})
	// alice → gw
	env, err := si.SignAndSeal(query(c.alice, c.gw, uuid(1), t0, wire.Conf), c.alice.agent.Signing)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "weather") {
		t.Fatal("payload visible in the envelope")
	}
	e, err := codec.DecodeEnvelope(env)
	if err != nil {
		t.Fatal(err)
	}
	if e.Counter != 1 {
		t.Fatalf("first application message has counter %d; session_established used 0", e.Counter)
	}
	m, err := sr.Open(e)
	if err != nil {
		t.Fatal(err)
	}
	if m.Op != wire.OpQuery || m.From.Ref() != c.alice.agent.Ref || m.Cls != wire.Conf {
		t.Fatalf("opened %+v", m)
	}
	// gw → alice, a message signed elsewhere and passed on as received.
	reply := m.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success"})
	reply.ID, reply.TS, reply.From = uuid(2), t0.UnixMilli(), c.gw.agent.Sender()
	signed, err := crypto.Sign(codec, reply, c.gw.agent.Signing)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := codec.Decode(signed)
	if err != nil {
		t.Fatal(err)
	}
	env, err = sr.Seal(decoded)
	if err != nil {
		t.Fatal(err)
	}
	if e, err = codec.DecodeEnvelope(env); err != nil {
		t.Fatal(err)
	}
	if e.Counter != 0 {
		t.Fatalf("responder's first counter %d", e.Counter)
	}
	if m, err = si.Open(e); err != nil {
		t.Fatal(err)
	}
	if m.Op != wire.OpRespond || m.Re != uuid(1) {
		t.Fatalf("opened %+v", m)
	}
	// A session key seals one direction only: the sender cannot open its
	// own envelope.
	if _, err := sr.Open(e); err == nil {
		t.Fatal("responder opened its own envelope")
	}
}

func TestSessionPolicy(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	cr.Classes = []wire.Class{wire.Pub, wire.Int}
	si, sr, errI, errR := pair(t, ci, cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	sk := c.alice.agent.Signing
	// A class the peer's hello did not list.
	_, err := si.SignAndSeal(query(c.alice, c.gw, uuid(1), t0, wire.Conf), sk)
	wantCode(t, err, wire.ErrClassification)
	// To another org than the peer's.
	_, err = si.SignAndSeal(query(c.alice, c.carol, uuid(2), t0, wire.Int), sk)
	wantCode(t, err, wire.ErrAuthFailed)
	// From another org than this side's.
	_, err = si.SignAndSeal(query(c.carol, c.gw, uuid(3), t0, wire.Int), c.carol.agent.Signing)
	wantCode(t, err, wire.ErrAuthFailed)
	// Handshake messages stay out of sessions.
	hm := query(c.alice, c.gw, uuid(4), t0, wire.Pub)
	hm.Op, hm.Payload = wire.OpVerify, &wire.VerifyPayload{Challenge: wire.Bytes32{1}, Proof: [64]byte{1}}
	_, err = si.SignAndSeal(hm, sk)
	wantCode(t, err, wire.ErrAuthFailed)
	// Unsigned messages are not sealed.
	_, err = si.Seal(query(c.alice, c.gw, uuid(5), t0, wire.Int))
	wantCode(t, err, wire.ErrSignature)
	// Another agent of the peer's org may speak in the session...
	env, err := si.SignAndSeal(query(c.mallory, c.gw, uuid(6), t0, wire.Int), c.mallory.agent.Signing)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.Open(mustEnv(t, env)); err != nil {
		t.Fatal(err)
	}
	// ...but not under the name of the agent that handshook, with another key.
	forged := query(c.mallory, c.gw, uuid(7), t0, wire.Int)
	forged.From.Agent = "alice"
	env, err = si.SignAndSeal(forged, c.mallory.agent.Signing)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sr.Open(mustEnv(t, env))
	wantCode(t, err, wire.ErrAuthFailed)
	// Messages outside the time window are refused.
	env, _ = si.SignAndSeal(query(c.alice, c.gw, uuid(8), t0.Add(-10*time.Minute), wire.Int), sk)
	_, err = sr.Open(mustEnv(t, env))
	wantCode(t, err, wire.ErrReplay)
	old := query(c.alice, c.gw, uuid(9), t0.Add(-time.Minute), wire.Int)
	old.Exp = t0.Add(-time.Second).UnixMilli()
	env, _ = si.SignAndSeal(old, sk)
	_, err = sr.Open(mustEnv(t, env))
	wantCode(t, err, wire.ErrExpired)
	// Too large for the session.
	big := query(c.alice, c.gw, uuid(10), t0, wire.Int)
	big.Payload = &wire.QueryPayload{Domain: strings.Repeat("x", 200)}
	si.maxMsg = 300
	_, err = si.SignAndSeal(big, sk)
	wantCode(t, err, wire.ErrTooLarge)
}

func mustEnv(t testing.TB, b []byte) *wire.Envelope {
	t.Helper()
	e, err := wire.NewCodec(wire.Limits{}).DecodeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNegotiation(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	t.Run("highest common version", func(t *testing.T) {
		ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
		ci.Versions = []string{"0.1", "0.3", "1.2", "0.10"}
		cr.Versions = []string{"0.10", "0.3", "0.1", "2.0"}
		si, sr, errI, errR := pair(t, ci, cr, peerOf(c.gw))
		if errI != nil || errR != nil {
			t.Fatal(errI, errR)
		}
		if si.Version() != "0.10" || sr.Version() != "0.10" {
			t.Fatalf("versions %s %s", si.Version(), sr.Version())
		}
	})
	t.Run("no common version", func(t *testing.T) {
		ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
		ci.Versions = []string{"0.2"}
		_, _, errI, errR := pair(t, ci, cr, peerOf(c.gw))
		wantCode(t, errR, wire.ErrVersion)
		// The responder says why.
		wantCode(t, errI, wire.ErrVersion)
		if !errors.Is(errI, ErrPeerRefused) {
			t.Fatal("initiator's error does not say the peer refused")
		}
		// The peer's key was not known in advance: its refusal could
		// come from anyone, so its text is not repeated.
		if got := errI.(*wire.Error).Message; got != ErrPeerRefused.Error() {
			t.Fatalf("unauthenticated refusal repeated as %q", got)
		}
	})
	t.Run("refusal signed by the expected key says why", func(t *testing.T) {
		ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
		ci.Versions = []string{"0.2"}
		_, _, errI, _ := pair(t, ci, cr, Peer{Ref: c.gw.agent.Ref, Key: c.gw.agent.Signing.Public()})
		wantCode(t, errI, wire.ErrVersion)
		var we *wire.Error
		errors.As(errI, &we)
		if !errors.Is(errI, ErrPeerRefused) || !strings.HasPrefix(we.Message, ErrPeerRefused.Error()+": ") || len(we.Message) <= len(ErrPeerRefused.Error())+2 {
			t.Fatalf("authenticated refusal gave %q", we.Message)
		}
	})
	t.Run("refusal signed by another key stays anonymous", func(t *testing.T) {
		ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
		ci.Versions = []string{"0.2"}
		_, _, errI, _ := pair(t, ci, cr, Peer{Ref: c.gw.agent.Ref, Key: c.alice.agent.Signing.Public()})
		wantCode(t, errI, wire.ErrVersion)
		if got := errI.(*wire.Error).Message; got != ErrPeerRefused.Error() {
			t.Fatalf("refusal under a key that is not the peer's repeated as %q", got)
		}
	})
	t.Run("no common class", func(t *testing.T) {
		ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
		ci.Classes = []wire.Class{wire.Sec}
		cr.Classes = []wire.Class{wire.Pub, wire.Int}
		_, _, _, errR := pair(t, ci, cr, peerOf(c.gw))
		wantCode(t, errR, wire.ErrClassification)
	})
	t.Run("grease", func(t *testing.T) {
		ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
		msgs, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 1} {
			m, err := wire.NewCodec(wire.Limits{}).Decode(msgs[i])
			if err != nil {
				t.Fatal(err)
			}
			exts := m.Payload.(*wire.HelloPayload).Extensions
			n := 0
			for _, e := range exts {
				if strings.HasPrefix(e, greasePrefix) {
					n++
				}
			}
			if n != 1 || len(exts) != 3 {
				t.Fatalf("hello %d extensions %v: want ours and one GREASE", i, exts)
			}
		}
	})
}

func TestVersionParsing(t *testing.T) {
	for s, ok := range map[string]bool{"0.1": true, "10.20": true, "0.01": false, "1": false, "1.2.3": false,
		"+1.2": false, "-1.2": false, "a.b": false, "": false, ".1": false, "1.": false} {
		if _, got := parseVersion(s); got != ok {
			t.Errorf("parseVersion(%q) = %v", s, got)
		}
	}
	if v, ok := highestCommon([]string{"0.9", "0.10", "x"}, []string{"x", "0.9", "0.10"}); !ok || v != "0.10" {
		t.Fatalf("highestCommon = %q %v", v, ok)
	}
}

func TestConfigRefused(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	ctx := context.Background()
	for name, mutate := range map[string]func(*Config){
		"no identity":       func(cfg *Config) { cfg.Identity = nil },
		"cert of another":   func(cfg *Config) { cfg.Cert = c.carol.cert },
		"bad version":       func(cfg *Config) { cfg.Versions = []string{"v1"} },
		"bad class":         func(cfg *Config) { cfg.Classes = []wire.Class{9} },
		"too many exts":     func(cfg *Config) { cfg.Extensions = make([]string, 64) },
		"invalid peer name": nil,
	} {
		t.Run(name, func(t *testing.T) {
			cfg := c.config(c.alice, clk, nil)
			peer := peerOf(c.gw)
			if mutate != nil {
				mutate(cfg)
			} else {
				peer.Ref.Agent = "no spaces"
			}
			a, _ := Pipe()
			if _, err := NewInitiator(cfg, peer).Run(ctx, a); err == nil || !strings.Contains(err.Error(), "config") {
				t.Fatalf("got %v", err)
			}
		})
	}
}
