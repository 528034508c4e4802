package localbridge

import (
	"unicode"
	"unicode/utf8"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// maxNameBytes bounds an agent's display name.
const maxNameBytes = 128

// update takes agent.update: the agent renames itself for display. The id must be the
// sender's own; the name one line of printable text, at most 128 bytes. The gateway answers
// core.agent.updated with what it holds, and reports the change (OnAgentChange), which
// publishes it in the directory. The name outlives the connection, not the gateway.
//
//	agent → core  agent.update        {id, name}
//	core → agent  core.agent.updated  {id, name}
func (s *session) update(env *osp.Envelope) {
	var p osp.AgentUpdate
	if err := env.DecodePayload(&p); err != nil {
		s.reject(env.ID, err.(*osp.Error))
		return
	}
	switch {
	case p.ID != s.agentID:
		s.reject(env.ID, osp.Errorf(osp.CodeInvalidMessage, "agent.update: id must be the sender's own agent id"))
		return
	case !printableName(p.Name):
		s.reject(env.ID, osp.Errorf(osp.CodeInvalidMessage, "agent.update: name must be 1 to %d bytes of printable text on one line", maxNameBytes))
		return
	}
	c := s.c
	c.mu.Lock()
	if c.names == nil {
		c.names = make(map[string]string)
	}
	changed := c.names[s.agentID] != p.Name
	c.names[s.agentID] = p.Name
	c.mu.Unlock()
	h := s.header(osp.TypeAgentUpdated)
	h.InReplyTo = safeRef(env.ID)
	s.send(&h, osp.AgentUpdate{ID: s.agentID, Name: p.Name})
	if changed {
		c.notify.changed(s.agentID)
	}
}

func printableName(n string) bool {
	if n == "" || len(n) > maxNameBytes || !utf8.ValidString(n) {
		return false
	}
	for _, r := range n {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// displayName returns the display name agent id gave itself, or "".
func (c *Core) displayName(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names[id]
}
