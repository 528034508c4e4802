package localbridge

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

const tokenPrefix = "ostok_"

// Token is a session token: the secret an agent presents in agent.hello. It is random, valid
// for one use and a few minutes, and bound to one agent id. Every way of printing a Token
// (fmt verbs, slog, text and JSON marshalling) gives a redacted form; Reveal is the only way
// to the secret, for handing it to the agent.
type Token struct{ s string }

// Reveal returns the secret, to be handed to the agent and nowhere else.
func (t Token) Reveal() string { return t.s }

// IsZero reports whether t holds no token.
func (t Token) IsZero() bool { return t.s == "" }

// Equal compares two tokens in constant time.
func (t Token) Equal(u Token) bool { return subtle.ConstantTimeCompare([]byte(t.s), []byte(u.s)) == 1 }

func (t Token) String() string {
	if t.s == "" {
		return ""
	}
	return tokenPrefix + "[redacted]"
}

// Format prints the redacted form for every verb.
func (t Token) Format(f fmt.State, _ rune) { io.WriteString(f, t.String()) }

// LogValue keeps the secret out of structured logs.
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// MarshalText keeps the secret out of JSON and other encodings.
func (t Token) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// grant is what a token entitles its holder to.
type grant struct {
	agentID string
	expires time.Time
	launch  *launch // the process it was issued to; nil for a provisioned token
}

// tokenStore holds the tokens issued and not yet used, by SHA-256 digest: the secrets
// themselves are not kept.
type tokenStore struct {
	mu     sync.Mutex
	grants map[[32]byte]grant
}

func (s *tokenStore) issue(rand io.Reader, now time.Time, g grant) (Token, error) {
	var b [32]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return Token{}, fmt.Errorf("issue token: %w", err)
	}
	t := Token{tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grants == nil {
		s.grants = make(map[[32]byte]grant)
	}
	for k, old := range s.grants {
		if now.After(old.expires) {
			delete(s.grants, k)
		}
	}
	s.grants[sha256.Sum256([]byte(t.s))] = g
	return t, nil
}

// redeem uses up a token. It reports the grant and whether the token was known and unexpired.
// A token is spent by being presented, whatever the outcome of the handshake.
func (s *tokenStore) redeem(tok string, now time.Time) (grant, bool) {
	k := sha256.Sum256([]byte(tok))
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[k]
	if !ok {
		return grant{}, false
	}
	delete(s.grants, k)
	return g, !now.After(g.expires)
}

func (s *tokenStore) revoke(t Token) {
	if t.IsZero() {
		return
	}
	s.mu.Lock()
	delete(s.grants, sha256.Sum256([]byte(t.s)))
	s.mu.Unlock()
}

// revokeAgent drops every unused token of one agent.
func (s *tokenStore) revokeAgent(agentID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, g := range s.grants {
		if g.agentID == agentID {
			delete(s.grants, k)
		}
	}
}
