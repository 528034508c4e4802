package pii

import (
	"testing"

	"github.com/nyaruka/phonenumbers"
)

// TestPhonePlanAgreesWithPhonenumbers: the digit-level validation gives the verdict of
// phonenumbers.IsValidNumber on numbers of several countries, valid and not.
func TestPhonePlanAgreesWithPhonenumbers(t *testing.T) {
	for _, n := range []string{"+442079460958", "+447700900123", "+14155552671", "+12015550123", "+4930123456",
		"+33142685300", "+41446681800", "+8613800138000", "+919876543210", "+61291234567", "+442079460", "+15555555555",
		"+4400000000000", "+3912345", "+819012345678", "+5511987654321", "+27211234567", "+80012345678"} {
		pn, err := phonenumbers.Parse(n, "ZZ")
		want := err == nil && phonenumbers.IsValidNumber(pn)
		got, _ := phoneIntl(n[1:])
		if got != want {
			t.Errorf("%s: valid=%v, phonenumbers says %v", n, got, want)
		}
	}
	for _, c := range []struct{ d, region string }{{"02079460958", "GB"}, {"4155552671", "US"}, {"030123456", "DE"},
		{"0142685300", "FR"}, {"0791234567", "CH"}, {"12345", "GB"}, {"0000000000", "US"}} {
		pn, err := phonenumbers.Parse(c.d, c.region)
		want := err == nil && phonenumbers.IsValidNumberForRegion(pn, c.region)
		if got := phoneNational(c.d, c.region); got != want {
			t.Errorf("%s in %s: valid=%v, phonenumbers says %v", c.d, c.region, got, want)
		}
	}
}

func BenchmarkPhoneIntl(b *testing.B) {
	phoneIntl("442079460958")
	b.ReportAllocs()
	for b.Loop() {
		phoneIntl("442079460958")
	}
}
