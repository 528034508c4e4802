package directory

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseID(t *testing.T) {
	id, err := ParseID("calendar-bot@acme_corp")
	if err != nil || id != (ID{Agent: "calendar-bot", Org: "acme_corp"}) || id.String() != "calendar-bot@acme_corp" {
		t.Fatalf("ParseID = %+v, %v", id, err)
	}
	for _, bad := range []string{"", "agent", "@org", "agent@", "a b@org", "a@o@x", "a@" + strings.Repeat("o", 129)} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) succeeded", bad)
		}
	}
}

func TestCheckCapability(t *testing.T) {
	for _, ok := range []string{"weather", "calendar.schedule", "code.execute.python", "a-b_c.D9"} {
		if err := CheckCapability(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "a.", ".a", "a..b", "a b", "a/b", "é.x", strings.Repeat("a", 129)} {
		if err := CheckCapability(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestMetadataChecks(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxMetadataDepth) + "1" + strings.Repeat("}", MaxMetadataDepth)
	tooDeep := strings.Repeat(`{"a":`, MaxMetadataDepth+1) + "1" + strings.Repeat("}", MaxMetadataDepth+1)
	cases := map[string]bool{
		`{}`:                        true,
		` {"a": [1, {"b": null}]} `: true,
		deep:                        true,
		tooDeep:                     false,
		`{"a": {"b": 1, "b": 2}}`:   false,
		`{"a": 1} {"b": 2}`:         false,
		`"text"`:                    false,
		`{"a": 1`:                   false,
		`{"big": "` + strings.Repeat("x", MaxMetadataLen) + `"}`: false,
	}
	for m, want := range cases {
		err := checkMetadata([]byte(m))
		if (err == nil) != want {
			t.Errorf("%.40s…: err %v, want ok=%v", m, err, want)
		}
	}
}

func TestRequirementsMatch(t *testing.T) {
	meta := []byte(`{"tz": true, "langs": ["en", "de"], "max": 100, "ver": "2.1", "obj": {"k": [1, 2]}, "nil": null}`)
	cases := map[string]bool{
		`{}`:                                true,
		`{"tz": true}`:                      true,
		`{"tz": false}`:                     false,
		`{"tz": "true"}`:                    false,
		`{"langs": "en"}`:                   true,
		`{"langs": ["de", "en"]}`:           true,
		`{"langs": ["en", "fr"]}`:           false,
		`{"langs": {"includes": "de"}}`:     true,
		`{"langs": {"eq": ["en", "de"]}}`:   true,
		`{"langs": {"eq": ["de", "en"]}}`:   false,
		`{"max": {"gte": 100, "lte": 100}}`: true,
		`{"max": {"gte": 100.5}}`:           false,
		`{"max": 1e2}`:                      true,
		`{"ver": {"gte": 2}}`:               false,
		`{"obj": {"k": [1, 2]}}`:            true,
		`{"obj": {"eq": {"k": [1, 2]}}}`:    true,
		`{"obj": {"k": [2, 1]}}`:            false,
		`{"nil": null}`:                     true,
		`{"absent": null}`:                  false,
		`{"max": {"includes": 100}}`:        true,
		`{"langs": {"includes": ["en"], "eq": ["en", "de"]}}`: true,
	}
	for req, want := range cases {
		r, err := ParseRequirements([]byte(req))
		if err != nil {
			t.Errorf("%s: %v", req, err)
			continue
		}
		if got := r.Match(meta); got != want {
			t.Errorf("%s: Match = %v, want %v", req, got, want)
		}
	}
	if r, _ := ParseRequirements([]byte(`{"tz": true}`)); r.Match(nil) {
		t.Errorf("requirements matched an entry without metadata")
	}
	for _, bad := range []string{`[]`, `{"a": {"gte": "x"}}`, `{"a": 1} x`, `{"": 1}`} {
		if _, err := ParseRequirements([]byte(bad)); err == nil {
			t.Errorf("ParseRequirements(%s) succeeded", bad)
		}
	}
}

func TestRequirementsBounded(t *testing.T) {
	list := func(n int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = "1"
		}
		return "[" + strings.Join(vs, ",") + "]"
	}
	ok := []string{
		`{"langs": ` + list(MaxRequirementValues) + `}`,
		`{"langs": {"includes": ` + list(MaxRequirementValues) + `}}`,
	}
	for _, req := range ok {
		if _, err := ParseRequirements([]byte(req)); err != nil {
			t.Errorf("%.40s…: %v", req, err)
		}
	}
	// Each list is matched against every candidate's metadata, at a cost
	// of its length times the metadata array's.
	bad := map[string]string{
		`{"langs": ` + list(MaxRequirementValues+1) + `}`:               "requirements.langs",
		`{"langs": {"includes": ` + list(MaxRequirementValues+1) + `}}`: "requirements.langs",
		`{"k": "` + strings.Repeat("x", MaxRequirementsLen) + `"}`:      "requirements",
		`{"langs": {"includes": ` + list(200000) + `}}`:                 "requirements",
	}
	for req, field := range bad {
		_, err := ParseRequirements([]byte(req))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%.40s…: got %v, want a fault of %s", req, err, field)
		}
	}
}

func TestRequirementsCanonical(t *testing.T) {
	a, _ := ParseRequirements([]byte(`{"b": {"gte": 1.0, "lte": 5}, "a": ["x"]}`))
	b, _ := ParseRequirements([]byte(` { "a" : [ "x" ] , "b" : { "lte" : 5.0, "gte" : 1 } } `))
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("equal requirements marshal differently:\n%s\n%s", ja, jb)
	}
	c, _ := ParseRequirements([]byte(`{"a": ["y"]}`))
	if jc, _ := json.Marshal(c); string(jc) == string(ja) {
		t.Errorf("different requirements marshal alike")
	}
}

func TestViewer(t *testing.T) {
	e := &Entry{Org: "acme", Visibility: Public}
	restricted := &Entry{Org: "acme", Visibility: Public, AllowedOrgs: []string{"globex"}}
	unlisted := &Entry{Org: "acme", Visibility: Unlisted}
	private := &Entry{Org: "acme", Visibility: Private}
	anon, peer, partner, self, loc := Viewer{}, Viewer{Org: "initech"}, Viewer{Org: "globex"}, Viewer{Org: "acme"}, Viewer{Local: true}
	cases := []struct {
		v            Viewer
		e            *Entry
		sees, listed bool
	}{
		{anon, e, true, true},
		{anon, restricted, false, false},
		{peer, restricted, false, false},
		{partner, restricted, true, true},
		{self, restricted, true, true},
		{anon, unlisted, true, false},
		{loc, unlisted, true, false},
		{peer, private, false, false},
		{self, private, false, false},
		{loc, private, true, true},
		{loc, restricted, true, true},
	}
	for _, c := range cases {
		if got := c.v.Sees(c.e); got != c.sees {
			t.Errorf("%+v Sees %+v = %v", c.v, c.e, got)
		}
		if got := c.v.Listed(c.e, false); got != c.listed {
			t.Errorf("%+v Listed %+v = %v", c.v, c.e, got)
		}
	}
	if !loc.Listed(unlisted, true) || anon.Listed(unlisted, true) {
		t.Errorf("includeHidden is for local viewers only")
	}
}

func TestQueryCapabilities(t *testing.T) {
	q := Query{Capability: "a.b", All: []string{"a.b", "c.d"}, Any: []string{"c.d", "e.f", "e.f"}}
	all, any := q.Capabilities()
	if strings.Join(all, ",") != "a.b,c.d" || strings.Join(any, ",") != "e.f" {
		t.Errorf("Capabilities = %v / %v", all, any)
	}
}

func TestParseSort(t *testing.T) {
	for in, want := range map[string]Sort{"": SortScore, "reputation": SortScore, "match_score": SortScore,
		"uptime": SortUptime, "recency": SortRecent, "recent": SortRecent} {
		if got, err := ParseSort(in); err != nil || got != want {
			t.Errorf("ParseSort(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSort("stars"); err == nil {
		t.Errorf("ParseSort(stars) succeeded")
	}
}

func TestEntryLive(t *testing.T) {
	now := time.Unix(1000, 0)
	e := Entry{ExpiresAt: now.Add(time.Second)}
	if !e.Live(now) || e.Live(now.Add(time.Second)) {
		t.Errorf("Live around ExpiresAt is wrong")
	}
	e.Removed = true
	if e.Live(now) {
		t.Errorf("a tombstone is live")
	}
}
