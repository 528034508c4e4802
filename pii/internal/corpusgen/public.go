package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func readRows[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// presidioTypes maps presidio-research's structured entities to the corpus's type names.
var presidioTypes = map[string]string{"EMAIL_ADDRESS": "email", "PHONE_NUMBER": "phone", "CREDIT_CARD": "card",
	"IBAN_CODE": "iban", "US_SSN": "ssn", "US_DRIVER_LICENSE": "drivers_license", "STREET_ADDRESS": "address"}

// namesOnly are entities that name no person: a row with only these must pass.
var namesOnly = map[string]bool{"GPE": true, "ORGANIZATION": true, "DOMAIN_NAME": true, "TITLE": true, "NRP": true}

// genPublic reuses the labelled public cases in pii/testdata (see its README for the licences):
// presidio-research's synthetic sentences, gitleaks' rule cases and python-stdnum's valid
// identifiers. Rows whose label depends on a policy the corpus does not take (ages, dates that
// are not dates of birth, bare postal codes) are left out.
func genPublic(g *gen, dir string) error {
	type synth struct {
		Text        string   `json:"text"`
		Entities    []string `json:"entities"`
		PIIEntities []string `json:"pii_entities"`
	}
	rows, err := readRows[synth](filepath.Join(dir, "presidio_research_synth.jsonl"))
	if err != nil {
		return err
	}
	g.src = "presidio-research"
	for _, r := range rows {
		var types []string
		for _, e := range r.PIIEntities {
			if t, ok := presidioTypes[e]; ok && !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
		switch {
		case len(types) > 0:
			if slices.Contains(r.PIIEntities, "PERSON") {
				types = append(types, "name")
			}
			g.text("struct_pii", true, types, r.Text)
		case len(r.PIIEntities) > 0 && !slices.ContainsFunc(r.PIIEntities, func(e string) bool { return e != "PERSON" }):
			g.text("names_context", true, []string{"name"}, r.Text)
		case len(r.Entities) == 0:
			g.text("benign_prose", false, nil, r.Text)
		case len(r.PIIEntities) == 0 && !slices.ContainsFunc(r.Entities, func(e string) bool { return !namesOnly[e] }):
			g.text("benign_names", false, nil, r.Text)
		}
	}

	type leak struct {
		Text        string `json:"text"`
		RuleID      string `json:"rule_id"`
		ExpectMatch bool   `json:"expect_match"`
	}
	leaks, err := readRows[leak](filepath.Join(dir, "gitleaks_cases.jsonl"))
	if err != nil {
		return err
	}
	g.src = "gitleaks"
	for _, r := range leaks {
		// The negative cases are negative for one rule only (a wrong-length key, a value next to
		// an e-mail address), not data that may pass a gate: they are left out.
		if r.ExpectMatch {
			g.text("vendor_secret", true, []string{"api_token"}, r.Text)
		}
	}

	type stdnum struct {
		Text        string `json:"text"`
		Module      string `json:"stdnum_module"`
		ExpectValid bool   `json:"expect_valid"`
	}
	ids, err := readRows[stdnum](filepath.Join(dir, "stdnum_cases.jsonl"))
	if err != nil {
		return err
	}
	g.src = "python-stdnum"
	for i, r := range ids {
		if !r.ExpectValid || r.Module == "iban" {
			continue
		}
		if i%3 == 0 {
			g.json("national_id", true, []string{"national_id"}, map[string]any{"person": map[string]any{"national_id": r.Text}})
			continue
		}
		lbl := strings.ToUpper(strings.SplitN(r.Module, ".", 2)[0]) + " personal identification number"
		g.text("national_id", true, []string{"national_id"}, fill(pick(g, idTexts), "{L}", lbl, "{V}", r.Text))
	}
	return nil
}
