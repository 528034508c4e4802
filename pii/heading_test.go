package pii

import (
	"fmt"
	"testing"
)

// TestHeadingIsNoPerson: a line that opens with a capitalised word, one word in lower case and
// a colon is a heading ("Patient leaflet:", "Guía clínica:"): health terms under it are about no
// one. A label of one word ("Patient:") and a heading over text that speaks of someone ("I
// have") still count.
func TestHeadingIsNoPerson(t *testing.T) {
	sc, _ := New(nil)
	heads := []string{"Patient leaflet", "Patient information", "Guía clínica", "Patientin hinweise", "Paciente guía"}
	terms := []string{"epilepsy", "asthma", "hipertensión", "Diabetes Typ 1", "depresión"}
	for i, h := range heads {
		text := fmt.Sprintf("%s: %s is treated with medicines; see section %d.", h, terms[i], i+2)
		if fs := sc.ScanText(text); hasType(fs, TypeHealth) {
			t.Errorf("%q: health found", text)
		}
	}
	for _, text := range []string{"Patient: reports asthma since March.", "Weekly update: I have asthma, can we move the call?",
		"Patient reports epilepsy since March."} {
		if !hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: health not found", text)
		}
	}
}
