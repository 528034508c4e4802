package localbridge

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peerCred returns the user id at the other end of c (LOCAL_PEERCRED). The process id is not
// reported.
func peerCred(c syscall.Conn) (uid uint32, pid int32, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return 0, 0, err
	}
	if credErr != nil {
		return 0, 0, credErr
	}
	return cred.Uid, 0, nil
}
