package outage

import (
	"errors"

	"github.com/moltgate/moltgate/audit"
)

// Audit is the name the audit ledger is watched under.
const Audit = "audit ledger"

// WatchAudit returns the function the audit trail tells the outcome of
// each write to its ledger, which records it in w under the name Audit: a
// commit that goes through ends a failure. A ledger closed at shutdown is
// no failure of its storage.
func WatchAudit(w *Watch) func(error) {
	return func(err error) {
		if err == nil {
			w.Worked(Audit)
			return
		}
		if cause := Cause(err, func(err error) bool { return errors.Is(err, audit.ErrClosed) }); cause != "" {
			w.Failed(Audit, cause, err)
		}
	}
}
