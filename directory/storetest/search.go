package storetest

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
)

func testVisibility(t *testing.T, e *env) {
	ctx := t.Context()
	for _, v := range []directory.Visibility{directory.Public, directory.Unlisted, directory.Private} {
		x := e.entry(string(v), "acme", "x.y")
		x.Visibility = v
		e.put(x)
	}
	viewers := map[string]directory.Viewer{
		"anonymous": {},
		"peer":      {Org: "globex"},
		"own org":   {Org: "acme"},
		"local":     local,
	}
	wantGet := map[string][]string{
		"anonymous": {"public", "unlisted"},
		"peer":      {"public", "unlisted"},
		"own org":   {"public", "unlisted"},
		"local":     {"public", "unlisted", "private"},
	}
	wantSearch := map[string][]string{
		"anonymous": {"public@acme"},
		"peer":      {"public@acme"},
		"own org":   {"public@acme"},
		"local":     {"public@acme", "private@acme"},
	}
	for name, v := range viewers {
		var got []string
		for _, a := range []string{"public", "unlisted", "private"} {
			_, err := e.s.Get(ctx, directory.ID{Agent: a, Org: "acme"}, v)
			switch {
			case err == nil:
				got = append(got, a)
			case !errors.Is(err, directory.ErrNotFound):
				t.Errorf("%s: Get %s: %v", name, a, err)
			}
		}
		if !sameSet(got, wantGet[name]) {
			t.Errorf("%s: Get sees %v, want %v", name, got, wantGet[name])
		}
		p := e.search(directory.Query{Capability: "x.y", Viewer: v})
		if !sameSet(ids(p), wantSearch[name]) || p.Total != len(wantSearch[name]) {
			t.Errorf("%s: Search finds %v (total %d), want %v", name, ids(p), p.Total, wantSearch[name])
		}
		p = e.search(directory.Query{Viewer: v}) // a listing, no capability
		if !sameSet(ids(p), wantSearch[name]) {
			t.Errorf("%s: listing finds %v, want %v", name, ids(p), wantSearch[name])
		}
		caps, err := e.s.Capabilities(ctx, &directory.CapabilityQuery{Viewer: v})
		if err != nil || len(caps) != 1 || caps[0].Agents != len(wantSearch[name]) {
			t.Errorf("%s: Capabilities = %+v, %v", name, caps, err)
		}
	}
	// The gateway's own listing may include unlisted entries; a remote
	// viewer asking for them gets the public ones only.
	p := e.search(directory.Query{Viewer: local, IncludeHidden: true})
	if !sameSet(ids(p), []string{"public@acme", "unlisted@acme", "private@acme"}) {
		t.Errorf("local listing with unlisted: %v", ids(p))
	}
	p = e.search(directory.Query{Viewer: directory.Viewer{Org: "globex"}, IncludeHidden: true})
	if !sameSet(ids(p), []string{"public@acme"}) {
		t.Errorf("remote listing asking for unlisted: %v", ids(p))
	}
	// Registry sync never exports private entries, not even to the
	// gateway itself.
	for name, v := range viewers {
		ch, err := e.s.Changes(ctx, &directory.ChangesQuery{Viewer: v})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ch.Entries {
			if x.Visibility == directory.Private {
				t.Errorf("%s: Changes exported a private entry", name)
			}
		}
		if len(ch.Entries) != 2 {
			t.Errorf("%s: Changes returned %d entries, want public and unlisted", name, len(ch.Entries))
		}
	}
}

func testPeerDisclosure(t *testing.T, e *env) {
	ctx := t.Context()
	open := e.entry("open", "acme", "x.y")
	e.put(open)
	partners := e.entry("partners", "acme", "x.y")
	partners.AllowedOrgs = []string{"globex", "initech"}
	e.put(partners)
	hidden := e.entry("hidden", "acme", "x.y")
	hidden.Visibility = directory.Unlisted
	hidden.AllowedOrgs = []string{"globex"}
	e.put(hidden)

	cases := []struct {
		viewer directory.Viewer
		search []string
		get    []string
	}{
		{directory.Viewer{}, []string{"open@acme"}, []string{"open"}},
		{directory.Viewer{Org: "globex"}, []string{"open@acme", "partners@acme"}, []string{"open", "partners", "hidden"}},
		{directory.Viewer{Org: "initech"}, []string{"open@acme", "partners@acme"}, []string{"open", "partners"}},
		{directory.Viewer{Org: "umbrella"}, []string{"open@acme"}, []string{"open"}},
		{directory.Viewer{Org: "acme"}, []string{"open@acme", "partners@acme"}, []string{"open", "partners", "hidden"}},
		{local, []string{"open@acme", "partners@acme"}, []string{"open", "partners", "hidden"}},
	}
	for _, c := range cases {
		p := e.search(directory.Query{Capability: "x.y", Viewer: c.viewer})
		if !sameSet(ids(p), c.search) || p.Total != len(c.search) {
			t.Errorf("%+v: Search = %v (total %d), want %v", c.viewer, ids(p), p.Total, c.search)
		}
		var got []string
		for _, a := range []string{"open", "partners", "hidden"} {
			if _, err := e.s.Get(ctx, directory.ID{Agent: a, Org: "acme"}, c.viewer); err == nil {
				got = append(got, a)
			}
		}
		if !sameSet(got, c.get) {
			t.Errorf("%+v: Get sees %v, want %v", c.viewer, got, c.get)
		}
		caps, err := e.s.Capabilities(ctx, &directory.CapabilityQuery{Viewer: c.viewer})
		if err != nil || len(caps) != 1 || caps[0].Agents != len(c.search) {
			t.Errorf("%+v: Capabilities = %+v, %v", c.viewer, caps, err)
		}
		ch, err := e.s.Changes(ctx, &directory.ChangesQuery{Viewer: c.viewer})
		if err != nil {
			t.Fatal(err)
		}
		var synced []string
		for _, x := range ch.Entries {
			synced = append(synced, x.AgentID)
		}
		if !sameSet(synced, c.get) {
			t.Errorf("%+v: Changes exports %v, want %v", c.viewer, synced, c.get)
		}
	}
}

func testSearchCapabilities(t *testing.T, e *env) {
	e.put(e.entry("text", "lingua", "translate.text", "translate.detect"))
	e.put(e.entry("both", "lingua", "translate.text", "translate.document", "ocr.pdf"))
	e.put(e.entry("docs", "lingua", "translate.document", "ocr.image"))
	e.put(e.entry("full", "lingua", "translate.text", "translate.document", "ocr.image", "ocr.pdf"))
	e.put(e.entry("ocr", "scan", "ocr.image"))

	p := e.search(directory.Query{Capability: "translate.text"})
	if !sameSet(ids(p), []string{"text@lingua", "both@lingua", "full@lingua"}) || p.Total != 3 {
		t.Errorf("capability: %v total %d", ids(p), p.Total)
	}
	for _, r := range p.Results {
		if r.MatchScore != 1 || !sameStrings(r.CapabilitiesMatched, []string{"translate.text"}) {
			t.Errorf("%s: score %v matched %v", r.Entry.ID(), r.MatchScore, r.CapabilitiesMatched)
		}
		if r.Entry.Registration != nil {
			t.Errorf("search result carries registration bytes")
		}
	}
	p = e.search(directory.Query{All: []string{"translate.text", "translate.document"}, Any: []string{"ocr.image", "ocr.pdf"}})
	if !sameStrings(ids(p), []string{"full@lingua", "both@lingua"}) {
		t.Fatalf("all+any: %v", ids(p))
	}
	if s := p.Results[0].MatchScore; s != 1 {
		t.Errorf("full match score %v, want 1", s)
	}
	if s := p.Results[1].MatchScore; s != 0.75 {
		t.Errorf("3 of 4 capabilities score %v, want 0.75", s)
	}
	if m := p.Results[1].CapabilitiesMatched; !sameStrings(m, []string{"translate.text", "translate.document", "ocr.pdf"}) {
		t.Errorf("matched %v", m)
	}
	p = e.search(directory.Query{Any: []string{"ocr.image", "translate.detect"}})
	if !sameSet(ids(p), []string{"text@lingua", "docs@lingua", "full@lingua", "ocr@scan"}) {
		t.Errorf("any: %v", ids(p))
	}
	p = e.search(directory.Query{Capability: "translate.text", All: []string{"ocr.image"}})
	if !sameSet(ids(p), []string{"full@lingua"}) {
		t.Errorf("capability + all: %v", ids(p))
	}
	if p = e.search(directory.Query{Capability: "nobody.does.this"}); len(p.Results) != 0 || p.Total != 0 || p.Next != "" {
		t.Errorf("unknown capability: %+v", p)
	}
	if _, err := e.s.Search(t.Context(), &directory.Query{Capability: "bad cap"}); err == nil {
		t.Errorf("a malformed capability was accepted")
	}
}

func testSearchRequirements(t *testing.T, e *env) {
	meta := map[string]string{
		"cal-a": `{"timezone_support": true, "languages": ["en", "es", "de"], "max_attendees": 100, "version": "2.1.0"}`,
		"cal-b": `{"timezone_support": true, "languages": ["en", "ja"], "max_attendees": 50}`,
		"cal-c": `{"timezone_support": false, "languages": ["ja"], "max_attendees": 500}`,
		"cal-d": `{"languages": "en", "max_attendees": "many"}`,
		"cal-e": ``,
	}
	for a, m := range meta {
		x := e.entry(a, "acme", "calendar.schedule")
		if m != "" {
			x.Metadata = []byte(m)
		}
		e.put(x)
	}
	cases := []struct {
		req  string
		want []string
	}{
		{`{"timezone_support": true}`, []string{"cal-a", "cal-b"}},
		{`{"languages": ["en"]}`, []string{"cal-a", "cal-b"}},
		{`{"languages": ["en", "ja"]}`, []string{"cal-b"}},
		{`{"languages": "en"}`, []string{"cal-a", "cal-b", "cal-d"}},
		{`{"languages": {"includes": ["en", "ja"]}}`, []string{"cal-b"}},
		{`{"languages": {"includes": "ja"}}`, []string{"cal-b", "cal-c"}},
		{`{"languages": {"eq": ["en", "ja"]}}`, []string{"cal-b"}},
		{`{"max_attendees": {"gte": 50}}`, []string{"cal-a", "cal-b", "cal-c"}},
		{`{"max_attendees": {"gte": 51, "lte": 100}}`, []string{"cal-a"}},
		{`{"max_attendees": {"lte": 50.0}}`, []string{"cal-b"}},
		{`{"max_attendees": 100.0}`, []string{"cal-a"}},
		{`{"version": "2.1.0", "timezone_support": true}`, []string{"cal-a"}},
		{`{"missing_key": true}`, nil},
		{`{"timezone_support": true, "languages": ["en"], "max_attendees": {"gte": 50}}`, []string{"cal-a", "cal-b"}},
	}
	for _, c := range cases {
		req, err := directory.ParseRequirements([]byte(c.req))
		if err != nil {
			t.Fatalf("%s: %v", c.req, err)
		}
		p := e.search(directory.Query{Capability: "calendar.schedule", Requirements: req})
		var want []string
		for _, a := range c.want {
			want = append(want, a+"@acme")
		}
		if !sameSet(ids(p), want) || p.Total != len(want) {
			t.Errorf("%s: found %v (total %d), want %v", c.req, ids(p), p.Total, want)
		}
	}
	// Requirements follow updates and removals of the metadata.
	e.clock.Advance(time.Second)
	b := e.entry("cal-b", "acme", "calendar.schedule")
	b.Metadata = []byte(`{"languages": ["fr"]}`)
	e.put(b)
	a := e.entry("cal-a", "acme", "calendar.schedule")
	e.put(a) // no metadata any more
	for req, want := range map[string]int{`{"languages": ["en"]}`: 0, `{"languages": "fr"}`: 1, `{"timezone_support": true}`: 0} {
		r, _ := directory.ParseRequirements([]byte(req))
		if p := e.search(directory.Query{Capability: "calendar.schedule", Requirements: r}); p.Total != want {
			t.Errorf("after the updates %s finds %v, want %d", req, ids(p), want)
		}
	}
	if _, err := directory.ParseRequirements([]byte(`{"max": {"gte": "ten"}}`)); err == nil {
		t.Errorf("gte with a string operand was accepted")
	}
}

func testSearchFilters(t *testing.T, e *env) {
	ctx := t.Context()
	a := e.entry("a", "acme", "x.y")
	a.Verified = true
	e.put(a)
	e.put(e.entry("b", "acme", "x.y"))
	c := e.entry("c", "globex", "x.y")
	c.Verified = true
	e.put(c)
	e.put(e.entry("d", "initech", "x.y"))

	p := e.search(directory.Query{Capability: "x.y", Verified: true})
	if !sameSet(ids(p), []string{"a@acme", "c@globex"}) {
		t.Errorf("verified: %v", ids(p))
	}
	p = e.search(directory.Query{Capability: "x.y", Orgs: []string{"acme", "initech"}})
	if !sameSet(ids(p), []string{"a@acme", "b@acme", "d@initech"}) {
		t.Errorf("orgs: %v", ids(p))
	}
	p = e.search(directory.Query{Capability: "x.y", Orgs: []string{"acme"}, Verified: true})
	if !sameSet(ids(p), []string{"a@acme"}) {
		t.Errorf("orgs + verified: %v", ids(p))
	}
	// Uptime: a always up, b up three hours out of four, c and d never
	// observed. The entries outlive the four hours.
	for _, x := range []directory.ID{a.ID(), {Agent: "b", Org: "acme"}, c.ID(), {Agent: "d", Org: "initech"}} {
		if _, err := e.s.Renew(ctx, x, "", e.clock.Now().Add(24*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	for h := 0; h < 4; h++ {
		record(t, e.s, "a", "acme", directory.StatusHealthy, e.clock.Now())
		st := directory.StatusHealthy
		if h%2 == 1 {
			st = directory.StatusOffline
		}
		if h == 3 {
			st = directory.StatusDegraded // still up, and searchable
		}
		record(t, e.s, "b", "acme", st, e.clock.Now())
		e.clock.Advance(time.Hour)
	}
	p = e.search(directory.Query{Capability: "x.y", MinUptime: 0.99})
	if !sameSet(ids(p), []string{"a@acme"}) {
		t.Errorf("min_uptime 0.99: %v", ids(p))
	}
	p = e.search(directory.Query{Capability: "x.y", MinUptime: 0.75})
	if !sameSet(ids(p), []string{"a@acme", "b@acme"}) {
		t.Errorf("min_uptime 0.75: %v", ids(p))
	}
	for _, bad := range []directory.Query{
		{Capability: "x.y", MinUptime: 1.5},
		{Capability: "x.y", MinUptime: math.NaN()},
		{Capability: "x.y", Orgs: []string{"not an org"}},
		{Capability: "x.y", Sort: "popularity"},
		{Capability: "x.y", Limit: -1},
	} {
		var fe *directory.FieldError
		if _, err := e.s.Search(ctx, &bad); !errors.As(err, &fe) {
			t.Errorf("%+v: error %v, want a FieldError", bad, err)
		}
	}
}

func record(t *testing.T, s directory.Store, agent, org string, st directory.Status, at time.Time) {
	t.Helper()
	err := s.RecordLiveness(t.Context(), directory.ID{Agent: agent, Org: org}, directory.Heartbeat{At: at, Status: st, Load: 0.5, QueueDepth: 3})
	if err != nil {
		t.Fatalf("RecordLiveness %s@%s: %v", agent, org, err)
	}
}

func testSearchSort(t *testing.T, e *env) {
	// Registered one minute apart: old, mid, new.
	for _, a := range []string{"old", "mid", "new"} {
		e.put(e.entry(a, "acme", "x.y", "x.z"))
		e.clock.Advance(time.Minute)
	}
	// Uptime: mid 100%, old 50%, new never observed.
	record(t, e.s, "mid", "acme", directory.StatusHealthy, e.clock.Now())
	record(t, e.s, "old", "acme", directory.StatusHealthy, e.clock.Now())
	record(t, e.s, "old", "acme", directory.StatusUnhealthy, e.clock.Now())
	record(t, e.s, "old", "acme", directory.StatusHealthy, e.clock.Now()) // latest status: healthy

	p := e.search(directory.Query{Capability: "x.y", Sort: directory.SortRecent})
	if !sameStrings(ids(p), []string{"new@acme", "mid@acme", "old@acme"}) {
		t.Errorf("recent: %v", ids(p))
	}
	p = e.search(directory.Query{Capability: "x.y", Sort: directory.SortUptime})
	if !sameStrings(ids(p), []string{"mid@acme", "old@acme", "new@acme"}) {
		t.Errorf("uptime: %v", ids(p))
	}
	// Equal scores fall through to uptime, then recency.
	p = e.search(directory.Query{Capability: "x.y"})
	if !sameStrings(ids(p), []string{"mid@acme", "old@acme", "new@acme"}) {
		t.Errorf("score: %v", ids(p))
	}
	l := p.Results[1].Liveness
	if l == nil || math.Abs(l.Uptime30d-2.0/3) > 1e-6 || l.Status != directory.StatusHealthy || l.ObservedHours != 1 {
		t.Errorf("old's liveness in the result: %+v", l)
	}
	if p.Results[2].Liveness != nil {
		t.Errorf("never observed agent has liveness %+v", p.Results[2].Liveness)
	}
	// Score first: an agent with more of the capabilities wins over uptime.
	e.put(e.entry("extra", "acme", "x.y", "x.w"))
	p = e.search(directory.Query{Any: []string{"x.y", "x.w"}})
	if len(p.Results) != 4 || p.Results[0].Entry.AgentID != "extra" {
		t.Errorf("score with any: %v", ids(p))
	}
	p = e.search(directory.Query{Any: []string{"x.y", "x.w"}, Sort: directory.SortUptime})
	// Uptime first; the two never observed fall back to score.
	if got := ids(p); !sameStrings(got, []string{"mid@acme", "old@acme", "extra@acme", "new@acme"}) {
		t.Errorf("uptime with any: %v", got)
	}
}

func testSearchHealth(t *testing.T, e *env) {
	for _, a := range []string{"healthy", "degraded", "unhealthy", "offline", "gone", "unknown"} {
		e.put(e.entry(a, "acme", "x.y"))
	}
	now := e.clock.Now()
	record(t, e.s, "healthy", "acme", directory.StatusHealthy, now)
	record(t, e.s, "degraded", "acme", directory.StatusDegraded, now)
	record(t, e.s, "unhealthy", "acme", directory.StatusUnhealthy, now)
	record(t, e.s, "offline", "acme", directory.StatusOffline, now)
	record(t, e.s, "gone", "acme", directory.StatusDecommissioned, now)

	p := e.search(directory.Query{Capability: "x.y", Sort: directory.SortScore})
	got := map[string]float64{}
	for _, r := range p.Results {
		got[r.Entry.AgentID] = r.MatchScore
	}
	want := map[string]float64{"healthy": 1, "unknown": 1, "degraded": 0.75, "unhealthy": 0.5}
	if len(got) != len(want) {
		t.Errorf("found %v, want %v", got, want)
	}
	for a, s := range want {
		if got[a] != s {
			t.Errorf("%s: score %v, want %v", a, got[a], s)
		}
	}
	if ids(p)[2] != "degraded@acme" || ids(p)[3] != "unhealthy@acme" {
		t.Errorf("order %v", ids(p))
	}
	// What was recorded before the registration counts from the start.
	record(t, e.s, "early", "acme", directory.StatusOffline, now)
	e.put(e.entry("early", "acme", "x.y"))
	if p := e.search(directory.Query{Capability: "x.y"}); len(p.Results) != 4 {
		t.Errorf("an agent registered while offline is listed: %v", ids(p))
	}
	// The gateway's own inventory shows them all, the offline ones last.
	for _, q := range []directory.Query{
		{Capability: "x.y", Viewer: local, IncludeHidden: true},
		{Viewer: local, IncludeHidden: true},
		{Any: []string{"x.y", "x.z"}, Viewer: local, IncludeHidden: true},
	} {
		p := e.search(q)
		got := ids(p)
		if len(got) != 7 || !sameSet(got[4:], []string{"offline@acme", "gone@acme", "early@acme"}) || p.Results[6].MatchScore != 0 {
			t.Errorf("inventory %+v: %v", q, got)
		}
	}
	// An offline agent reappears when it reports again.
	e.clock.Advance(time.Minute)
	record(t, e.s, "offline", "acme", directory.StatusAlive, e.clock.Now())
	if p := e.search(directory.Query{Capability: "x.y"}); p.Total != 5 {
		t.Errorf("after the offline agent came back: %v", ids(p))
	}
}

func testPagination(t *testing.T, e *env) {
	const n = 23
	for i := range n {
		x := e.entry(fmt.Sprintf("agent-%02d", i), "acme", "x.y")
		x.Metadata = fmt.Appendf(nil, `{"even": %v}`, i%2 == 0)
		e.put(x)
		if i%3 == 0 {
			e.clock.Advance(time.Second) // some ties on recency, some not
		}
		if i%4 == 0 {
			record(t, e.s, x.AgentID, "acme", directory.StatusHealthy, e.clock.Now())
		}
	}
	even, _ := directory.ParseRequirements([]byte(`{"even": true}`))
	for _, sort := range []directory.Sort{directory.SortScore, directory.SortUptime, directory.SortRecent} {
		for _, q := range []directory.Query{
			{Capability: "x.y", Sort: sort, Limit: 5},
			{Sort: sort, Limit: 4},
			{Capability: "x.y", Sort: sort, Limit: 3, Requirements: even},
		} {
			want := n
			if !q.Requirements.Empty() {
				want = (n + 1) / 2
			}
			full := e.search(directory.Query{Capability: q.Capability, Sort: sort, Limit: directory.MaxLimit, Requirements: q.Requirements})
			var walked []string
			pages := 0
			for {
				p := e.search(q)
				pages++
				if p.Total != want {
					t.Errorf("%s page %d: total %d, want %d", sort, pages, p.Total, want)
				}
				if len(p.Results) > q.Limit {
					t.Fatalf("page of %d > limit %d", len(p.Results), q.Limit)
				}
				walked = append(walked, ids(p)...)
				if p.Next == "" {
					break
				}
				q.Cursor = p.Next
				if pages > n {
					t.Fatalf("%s: pagination does not end", sort)
				}
			}
			if !sameStrings(walked, ids(full)) {
				t.Errorf("%s limit %d: pages give %v\nwant %v", sort, q.Limit, walked, ids(full))
			}
		}
	}
	// A page exactly at the end reports no next cursor.
	p := e.search(directory.Query{Capability: "x.y", Limit: n})
	if p.Next != "" || len(p.Results) != n {
		t.Errorf("full page: %d results, next %q", len(p.Results), p.Next)
	}
	// The default and the cap of the limit.
	if p := e.search(directory.Query{Capability: "x.y"}); len(p.Results) != directory.DefaultLimit {
		t.Errorf("default limit gave %d", len(p.Results))
	}
}

func testBadCursor(t *testing.T, e *env) {
	ctx := t.Context()
	for i := range 5 {
		e.put(e.entry(fmt.Sprintf("a%d", i), "acme", "x.y", "x.z"))
	}
	p := e.search(directory.Query{Capability: "x.y", Limit: 2})
	if p.Next == "" {
		t.Fatal("no cursor")
	}
	for _, q := range []directory.Query{
		{Capability: "x.y", Cursor: "not a cursor!"},
		{Capability: "x.y", Cursor: p.Next[:len(p.Next)-2]},
		{Capability: "x.z", Cursor: p.Next},                             // another query
		{Capability: "x.y", Cursor: p.Next, Sort: directory.SortRecent}, // another order
		{Capability: "x.y", Cursor: p.Next, Viewer: local},              // another viewer
	} {
		if _, err := e.s.Search(ctx, &q); !errors.Is(err, directory.ErrBadCursor) {
			t.Errorf("%+v: %v, want ErrBadCursor", q, err)
		}
	}
	// The page size may change between pages.
	if _, err := e.s.Search(ctx, &directory.Query{Capability: "x.y", Cursor: p.Next, Limit: 3}); err != nil {
		t.Errorf("another limit: %v", err)
	}
	if _, err := e.s.Changes(ctx, &directory.ChangesQuery{Cursor: p.Next}); !errors.Is(err, directory.ErrBadCursor) {
		t.Errorf("search cursor given to Changes: %v", err)
	}
}

func testCapabilityList(t *testing.T, e *env) {
	ctx := t.Context()
	a := e.entry("a", "acme", "calendar.check", "calendar.schedule", "reminders.set")
	a.Verified = true
	e.put(a)
	e.put(e.entry("b", "acme", "calendar.schedule", "calendarx.odd"))
	e.put(e.entry("c", "acme", "calendar", "translate.text"))
	list := func(q directory.CapabilityQuery) string {
		caps, err := e.s.Capabilities(ctx, &q)
		if err != nil {
			t.Fatalf("Capabilities %+v: %v", q, err)
		}
		return fmt.Sprint(caps)
	}
	if got, want := list(directory.CapabilityQuery{}), "[{calendar 1} {calendar.check 1} {calendar.schedule 2} {calendarx.odd 1} {reminders.set 1} {translate.text 1}]"; got != want {
		t.Errorf("all: %s, want %s", got, want)
	}
	if got, want := list(directory.CapabilityQuery{Prefix: "calendar."}), "[{calendar.check 1} {calendar.schedule 2}]"; got != want {
		t.Errorf("prefix calendar.: %s, want %s", got, want)
	}
	if got, want := list(directory.CapabilityQuery{Prefix: "calendar"}), "[{calendar 1} {calendar.check 1} {calendar.schedule 2} {calendarx.odd 1}]"; got != want {
		t.Errorf("prefix calendar: %s, want %s", got, want)
	}
	if got, want := list(directory.CapabilityQuery{Prefix: "calendar", Verified: true}), "[{calendar.check 1} {calendar.schedule 1}]"; got != want {
		t.Errorf("verified: %s, want %s", got, want)
	}
	if got := list(directory.CapabilityQuery{Prefix: "zzz"}); got != "[]" {
		t.Errorf("no match: %s", got)
	}
	if got := list(directory.CapabilityQuery{Prefix: "%"}); got != "[]" {
		t.Errorf("prefix with a wildcard character: %s", got)
	}
}
