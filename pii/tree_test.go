package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

const treePayload = `{"input":{"email":"bob@example.com","items":[{"text":"ok"},{"text":"call +44 20 7946 0958"}],
	"first_name":"Robert","dob":"1990-04-01","password":"hunter2!Xq","key":"ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
	"ssn":"078-05-1120","bob@example.com":"x","diagnosis":"asthma","n":42}}`

func TestScanTreeMatchesScanJSON(t *testing.T) {
	s := mustNew(t, nil)
	v, err := wire.Parse([]byte(treePayload), 0)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.ScanJSON("p", []byte(treePayload))
	if err != nil {
		t.Fatal(err)
	}
	tree := s.ScanTree("p", v, nil)
	if fmt.Sprint(raw) != fmt.Sprint(tree) {
		t.Errorf("ScanTree and ScanJSON differ:\n%v\n%v", tree, raw)
	}
	for _, f := range tree {
		if f.Path == "" || strings.Contains(f.Path, "bob@") {
			t.Errorf("bad path %q", f.Path)
		}
	}
}

func TestScanTreeSkip(t *testing.T) {
	s := mustNew(t, nil)
	v, _ := wire.Parse([]byte(`{"from":{"agent":"a"},"note":"mail ann@example.org","p":{"x":"ann@example.org"}}`), 0)
	fs := s.ScanTree("", v, func(k string) bool { return k == "note" })
	if len(fs) != 1 || fs[0].Path != "p.x" {
		t.Fatalf("got %v", fs)
	}
}

func TestScanTreeCleanAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	s := mustNew(t, nil)
	v, _ := wire.Parse([]byte(`{"tool":"summarise","input":{"text":"`+benchProse[:600]+`","max_words":200,"tags":["a","b"]}}`), 0)
	if n := testing.AllocsPerRun(20, func() { s.ScanTree("p", v, nil) }); n != 0 {
		t.Errorf("%v allocations on a clean tree", n)
	}
}

func TestMaskTree(t *testing.T) {
	s := mustNew(t, nil)
	v, _ := wire.Parse([]byte(treePayload), 0)
	out := s.MaskTree("p", v, []string{"first_name", "p.input.dob"}).String()
	for _, leak := range []string{"bob@example.com", "7946", "Robert", "1990-04-01", "hunter2", "078-05-1120", "asthma"} {
		if strings.Contains(out, leak) {
			t.Errorf("masked tree leaks %q: %s", leak, out)
		}
	}
	for _, want := range []string{`"email":"[email]"`, `"first_name":"[masked]"`, `"dob":"[masked]"`, `"password":"[secret]"`, `"call [phone]"`, `"n":42`, `"key":"ed25519:11qY`} {
		if !strings.Contains(out, want) {
			t.Errorf("masked tree lacks %s: %s", want, out)
		}
	}
	if v.String() == out {
		t.Error("input modified or nothing masked")
	}
	if got := s.MaskString("write to ann@example.org, token ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi"); got != "write to [email], token [secret]" {
		t.Errorf("MaskString: %q", got)
	}
}

// A bare "name" key holds a person's name or a thing's: every directory record names its agent
// there. Two capitalised words that say what an agent does are not a person.
func TestNameKeyAgentNames(t *testing.T) {
	s := mustNew(t, nil)
	for _, tc := range []struct {
		name   string
		person bool
	}{
		{"Jane Doe", true},
		{"Robert J. Baker", true},
		{"Calendar Assistant", false},
		{"Travel Planner", false},
		{"Weather Forecaster", false},
		{"Support Desk", false},
		{"Acme Copilot", false},
	} {
		v, err := wire.Parse([]byte(`{"name":"`+tc.name+`"}`), 0)
		if err != nil {
			t.Fatal(err)
		}
		fs := s.ScanTree("", v, nil)
		if got := len(fs) > 0; got != tc.person {
			t.Errorf("%q under name: found %v, want a person %v", tc.name, fs, tc.person)
		}
	}
}

// TestLongNumbers checks that a number long enough to be a card number is scanned as the
// string of its digits would be, under any key or none: a program that sends a card number
// as a JSON number sends it all the same. Shorter numbers, and numbers that are no card,
// pass.
func TestLongNumbers(t *testing.T) {
	s := mustNew(t, nil)
	for _, c := range []struct{ json, want string }{
		{`{"n":4111111111111111}`, "card"},
		{`{"items":[1,2,{"v":5500005555555559}]}`, "card"},
		{`[-4111111111111111]`, "card"},
		{`{"ts":1767225600000,"id":123456789012,"amount":1250.75}`, ""},
		{`{"n":4111111111111112,"count":42}`, ""},
	} {
		v, err := wire.Parse([]byte(c.json), 0)
		if err != nil {
			t.Fatal(err)
		}
		tree := s.ScanTree("p", v, nil)
		if got := types(tree); got != c.want {
			t.Errorf("%s: got %q, want %q", c.json, got, c.want)
		}
		raw, err := s.ScanJSON("p", []byte(c.json))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(raw) != fmt.Sprint(tree) {
			t.Errorf("%s: ScanTree %v, ScanJSON %v", c.json, tree, raw)
		}
		if out := s.MaskTree("p", v, nil).String(); c.want != "" && strings.Contains(out, "5555") || strings.Contains(out, "4111111111111111") {
			t.Errorf("%s: masked as %s", c.json, out)
		}
	}
}
