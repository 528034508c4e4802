package consent

import (
	"slices"
	"sync"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// Holds remembers, for each local agent, the no_forward consents under
// which it received personal data, until each expires: while one is held,
// the agent's gateway refuses to send personal data of the consent's types
// to any organisation but the one that issued it. The gateway cannot tell
// the data it received from other data of the same kind, so it holds the
// agent to the types. It is safe for concurrent use; each replica holds
// what its own agents received.
type Holds struct {
	// Max bounds the consents held per agent; the oldest go first.
	// Default 1024.
	Max int
	// Now is the clock. Default time.Now.
	Now func() time.Time

	mu sync.Mutex
	by map[string][]hold
}

type hold struct {
	id, issuer string
	types      []string
	expires    int64
}

func (h *Holds) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Add records that agent received data from issuer (an organisation)
// under c, if c says no_forward.
func (h *Holds) Add(agent, issuer string, c *Claims) {
	if c == nil || c.Constraints == nil || !c.Constraints.NoForward {
		return
	}
	max := h.Max
	if max <= 0 {
		max = 1024
	}
	now := h.now().UnixMilli()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil {
		h.by = map[string][]hold{}
	}
	hs := slices.DeleteFunc(h.by[agent], func(x hold) bool { return x.expires <= now || x.id == c.ID })
	hs = append(hs, hold{id: c.ID, issuer: issuer, types: slices.Clone(c.DataTypes), expires: c.Expires})
	if len(hs) > max {
		hs = hs[len(hs)-max:]
	}
	h.by[agent] = hs
}

// Check refuses personal data of types that agent would send to org while
// it holds a no_forward consent of another organisation covering any of
// them: E_CONSENT, naming the consent's issuer.
func (h *Holds) Check(agent, org string, types []string) error {
	if len(types) == 0 {
		return nil
	}
	now := h.now().UnixMilli()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, x := range h.by[agent] {
		if x.expires <= now || x.issuer == org {
			continue
		}
		for _, t := range types {
			if slices.Contains(x.types, t) {
				return &wire.Error{Code: wire.ErrConsent, Field: "pii_meta",
					Message: "the sender received " + t + " from " + x.issuer + " under a no_forward consent, which forbids passing it to " + org + " until it expires"}
			}
		}
	}
	return nil
}
