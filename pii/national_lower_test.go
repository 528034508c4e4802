package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// TestLowerCaseIDs: a DNI, NIE or NINO typed in lower case after a word that names it is found;
// the same with a broken check letter, or a lower-case word of digits with no such word, is not.
func TestLowerCaseIDs(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 30; k++ {
		i := r.IntN(3)
		v := strings.ReplaceAll(strings.ToLower([]func(*rand.Rand) string{genDNI, genNIE, genNINO}[i](r)), " ", "")
		s := fmt.Sprintf([]string{"my %s is %s if u need it", "ok here %s: %s", "%s %s dont share pls"}[r.IntN(3)],
			[]string{"dni", "nie", "ni number"}[i], v)
		if fs := sc.ScanText(s); !hasType(fs, TypeNationalID) && !hasType(fs, TypeNINO) {
			t.Errorf("%q: nothing found", s)
		}
		bad := v[:len(v)-1] + string("abcdefghjkmnpqrstvwxyz"[(strings.IndexByte("abcdefghjkmnpqrstvwxyz", v[len(v)-1])+1+r.IntN(5))%22])
		if i == 2 {
			bad = "q" + v[1:] // a prefix no NINO is issued with
		}
		for _, neg := range []string{fmt.Sprintf("the %s is %s", []string{"dni", "nie", "ni number"}[i], bad), "build " + v + " failed"} {
			if fs := sc.ScanText(neg); hasType(fs, TypeNationalID) || hasType(fs, TypeNINO) {
				t.Errorf("%q: %v", neg, fs)
			}
		}
	}
}

// TestSiblingDocumentType: a number under a document-number key is held to the check of the
// identifier its sibling names as the document's type.
func TestSiblingDocumentType(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(13, 14))
	for k := 0; k < 30; k++ {
		v := genPESEL(r)
		doc := func(num string) bool {
			p, err := wire.Parse([]byte(fmt.Sprintf(`{"document_type":"PESEL","document_number":%q}`, num)), 0)
			if err != nil {
				t.Fatal(err)
			}
			return len(sc.ScanTree("", p, nil)) > 0
		}
		if !doc(v) {
			t.Errorf("PESEL %s under document_number: nothing found", v)
		}
		bad := v[:10] + string(rune('0'+(int(v[10]-'0')+1+r.IntN(8))%10))
		if doc(bad) {
			t.Errorf("PESEL %s with a broken check digit under document_number: found", bad)
		}
	}
}
