package directory

import (
	"fmt"
	"slices"
	"time"
)

// Query limits.
const (
	DefaultLimit        = 20
	MaxLimit            = 100
	MaxQueryCaps        = 64 // capabilities named by one query, all and any together
	MaxQueryOrgs        = 64
	MaxChangesLimit     = 1000
	DefaultChangesLimit = 100
)

// Sort orders search results. Every order is total: ties fall through to
// the next key and finally to the store's own row order, so cursors never
// skip or repeat an entry.
type Sort string

const (
	// SortScore orders by match score, then uptime, then most recently
	// updated. The default.
	SortScore Sort = "score"
	// SortUptime orders by uptime_30d (agents never observed last), then
	// match score, then most recently updated.
	SortUptime Sort = "uptime"
	// SortRecent orders by most recently updated (registered, renewed or
	// changed), then match score.
	SortRecent Sort = "recent"
)

// ParseSort reads the sort of a discover query. Besides the three names it
// accepts "" and the discovery specification's "match_score", "relevance"
// and "reputation" (this directory keeps no reputation, so it ranks by
// match) for SortScore, and "recency" and "newest" for SortRecent.
func ParseSort(s string) (Sort, error) {
	switch s {
	case "", "score", "match_score", "relevance", "reputation":
		return SortScore, nil
	case "uptime", "uptime_30d":
		return SortUptime, nil
	case "recent", "recency", "newest":
		return SortRecent, nil
	}
	return "", fieldErr("sort", "want score, uptime or recent")
}

// Query is a discover request.
//
// The capabilities an entry must have are Capability and All (every one
// of them) and Any (at least one of them, if any are given). With none of
// the three the query lists every entry the viewer may see.
//
// The match score of a result is the share of the named capabilities the
// entry has (1 for a plain capability search), times a health weight from
// the agent's latest liveness status: 1 for alive, healthy or never
// observed, 0.75 for degraded, 0.5 for unhealthy. Agents whose latest
// status is offline or decommissioned are left out of search until they
// report again.
type Query struct {
	Capability   string
	All          []string
	Any          []string
	Requirements Requirements

	// Filters.
	Verified  bool     // only entries whose identity the org attests
	MinUptime float64  // only agents whose uptime_30d is at least this (0..1); 0 for any
	Orgs      []string // only entries of these organisations; empty for any

	Sort   Sort   // default SortScore
	Limit  int    // default DefaultLimit, at most MaxLimit
	Cursor string // Page.Next of the previous page of the same query

	Viewer Viewer
	// IncludeHidden lets a local viewer see what search otherwise hides:
	// unlisted entries, and agents last seen offline or decommissioned
	// (with a match score of 0). It is the gateway's own inventory.
	// Ignored for remote viewers.
	IncludeHidden bool
}

// Capabilities returns the query's capabilities split into those all
// required (Capability and All) and those of which any one will do, each
// without duplicates, a capability in both counting as required.
func (q *Query) Capabilities() (all, any []string) {
	seen := map[string]bool{}
	add := func(dst []string, c string) []string {
		if c == "" || seen[c] {
			return dst
		}
		seen[c] = true
		return append(dst, c)
	}
	all = add(all, q.Capability)
	for _, c := range q.All {
		all = add(all, c)
	}
	for _, c := range q.Any {
		any = add(any, c)
	}
	return all, any
}

// Validate checks the query's fields and reports the first fault as a
// FieldError.
func (q *Query) Validate() error {
	all, any := q.Capabilities()
	if len(all)+len(any) > MaxQueryCaps {
		return fieldErr("capabilities", "more than %d", MaxQueryCaps)
	}
	for _, c := range slices.Concat(all, any) {
		if err := CheckCapability(c); err != nil {
			return fieldErr("capability", "%v", err)
		}
	}
	if q.MinUptime < 0 || q.MinUptime > 1 || q.MinUptime != q.MinUptime {
		return fieldErr("filters.min_uptime", "want a number from 0 to 1")
	}
	if len(q.Orgs) > MaxQueryOrgs {
		return fieldErr("filters.org", "more than %d", MaxQueryOrgs)
	}
	for i, o := range q.Orgs {
		if !validName(o) {
			return fieldErr(fmt.Sprintf("filters.org[%d]", i), "not an org name")
		}
	}
	if _, err := ParseSort(string(q.Sort)); err != nil {
		return err
	}
	if q.Limit < 0 {
		return fieldErr("limit", "must not be negative")
	}
	if q.Viewer.Org != "" && !validName(q.Viewer.Org) {
		return fieldErr("viewer.org", "not an org name")
	}
	return nil
}

// EffectiveLimit returns Limit with its default applied and capped.
func (q *Query) EffectiveLimit() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

// Page is one page of search results.
type Page struct {
	Results []Result
	// Total counts the entries matching the query over all pages. It is
	// counted apart from the page, so a concurrent write may make the two
	// differ by that write.
	Total int
	Next  string // cursor of the next page; "" on the last page
}

// Result is one entry found by a search. Entry.Registration is left empty.
type Result struct {
	Entry               Entry
	MatchScore          float64   // 0..1, see Query
	CapabilitiesMatched []string  // the query's capabilities the entry has, in the entry's order
	Liveness            *Liveness // nil when the agent was never observed
}

// CapabilityQuery asks for the capabilities the viewer can find agents
// for, with the count of such agents.
type CapabilityQuery struct {
	Prefix   string // only capabilities that start with this; "" for all
	Verified bool   // count verified entries only
	Viewer   Viewer
}

// CapabilityCount is one capability and the number of searchable agents
// that offer it.
type CapabilityCount struct {
	Name   string
	Agents int
}

// ChangesQuery asks for the entries written since a time, oldest first,
// for registry sync. Private entries are never returned, whoever asks;
// otherwise the viewer's lookup rules apply (Viewer.Sees), so an entry
// restricted to some organisations reaches only registries of those
// organisations. Expired entries are left out; tombstones are included on
// request.
type ChangesQuery struct {
	Since          time.Time // entries with UpdatedAt at or after this
	Cursor         string    // ChangePage.Next, to continue
	Limit          int       // default DefaultChangesLimit, at most MaxChangesLimit
	IncludeRemoved bool
	Viewer         Viewer
	// MaxBytes, when not 0, bounds the registrations of a page: an entry
	// that would take them past it is left for the next page, unless it
	// would be the page's first.
	MaxBytes int
}

// ChangePage is one page of changes. Entries carry Registration.
type ChangePage struct {
	Entries []Entry
	Next    string // cursor for the next page; "" when this page reached the end
}
