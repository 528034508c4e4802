package identity

// Holder gives the identity to act as now. A gateway's org key changes
// while it serves (moltgate key rotate), so whatever signs in its name
// reads the key from a Holder at each use, and uses what one call returned
// for the whole of what it signs. An *Agent is a Holder of itself, for
// whatever never changes key.
type Holder interface {
	Current() *Agent
}

// Current returns a itself: an Agent is a Holder whose key never changes.
func (a *Agent) Current() *Agent { return a }
