package pii

import (
	"fmt"
	"sort"
	"testing"
)

// checksumEntities maps presidio entities backed by a checksum to scanner types.
var checksumEntities = map[string]Type{
	"CREDIT_CARD": TypeCard, "IBAN_CODE": TypeIBAN, "ABA_ROUTING_NUMBER": TypeABARouting,
	"US_SSN": TypeSSN, "UK_NHS": TypeNHS,
}

// presidioTypes maps the other presidio entities the scanner covers.
var presidioTypes = map[string]Type{
	"EMAIL_ADDRESS": TypeEmail, "PHONE_NUMBER": TypePhone, "US_ITIN": TypeITIN, "UK_NINO": TypeNINO,
	"US_PASSPORT": TypePassport, "UK_PASSPORT": TypePassport, "US_BANK_NUMBER": TypeBankAccount,
	"US_DRIVER_LICENSE": TypeDriversLicense, "PL_PESEL": TypeNationalID, "ES_NIF": TypeNationalID,
	"ES_NIE": TypeNationalID, "FI_PERSONAL_IDENTITY_CODE": TypeNationalID, "IT_FISCAL_CODE": TypeNationalID,
	"SE_PERSONNUMMER": TypeNationalID, "DE_TAX_ID": TypeNationalID, "ADDRESS": TypeAddress,
	"UK_POSTCODE": TypeAddress, "PERSON": TypeName,
}

// checksumExceptions are the checksum-valid numbers a stricter rule of the scanner rejects.
var checksumExceptions = map[string]string{
	"1748503543012": "13 digits starting with 1: no card network issues that range (UATP cards have 15 digits)",
}

func scorePresidio(t *testing.T, doc *report) {
	// Checksum agreement is about validation, not context policy: every candidate of the entity's
	// type is reported, and readings of other types that share its digits (a phone number, an
	// SSN for a routing number) are switched off.
	only := map[Type]*Scanner{}
	for _, typ := range checksumEntities {
		var off []Type
		for o := Type(1); o <= numTypes; o++ {
			if o != typ && !(typ == TypeSSN && o == TypeITIN) {
				off = append(off, o)
			}
		}
		s, err := New(&Config{MinConfidence: 0.01, Disable: off})
		if err != nil {
			t.Fatal(err)
		}
		only[typ] = s
	}
	rows := readJSONL[presidioRow](t, "presidio_cases.jsonl")
	agree := map[string]*ratio{}
	var exceptions []string
	for _, r := range rows {
		typ, ok := checksumEntities[r.Entity]
		if !ok || r.IndependentCheck == nil {
			continue
		}
		want := false
		for _, v := range r.IndependentCheck {
			switch vv := v.(type) {
			case bool:
				want = vv
			case []any:
				want = len(vv) > 0
				for _, b := range vv {
					want = want && b == true
				}
			}
		}
		got := false
		for _, f := range only[typ].ScanText(r.Text) {
			if f.Type == typ || (typ == TypeSSN && f.Type == TypeITIN) {
				got = true
			}
		}
		a := agree[r.Entity]
		if a == nil {
			a = &ratio{}
			agree[r.Entity] = a
		}
		if why, ok := checksumExceptions[r.Text]; ok && want && !got {
			exceptions = append(exceptions, fmt.Sprintf("%s %q: %s", r.Entity, r.Text, why))
			continue
		}
		a.n++
		if got == want {
			a.hit++
		} else {
			t.Errorf("%s %q: scanner %v, independent check %v", r.Entity, r.Text, got, want)
		}
	}
	doc.f("## presidio recognizer cases: checksum-backed entities\n\n")
	doc.f("Every case with an `independent_check` (a plain recomputation of Luhn, mod 97, ABA, SSA rules, NHS\n")
	doc.f("mod 11) must agree with the scanner. Scored with MinConfidence 0.01 and only the entity's own type\n")
	doc.f("enabled, since these cases test the validation and carry no context.\n\n| entity | agreement |\n|---|---|\n")
	keys := make([]string, 0, len(agree))
	for k := range agree {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		doc.f("| %s | %v |\n", k, *agree[k])
	}
	doc.f("\nExcluded, with the rule that rejects them:\n\n")
	for _, e := range exceptions {
		doc.f("- %s\n", e)
	}

	// The other entities: reported, with the default threshold.
	def, _ := New(nil)
	type pr struct{ tp, fn, fp, tn int }
	res := map[string]*pr{}
	for _, r := range rows {
		typ, ok := presidioTypes[r.Entity]
		if !ok || r.Kind != "analyze" {
			continue
		}
		got := false
		for _, f := range def.ScanText(r.Text) {
			if f.Type == typ {
				got = true
			}
		}
		p := res[r.Entity]
		if p == nil {
			p = &pr{}
			res[r.Entity] = p
		}
		switch {
		case r.ExpectMatch && got:
			p.tp++
		case r.ExpectMatch:
			p.fn++
		case got:
			p.fp++
		default:
			p.tn++
		}
	}
	doc.f("\nOther presidio entities the scanner covers (default threshold, text without context as given):\n\n")
	doc.f("| entity | found / expected | reported / expected none |\n|---|---|---|\n")
	keys = keys[:0]
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := res[k]
		doc.f("| %s | %d/%d | %d/%d |\n", k, p.tp, p.tp+p.fn, p.fp, p.fp+p.tn)
	}
	doc.f("\n")
}
