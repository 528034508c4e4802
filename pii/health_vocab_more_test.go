package pii

import "testing"

// TestHealthMoreLanguages: a named person's condition in Russian, Slovak, Croatian, Afrikaans,
// Basque, Galician and Spanish referrals is health data; the same conditions in guidance about
// no one pass.
func TestHealthMoreLanguages(t *testing.T) {
	sc := mustScanner(t)
	for _, text := range []string{
		"Referencia: Maria Lopez, 51 años, con diagnóstico de trastorno depresivo mayor.",
		"Odporúčanie: Zuzana Kováč (43 r.) — diagnóza: cukrovka 2. typu.",
		"Uputnica: Ivana Knežević, dijagnoza depresija, upućuje se specijalistu.",
		"Verwysing: Pieter Botha is gediagnoseer met borskanker.",
		"Deribazioa: Ane Etxeberria, diagnostikoa: bularreko minbizia.",
		"Derivación: Uxía Otero, de 40 anos, diagnosticada de cancro de mama.",
		"Пациентка Anna Smirnova: сахарный диабет 2 типа, направлена к эндокринологу.",
	} {
		if !hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: no health data", text)
		}
	}
	for _, text := range []string{
		"Kampaň: prevencia proti rakovine prsníka pre ženy nad 50 rokov.",
		"Smjernica: probir za rak dojke preporučuje se ženama od 50 do 69 godina.",
		"Рекомендация: контроль HbA1c при сахарном диабете каждые 3 месяца.",
		"Riglyn: borskanker-sifting word vir vroue ouer as 50 aanbeveel.",
	} {
		if fs := sc.ScanText(text); hasType(fs, TypeHealth) {
			t.Errorf("%q: read as health data: %v", text, fs)
		}
	}
}
