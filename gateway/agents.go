package gateway

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// LocalAgent is an agent this gateway runs or admits, as `moltgate agent
// add` records it in DIR/agents/ID.json.
type LocalAgent struct {
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

// AddAgentOptions are the choices of moltgate agent add.
type AddAgentOptions struct {
	ID           string
	Exec         string // command line, split like a shell would
	Capabilities []string
	MaxCls       string // empty: the configured default
	QueryTool    string
	Approval     bool
	Visibility   string
	Passphrase   []byte
}

// AddAgent records a local agent and makes its signing key.
func AddAgent(d Dir, opts AddAgentOptions) (*LocalAgent, error) {
	cfg, err := LoadConfig(d.ConfigPath())
	if err != nil {
		return nil, err
	}
	if !wire.ValidName(opts.ID) || opts.ID == GatewayAgent {
		return nil, fmt.Errorf("agent add: --id must match [A-Za-z0-9_-]{1,128} and not be %q", GatewayAgent)
	}
	argv, err := SplitCommand(opts.Exec)
	if err != nil {
		return nil, fmt.Errorf("agent add: --exec: %w", err)
	}
	for _, c := range opts.Capabilities {
		if !wire.ValidCapability(c) {
			return nil, fmt.Errorf("agent add: --capability %q is not a capability name", c)
		}
	}
	clsText := opts.MaxCls
	if clsText == "" {
		clsText = cfg.Security.AgentMaxCls
	}
	cls, ok := wire.ParseClass(clsText)
	if !ok {
		return nil, errors.New("agent add: --max-cls must be one of pub, int, conf, pii, sec")
	}
	vis := opts.Visibility
	switch vis {
	case "":
		vis = "public"
	case "public", "unlisted", "private":
	default:
		return nil, errors.New("agent add: --visibility must be public, unlisted or private")
	}
	path := filepath.Join(d.AgentsDir(), opts.ID+".json")
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("agent add: %s: %w", opts.ID, fs.ErrExist)
	}
	org, err := LoadOrg(d, opts.Passphrase)
	if err != nil {
		return nil, err
	}
	// The agent signs with its own key; it receives through the gateway,
	// whose X25519 key is every local agent's enc_key.
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		return nil, err
	}
	kf := &keys.KeyFile{Agent: opts.ID, Org: cfg.Org, Signing: sk, Encryption: org.Encryption}
	if err := keys.WriteFile(d.AgentKeyPath(opts.ID), kf, keys.WriteOptions{Passphrase: opts.Passphrase, Overwrite: true}); err != nil {
		return nil, err
	}
	a := &LocalAgent{ID: opts.ID, Exec: argv, Capabilities: opts.Capabilities, MaxCls: cls,
		QueryTool: opts.QueryTool, Approval: opts.Approval, Visibility: vis}
	out, _ := json.MarshalIndent(a, "", "  ")
	if err := writeFileAtomic(path, append(out, '\n'), 0o600); err != nil {
		return nil, err
	}
	return a, nil
}

// LoadAgents reads every local agent record.
func LoadAgents(d Dir) ([]*LocalAgent, error) {
	ents, err := os.ReadDir(d.AgentsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var out []*LocalAgent
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d.AgentsDir(), e.Name()))
		if err != nil {
			return nil, err
		}
		a := new(LocalAgent)
		if err := json.Unmarshal(b, a); err != nil {
			return nil, fmt.Errorf("agent %s: %w", e.Name(), err)
		}
		if a.ID+".json" != e.Name() || !wire.ValidName(a.ID) {
			return nil, fmt.Errorf("agent %s: bad id %q", e.Name(), a.ID)
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// LoadAgentIdentity reads a local agent's keys.
func LoadAgentIdentity(d Dir, id string, passphrase []byte) (*identity.Agent, error) {
	return identity.Load(d.AgentKeyPath(id), passphrase)
}

// SplitCommand splits a command line as a POSIX shell would for words:
// whitespace separates, single quotes keep everything, double quotes keep
// everything but \" and \\, and a backslash escapes the next character.
// It does no expansion of any kind.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
