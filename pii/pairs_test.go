package pii

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// pairSpellings are the member names of name/value pairs as systems write them.
var pairSpellings = [][2]string{{"name", "value"}, {"Name", "Value"}, {"key", "value"}, {"Key", "Value"},
	{"header", "value"}, {"field", "value"}, {"variable", "val"}}

// pairContainer wraps pairs as a kind of document carries them.
func pairContainer(r *rand.Rand, pairs []any) any {
	switch r.IntN(4) {
	case 0: // a HAR capture
		return map[string]any{"log": map[string]any{"entries": []any{map[string]any{
			"request": map[string]any{"method": "GET", "url": "https://api.example.org/v1/items", "headers": pairs}}}}}
	case 1: // a Kubernetes container
		return map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "env": pairs}}}}
	case 2: // a form serialised as fields
		return map[string]any{"form": "application", "fields": pairs}
	default: // resource tags
		return map[string]any{"Resource": "bucket", "Tags": pairs}
	}
}

func pair(sp [2]string, name, value string) map[string]any {
	return map[string]any{sp[0]: name, sp[1]: value}
}

func randToken(r *rand.Rand, n int) string {
	const b62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = b62[r.IntN(len(b62))]
	}
	return string(b)
}

// scanAllWays scans payload by ScanJSON, ScanTree and ScanValue, fails when the first two
// differ, and returns ScanTree's findings, ScanValue's and the masked payload.
func scanAllWays(t *testing.T, sc *Scanner, payload any) (tree, value []Finding, masked string) {
	t.Helper()
	data, _ := json.Marshal(payload)
	raw, err := sc.ScanJSON("p", data)
	if err != nil {
		t.Fatal(err)
	}
	v, err := wire.Parse(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	tree = sc.ScanTree("p", v, nil)
	if fmt.Sprint(tree) != fmt.Sprint(raw) {
		t.Errorf("%s: ScanTree %v\nScanJSON %v", data, tree, raw)
	}
	var dec any
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.UseNumber()
	if err := d.Decode(&dec); err != nil {
		t.Fatal(err)
	}
	m, err := sc.MaskTree("p", v, nil).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return tree, sc.ScanValue("p", dec), string(m)
}

// TestPairSecretByName: a token whose pair names it a secret (a header, an environment
// variable, a tag) is found at the value's path by every walk, and masked, as it is under a
// member of that name; benign pairs beside it stay clean.
func TestPairSecretByName(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(5, 20))
	names := []string{"X-Api-Key", "X-Auth-Token", "Private-Token", "X-Access-Token", "api_key", "DB_PASSWORD",
		"STRIPE_SECRET", "client_secret", "AUTH_TOKEN", "apiKey"}
	for i := 0; i < 40; i++ {
		sp := pairSpellings[r.IntN(len(pairSpellings))]
		tok := randToken(r, 32+r.IntN(17))
		name := names[r.IntN(len(names))]
		pairs := []any{pair(sp, "Accept", "application/json"), pair(sp, name, tok), pair(sp, "LOG_LEVEL", "debug")}
		payload := pairContainer(r, pairs)
		tree, value, masked := scanAllWays(t, sc, payload)
		at := func(fs []Finding) bool {
			return slices.ContainsFunc(fs, func(f Finding) bool {
				return f.Type.Class() == ClassSecret && strings.HasSuffix(f.Path, "[1]."+sp[1])
			})
		}
		if !at(tree) || !at(value) {
			t.Errorf("%s=%s in %v: tree %v, value %v", name, tok, payload, tree, value)
		}
		if strings.Contains(masked, tok) {
			t.Errorf("MaskTree leaves %s: %s", tok, masked)
		}
		for _, f := range tree {
			if !strings.HasSuffix(f.Path, "[1]."+sp[1]) {
				t.Errorf("%v: a finding on a benign pair: %v", payload, f)
			}
		}
	}
}

// TestPairSplitValue: a value split over the pairs of an array ([{"name":"email_local",...},
// {"name":"email_domain",...}], a card over card_1..card_4) is read in the array's joined view
// as the members of one object are, and found on every piece by every walk; MaskTree hides
// every piece.
func TestPairSplitValue(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(6, 20))
	n := map[Type]int{}
	for _, val := range genValues(r, 60) {
		sp := pairSpellings[r.IntN(len(pairSpellings))]
		var pairs []any
		var pieces []string
		if val.typ == TypeEmail {
			local, domain, _ := strings.Cut(val.v, "@")
			names := [][2]string{{"email_local", "email_domain"}, {"user", "domain"}, {"mailbox", "mail_domain"}}[r.IntN(3)]
			pairs = []any{pair(sp, names[0], local), pair(sp, names[1], domain)}
			pieces = []string{local, domain}
		} else {
			for k := 0; k < len(val.v); k += 4 {
				pieces = append(pieces, val.v[k:min(k+4, len(val.v))])
				pairs = append(pairs, pair(sp, fmt.Sprintf("card_%d", k/4+1), val.v[k:min(k+4, len(val.v))]))
			}
		}
		payload := pairContainer(r, pairs)
		tree, value, masked := scanAllWays(t, sc, payload)
		paths := map[string]bool{}
		for _, f := range tree {
			if f.Type == val.typ && f.Via == Via(StageJoined) {
				paths[f.Path] = true
			}
		}
		if len(paths) != len(pieces) {
			t.Errorf("%v: %d joined paths, want %d: %v", payload, len(paths), len(pieces), tree)
		}
		if !slices.ContainsFunc(value, func(f Finding) bool { return f.Type == val.typ }) {
			t.Errorf("%v: ScanValue finds no %s: %v", payload, val.typ, value)
		}
		for _, p := range pieces {
			if strings.Contains(masked, `"`+p+`"`) {
				t.Errorf("MaskTree leaves the piece %q: %s", p, masked)
			}
		}
		n[val.typ]++
	}
	for _, typ := range []Type{TypeEmail, TypeCard} {
		if n[typ] < 20 {
			t.Errorf("%s: %d variants, want at least 20", typ, n[typ])
		}
	}
}

// TestPairNegatives: pairs that name nothing secret or hold no value (content types, levels,
// request ids, placeholders, references to a secret kept elsewhere) find nothing.
func TestPairNegatives(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(7, 20))
	benign := []func() (string, string){
		func() (string, string) { return "Accept", "application/json" },
		func() (string, string) { return "Content-Type", "text/html; charset=utf-8" },
		func() (string, string) { return "Environment", []string{"production", "staging", "dev"}[r.IntN(3)] },
		func() (string, string) { return "LOG_LEVEL", []string{"debug", "info", "warn"}[r.IntN(3)] },
		func() (string, string) { return "api_key", "${API_KEY}" },
		func() (string, string) { return "DB_PASSWORD", "<redacted>" },
		func() (string, string) { return "client_secret", "changeme" },
		func() (string, string) { return "X-Request-Id", fmt.Sprintf("req-%d", r.IntN(1e6)) },
		func() (string, string) { return "Cache-Control", fmt.Sprintf("max-age=%d", r.IntN(86400)) },
		func() (string, string) { return "replicas", fmt.Sprint(1 + r.IntN(9)) },
		func() (string, string) { return "order_number", fmt.Sprint(1e8 + r.IntN(9e8)) },
		func() (string, string) { return "CostCenter", fmt.Sprintf("CC-%d", r.IntN(1e4)) },
	}
	for i := 0; i < 40; i++ {
		sp := pairSpellings[r.IntN(len(pairSpellings))]
		var pairs []any
		for k := 0; k < 2+r.IntN(3); k++ {
			name, value := benign[r.IntN(len(benign))]()
			pairs = append(pairs, pair(sp, name, value))
		}
		payload := pairContainer(r, pairs)
		if tree, _, _ := scanAllWays(t, sc, payload); len(tree) > 0 {
			t.Errorf("%v: %v", payload, tree)
		}
	}
}
