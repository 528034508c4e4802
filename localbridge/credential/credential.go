// Package credential keeps the credentials of local agents that the gateway does not launch:
// an agent in a container, a systemd unit or a pod. An operator issues a token for the agent
// (moltgate agent token); the token admits its first connection only, and that connection is
// handed a key of the agent's own, with which it connects again, as often as it needs, until
// the operator revokes it or issues a new token.
//
// Only SHA-256 digests of tokens and keys are stored, one file per agent (DIR/AGENT.json, mode
// 0600, in a directory of mode 0700). The store is shared by the command that issues and
// revokes and the gateway that admits: each change is made under an exclusive lock on the
// directory and written atomically, and every check reads the file afresh, so a revocation
// takes effect on a running gateway without a reload.
package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// The forms of the two secrets: a prefix and 43 base64url characters (32 random bytes).
const (
	TokenPrefix = "ostok_"
	KeyPrefix   = "oskey_"
)

// MaxTTL is the longest a token may wait for its first use.
const MaxTTL = 30 * 24 * time.Hour

var agentID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// Store is a directory of agent credentials. Its zero value is not usable: Dir is required.
type Store struct {
	// Dir holds one file per agent; it is created with mode 0700 when missing.
	Dir string

	// Rand is the source of tokens and keys. Default: crypto/rand.Reader.
	Rand io.Reader

	// Now tells the time. Default: time.Now.
	Now func() time.Time
}

// record is an agent's file. A field left empty holds nothing: no token waits, or no key is
// bound yet.
type record struct {
	Agent        string    `json:"agent"`
	TokenSHA256  string    `json:"token_sha256,omitempty"`
	TokenExpires time.Time `json:"token_expires,omitzero"`
	KeySHA256    string    `json:"key_sha256,omitempty"`
	Issued       time.Time `json:"issued"`
	Bound        time.Time `json:"bound,omitzero"`
}

// RefusedError says why a presented secret was not accepted. Its Reason is for the audit log
// only: an agent is told no more than that authentication failed.
type RefusedError struct {
	Agent  string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("credential of agent %s refused: %s", e.Agent, e.Reason)
}

// Admission is the outcome of a secret accepted by Admit.
type Admission struct {
	// Key is the key bound to the agent when a token was spent; the agent reconnects with it.
	// Empty when the agent presented its key.
	Key string
	// Stamp identifies the key now bound, for Holds; it is not secret.
	Stamp string
}

func (s *Store) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Store) path(agent string) string { return filepath.Join(s.Dir, agent+".json") }

func checkAgent(agent string) error {
	if !agentID.MatchString(agent) {
		return fmt.Errorf("agent id %q is not of the form [A-Za-z0-9_-]{1,128}", agent)
	}
	return nil
}

// Issue makes a token for agent, valid for its first connection within ttl, and returns it:
// the only time it is seen, since only its digest is kept. A token issued before, used or not,
// and the key bound by it are revoked: an agent re-provisioned has the new token alone.
func (s *Store) Issue(agent string, ttl time.Duration) (string, error) {
	if err := checkAgent(agent); err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	if ttl <= 0 || ttl > MaxTTL {
		return "", fmt.Errorf("issue token: ttl %v is not between a second and %v", ttl, MaxTTL)
	}
	tok, err := secret(s.Rand, TokenPrefix)
	if err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	now := s.now().UTC()
	err = s.locked(func() error {
		return s.write(&record{Agent: agent, TokenSHA256: digest(tok), TokenExpires: now.Add(ttl), Issued: now})
	})
	if err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	return tok, nil
}

// Revoke forgets agent's token and key: the agent's next connection is refused, and a gateway
// that checks Holds ends the connection it has. It reports whether there was anything to
// revoke.
func (s *Store) Revoke(agent string) (bool, error) {
	if err := checkAgent(agent); err != nil {
		return false, fmt.Errorf("revoke: %w", err)
	}
	var had bool
	err := s.locked(func() error {
		err := os.Remove(s.path(agent))
		had = err == nil
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("revoke: %w", err)
	}
	return had, nil
}

// Admit checks a secret agent presents. A token is spent by being presented, whatever follows:
// a token within its lifetime binds a fresh key, returned in the Admission, which replaces the
// key bound before. A key bound to the agent admits it again. Anything else is a *RefusedError.
func (s *Store) Admit(agent, presented string) (Admission, error) {
	if checkAgent(agent) != nil {
		return Admission{}, &RefusedError{Agent: agent, Reason: "malformed agent id"}
	}
	switch {
	case len(presented) > len(TokenPrefix) && presented[:len(TokenPrefix)] == TokenPrefix:
		return s.redeem(agent, presented)
	case len(presented) > len(KeyPrefix) && presented[:len(KeyPrefix)] == KeyPrefix:
		r, err := s.read(agent)
		if err != nil {
			return Admission{}, err
		}
		if r == nil || r.KeySHA256 == "" || !same(r.KeySHA256, digest(presented)) {
			return Admission{}, &RefusedError{Agent: agent, Reason: "unknown or revoked key"}
		}
		return Admission{Stamp: r.KeySHA256}, nil
	}
	return Admission{}, &RefusedError{Agent: agent, Reason: "neither a token nor a key"}
}

func (s *Store) redeem(agent, tok string) (Admission, error) {
	var a Admission
	err := s.locked(func() error {
		r, err := s.read(agent)
		if err != nil {
			return err
		}
		if r == nil || r.TokenSHA256 == "" || !same(r.TokenSHA256, digest(tok)) {
			return &RefusedError{Agent: agent, Reason: "unknown or used token"}
		}
		now := s.now().UTC()
		expired := now.After(r.TokenExpires)
		r.TokenSHA256, r.TokenExpires = "", time.Time{}
		if expired {
			if err := s.write(r); err != nil {
				return err
			}
			return &RefusedError{Agent: agent, Reason: "expired token"}
		}
		key, err := secret(s.Rand, KeyPrefix)
		if err != nil {
			return err
		}
		r.KeySHA256, r.Bound = digest(key), now
		if err := s.write(r); err != nil {
			return err
		}
		a = Admission{Key: key, Stamp: r.KeySHA256}
		return nil
	})
	return a, err
}

// Holds reports whether the key identified by stamp is still agent's: false once it was
// revoked or replaced. A store it cannot read holds nothing.
func (s *Store) Holds(agent, stamp string) bool {
	r, err := s.read(agent)
	return err == nil && r != nil && r.KeySHA256 != "" && same(r.KeySHA256, stamp)
}

// Status is what the store holds for one agent, without its digests.
type Status struct {
	Agent        string
	TokenWaiting bool      // a token was issued and not yet used
	TokenExpires time.Time // when the waiting token expires
	KeyBound     bool      // a key admits the agent
	Issued       time.Time
	Bound        time.Time
}

// Lookup returns what the store holds for agent; ok is false when it holds nothing.
func (s *Store) Lookup(agent string) (st Status, ok bool, err error) {
	if err := checkAgent(agent); err != nil {
		return Status{}, false, err
	}
	r, err := s.read(agent)
	if err != nil || r == nil {
		return Status{}, false, err
	}
	return Status{Agent: r.Agent, TokenWaiting: r.TokenSHA256 != "", TokenExpires: r.TokenExpires,
		KeyBound: r.KeySHA256 != "", Issued: r.Issued, Bound: r.Bound}, true, nil
}

// read returns agent's record, or nil when it has none.
func (s *Store) read(agent string) (*record, error) {
	b, err := os.ReadFile(s.path(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read credential: %w", err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil || r.Agent != agent {
		return nil, fmt.Errorf("credential file %s is damaged; revoke and issue a new token", s.path(agent))
	}
	return &r, nil
}

// write replaces agent's record atomically: a reader sees the old file or the new one.
func (s *Store) write(r *record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir, "."+r.Agent+"-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
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
	return os.Rename(f.Name(), s.path(r.Agent))
}

// locked runs fn holding the directory's lock, which the issuing command and the gateway
// share.
func (s *Store) locked(fn func() error) error {
	if s.Dir == "" {
		return errors.New("the credential store has no directory")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	l, err := os.OpenFile(filepath.Join(s.Dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer l.Close()
	unlock, err := lockFile(l)
	if err != nil {
		return fmt.Errorf("lock %s: %w", s.Dir, err)
	}
	defer unlock()
	return fn()
}

func secret(r io.Reader, prefix string) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	var b [32]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func digest(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
