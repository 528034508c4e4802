//go:build !linux && !darwin

package localbridge

import (
	"errors"
	"syscall"
)

// errPeerCredUnsupported is returned where the platform cannot tell who is at the other end.
var errPeerCredUnsupported = errors.New("peer credentials are not available on this platform")

// peerCred fails where the platform offers no peer credentials, so every agent is refused
// rather than admitted unchecked.
func peerCred(c syscall.Conn) (uid uint32, pid int32, err error) {
	return 0, 0, errPeerCredUnsupported
}
