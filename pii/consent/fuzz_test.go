package consent

import (
	"testing"
)

// FuzzParse: no panics; a token that parses has exactly one text (it re-issues to itself) and
// verifies against the key it names.
func FuzzParse(f *testing.F) {
	key := testKey(f, 1)
	good, _ := Issue(key, testClaims())
	f.Add(good)
	f.Add("consent-token:abc123")
	f.Add("consent-token:e30.AAAA")
	f.Add(Prefix + ".")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := Parse(s)
		if err != nil {
			return
		}
		if tok.Raw != s {
			t.Fatalf("Raw %q != input", tok.Raw)
		}
		if !tok.Issuer.Equal(key.Public()) {
			return // signed by some other key the fuzzer cannot forge; nothing more to check
		}
		again, err := Issue(key, tok.Claims)
		if err != nil || again != s {
			t.Fatalf("parsed token does not re-issue to itself: %v\n%s\n%s", err, again, s)
		}
	})
}
