package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/internal/benchcpu"
)

// The given names and surnames here are written for the test, from no generator's list.
func TestNamesFromGazetteer(t *testing.T) {
	sc, _ := New(nil)
	given := []string{"Ingrid", "Mateo", "Sophie", "Lukas", "Chiara", "Benoît", "Agnieszka", "Hamza", "Yusuf", "Élodie"}
	surnames := []string{"Larsen", "Okonkwo", "Vasquez-Ortega", "Brandstätter", "de Vries", "Nakamura"}
	templates := []string{"Ask %s whether the expense was approved.", "Please forward the contract to %s; she signs for the buyer.",
		"%s called again about the refund.", "Background check requested for candidate %s."}
	n := 0
	for i, g := range given {
		for j, s := range surnames {
			if (i+j)%2 != 0 {
				continue
			}
			text := fmt.Sprintf(templates[(i+j)%len(templates)], g+" "+s)
			n++
			if !hasType(sc.ScanText(text), TypeName) {
				t.Errorf("%q: name not found", text)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	// Names the list lacks: after a role word or an honorific, with a middle initial; a given
	// name that is also a word, before a listed surname; a possessive.
	rare := []string{"Przemysława Wójcikówna", "Gwenaëlle Quéré", "Ottavio Scarpellini"}
	for i, text := range []string{"Passenger %s asked to change seats.", "Thanks, %s", "Sra. %s called.", "Patient %s missed the visit.",
		"Herr %s ist heute nicht da.", "Please CC %s on the thread."} {
		text = fmt.Sprintf(text, rare[i%len(rare)])
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
	for _, text := range []string{"They had four: Ingrid, Mateo, Sophie and Lukas.", "Invite Chiara, Hamza, Yusuf, and Élodie.",
		"Have you met Ottavio G. Scarpellini?", "Is Gwenaëlle Q Quéré coming?",
		"Chad Phillips wants the keys back.", "Heather Gillespie signed it.", "Ingrid Larsen's review is due."} {
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
}

func TestPlacesAndCompaniesAreNotNames(t *testing.T) {
	sc, _ := New(nil)
	for _, text := range []string{
		"Market share: Didier Schmitt S.A.R.L. 31%, others 45%.",
		"Compare the offers from Evans Ltd and Costa Rocha S.A. before Friday.",
		"The boulevard William Guyot branch closes early on public holidays.",
		"The conference moves from Otwock to Radom next year.",
		"Weather in East Sheilahaven tomorrow: light rain.",
		"Release Notes: Monday March update",
		"Call GetUserName before CloseHandle.",
		"Sophie Street is closed for repairs.",
		"Adler GbR is listed as the vendor.",
		"Lima Viana e Filhos is listed as the vendor.",
		"Market share: Sophie Berger AS 31%.",
		"Take Vitamin D supplements daily.",
		"Grace Period ends on Friday.",
		"The Chicago Tribune and the Denver Broncos signed a deal.",
		"Flights from Sydney Airport via Berlin Brandenburg are delayed.",
		"We ship to Paris, London, Berlin and Madrid.",
		"Supported: Python, Ruby, Go and Rust.",
		"Open Monday, Tuesday, Friday and Sunday.",
	} {
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: read as a name: %v", text, sc.ScanText(text))
		}
	}
}

// benchPeople is prose about people: names with and without cues, places and companies that look
// like names, and health words, the text the gazetteer and the health vocabulary run on.
const benchPeople = `Ask Ingrid Larsen whether the contract for Didier Schmitt S.A.R.L. was signed. The Berlin office
moved to the boulevard William Guyot branch last March, and Passenger Przemysław Wójcik asked to change
seats. She was diagnosed with type 2 diabetes and takes metformin; the cancer research grant is separate.
Thanks, Chiara Rossi. Meeting notes: Mateo Fernández agreed to take the on-call rota next week. `

func BenchmarkScanTextPeople1KiB(b *testing.B) {
	sc, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(benchPeople, 1024/len(benchPeople)+1)[:1024]
	sc.ScanText(text) // load the name lists outside the timing
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		sc.ScanText(text)
	}
}
