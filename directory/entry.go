package directory

import (
	"fmt"
	"strings"
	"time"
)

// ID names an agent: its agent id within its organisation. Two
// organisations may each have an agent called "assistant"; they are two
// entries.
type ID struct {
	Agent string
	Org   string
}

// String returns "agent@org".
func (id ID) String() string { return id.Agent + "@" + id.Org }

// ParseID parses "agent@org".
func ParseID(s string) (ID, error) {
	agent, org, ok := strings.Cut(s, "@")
	if !ok {
		return ID{}, fmt.Errorf("parse agent id %q: want agent@org", s)
	}
	id := ID{Agent: agent, Org: org}
	if !validName(agent) {
		return ID{}, fmt.Errorf("parse agent id %q: bad agent name", s)
	}
	if !validName(org) {
		return ID{}, fmt.Errorf("parse agent id %q: bad org name", s)
	}
	return id, nil
}

// Visibility says who may see an entry.
type Visibility string

const (
	// Public entries are returned by search and by lookup.
	Public Visibility = "public"
	// Unlisted entries are returned only by lookup of their exact id.
	Unlisted Visibility = "unlisted"
	// Private entries are seen only inside the gateway that holds them.
	Private Visibility = "private"
)

// Valid reports whether v is one of the three levels.
func (v Visibility) Valid() bool { return v == Public || v == Unlisted || v == Private }

// Endpoint is where an agent's MoltSpeak messages are sent.
type Endpoint struct {
	URL       string // MoltSpeak endpoint, http or https; required
	Transport string // "https", "http", "websocket" or "grpc"; optional
	WebSocket string // streaming endpoint, ws or wss; optional
}

// Entry is one agent's registration as the directory holds it.
//
// The store sets RegisteredAt and UpdatedAt; the layer above sets
// everything else, ExpiresAt included.
type Entry struct {
	AgentID     string
	Org         string
	Name        string
	Description string
	Endpoint    Endpoint

	// PublicKey ("ed25519:…") verifies the agent's messages and is the key
	// a registration is bound to; EncryptionKey ("x25519:…") is optional.
	PublicKey     string
	EncryptionKey string

	Capabilities []string // dot-separated names, no duplicates, order kept
	Metadata     []byte   // a JSON object, kept byte for byte; nil for none
	Tags         []string
	Visibility   Visibility

	// AllowedOrgs, when not empty, restricts the entry to these peer
	// organisations (and its own). Other organisations, and callers that
	// did not authenticate, do not see it at all.
	AllowedOrgs []string

	// Verified says the agent's identity is attested by its organisation.
	Verified bool

	RegisteredAt time.Time // first registration of this incarnation
	UpdatedAt    time.Time // last write of any kind; the order of registry sync
	ExpiresAt    time.Time

	// SignedAt is the timestamp of the signed message behind the latest
	// write; newer wins (see the package documentation).
	SignedAt time.Time

	// Removed marks a tombstone: the agent deregistered. Tombstones are
	// invisible except to registry sync (ChangesQuery.IncludeRemoved).
	Removed bool

	// Registration holds the signed message bytes behind the latest write,
	// unchanged, so that a peer registry can verify them again. Search
	// results leave it empty.
	Registration []byte
}

// ID returns the entry's agent@org.
func (e *Entry) ID() ID { return ID{Agent: e.AgentID, Org: e.Org} }

// HasCapability reports whether the entry lists capability c.
func (e *Entry) HasCapability(c string) bool {
	for _, x := range e.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// Live reports whether the entry is neither removed nor expired at now.
// Only live entries appear in answers.
func (e *Entry) Live(now time.Time) bool { return !e.Removed && e.ExpiresAt.After(now) }

// Viewer is who is asking. The zero Viewer is an anonymous remote caller:
// it sees public entries that do not restrict their audience.
type Viewer struct {
	// Org is the caller's authenticated organisation; "" when the caller
	// is not authenticated.
	Org string
	// Local is set for callers inside this gateway: its own agents, its
	// command line and its operators. They see private entries too, and
	// audience restrictions do not apply to them.
	Local bool
}

// Sees reports whether v may look up e by its exact id: private entries
// only for local callers, and entries that restrict their audience only for
// the organisations they name and for their own organisation. Liveness is
// not considered; see Entry.Live.
func (v Viewer) Sees(e *Entry) bool {
	if v.Local {
		return true
	}
	if e.Visibility != Public && e.Visibility != Unlisted {
		return false
	}
	return v.admitted(e.Org, e.AllowedOrgs)
}

// admitted applies an entry's audience restriction to a remote viewer.
func (v Viewer) admitted(org string, allowed []string) bool {
	if len(allowed) == 0 {
		return true
	}
	if v.Org == "" {
		return false
	}
	if v.Org == org {
		return true
	}
	for _, o := range allowed {
		if o == v.Org {
			return true
		}
	}
	return false
}

// Listed reports whether a search by v may return e: public entries the
// viewer Sees, and for local callers private entries as well (unlisted
// ones only when includeHidden is set, which only local callers may do:
// see Query.IncludeHidden).
func (v Viewer) Listed(e *Entry, includeHidden bool) bool {
	if v.Local {
		return e.Visibility != Unlisted || includeHidden
	}
	return e.Visibility == Public && v.admitted(e.Org, e.AllowedOrgs)
}
