//go:build !unix

package credential

import (
	"errors"
	"os"
)

// lockFile refuses: the agent socket, and so the credentials of agents started elsewhere, are
// Unix only.
func lockFile(f *os.File) (unlock func(), err error) {
	return nil, errors.New("credential files are locked on Unix systems only")
}
