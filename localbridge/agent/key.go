package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moltgate/moltgate/localbridge/osp"
)

func (a *Agent) keyFile() string {
	if a.KeyFile != "" {
		return a.KeyFile
	}
	return os.Getenv("OPENSENTIENCE_KEY_FILE")
}

// storedKey returns the key the agent was handed, from memory or its key file; "" when it has
// none yet.
func (a *Agent) storedKey() (string, error) {
	a.keyMu.Lock()
	defer a.keyMu.Unlock()
	if a.key != "" {
		return a.key, nil
	}
	path := a.keyFile()
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("agent: read key file: %w", err)
	}
	a.key = strings.TrimSpace(string(b))
	return a.key, nil
}

// keepKey remembers the key the gateway handed over, and writes it to the key file.
func (a *Agent) keepKey(key string) error {
	a.keyMu.Lock()
	defer a.keyMu.Unlock()
	a.key = key
	path := a.keyFile()
	if path == "" {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".agent-key-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ErrNotConnected is returned by Rename when the agent has no connection to the gateway.
var ErrNotConnected = errors.New("agent: not connected to the gateway")

// Rename sets the agent's display name (agent.update): the gateway publishes it in its
// directory, whence peers take it, and in its event stream as agent.updated. The gateway
// keeps it until it restarts; a name it cannot take ends in a core.error, logged.
func (a *Agent) Rename(name string) error {
	a.keyMu.Lock()
	s := a.live
	a.keyMu.Unlock()
	if s == nil {
		return ErrNotConnected
	}
	h := s.header(osp.TypeAgentUpdate)
	return s.send(&h, osp.AgentUpdate{ID: s.id, Name: name})
}
