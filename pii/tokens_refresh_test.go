package pii

import (
	"fmt"
	"testing"
)

// TestRefreshTokenAnnounced: a random token after "refresh token" or "refresh_token" is a
// credential, as after "access token"; after "ref" as a word of its own ("ref: …", "see ref …") a
// hex digest is a reference, not a secret. The tokens are written for the test.
func TestRefreshTokenAnnounced(t *testing.T) {
	sc, _ := New(nil)
	tokens := []string{"mqbQLhQpzlYjWHJtBPNdcCFLOfAXOHwj", "e0e1d689cb776837ccb0abea5f2d219a50e7ee87", "Zr8KpW2mXq7LtY4nB9vCs3Hd6Jf1Ga5e"}
	for i, tok := range tokens {
		for _, f := range []string{"memory: refresh_token %s (expires in 30 days)", "the refresh token %s was rotated", "Refresh-Token: %s"} {
			text := fmt.Sprintf(f, tok)
			if !anySecret(sc.ScanText(text)) {
				t.Errorf("%d %q: no secret found", i, text)
			}
		}
	}
	for _, text := range []string{
		"token bump, ref: e0e1d689cb776837ccb0abea5f2d219a50e7ee87",
		"token rotation merged, see ref e0e1d689cb776837ccb0abea5f2d219a50e7ee87",
	} {
		if anySecret(sc.ScanText(text)) {
			t.Errorf("%q: a secret found", text)
		}
	}
}

func anySecret(fs []Finding) bool {
	for _, f := range fs {
		if f.Type.Class() == ClassSecret {
			return true
		}
	}
	return false
}
