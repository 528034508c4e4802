package roster

import (
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// Record is an agent this gateway runs or admits, as `moltgate agent add`
// records it in DIR/agents/ID.json.
type Record struct {
	// ID is the agent's id: its MoltSpeak agent name and its
	// OPENSENTIENCE_AGENT_ID.
	ID string `json:"id"`
	// Exec is the command and arguments to launch; empty for an agent that
	// is started elsewhere and admitted with a provisioned token.
	Exec []string `json:"exec,omitempty"`
	// Capabilities are published in the directory besides the agent's
	// registered tools.
	Capabilities []string `json:"capabilities,omitempty"`
	// MaxCls is the highest classification the agent may send or receive.
	MaxCls wire.Class `json:"max_cls"`
	// QueryTool is the tool that answers "query" messages.
	QueryTool string `json:"query_tool,omitempty"`
	// Approval holds every call to this agent for a local human.
	Approval bool `json:"approval,omitempty"`
	// Visibility of the agent's directory entry: public, unlisted or
	// private. Default public.
	Visibility string `json:"visibility,omitempty"`
}

// bridgeSpec is what the local bridge is told of a.
func (a *Record) bridgeSpec() localbridge.AgentSpec {
	return localbridge.AgentSpec{ID: a.ID, Command: a.Exec, RequireApproval: a.Approval, QueryTool: a.QueryTool}
}
