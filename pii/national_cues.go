package pii

import (
	"strings"

	"github.com/moltgate/moltgate/wire"
)

// A context word that names one identifier ("CPF", "PESEL", "Aadhaar") says which check the
// number after it must pass: a number after "CPF" that fails the CPF check is a mistyped CPF,
// even if its digits happen to satisfy another country's check of the same length.

type namedID struct {
	cue  string // lower case; starts a word
	rule string
}

var namedIDs = append([]namedID{
	{"aadhaar", "in.aadhaar"}, {"aadhar", "in.aadhaar"}, {"uidai", "in.aadhaar"},
	{"my number", "jp.mynumber"}, {"mynumber", "jp.mynumber"}, {"individual number", "jp.mynumber"},
	{"マイナンバー", "jp.mynumber"}, {"個人番号", "jp.mynumber"},
	{"cpf", "br.cpf"}, {"cnpj", "br.cnpj"},
	{"sin ", "ca.sin"}, {"sin:", "ca.sin"}, {"sin#", "ca.sin"}, {"sin no", "ca.sin"}, {"social insurance", "ca.sin"},
	{"tfn", "au.tfn"}, {"tax file", "au.tfn"}, {"medicare", "au.medicare"},
	{"身份证", "cn.ric"}, {"公民身份", "cn.ric"}, {"resident id", "cn.ric"},
	{"pesel", "pl.pesel"}, {"bsn", "nl.bsn"}, {"burgerservicenummer", "nl.bsn"},
	{"steuer", "de.steuerid"}, {"identifikationsnummer", "de.steuerid"},
	{"nir", "fr.nir"}, {"insee", "fr.nir"}, {"sécurité sociale", "fr.nir"}, {"securite sociale", "fr.nir"},
	{"personnummer", "se.personnummer"}, {"fødselsnummer", "no.fodselsnummer"}, {"fodselsnummer", "no.fodselsnummer"},
	{"kennitala", "is.kennitala"}, {"amka", "gr.amka"}, {"egn", "bg.egn"}, {"cnp", "ro.cnp"},
	{"emšo", "si.emso"}, {"emso", "si.emso"}, {"oib", "hr.oib"}, {"asmens", "lt.asmens"},
	{"rodné", "cz.rc"}, {"rodne", "cz.rc"}, {"birth number", "cz.rc"},
	{"nie", "es.nie"}, {"dni", "es.dni"}, {"codice fiscale", "it.codicefiscale"}, {"fiscal code", "it.codicefiscale"},
	{"pan ", "in.pan"}, {"pan:", "in.pan"}, {"pan#", "in.pan"}, {"pan no", "in.pan"}, {"permanent account", "in.pan"},
	{"nino", "gb.nino"}, {"ni number", "gb.nino"}, {"national insurance", "gb.nino"},
	{"nas ", "ca.sin"}, {"nas:", "ca.sin"}, {"assurance sociale", "ca.sin"}, {"आधार", "in.aadhaar"},
	{"cadastro de pessoas", "br.cpf"}, {"kojin", "jp.mynumber"},
	{"citizen service", "nl.bsn"}, {"nhs", "gb.nhs"}, {"ssn", "us.ssn"}, {"social security", "us.ssn"},
	{"isikukood", "ee.ik"}, {"personas kods", "lv.pk"}, {"personas kod", "lv.pk"},
	{"teudat zehut", "il.idnr"}, {"teudat zeut", "il.idnr"}, {"תעודת זהות", "il.idnr"}, {"israeli id", "il.idnr"},
	{"sa id", "za.idnr"}, {"south african id", "za.idnr"}, {"rsa id", "za.idnr"},
	{"thai id", "th.pin"}, {"thai national id", "th.pin"}, {"บัตรประชาชน", "th.pin"}, {"เลขประจำตัวประชาชน", "th.pin"},
	{"ppsn", "ie.pps"}, {"pps no", "ie.pps"}, {"pps number", "ie.pps"}, {"pps:", "ie.pps"}, {"pps ", "ie.pps"},
	{"personal public service", "ie.pps"}, {"егн", "bg.egn"}, {"ЕГН", "bg.egn"},
}, append(append(moreNamedIDs, moreSchemeNames...), nzMUNames...)...) // national_tr.go, national_more.go, national_nz_mu.go

var namedIDFirst = func() (t [256]bool) {
	for _, c := range namedIDs {
		t[c.cue[0]] = true
		if isLower(c.cue[0]) {
			t[c.cue[0]-32] = true
		}
	}
	return t
}()

// namedIDAfter returns the rule of the identifier named first in the 48 bytes after p, or "".
func (x *scanCtx) namedIDAfter(p int) string {
	s := x.s
	e := min(len(s), p+48)
	for q := p; q < e; q++ {
		if s[q] == '\n' {
			break
		}
		if !namedIDFirst[s[q]] || q > 0 && isAlnum(s[q-1]) {
			continue
		}
		for _, c := range namedIDs {
			if hasFoldPrefix(s[q:], c.cue) {
				k := q + len(c.cue)
				if c.cue[len(c.cue)-1] != ' ' && k < len(s) && isAlnum(s[k]) && len(c.cue) <= 4 {
					continue
				}
				return c.rule
			}
		}
	}
	return ""
}

// namedIDBefore returns the rule of the identifier named closest before p, within 48 bytes
// and not across a line break, or "". Every name is also a national id cue, so without one
// (cue false) there is nothing to look for.
func (x *scanCtx) namedIDBefore(p int, cue bool) string {
	rule, _ := x.namedIDBeforeAt(p, cue)
	return rule
}

// namedIDBeforeAt is namedIDBefore that also returns where the name starts.
func (x *scanCtx) namedIDBeforeAt(p int, cue bool) (string, int) {
	if !cue {
		return "", -1
	}
	s := x.s
	a := max(0, p-48)
	for k := p - 1; k >= a; k-- {
		if s[k] == '\n' {
			a = k + 1
			break
		}
	}
	for q := p - 1; q >= a; q-- {
		if !namedIDFirst[s[q]] || q > 0 && isAlnum(s[q-1]) {
			continue
		}
		for _, c := range namedIDs {
			if hasFoldPrefix(s[q:p], c.cue) {
				e := q + len(c.cue)
				if c.cue[len(c.cue)-1] != ' ' && e < len(s) && isAlnum(s[e]) && len(c.cue) <= 4 {
					continue // "cnp" in "cnpj", "nir" in "nirvana"
				}
				return c.rule, q
			}
		}
	}
	return "", -1
}

// siblingScheme returns the rule of the identifier that a member of ms names as a document's
// type ({"document_type": "PESEL", "document_number": "…"}), or "": the number beside it must
// then pass that identifier's check, not any other of its length.
func siblingScheme(ms []wire.Member) string {
	for _, m := range ms {
		if v, ok := m.Value.Str(); ok {
			if rule := labelScheme(m.Key, v); rule != "" {
				return rule
			}
		}
	}
	return ""
}

// siblingSchemeMap is siblingScheme for an object decoded by encoding/json.
func siblingSchemeMap(t map[string]any, keys []string) string {
	for _, k := range keys {
		if s, ok := t[k].(string); ok {
			if rule := labelScheme(k, s); rule != "" {
				return rule
			}
		}
	}
	return ""
}

// labelScheme returns the rule of the identifier that the member k: v names, or "".
func labelScheme(k, v string) string {
	if len(v) < 2 || len(v) > 32 || !schemeLabelKey(k) {
		return ""
	}
	for _, c := range namedIDs {
		cue := strings.TrimRight(c.cue, " :#")
		if hasFoldPrefix(v, cue) && (len(v) == len(cue) || !isAlnum(v[len(cue)])) {
			return c.rule
		}
	}
	return ""
}

func hasSuffixFold(s, suf string) bool {
	return len(s) >= len(suf) && strings.EqualFold(s[len(s)-len(suf):], suf)
}

// schemeLabelKey reports a key whose value may name the kind of a document or a field beside it:
// document_type, id_kind, scheme, {"document": "PPSN", "number": …}, {"field": "BSN", "value": …}.
func schemeLabelKey(k string) bool {
	if len(k) >= 4 && (hasSuffixFold(k, "type") || hasSuffixFold(k, "kind") || hasSuffixFold(k, "scheme")) {
		return true
	}
	var b [64]byte
	switch string(normKey(b[:0], k)) {
	case "document", "doc", "field", "label", "idname", "documentname", "fieldname", "dokument", "documento", "typ", "tipo":
		return true
	}
	return false
}

// schemeValueKey reports a key that holds whatever value a sibling names ("number", "value",
// "id"): beside {"document": "PESEL"} it holds a PESEL. The same words after "id" or "document"
// do too: {"id_type": "CPF", "id_value": …}, {"document_type": "DNI", "document_number": …}.
func schemeValueKey(k string) bool {
	var b [64]byte
	n := string(normKey(b[:0], k))
	for _, p := range [...]string{"id", "doc", "document", "identity", "identification"} {
		if len(n) > len(p) && n[:len(p)] == p && n[len(p):] != "type" {
			if rest := n[len(p):]; rest == "value" || rest == "number" || rest == "no" || rest == "nr" || rest == "num" {
				return true
			}
		}
	}
	switch n {
	case "number", "value", "no", "nr", "num", "id", "code", "val", "numero", "nummer", "numer", "cislo", "numurs":
		return true
	}
	return false
}

// memberKey is the kind of a member's key, where a generic one ("number", "value") takes the
// kind of identifier that a sibling names.
func (x *scanCtx) memberKey(k string) keyKind {
	kind := x.keyOf(k)
	if kind == keyNone && x.siblingID != "" && schemeValueKey(k) {
		return keyNationalID
	}
	return kind
}
