package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// A condition stated of a person in the middle of a sentence, the subject a pronoun, a relative
// or a role after a determiner, counts; the same phrases about people in general pass.
func TestHealthSubjectMidSentence(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(20, 27))
	subjects := []string{"she", "he", "my husband", "my daughter", "the customer", "our tenant", "my colleague",
		"his wife", "the passenger", "her son", "the caller", "our guest"}
	links := []string{"was", "was recently", "has been", "had just been", "got", "is being"}
	phrases := []string{"diagnosed with", "treated for"}
	conditions := []string{"lupus", "epilepsy", "type 1 diabetes", "multiple sclerosis", "breast cancer", "COPD",
		"bipolar disorder", "hepatitis C", "atrial fibrillation", "long COVID"}
	openers := []string{"Not sure it matters but", "Refund approved since", "The booking was cancelled because",
		"Please note that", "We moved the appointment as"}
	for i := range 40 {
		text := fmt.Sprintf("%s %s %s %s %s last spring.", openers[i%len(openers)], subjects[r.IntN(len(subjects))],
			links[r.IntN(len(links))], phrases[i%len(phrases)], conditions[r.IntN(len(conditions))])
		if !hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: health not found", text)
		}
	}
	general := []string{"About %d%% of adults are diagnosed with %s before 40.", "The study followed patients diagnosed with %s in %d.",
		"Fewer people were diagnosed with %s in %d than before.", "Clinics that treated for %s saw %d visits.",
		"New guidance on who is treated for %s, page %d."}
	for i := range 30 {
		c := conditions[r.IntN(len(conditions))]
		var text string
		if i%5 == 0 {
			text = fmt.Sprintf(general[0], 5+r.IntN(30), c)
		} else {
			text = fmt.Sprintf(general[i%5], c, 2010+r.IntN(15))
		}
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
}

// An HL7 v2 message with a patient identification segment is about that patient: its
// diagnosis segment is health data whatever the vocabulary's neighbours; the same diagnosis in
// a segment of no message about a patient, and a message with no PID segment, are not.
func TestHL7PatientDiagnosis(t *testing.T) {
	sc, _ := New(nil)
	for _, dx := range []string{"C50.911^Malignant neoplasm of right female breast", "F32.1^Moderate depressive episode",
		"F10.20^Alcohol dependence, uncomplicated", "E11.9^Type 2 diabetes mellitus without complications"} {
		msg := "MSH|^~\\&|LAB|CLINIC|EHR|HOSP|202611280930||ADT^A08|4711|P|2.5\rPID|1||123456^^^MRN||NOVAK^JANA||19810827|F\rDG1|1||" + dx + "^I10||20261128|F"
		if !hasType(sc.ScanText(msg), TypeHealth) {
			t.Errorf("%q: health not found", msg)
		}
		catalogue := "MSH|^~\\&|LAB|CLINIC|EHR|HOSP|202611280930||MFN^M02|4712|P|2.5\rMFE|MAD|||" + dx + "^I10"
		if hasType(sc.ScanText(catalogue), TypeHealth) {
			t.Errorf("%q: a catalogue read as health data", catalogue)
		}
	}
}

// The same in the languages whose participle follows a clitic or a pronoun ("me han
// diagnosticado", "mi hanno diagnosticato", "on m'a diagnostiqué", "ik ben gediagnosticeerd"),
// and a note kept about its one user ("[mem] user was diagnosed with…"); sentences about
// patients in general in those languages pass.
func TestHealthSubjectLanguages(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(28, 11))
	stated := []struct{ lead, conditions []string }{
		{[]string{"Diario: me han diagnosticado", "Ayer me diagnosticaron", "A mi hermano le han diagnosticado", "Mensaje: recién me han diagnosticado"},
			[]string{"esclerosis múltiple", "diabetes tipo 1", "epilepsia", "depresión"}},
		{[]string{"Fui diagnosticada com", "Eu fui diagnosticado com", "Ontem fui diagnosticado com"},
			[]string{"diabetes tipo 1", "epilepsia", "depressão", "esclerose múltipla"}},
		{[]string{"Diario: mi hanno diagnosticato", "Mi è stata diagnosticata", "Nota: mi hanno appena diagnosticato"},
			[]string{"sclerosi multipla", "epilessia", "diabete di tipo 1", "depressione"}},
		{[]string{"Journal : on m'a diagnostiqué", "J'ai été diagnostiquée avec", "Le mois dernier, on m'a diagnostiqué"},
			[]string{"une sclérose en plaques", "de l'épilepsie", "un diabète de type 1", "une dépression"}},
		{[]string{"Dagboek: ik ben gediagnosticeerd met", "Ik ben onlangs gediagnosticeerd met"},
			[]string{"epilepsie", "multiple sclerose", "diabetes type 1", "astma"}},
		{[]string{"[mem] user was diagnosed with", "- customer is allergic to", "user was recently diagnosed with"},
			[]string{"epilepsy", "penicillin", "type 1 diabetes", "depression"}},
	}
	for i := range 48 {
		st := stated[i%len(stated)]
		text := st.lead[r.IntN(len(st.lead))] + " " + st.conditions[r.IntN(len(st.conditions))] + "."
		if !hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: health not found", text)
		}
	}
	general := []string{"Muchos pacientes diagnosticados con %s en %d.", "Tra i pazienti a cui è stato diagnosticato %s nel %d.",
		"Parmi les patients diagnostiqués avec %s en %d.", "Het aantal mensen gediagnosticeerd met %s steeg in %d.",
		"Pessoas diagnosticadas com %s em %d.", "The user guide on %s, revised in %d."}
	conditions := []string{"epilepsia", "diabetes", "sclerosi multipla", "epilepsie", "asthma"}
	for i := range 30 {
		text := fmt.Sprintf(general[i%len(general)], conditions[r.IntN(len(conditions))], 2010+r.IntN(15))
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
}
