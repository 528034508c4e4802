package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCaselessScriptNames: a name in Hebrew, Arabic, Persian, Devanagari or Thai after an
// honorific of its script, after a word in Latin letters that takes a person, or under a
// sign-off is a person's; a role after an honorific, a sentence of the script, a label before
// its number, a team's signature and Thai "คุณ" ("you") in Thai prose are not.
func TestCaselessScriptNames(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(65, 66))
	titled := []string{"מר אביה כהן", "גב' רונית לוי", "السيدة جواهر آل معيض", "السيد فهد العتيبي", "خانم مریم رستمی",
		"آقای دکتر علی رضایی", "श्रीमती सीता शर्मा", "श्री रमेश अधिकारी", "นายสมชาย ใจดี", "นางสาวกันยา ศรีสุข"}
	plain := []string{"नरभूपाल महर्जन", "ประสงค์ นาควงษ์", "אביה כהן", "جواهر القحطاني", "مریم رستمی"}
	for k := 0; k < 40; k++ {
		s := fmt.Sprintf([]string{
			"Meeting notes: %s agreed to send the revised quote.",
			"Action item for %s: confirm the venue.",
			"%s will join the call from the branch office.",
		}[r.IntN(3)], titled[r.IntN(len(titled))])
		if fs := sc.ScanText(s); !hasType(fs, TypeName) {
			t.Errorf("%q: no name", s)
		}
		s = fmt.Sprintf([]string{"Rx for %s: take one daily.", "Dispense to %s — 30 tablets.", "Ask %s, she knows.",
			"See the attached quote.\n\nThanks,\n%s"}[r.IntN(4)], plain[r.IntN(len(plain))])
		if fs := sc.ScanText(s); !hasType(fs, TypeName) {
			t.Errorf("%q: no name", s)
		}
		neg := []string{
			"السيد الرئيس التنفيذي سيحضر الاجتماع.",
			"Translate to English: مرحبا بكم في المتحف الوطني",
			"The shipment goes to دبي today.",
			"คุณสามารถใช้ได้ ตลอดเวลา",
			"Verified caller with תעודת זהות 116219826 yesterday.",
			"Thanks,\nفريق الدعم الفني",
			"Kind regards,\nצוות התמיכה",
			"The temple of श्री गणेश opens at six.",
			"นายกรัฐมนตรี แถลงข่าว วันนี้",
		}[r.IntN(9)]
		if fs := sc.ScanText(neg); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", neg, fs)
		}
	}
}
