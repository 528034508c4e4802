package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"
)

// Mobile numbers of many regions (libphonenumber's example numbers) written with " - " between
// groups, a country code spelt digit by digit, the subscriber number in one run after "00",
// dotted groups no IPv4 address has, and straight after Chinese characters, are phone numbers;
// ranges, scores and IPv4 addresses written the same ways are not.
func TestPhoneIntlWritings(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(20, 30))
	regions := []string{"BE", "IE", "GR", "IL", "AE", "ZA", "SG", "HK", "TH", "PH", "MY", "CL", "CO", "NG", "KE", "EE",
		"LV", "BG", "SK", "RO", "VN", "SE"}
	for i, region := range regions {
		ex := phonenumbers.GetExampleNumberForType(region, phonenumbers.MOBILE)
		if ex == nil {
			t.Fatalf("%s: no example number", region)
		}
		cc := fmt.Sprint(ex.GetCountryCode())
		nsn := phonenumbers.GetNationalSignificantNumber(ex)
		var groups []string
		for k := 0; k < len(nsn); k += 3 {
			groups = append(groups, nsn[k:min(len(nsn), k+3)])
		}
		if len(groups[len(groups)-1]) == 1 {
			last := groups[len(groups)-2] + groups[len(groups)-1]
			groups = append(groups[:len(groups)-2], last)
		}
		spaced := strings.Join(strings.Split(cc, ""), " ")
		forms := []string{
			"+" + cc + " - " + strings.Join(groups, " - "),
			"+ " + spaced + " " + strings.Join(groups, " "),
			"00" + cc + " " + nsn,
			"联系电话" + "+" + cc + " " + strings.Join(groups, " "),
		}
		lead := []string{"my new number is ", "Callback requested: ", "use ", "Rückruf unter "}
		for k, f := range forms {
			text := lead[(i+k)%len(lead)] + f + " thanks"
			if strings.HasPrefix(f, "联系") {
				text = f + "，谢谢"
			}
			if !hasType(sc.ScanText(text), TypePhone) {
				t.Errorf("%s: %q: phone not found", region, text)
			}
		}
	}
	// Dotted national numbers: Swedish mobiles as Swedes write them, with a phone cue.
	for range 20 {
		text := fmt.Sprintf("ring mig på 07%d.%03d.%02d.%02d", []int{0, 2, 3, 6}[r.IntN(4)], r.IntN(1000), r.IntN(100), r.IntN(100))
		if !hasType(sc.ScanText(text), TypePhone) {
			t.Errorf("%q: phone not found", text)
		}
	}
	for range 24 {
		for _, text := range []string{
			fmt.Sprintf("server at 10.%d.%d.%d is up", r.IntN(256), r.IntN(256), 1+r.IntN(254)),
			fmt.Sprintf("pages %d - %d of the report", 1+r.IntN(50), 51+r.IntN(50)),
			fmt.Sprintf("the score was %d - %d after extra time", r.IntN(9), r.IntN(9)),
			fmt.Sprintf("years %d - %d", 1990+r.IntN(20), 2010+r.IntN(15)),
		} {
			if fs := sc.ScanText(text); len(fs) > 0 {
				t.Errorf("%q: %v", text, fs)
			}
		}
	}
}

// A country code and then the whole national number in one run is a phone number wherever the
// number is valid in the country's plan ("+49 15194322326", "+386 41234567"), while a run of
// digits padded with "00", as order, batch and shipment numbers are, is not one unless the plan
// says it is valid: a possible length alone is not enough.
func TestPhoneCountryCodeLongRun(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(70, 80))
	regions := []string{"DE", "SI", "LT", "UA", "MD", "AM", "AZ", "UZ", "MN", "SN", "CM", "CI", "TN", "DZ", "BO", "PY", "PA", "GT", "IT", "AT"}
	lead := []string{"phone=", "Rückruf unter ", "reach me on ", "<Mobile>"}
	for i, region := range regions {
		ex := phonenumbers.GetExampleNumberForType(region, phonenumbers.MOBILE)
		if ex == nil {
			t.Fatalf("%s: no example number", region)
		}
		text := fmt.Sprintf("%s+%d %s", lead[i%len(lead)], ex.GetCountryCode(), phonenumbers.GetNationalSignificantNumber(ex))
		if !hasType(sc.ScanText(text), TypePhone) {
			t.Errorf("%s: %q: phone not found", region, text)
		}
	}
	for range 48 {
		for _, text := range []string{
			fmt.Sprintf("Order 00%08d shipped", r.IntN(1e8)),
			fmt.Sprintf("<Order><Number>00%08d</Number></Order>", r.IntN(1e8)),
			fmt.Sprintf("batch 001%07d closed", r.IntN(1e7)),
		} {
			if hasType(sc.ScanText(text), TypePhone) {
				t.Errorf("%q: read as a phone number", text)
			}
		}
	}
}
