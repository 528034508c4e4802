package classify

import (
	"errors"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

func TestRules(t *testing.T) {
	want := map[wire.Class]Handling{
		wire.Pub:  {Persist: true, Log: LogFull},
		wire.Int:  {SignedPeer: true, Persist: true, Log: LogFull},
		wire.Conf: {Encrypt: true, SignedPeer: true, Log: LogMetadata},
		wire.PII:  {Encrypt: true, SignedPeer: true, Consent: true, Log: LogMasked},
		wire.Sec:  {Encrypt: true, SignedPeer: true, Log: LogNever},
		0:         {Encrypt: true, SignedPeer: true, Log: LogNever},
	}
	for c, h := range want {
		if Rules(c) != h {
			t.Errorf("%v: %+v, want %+v", c, Rules(c), h)
		}
	}
}

func TestPolicy(t *testing.T) {
	p, err := NewPolicy(Config{Peers: map[string]wire.Class{"globex": 0, "initech": wire.PII}, Agents: map[string]wire.Class{"alice": 0, "root": wire.Sec}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got, want wire.Class
	}{
		{p.PeerCeiling("globex"), wire.Int}, {p.PeerCeiling("initech"), wire.PII}, {p.PeerCeiling("nobody"), wire.Pub},
		{p.AgentCeiling("alice"), wire.Conf}, {p.AgentCeiling("root"), wire.Sec}, {p.AgentCeiling("ghost"), wire.Pub},
	} {
		if c.got != c.want {
			t.Errorf("ceiling %s, want %s", c.got, c.want)
		}
	}
	if err := p.Allow(wire.Int, "globex", "alice", nil); err != nil {
		t.Error(err)
	}
	var we *wire.Error
	if err := p.Allow(wire.Conf, "globex", "alice", nil); !errors.As(err, &we) || we.Code != wire.ErrClassification || we.Field != "cls" {
		t.Errorf("above peer ceiling: %v", err)
	}
	if err := p.Allow(wire.PII, "initech", "alice", nil); err == nil {
		t.Error("above agent ceiling allowed")
	}
	if err := p.Allow(wire.Int, "globex", "alice", []wire.Class{wire.Pub}); err == nil {
		t.Error("class missing from the hello allowed")
	}
	p.SetPeer("globex", wire.Sec)
	if p.PeerCeiling("globex") != wire.Sec {
		t.Error("SetPeer ignored")
	}
	p.RemovePeer("globex")
	if p.PeerCeiling("globex") != wire.Pub {
		t.Error("RemovePeer ignored")
	}
	if _, err := NewPolicy(Config{Peers: map[string]wire.Class{"bad name": wire.Int}}); err == nil {
		t.Error("invalid org name accepted")
	}
	if _, err := NewPolicy(Config{PeerDefault: 9}); err == nil {
		t.Error("invalid default accepted")
	}
	if c, err := ParseLevel(" Confidential "); err != nil || c != wire.Conf {
		t.Errorf("ParseLevel: %v %v", c, err)
	}
	if _, err := ParseLevel("top-secret"); err == nil {
		t.Error("ParseLevel accepted top-secret")
	}
}

func TestCounts(t *testing.T) {
	var c Counts
	c.Blocked(ReasonSecret, Outbound)
	c.Blocked(ReasonSecret, Outbound)
	c.Blocked(ReasonNoConsent, Inbound)
	c.Blocked(0, Inbound)
	n := 0
	c.Each(func(r Reason, d Direction, v uint64) {
		n++
		if r.String() == "reason(?)" {
			t.Errorf("unnamed reason %d", r)
		}
	})
	if n != 2*len(Reasons()) || c.Get(ReasonSecret, Outbound) != 2 || c.Get(ReasonNoConsent, Inbound) != 1 {
		t.Errorf("counts: %d series, %d, %d", n, c.Get(ReasonSecret, Outbound), c.Get(ReasonNoConsent, Inbound))
	}
}
