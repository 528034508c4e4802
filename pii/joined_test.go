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

// splitForms are the ways a value is split over fields: each returns the payload and the
// pieces it holds the value in.
var splitForms = []struct {
	name string
	typ  Type
	make func(r *rand.Rand, v string) (any, []string)
}{
	{"array-at", TypeEmail, func(r *rand.Rand, v string) (any, []string) {
		l, d, _ := strings.Cut(v, "@")
		return map[string]any{"parts": []any{l, "@", d}}, []string{l, "@", d}
	}},
	{"array-at-domain", TypeEmail, func(r *rand.Rand, v string) (any, []string) {
		l, d, _ := strings.Cut(v, "@")
		return map[string]any{"contact": []any{l, "@" + d}, "note": "see"}, []string{l, "@" + d}
	}},
	{"user-domain", TypeEmail, func(r *rand.Rand, v string) (any, []string) {
		l, d, _ := strings.Cut(v, "@")
		k := [][2]string{{"user", "domain"}, {"username", "domain"}, {"local_part", "email_domain"}, {"mailbox", "mail_domain"}}[r.IntN(4)]
		return map[string]any{"account": map[string]any{k[0]: l, k[1]: d, "active": true}}, []string{l, d}
	}},
	{"members-at", TypeEmail, func(r *rand.Rand, v string) (any, []string) {
		// Members sorted by name (as a map marshals, and as a gateway reads them), which may put
		// the domain before the '@'.
		l, d, _ := strings.Cut(v, "@")
		k := [][3]string{{"mailbox", "at", "host"}, {"a", "b", "c"}, {"z", "m", "a"}, {"first", "sep", "rest"}}[r.IntN(4)]
		return map[string]any{"contact": map[string]any{k[0]: l, k[1]: "@", k[2]: d}}, []string{l, "@", d}
	}},
	{"card-groups", TypeCard, func(r *rand.Rand, v string) (any, []string) {
		var g []any
		var p []string
		for k := 0; k < len(v); k += 4 {
			g = append(g, v[k:min(k+4, len(v))])
			p = append(p, v[k:min(k+4, len(v))])
		}
		return map[string]any{"card": g}, p
	}},
	{"card-halves", TypeCard, func(r *rand.Rand, v string) (any, []string) {
		h := len(v) / 2
		return map[string]any{"payment": map[string]any{"pan_part1": v[:h], "pan_part2": v[h:]}}, []string{v[:h], v[h:]}
	}},
	{"card-numbers", TypeCard, func(r *rand.Rand, v string) (any, []string) {
		if v[4] == '0' || v[8] == '0' || v[12] == '0' {
			return nil, nil // a JSON number has no leading zero
		}
		var g []any
		var p []string
		for k := 0; k < len(v); k += 4 {
			n := json.Number(v[k:min(k+4, len(v))])
			g = append(g, n)
			p = append(p, string(n))
		}
		return map[string]any{"c": g}, p
	}},
}

// TestJoinedFields: a value split over array items or sibling members is found through the
// joined view, once per piece, at each piece's path, the same by ScanJSON, ScanTree and
// ScanValue; MaskTree hides every piece.
func TestJoinedFields(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(3, 20))
	for _, form := range splitForms {
		n := 0
		for _, val := range genValues(r, 60) {
			if val.typ != form.typ {
				continue
			}
			payload, pieces := form.make(r, val.v)
			if payload == nil {
				continue
			}
			n++
			data, _ := json.Marshal(payload)
			fs, err := sc.ScanJSON("p", data)
			if err != nil {
				t.Fatal(err)
			}
			paths := map[string]bool{}
			for _, f := range fs {
				if f.Type == form.typ && f.Via == Via(StageJoined) {
					paths[f.Path] = true
				}
			}
			if len(paths) != len(pieces) {
				t.Errorf("%s: %s: %d joined paths, want %d: %v", form.name, data, len(paths), len(pieces), fs)
			}
			v, err := wire.Parse(data, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tree := sc.ScanTree("p", v, nil); fmt.Sprint(tree) != fmt.Sprint(fs) {
				t.Errorf("%s: ScanTree %v\nScanJSON %v", form.name, tree, fs)
			}
			var dec any
			d := json.NewDecoder(strings.NewReader(string(data)))
			d.UseNumber()
			if err := d.Decode(&dec); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(sc.ScanValue("p", dec), func(f Finding) bool { return f.Via == Via(StageJoined) }) {
				t.Errorf("%s: ScanValue finds nothing joined in %s", form.name, data)
			}
			masked, err := sc.MaskTree("p", v, nil).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pieces {
				if len(p) > 1 && strings.Contains(string(masked), `"`+p+`"`) || strings.Contains(string(masked), ":"+p+",") {
					t.Errorf("%s: MaskTree leaves the piece %q: %s", form.name, p, masked)
				}
			}
		}
		if n < 20 {
			t.Errorf("%s: only %d variants", form.name, n)
		}
	}
}

// TestJoinedHardNegatives: lists and records of ordinary data read together find nothing.
func TestJoinedHardNegatives(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(9, 9))
	words := strings.Fields(benchProse)
	for i := 0; i < 40; i++ {
		var nums []any
		for k := 0; k < 8; k++ {
			nums = append(nums, r.IntN(100))
		}
		ws := []any{words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))]}
		payloads := []any{
			map[string]any{"scores": nums},
			map[string]any{"tags": ws},
			map[string]any{"version": map[string]any{"major": r.IntN(9), "minor": r.IntN(40), "patch": r.IntN(100)}},
			map[string]any{"repo": map[string]any{"default_branch": "main", "ssh_url": fmt.Sprintf("git@git.example.com:team%d/app.git", i)}},
			map[string]any{"date": []any{2020 + r.IntN(6), 1 + r.IntN(12), 1 + r.IntN(28)}, "time": []any{r.IntN(24), r.IntN(60), r.IntN(60)}},
			map[string]any{"host": fmt.Sprintf("db%d.internal", i), "user": "postgres", "port": 5432},
		}
		nothingJoined(t, sc, payloads)
	}
}

// nothingJoined fails t for every finding of a joined view in payloads.
func nothingJoined(t *testing.T, sc *Scanner, payloads []any) {
	t.Helper()
	for _, p := range payloads {
		data, _ := json.Marshal(p)
		fs, err := sc.ScanJSON("p", data)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Via == Via(StageJoined) {
				t.Errorf("%s: %s", data, f)
			}
		}
	}
}

// TestJoinedFractionsAreNoParts: numbers with a fraction or an exponent beside others, as in a
// pong's load and queue depth or a metrics record, are no pieces of a split identifier. Before,
// one pong in forty read as a card number through the digits of its load.
func TestJoinedFractionsAreNoParts(t *testing.T) {
	sc := mustNew(t, nil)
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 2000 {
		payloads := []string{
			fmt.Sprintf(`{"nonce":"n-%d","status":"alive","load":%v,"queue_depth":%d}`, i, r.Float64(), r.IntN(10)),
			fmt.Sprintf(`{"cpu":%v,"mem":%v,"disk":%v,"count":%d}`, r.Float64(), r.Float64()*100, r.Float64()*1e6, r.IntN(1000)),
			fmt.Sprintf(`[%v,%v,%d,%ve-3]`, r.Float64(), r.Float64(), r.IntN(100), r.IntN(9000)+1000),
		}
		for _, p := range payloads {
			fs, err := sc.ScanJSON("p", []byte(p))
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) > 0 {
				t.Fatalf("%s: %v", p, fs)
			}
			v, err := wire.Parse([]byte(p), 0)
			if err != nil {
				t.Fatal(err)
			}
			if tree := sc.ScanTree("p", v, nil); len(tree) > 0 {
				t.Fatalf("tree %s: %v", p, tree)
			}
		}
	}
	// Integers split over fields still join.
	fs, _ := sc.ScanJSON("p", []byte(`{"a":4111,"b":1111,"c":1111,"d":1111}`))
	if len(fs) == 0 {
		t.Fatal("a card number in four integer fields was not found")
	}
}

// TestJoinedTakesPartsWhole: a number read across fields takes each field whole. The tail of a
// UUID beside a chunk size, as in a stream's start, read as a Luhn-valid card one time in ten
// when its last group was all digits; the gate refused such streams now and then.
func TestJoinedTakesPartsWhole(t *testing.T) {
	sc := mustNew(t, nil)
	r := rand.New(rand.NewPCG(5, 13))
	for i := range 3000 {
		var u [16]byte
		for k := range u {
			u[k] = byte(r.IntN(256))
		}
		h := fmt.Sprintf("%x", u)
		// Half the UUIDs end in twelve decimal digits, the case that joins.
		if i%2 == 0 {
			h = h[:20] + fmt.Sprintf("%012d", r.Int64N(1e12))
		}
		id := h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
		payloads := []string{
			fmt.Sprintf(`{"stream_id":%q,"chunk_size":65536}`, id),
			fmt.Sprintf(`{"task":%q,"attempt":%d,"timeout_ms":%d}`, id, r.IntN(9)+1, 1000*(r.IntN(60)+1)),
			fmt.Sprintf(`[%q,%d]`, id, r.IntN(1000000)),
		}
		for _, p := range payloads {
			fs, err := sc.ScanJSON("p", []byte(p))
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) > 0 {
				t.Fatalf("%s: %v", p, fs)
			}
		}
	}
	for _, p := range []string{
		`{"a":"4111","b":"1111","c":"1111","d":"1111"}`,
		`["4111 1111"," 1111 1111"]`,
		`{"iban_1":"GB82 WEST","iban_2":"1234 5698 7654 32"}`,
	} {
		if fs, _ := sc.ScanJSON("p", []byte(p)); len(fs) == 0 {
			t.Errorf("%s: a number split over fields was not found", p)
		}
	}
}
