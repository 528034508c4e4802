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

// textFamilies are sentences that hold one value of a type, each built from generated parts.
var textFamilies = []struct {
	typ  Type
	make func(r *rand.Rand) string
}{
	{TypeName, func(r *rand.Rand) string {
		given := []string{"Maria", "Jonas", "Aisha", "Kenji", "Lucía", "Olga", "Tomasz", "Chiara", "Pieter", "Amara"}
		family := []string{"Kowalski", "Fernández", "Nakamura", "Okafor", "Lindqvist", "Rossi", "Novak", "Haddad", "Jansen", "Petrova"}
		cue := []string{"Please forward the contract to %s before Friday.", "Passenger %s asked to change seats.",
			"The ticket was opened by %s yesterday.", "Remind %s about the meeting on Monday."}[r.IntN(4)]
		return fmt.Sprintf(cue, given[r.IntN(len(given))]+" "+family[r.IntN(len(family))])
	}},
	{TypeEmail, func(r *rand.Rand) string {
		user := []string{"m.rossi", "jonas.berg", "aisha_k", "kenji.n", "olga.p"}[r.IntN(5)]
		host := []string{"example.com", "mail.example.org", "corp.example.net"}[r.IntN(3)]
		return fmt.Sprintf("Reply to %s%d@%s once the refund is approved.", user, r.IntN(100), host)
	}},
	{TypeCard, func(r *rand.Rand) string {
		d := []byte("4")
		for len(d) < 15 {
			d = append(d, byte('0'+r.IntN(10)))
		}
		d = append(d, cardCheckDigit(d))
		return fmt.Sprintf("Charge the card on file (%s) for the renewal.", d)
	}},
	{TypeDOB, func(r *rand.Rand) string {
		return fmt.Sprintf("The applicant was born on %d-%02d-%02d in Porto.", 1940+r.IntN(60), 1+r.IntN(12), 1+r.IntN(28))
	}},
	{TypeHealth, func(r *rand.Rand) string {
		cond := []string{"chronic kidney disease", "type 2 diabetes", "multiple sclerosis", "epilepsy", "rheumatoid arthritis"}
		return fmt.Sprintf("I have %s and need the meeting moved to the afternoon.", cond[r.IntN(len(cond))])
	}},
}

// cutText cuts s in 2 to 4 pieces at random byte positions between runes.
func cutText(r *rand.Rand, s string) []string {
	var at []int
	for i := 1; i < len(s); i++ {
		if s[i]&0xc0 != 0x80 {
			at = append(at, i)
		}
	}
	k := 1 + r.IntN(3)
	var cuts []int
	for _, i := range r.Perm(len(at))[:k] {
		cuts = append(cuts, at[i])
	}
	slices.Sort(cuts)
	var out []string
	last := 0
	for _, c := range cuts {
		out = append(out, s[last:c])
		last = c
	}
	return append(out, s[last:])
}

// holdPieces puts pieces in a payload the way a writer hides a text in pieces: members named as
// a series, or the items of an array, beside a member of other data.
func holdPieces(r *rand.Rand, pieces []string) map[string]any {
	other := map[string]any{"status": "open", "priority": r.IntN(5)}
	switch r.IntN(4) {
	case 0:
		other["text"] = toAny(pieces)
	default:
		name := []func(i int) string{
			func(i int) string { return fmt.Sprintf("part%d", i+1) },
			func(i int) string {
				if i == 0 {
					return "text"
				}
				return fmt.Sprintf("text_%d", i+1)
			},
			func(i int) string { return "note_" + string(rune('a'+i)) },
		}[r.IntN(3)]
		for i, p := range pieces {
			other[name(i)] = p
		}
	}
	return other
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// TestJoinedText: a sentence that holds a name, an address, a card number, a date of birth or a
// health condition, cut in pieces at any byte between characters and held by members named as
// a series or by the items of an array, is found as it is whole: on every piece it takes, with
// Via joined, the same by ScanJSON, ScanTree and ScanValue.
func TestJoinedText(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(17, 4))
	for _, fam := range textFamilies {
		n := 0
		for i := 0; i < 60; i++ {
			s := fam.make(r)
			whole, _ := json.Marshal(map[string]any{"text": s})
			fs, err := sc.ScanJSON("p", whole)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(fs, func(f Finding) bool { return f.Type == fam.typ }) {
				continue // the gate does not find this one whole either: no test of the view
			}
			pieces := cutText(r, s)
			data, _ := json.Marshal(holdPieces(r, pieces))
			fs, err = sc.ScanJSON("p", data)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(fs, func(f Finding) bool { return f.Type == fam.typ }) {
				t.Errorf("%s: %s: not found: %v", fam.typ, data, fs)
				continue
			}
			n++
			v, err := wire.Parse(data, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tree := sc.ScanTree("p", v, nil); fmt.Sprint(tree) != fmt.Sprint(fs) {
				t.Errorf("%s: ScanTree %v\nScanJSON %v", data, tree, fs)
			}
			var dec any
			d := json.NewDecoder(strings.NewReader(string(data)))
			d.UseNumber()
			if err := d.Decode(&dec); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(sc.ScanValue("p", dec), func(f Finding) bool { return f.Type == fam.typ }) {
				t.Errorf("%s: ScanValue does not find %s", data, fam.typ)
			}
		}
		if n < 20 {
			t.Errorf("%s: only %d variants", fam.typ, n)
		}
	}
}

// TestJoinedTextNegatives: members that are not one text are not read as one, and a text in
// pieces that holds nothing personal finds nothing.
func TestJoinedTextNegatives(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(23, 5))
	words := strings.Fields(benchProse)
	sentence := func() string {
		k := 6 + r.IntN(10)
		w := make([]string, k)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ") + "."
	}
	for i := 0; i < 60; i++ {
		payloads := []any{
			// A name beside a task: "Neves" + "review" is no sentence cut after "Neves".
			map[string]any{"assignee": "team " + words[r.IntN(len(words))], "task": "review " + words[r.IntN(len(words))]},
			// Lists of words and numbers.
			map[string]any{"tags": toAny([]string{words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))]})},
			map[string]any{"sizes": toAny([]string{fmt.Sprint(r.IntN(900) + 100), fmt.Sprint(r.IntN(900) + 100), fmt.Sprint(r.IntN(9000) + 1000)})},
			// Ordinary prose in pieces.
			holdPieces(r, cutText(r, sentence())),
		}
		nothingJoined(t, sc, payloads)
	}
}

func TestSeriesNames(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"text", "text_2", true}, {"text_2", "text_3", true}, {"part1", "part2", true}, {"note_a", "note_b", true},
		{"line-1", "line-2", true}, {"contact_person", "contact_person_2", true}, {"birth_date_a", "birth_date_b", true},
		{"text", "task", false}, {"data", "datb", false}, {"text_a", "text_2", false}, {"name", "task_2", false},
		{"part1", "part1", false}, {"id", "ip", false},
	} {
		if got := sameSeries(c.a, c.b); got != c.want {
			t.Errorf("sameSeries(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
