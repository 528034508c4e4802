package pii

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/nyaruka/phonenumbers"
)

// TestDigitDFAAgreesWithRegexp: for every pattern of every region's numbering plan, the
// automaton accepts exactly the digit strings that package regexp matches whole: on each
// type's example number, on the example with each digit changed, cut and lengthened, and on
// random digit strings of every possible length.
func TestDigitDFAAgreesWithRegexp(t *testing.T) {
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(20, 26))
	patterns, checked, accepted := 0, 0, 0
	for _, m := range coll.GetMetadata() {
		for _, desc := range []*phonenumbers.PhoneNumberDesc{m.GetGeneralDesc(), m.GetFixedLine(), m.GetMobile(),
			m.GetTollFree(), m.GetPremiumRate(), m.GetSharedCost(), m.GetVoip(), m.GetPersonalNumber(),
			m.GetPager(), m.GetUan(), m.GetVoicemail()} {
			p := desc.GetNationalNumberPattern()
			if p == "" || p == "NA" {
				continue
			}
			re := regexp.MustCompile("^(?:" + p + ")$")
			dfa, ok := newDigitDFA(p)
			if !ok {
				t.Errorf("%s: pattern %q was not compiled to an automaton", m.GetId(), p)
				continue
			}
			patterns++
			var inputs []string
			if ex := desc.GetExampleNumber(); ex != "" {
				inputs = append(inputs, ex, ex[:len(ex)-1], ex+"0", ex+"9")
				for i := range len(ex) {
					b := []byte(ex)
					b[i] = byte('0' + (int(b[i]-'0')+1+rng.IntN(9))%10)
					inputs = append(inputs, string(b))
				}
			}
			for l := 1; l <= 17; l++ {
				for range 40 {
					b := make([]byte, l)
					for i := range b {
						b[i] = byte('0' + rng.IntN(10))
					}
					inputs = append(inputs, string(b))
				}
			}
			for _, in := range inputs {
				want := re.MatchString(in)
				got, ok := dfa.match(in)
				if !ok || got != want {
					t.Fatalf("%s: pattern %q on %q: automaton %v (ok %v), regexp %v", m.GetId(), p, in, got, ok, want)
				}
				checked++
				if want {
					accepted++
				}
			}
		}
	}
	t.Logf("%d patterns, %d inputs, %d accepted", patterns, checked, accepted)
	if patterns < 1000 || accepted < 1000 {
		t.Fatalf("only %d patterns and %d accepted inputs checked", patterns, accepted)
	}
	if _, ok := newDigitDFA(`\b\d{6}`); ok {
		t.Error(`an assertion (\b) was compiled to an automaton`)
	}
	if m, ok := mustDFA(t, `\d{3}`).match("12a"); m || ok {
		t.Error("a letter was read as a digit")
	}
}

func mustDFA(t *testing.T, expr string) *digitDFA {
	t.Helper()
	d, ok := newDigitDFA(expr)
	if !ok {
		t.Fatalf("%q: not compiled", expr)
	}
	return d
}
