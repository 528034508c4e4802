package pii

import (
	"fmt"
	"strings"
	"testing"
)

// The names here are written for the test, from no generator's list: given names and
// surnames that the lists lack, with the endings and diacritics of the languages they come
// from.
var (
	shapeGiven    = []string{"Satsita", "Vilhjálmur", "Bekbolat", "Wisława", "Tamriko", "Ásdís"}
	shapeSurnames = []string{"Umkhayev", "Georgsson", "Musliyevich", "Szczepańska", "Beridzeshvili", "Þórðardóttir",
		"Halonen", "Bergkvist"}
)

func names(t *testing.T, sc *Scanner, text string) []string {
	t.Helper()
	var out []string
	for _, f := range sc.ScanText(text) {
		if f.Type == TypeName {
			out = append(out, text[f.Start:f.End])
		}
	}
	return out
}

func TestNamesWithASurnamesEnding(t *testing.T) {
	sc, _ := New(nil)
	templates := []string{
		"Follow up with %s in a couple of months.",
		"The name on the ticket is wrong, please change it to %s.",
		"Producer %s explained the delay to the crew.",
		"%s's lawyer asked for the file.",
		"Have you been to a %s concert before?",
		"Notes: %s is allergic to latex.",
	}
	n := 0
	for i, tpl := range templates {
		for j, g := range shapeGiven {
			sur := shapeSurnames[(i+j)%len(shapeSurnames)]
			name := g + " " + sur
			n++
			text := fmt.Sprintf(tpl, name)
			if got := names(t, sc, text); len(got) == 0 {
				t.Errorf("%q: no name found", text)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}

func TestSurnameAlone(t *testing.T) {
	sc, _ := New(nil)
	templates := []string{
		"This track by ex-Zombie %s shows why order matters.",
		"Unlike the %s novel, it is short.",
		"%s began writing as a teenager.",
		"\"The numbers are fine,\" says %s.",
		"Passenger %s missed the connection.",
		"Ask %s about the invoice.",
	}
	n := 0
	for _, tpl := range templates {
		for _, sur := range shapeSurnames {
			n++
			text := fmt.Sprintf(tpl, sur)
			if got := names(t, sc, text); len(got) != 1 || got[0] != strings.TrimSuffix(sur, "'s") {
				t.Errorf("%q: names %q, want [%s]", text, got, sur)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}

func TestPeopleListedBesideAGroupOfPeople(t *testing.T) {
	sc, _ := New(nil)
	templates := []string{
		"Is this the best track on the list? %s and %s were precision engineers.",
		"The company is the work of our 3 founders: %s, %s and Kerr.",
		"%s and %s are nurses on the night shift.",
	}
	pairs := [][2]string{{"Dale", "White"}, {"Lamovec", "Morales"}, {"Sumarliðason", "Vargas"}, {"Muslija", "Brown"},
		{"Šušulić", "Bowman"}, {"Fenwick", "Orr"}, {"Quayle", "Bright"}}
	n := 0
	for _, tpl := range templates {
		for _, p := range pairs {
			n++
			text := fmt.Sprintf(tpl, p[0], p[1])
			if got := names(t, sc, text); len(got) < 2 {
				t.Errorf("%q: names %q, want both", text, got)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}

func TestNamesInLowerCaseProse(t *testing.T) {
	sc, _ := New(nil)
	templates := []string{
		"my name is %s and i need help with my order",
		"follow up with %s in a couple of months.",
		"%s's killers were sentenced to life in prison",
		"please ask %s to call me back tomorrow",
	}
	people := []string{"olga krylova", "monika žilková", "ingrid halonen", "tamara beridzeshvili", "marta georgsson",
		"pavel umkhayev"}
	n := 0
	for _, tpl := range templates {
		for _, p := range people {
			n++
			text := fmt.Sprintf(tpl, p)
			fs := sc.ScanText(text)
			found := false
			for _, f := range fs {
				if f.Type == TypeName {
					found = true
					if f.Via.String() != "case" {
						t.Errorf("%q: via %q, want case", text, f.Via)
					}
				}
			}
			if !found {
				t.Errorf("%q: no name found", text)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	// After "my name is", the words are the name whether a list knows them or not.
	for _, p := range []string{"przemek kucharski", "tamriko beridzeshvili", "warrane dzhambek"} {
		text := "hi, my name is " + p + " and i have a question"
		if got := names(t, sc, text); len(got) != 1 || got[0] != p {
			t.Errorf("%q: names %q, want [%s]", text, got, p)
		}
	}
}

// TestNoNameWithoutACue holds the new rules to their cues: towns, common words with a surname's
// ending, lower-case prose without names, and words that are given names as well as words.
func TestNoNameWithoutACue(t *testing.T) {
	sc, _ := New(nil)
	texts := []string{
		"Flights to Rostov are delayed by two hours.",
		"Ship via the Madison depot, then on to Jefferson.",
		"Season tickets go on sale on Monday.",
		"Person of the year: see the cover story.",
		"Nation who address news better just.",
		"Unlike the Python book, it covers packaging.",
		"please restart the billing worker and check the logs again",
		"the frank answer is that the build is slow",
		"we will grace the launch with a short demo",
		"Sales and Marketing share the third floor.",
		"my name is not important here, just fix the bug",
		"the name is on the list of approved vendors",
		"Market share: Acme Corp 31%, Globex Inc 24%, others 45%.",
		"Release Notes\n\nVersion Two\nBug Fixes",
		"The Helsinki office closes early on Fridays.",
		"Improv classes start in the Lindqvist Hall next week.",
	}
	for _, text := range texts {
		if got := names(t, sc, text); len(got) != 0 {
			t.Errorf("%q: names %q, want none", text, got)
		}
	}
	for _, w := range []string{"Season", "Person", "Reason", "Son", "Ova", "Dev", "Kiev", "Python"} {
		if surnameShaped(w) {
			t.Errorf("surnameShaped(%q) = true", w)
		}
	}
}

// TestFirmsNamedForPeople: a list of names followed by a figure, a firm's word or a verb in the
// singular is one firm's name; followed by a plural verb it is people.
func TestFirmsNamedForPeople(t *testing.T) {
	sc, _ := New(nil)
	lists := []string{"Thomas, Anthony and Derek", "Olivia, Lucas and Emma", "Sophie, Jonas and Lena",
		"Hannah, Derek and Lucas", "Emma, Jonas and Anthony"}
	firms := []string{"Market share: %s 31%%, others 69%%.", "%s is a design agency based in Espoo.",
		"%s was listed as the vendor on the order.", "%s LLC raised prices by 4%% this quarter.",
		"Compare the offers from %s GmbH before Friday."}
	n := 0
	for _, l := range lists {
		for _, tpl := range firms {
			n++
			text := fmt.Sprintf(tpl, l)
			if got := names(t, sc, text); len(got) != 0 {
				t.Errorf("%q: names %q, want none", text, got)
			}
		}
		text := l + " are joining the call at noon."
		if got := names(t, sc, text); len(got) < 3 {
			t.Errorf("%q: names %q, want the three", text, got)
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}
