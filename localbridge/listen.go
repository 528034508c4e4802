package localbridge

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// maxSocketPath is the longest path a Unix socket address holds on Linux (sun_path less its NUL).
const maxSocketPath = 107

// ListenUnix creates the Unix socket of one of the gateway's local faces at path. The socket's
// directory is created with mode 0700 when missing; an existing one must belong to this user
// and be closed to group and others. The socket itself is made 0600. A stale socket left by a
// gateway that died is replaced; a live one is an error. Closing the listener removes the
// socket file.
func ListenUnix(path string) (*net.UnixListener, error) { return listenUnix(path, true) }

// TerminalSocketPath is where the OpenAgent-Terminal IPC protocol puts the socket of process
// pid: $XDG_RUNTIME_DIR/openagent-terminal-PID.sock, or /tmp/openagent-terminal-PID.sock
// when XDG_RUNTIME_DIR is not set. getenv is os.Getenv but in tests.
func TerminalSocketPath(getenv func(string) string, pid int) string {
	dir := getenv("XDG_RUNTIME_DIR")
	if dir == "" || !filepath.IsAbs(dir) {
		// The XDG spec has a relative value ignored.
		dir = "/tmp"
	}
	return filepath.Join(dir, fmt.Sprintf("openagent-terminal-%d.sock", pid))
}

// ListenTerminal creates the JSON-RPC face's socket at TerminalSocketPath, for terminals that
// look for it there, as ListenUnix does. $XDG_RUNTIME_DIR must be the user's own and closed to
// others, as the XDG spec makes it. /tmp is everyone's, so its mode is not checked: the
// socket is made 0600, and the face's peer uid check (RPCConfig.PeerUIDs) refuses another
// user's process that connects in the moment before.
func ListenTerminal(getenv func(string) string, pid int) (*net.UnixListener, error) {
	path := TerminalSocketPath(getenv, pid)
	return listenUnix(path, filepath.Dir(path) != "/tmp")
}

// ListenShared creates the agent socket at path in a directory shared with agents of other
// users: a volume mounted into a container, say. The directory must exist, be this user's, and
// be writable by nobody else, so that no one can put another socket in its place; its mode and
// group decide who reaches the socket, which is made 0666. The Core's peer uid check
// (Config.PeerUIDs) and the agents' credentials decide who is admitted.
func ListenShared(path string) (*net.UnixListener, error) {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("check socket directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("socket directory %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, fmt.Errorf("socket directory %s belongs to uid %d, not to this user", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("socket directory %s has mode %04o, writable by others; make it 0711, or 0710 with the agents' group (chmod go-w %s)", dir, fi.Mode().Perm(), dir)
	}
	l, err := listenUnix(path, false)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o666); err != nil {
		l.Close()
		return nil, fmt.Errorf("open socket: %w", err)
	}
	return l, nil
}

func listenUnix(path string, private bool) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("listen %s: socket path longer than %d bytes", path, maxSocketPath)
	}
	if private {
		dir := filepath.Dir(path)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create socket directory: %w", err)
		}
		if err := checkPrivateDir(dir); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("listen %s: a file that is not a socket is in the way", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("listen %s: socket is in use by another process", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket: %w", err)
		}
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("restrict socket: %w", err)
	}
	l.SetUnlinkOnClose(true)
	return l, nil
}

// checkPrivateDir makes sure only this user can reach what dir holds.
func checkPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check socket directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to this user", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("socket directory %s has mode %04o; it must be 0700 (run chmod 700 %s)", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// unixSocket returns c as a socket whose peer credentials can be read, if it is a Unix
// stream socket connection (as package net or sockio makes them).
func unixSocket(c net.Conn) (syscall.Conn, bool) {
	if c.LocalAddr().Network() != "unix" {
		return nil, false
	}
	sc, ok := c.(syscall.Conn)
	return sc, ok
}
