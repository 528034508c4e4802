package localbridge

import "github.com/moltgate/moltgate/localbridge/credential"

// Credentials admits agents started elsewhere; *credential.Store is one.
type Credentials interface {
	// Admit checks what agent presented as its session_token: a token, spent whatever
	// follows, or the key a token bound. A refusal is a *credential.RefusedError.
	Admit(agent, presented string) (credential.Admission, error)
	// Holds reports whether the key of stamp still admits agent.
	Holds(agent, stamp string) bool
}

// credentialRevoked reports whether s was admitted by a credential that no longer holds: its
// operator revoked it, or issued the agent a new token.
func (s *session) credentialRevoked() bool {
	return s.credStamp != "" && s.c.cfg.Credentials != nil && !s.c.cfg.Credentials.Holds(s.agentID, s.credStamp)
}
