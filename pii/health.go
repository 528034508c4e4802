package pii

import "strings"

// Health information counts as personal data only when it is about someone identified in the
// same document (a name, e-mail, phone, id number...). "Patient is a 38-year-old male with a
// history of headaches" alone identifies nobody and passes. Terms: diagnoses and conditions,
// medications and treatments, ICD-10 codes after a diagnosis cue.

var healthTerms = []string{"diagnosed", "diagnosis", "diagnoses", "prescribed", "prescription",
	"medication", "suffers from", "suffering from", "treated for", "treatment for", "history of",
	"hiv", "aids", "cancer", "tumour", "tumor", "leukemia", "leukaemia", "diabetes", "diabetic",
	"depression", "schizophrenia", "bipolar", "asthma", "epilepsy", "dementia", "alzheimer",
	"parkinson", "hepatitis", "tuberculosis", "chemotherapy", "dialysis", "insulin", "metformin",
	"lisinopril", "sertraline", "fluoxetine", "prozac", "methadone", "oxycodone", "antidepressant",
	"antiretroviral", "pregnant", "pregnancy", "miscarriage", "abortion", "stroke", "heart attack",
	"hypertension", "adhd", "autism", "anorexia", "bulimia", "covid", "icd-10", "icd10", "blood type",
	"allergic to", "allergy", "mental health", "psychiatric", "therapy", "rehab", "overdose",
	"disorder", "syndrome", "disease", "infection", "surgery", "biopsy", "mri", "admitted to hospital"}

var healthByFirst = func() (t [256][]string) {
	for _, h := range healthTerms {
		t[h[0]] = append(t[h[0]], h)
	}
	return t
}()

// healthTerms scans x.s for health terms (case-insensitive, at word starts) and ICD-10 codes.
func (x *scanCtx) healthTerms() {
	s := x.s
	for i := 0; i < len(s); {
		if !isAlpha(s[i]) || (i > 0 && isAlnum(s[i-1])) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		for _, t := range healthByFirst[lower(s[i])] {
			if hasFoldPrefix(s[i:], t) {
				x.add(TypeHealth, i, i+len(t), 0.8, "health.term")
				break
			}
		}
		// ICD-10: letter, two digits, optional .digits, after a diagnosis or ICD cue.
		if j-i == 3 && isUpper(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) {
			e := j
			if e+1 < len(s) && s[e] == '.' && isAlnum(s[e+1]) {
				e += 2
				for e < len(s) && isAlnum(s[e]) && e-j < 5 {
					e++
				}
			}
			if hasCue(s, i-40, i, icdCues) {
				x.add(TypeHealth, i, e, 0.85, "health.icd10")
			}
		}
		i = j
	}
	_ = strings.Contains
}

var icdCues = newCues("icd", "diagnos", "code")
