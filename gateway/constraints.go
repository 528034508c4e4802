package gateway

import (
	"encoding/json"
	"log/slog"

	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// consentHolds are the no_forward consents local agents received data
// under, and what a call's consent tells the agent it reaches.
type consentHolds struct {
	org   string // this organisation, whose agents are held
	log   *slog.Logger
	holds consent.Holds
}

// context is what a local agent is told, in its call's context, of
// the consent the call's personal data came under: its id, who granted it,
// its purpose and expiry, and the constraints the agent must honour
// (no_storage above all: the gateway cannot see whether it is kept). It
// also holds the agent to a no_forward consent from then on. nil when the
// call carries no consent.
func (s *consentHolds) context(m *wire.Message, agent string) json.RawMessage {
	if m.PIIMeta == nil || m.PIIMeta.Consent == nil {
		return nil
	}
	tok, err := consent.Parse(m.PIIMeta.Consent.Proof)
	if err != nil {
		return nil // the gate verified it; a token that does not parse did not pass
	}
	c := tok.Claims
	s.holds.Add(agent, m.From.Org, &c)
	info := map[string]any{"id": c.ID, "granted_by": c.GrantedBy, "purpose": c.Purpose, "data_types": c.DataTypes, "expires": c.Expires}
	if k := c.Constraints; k != nil {
		info["no_storage"], info["no_forward"], info["one_time"] = k.NoStorage, k.NoForward, k.OneTime
		if k.NoStorage || k.NoForward {
			s.log.Info("call under consent constraints", "agent", agent, "from", m.From.Ref().String(), "consent", c.ID,
				"no_storage", k.NoStorage, "no_forward", k.NoForward)
		}
	}
	b, _ := json.Marshal(map[string]any{"moltgate.consent": info})
	return b
}

// checkForward refuses personal data of the types an agent of this
// organisation holds under another organisation's no_forward consent, on
// its way to a third organisation.
func (s *consentHolds) checkForward(m *wire.Message, types []string) error {
	if m.From.Org != s.org || m.From.Agent == GatewayAgent {
		return nil
	}
	return s.holds.Check(m.From.Agent, m.To.Org, types)
}
