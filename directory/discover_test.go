package directory_test

import (
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/wire"
)

// populate registers, for acme: pub (public), hidden (unlisted), secret
// (private), partners (public, restricted to globex); for globex: gx
// (public). All offer echo.text; pub also echo.more and translate.text.
func populate(t *testing.T, e *registryEnv) {
	t.Helper()
	reg := func(o *testOrg, id, vis string, allowed []string, caps ...string) {
		a := o.agent(t, id)
		pr := profile(caps...)
		pr.Visibility, pr.AllowedOrgs = vis, allowed
		pr.Metadata = wire.ObjectValue(wire.Member{Key: "languages", Value: wire.ArrayValue(wire.StringValue("en"), wire.StringValue("ja"))},
			wire.Member{Key: "max_attendees", Value: wire.IntValue(int64(len(id) * 10))})
		e.mustRegister(a, e.create(o, a, pr))
		e.clock.Advance(time.Second)
	}
	reg(e.acme, "pub", "public", nil, "echo.text", "echo.more", "translate.text")
	reg(e.acme, "hidden", "unlisted", nil, "echo.text")
	reg(e.acme, "secret", "private", nil, "echo.text")
	reg(e.acme, "partners", "public", []string{"globex"}, "echo.text")
	reg(e.globex, "gx", "public", nil, "echo.text")
}

func TestDiscoverVisibility(t *testing.T) {
	e := newRegistryEnv(t, false)
	populate(t, e)
	ctx := t.Context()
	search := func(v directory.Viewer, hidden bool) string {
		t.Helper()
		ans, err := e.reg.Discover(ctx, &wire.DiscoverPayload{Capability: "echo.text", Sort: "recency"}, v, hidden)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Total != len(ans.Results) {
			t.Fatalf("total %d for %d results", ans.Total, len(ans.Results))
		}
		return joined(names(ans))
	}
	anon, globex, initech := directory.Viewer{}, directory.Viewer{Org: "globex"}, directory.Viewer{Org: "initech"}
	local := directory.Viewer{Local: true}
	for _, c := range []struct {
		v      directory.Viewer
		hidden bool
		want   string
	}{
		{anon, false, "gx@globex,pub@acme"},
		{initech, false, "gx@globex,pub@acme"},
		{globex, false, "gx@globex,partners@acme,pub@acme"},
		{local, false, "gx@globex,partners@acme,secret@acme,pub@acme"},
		{local, true, "gx@globex,partners@acme,secret@acme,hidden@acme,pub@acme"},
		{anon, true, "gx@globex,pub@acme"}, // only local viewers see hidden entries
	} {
		if got := search(c.v, c.hidden); got != c.want {
			t.Errorf("viewer %+v hidden %v: %s, want %s", c.v, c.hidden, got, c.want)
		}
	}
	// By exact id: unlisted entries are found, private ones only locally,
	// restricted ones only by the orgs they name.
	lookup := func(id string, v directory.Viewer) error {
		_, err := e.reg.Discover(ctx, &wire.DiscoverPayload{AgentID: id}, v, false)
		return err
	}
	for _, c := range []struct {
		id   string
		v    directory.Viewer
		want wire.Code
	}{
		{"hidden", anon, ""}, {"pub", anon, ""},
		{"secret", anon, wire.ErrAgentNotFound}, {"secret", globex, wire.ErrAgentNotFound}, {"secret", local, ""},
		{"partners", anon, wire.ErrAgentNotFound}, {"partners", initech, wire.ErrAgentNotFound}, {"partners", globex, ""},
		{"nobody", local, wire.ErrAgentNotFound},
	} {
		err := lookup(c.id, c.v)
		if c.want == "" && err != nil || c.want != "" && (err == nil || err.(*wire.Error).Code != c.want) {
			t.Errorf("lookup %s as %+v: %v, want %q", c.id, c.v, err, c.want)
		}
	}
	// A lookup in another org of a shared registry names it in filters.
	ans, err := e.reg.Discover(ctx, &wire.DiscoverPayload{AgentID: "gx", Filters: &wire.DiscoverFilters{Org: []string{"globex"}}}, anon, false)
	if err != nil || joined(names(ans)) != "gx@globex" {
		t.Fatalf("lookup in globex: %v, %v", names(ans), err)
	}
	// Capability counts follow the same rules.
	for _, c := range []struct {
		v    directory.Viewer
		want int64
	}{{anon, 2}, {globex, 3}, {local, 4}} {
		v, err := e.reg.Capabilities(ctx, "echo", false, c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := v.Get("capabilities").Index(1).Get("agents_count").Int(); got != c.want {
			t.Errorf("echo.text count for %+v: %s, want %d", c.v, v, c.want)
		}
		if n, _ := v.Get("capabilities").Index(0).Get("name").Str(); n != "echo.more" {
			t.Errorf("capabilities in order: %s", v)
		}
	}
	if _, err := e.reg.Capabilities(ctx, "echo text", false, anon); err == nil {
		t.Error("a bad prefix was accepted")
	}
}

func TestDiscoverQueries(t *testing.T) {
	e := newRegistryEnv(t, false)
	populate(t, e)
	ctx := t.Context()
	anon := directory.Viewer{}
	q := func(p *wire.DiscoverPayload) *directory.Answer {
		t.Helper()
		ans, err := e.reg.Discover(ctx, p, directory.Viewer{Local: true}, false)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		return ans
	}
	// all and any.
	ans := q(&wire.DiscoverPayload{Capabilities: &wire.CapabilityQuery{All: []string{"echo.text"}, Any: []string{"translate.text", "nothing.here"}}})
	if len(ans.Results) != 1 || joined(names(ans)) != "pub@acme" || *ans.Results[0].MatchScore <= 0.5 || *ans.Results[0].MatchScore >= 1 {
		t.Fatalf("all/any: %v", names(ans))
	}
	// Requirements on metadata.
	req, _ := wire.Parse([]byte(`{"languages":{"includes":["ja"]},"max_attendees":{"gte":50}}`), 0)
	ans = q(&wire.DiscoverPayload{Capability: "echo.text", Requirements: req, Sort: "recency"})
	if joined(names(ans)) != "partners@acme,secret@acme" {
		t.Fatalf("requirements: %v", names(ans))
	}
	// Filters: org.
	ans = q(&wire.DiscoverPayload{Capability: "echo.text", Filters: &wire.DiscoverFilters{Org: []string{"globex"}}})
	if joined(names(ans)) != "gx@globex" {
		t.Fatalf("org filter: %v", names(ans))
	}
	// Pagination: limit and cursor walk every result once.
	var walked []string
	p := &wire.DiscoverPayload{Capability: "echo.text", Limit: 1, Sort: "recency"}
	for i := 0; ; i++ {
		ans := q(p)
		walked = append(walked, names(ans)...)
		if ans.Total != 4 {
			t.Fatalf("page total %d", ans.Total)
		}
		if !ans.HasMore {
			break
		}
		p.Cursor = ans.Cursor
		if i > 5 {
			t.Fatal("pagination does not end")
		}
	}
	if joined(walked) != "gx@globex,partners@acme,secret@acme,pub@acme" {
		t.Fatalf("paged: %v", walked)
	}
	// Mistakes name the field.
	_, err := e.reg.Discover(ctx, &wire.DiscoverPayload{Capability: "echo.text", Cursor: "garbage"}, anon, false)
	wantCode(t, err, wire.ErrInvalidParam, "p.cursor")
	bad, _ := wire.Parse([]byte(`{"x":{"gte":"many"}}`), 0)
	_, err = e.reg.Discover(ctx, &wire.DiscoverPayload{Requirements: bad}, anon, false)
	wantCode(t, err, wire.ErrInvalidParam, "")
	_, err = e.reg.Discover(ctx, &wire.DiscoverPayload{Capability: "echo.text", Anonymous: true}, anon, false)
	wantCode(t, err, wire.ErrInvalidParam, "p.anonymous")
	// Liveness: uptime from pongs, and the min_uptime filter and uptime sort.
	id := directory.ID{Agent: "pub", Org: "acme"}
	if err := e.reg.RecordPong(ctx, id, &wire.PongPayload{Nonce: "n", Status: "alive", Load: 0.5, QueueDepth: 3, CapabilitiesActive: []string{"echo.text"}}); err != nil {
		t.Fatal(err)
	}
	gx := directory.ID{Agent: "gx", Org: "globex"}
	e.reg.RecordPong(ctx, gx, &wire.PongPayload{Nonce: "n", Status: "busy", Load: 2})
	if err := e.reg.RecordUnreachable(ctx, gx); err != nil {
		t.Fatal(err)
	}
	rec, err := e.reg.Lookup(ctx, id, anon)
	if err != nil || rec.Status != directory.StatusAlive || rec.Uptime30d == nil || *rec.Uptime30d != 1 {
		t.Fatalf("liveness of pub: %+v, %v", rec, err)
	}
	// gx was last seen offline: out of search until it answers again.
	ans = q(&wire.DiscoverPayload{Capability: "echo.text", Filters: &wire.DiscoverFilters{MinUptime: 0.9}})
	if joined(names(ans)) != "pub@acme" {
		t.Fatalf("min_uptime: %v", names(ans))
	}
	e.reg.RecordPong(ctx, gx, &wire.PongPayload{Nonce: "n", Status: "degraded"})
	ans = q(&wire.DiscoverPayload{Capability: "echo.text", Sort: "uptime", Filters: &wire.DiscoverFilters{Org: []string{"globex"}}})
	if joined(names(ans)) != "gx@globex" || *ans.Results[0].MatchScore != 0.75 || *ans.Results[0].Uptime30d < 0.6 {
		t.Fatalf("degraded gx: %+v", ans.Results)
	}
}
