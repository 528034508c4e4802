package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// RevocationsPath is DIR/revocations.json, the organisation's own signed
// revocation list (moltgate agent revoke writes it).
func (d Dir) RevocationsPath() string { return d.path("revocations.json") }

// RevokeOptions are the choices of moltgate agent revoke, rotate and
// remove.
type RevokeOptions struct {
	// ID is the local agent. Required.
	ID string
	// Reason is the operator's words, kept in the list for people.
	Reason string
	// Remove deletes the agent too (agent remove); otherwise the agent
	// gets a new key at once and goes on under it (agent revoke, agent
	// rotate).
	Remove bool
	// Passphrase unlocks the org key, which signs the list.
	Passphrase []byte
	Now        time.Time
}

// Revoked says what RevokeAgent did.
type Revoked struct {
	Agent  string
	OldKey keys.Ed25519Public
	// NewKey is the agent's key from now on; zero when it was removed.
	NewKey keys.Ed25519Public
	// Serial is the revocation list's new serial.
	Serial int64
}

// RevokeAgent adds a local agent's signing key to the organisation's
// signed revocation list (DIR/revocations.json, its serial one higher),
// then gives the agent a new key or removes it. A serving gateway sees the
// list within seconds: it serves it on its registry and pushes it to every
// peer in a security_alert, and the agent's entry is published again under
// the new key (or withdrawn). The list is written first: if anything after
// fails, the old key is revoked all the same, and running the command
// again finishes the job.
func RevokeAgent(d Dir, o RevokeOptions) (*Revoked, error) {
	verb := "agent revoke"
	if o.Remove {
		verb = "agent remove"
	}
	if !wire.ValidName(o.ID) {
		return nil, optionErr(verb, "--id", "--id must match [A-Za-z0-9_-]{1,128}")
	}
	if len(o.Reason) > 1024 {
		return nil, optionErr(verb, "--reason", "--reason is at most 1024 bytes")
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	if _, err := readAgent(filepath.Join(d.AgentsDir(), o.ID+".json")); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %s: %w", verb, o.ID, fs.ErrNotExist)
	}
	org, err := LoadOrg(d, o.Passphrase)
	if errors.Is(err, keys.ErrPassphrase) {
		return nil, fmt.Errorf("%s: the org key signs the revocation list, and it is encrypted: set %s or %s: %w", verb, keys.PassphraseEnv, keys.PassphraseFileEnv, err)
	}
	if err != nil {
		return nil, err
	}
	out := &Revoked{Agent: o.ID}
	agent, err := LoadAgentIdentity(d, o.ID, o.Passphrase)
	switch {
	case err == nil:
		out.OldKey = agent.Signing.Public()
	case o.Remove && errors.Is(err, fs.ErrNotExist):
		// An agent whose key is gone can still be removed: there is
		// nothing to revoke.
	default:
		return nil, fmt.Errorf("%s: the agent's key: %w", verb, err)
	}
	list, err := revocation.LoadFile(d.RevocationsPath(), cfg.Org, org.Signing.Public())
	if err != nil {
		return nil, &ConfigError{Key: "revocations.json", Msg: err.Error(), Err: err}
	}
	out.Serial = list.Serial
	if !out.OldKey.IsZero() {
		next, err := list.Revoke(org.Signing, o.Now, revocation.Entry{Kind: revocation.KindAgentKey, Value: out.OldKey.String(),
			Agent: o.ID, Reason: o.Reason, Effective: o.Now.UnixMilli()})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
		if err := next.WriteFile(d.RevocationsPath()); err != nil {
			return nil, fmt.Errorf("%s: %w", verb, err)
		}
		out.Serial = next.Serial
	}
	if o.Remove {
		if _, err := RemoveAgent(d, o.ID); err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := newAgentKey(d, cfg.Org, o.ID, o.Passphrase); err != nil {
		return nil, fmt.Errorf("%s: the agent's new key: %w", verb, err)
	}
	nk, err := LoadAgentIdentity(d, o.ID, o.Passphrase)
	if err != nil {
		return nil, fmt.Errorf("%s: the agent's new key: %w", verb, err)
	}
	out.NewKey = nk.Signing.Public()
	return out, nil
}
