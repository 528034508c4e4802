package pii

import "testing"

// TestCatalogueHealthTables: a Markdown table of conditions with no column about a person (an
// insurer's terms, a formulary) is no one's health data; with a column of names, or beside a
// name in the same message, it is.
func TestCatalogueHealthTables(t *testing.T) {
	sc := mustScanner(t)
	for _, text := range []string{
		"| Condition | Waiting period | Cover |\n|---|---|---|\n| Type 2 diabetes | 12 months | 80% |\n| Breast cancer | none | 100% |",
		"| Diagnosis | ICD-10 | Sessions |\n|---|---|---|\n| Major depressive disorder | F32 | 20 |",
	} {
		if fs := sc.ScanText(text); hasType(fs, TypeHealth) {
			t.Errorf("%q: read as health data: %v", text, fs)
		}
	}
	for _, text := range []string{
		"| Name | Condition |\n|---|---|\n| Ivana Horvat | type 2 diabetes |",
		"| Patient | Diagnosis |\n|---|---|\n| Pieter Botha | breast cancer |",
		"Claim for Ivana Horvat:\n\n| Condition | Cover |\n|---|---|\n| Type 2 diabetes | 80% |",
	} {
		if !hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: no health data", text)
		}
	}
}
