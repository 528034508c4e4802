package pii

import (
	"fmt"
	"testing"
)

// TestTimeZoneIsNoPassword: a time zone's name in a note of a user's preferences is no password;
// a password of the same shape with a digit in it still is.
func TestTimeZoneIsNoPassword(t *testing.T) {
	sc, _ := New(nil)
	for _, tz := range []string{"Europe/Budapest", "America/New_York", "Asia/Ho_Chi_Minh", "America/Argentina/Salta", "Pacific/Auckland"} {
		for _, f := range []string{"memory: user prefers metric units; timezone %s; answers in Hungarian", "user prefers tz %s"} {
			text := fmt.Sprintf(f, tz)
			if fs := sc.ScanText(text); len(fs) > 0 {
				t.Errorf("%q: %v", text, fs)
			}
		}
	}
	if fs := sc.ScanText("the user's password is Europe/Budap3st!"); !hasType(fs, TypePassword) {
		t.Errorf("a password shaped as a time zone, with a digit and a symbol, not found: %v", fs)
	}
}
