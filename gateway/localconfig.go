package gateway

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/credential"
)

// LocalConfig sets the local bridge's agent socket for agents the gateway
// does not launch: in a container, a systemd unit or a pod, perhaps of
// another user.
type LocalConfig struct {
	// AgentSocketDir is the directory the agent socket (core.sock) is
	// made in. Default "": DIR/run, which only the gateway's user reaches.
	// Another directory is one to share, such as a volume mounted into a
	// container: it must be absolute, belong to the gateway's user and be
	// writable by nobody else, and its own mode and group say who reaches
	// the socket (made 0666 in it); the peer uid check and the agents'
	// credentials say who is admitted.
	AgentSocketDir string `toml:"agent_socket_dir"`
	// AgentUIDs are the user ids, besides the gateway's own, whose
	// processes may connect to the agent socket (as the kernel reports
	// them: a container's uid as the host sees it). Default [].
	AgentUIDs []int64 `toml:"agent_uids"`
	// WithdrawAfter is how long an agent the gateway does not launch may
	// stay disconnected (its connection ended, or it missed its
	// heartbeats) before its directory entry is withdrawn; it is published
	// again when it connects. Default 2m.
	WithdrawAfter Duration `toml:"withdraw_after"`
}

// checkLocal holds the [local] section to what the local bridge can use.
func (c *Config) checkLocal() error {
	l := &c.Local
	if l.AgentSocketDir != "" && !filepath.IsAbs(l.AgentSocketDir) {
		return &ConfigError{Key: "local.agent_socket_dir", Msg: fmt.Sprintf("must be an absolute path, not %q", l.AgentSocketDir)}
	}
	for _, u := range l.AgentUIDs {
		if u < 0 || u >= 1<<32-1 {
			return &ConfigError{Key: "local.agent_uids", Msg: fmt.Sprintf("%d is not a user id (0 to 4294967294)", u)}
		}
	}
	return nil
}

// defaultLocal is the [local] section of a file that sets none of it.
func defaultLocal() LocalConfig {
	return LocalConfig{AgentUIDs: []int64{}, WithdrawAfter: Duration(2 * time.Minute)}
}

// agentUIDs is the local bridge's Config.PeerUIDs: the gateway's own uid
// and the configured ones.
func (c *Config) agentUIDs(own int) []uint32 {
	out := []uint32{uint32(own)}
	for _, u := range c.Local.AgentUIDs {
		out = append(out, uint32(u))
	}
	return out
}

// CoreSocketPath is where the agent socket of this configuration is:
// DIR/run/core.sock, or core.sock in local.agent_socket_dir.
func (c *Config) CoreSocketPath(d Dir) string {
	if c.Local.AgentSocketDir != "" {
		return filepath.Join(c.Local.AgentSocketDir, "core.sock")
	}
	return d.CoreSocket()
}

// CredentialsDir is DIR/credentials: the digests of the tokens and keys of
// agents the gateway does not launch.
func (d Dir) CredentialsDir() string { return d.path("credentials") }

// listenCore opens the agent socket where the configuration puts it.
func (s *Server) listenCore() (net.Listener, error) {
	if s.cfg.Local.AgentSocketDir == "" {
		l, err := localbridge.ListenUnix(s.dir.CoreSocket())
		if err != nil {
			return nil, socketError("run/core.sock", err)
		}
		return l, nil
	}
	l, err := localbridge.ListenShared(s.cfg.CoreSocketPath(s.dir))
	if err != nil {
		return nil, socketError("local.agent_socket_dir", err)
	}
	return l, nil
}

// agentCredentials is the store of the agents' credentials in d, which the
// command that issues them writes too.
func agentCredentials(d Dir, rand io.Reader, now func() time.Time) *credential.Store {
	return &credential.Store{Dir: d.CredentialsDir(), Rand: rand, Now: now}
}
