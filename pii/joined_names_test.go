package pii

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestJoinedNamesSay: an object whose first member names a secret and whose others name other
// things is no secret in pieces ({"client_secret":"changeme","region":"eu-west-1"}): read
// together under the secret's name, the placeholder and its neighbours looked like one.
func TestJoinedNamesSay(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(61, 3))
	for k := 0; k < 30; k++ {
		obj := map[string]any{
			[]string{"client_secret", "api_key", "password", "auth_token"}[r.IntN(4)]: []string{"changeme", "<redacted>", "${SECRET}", "xxxx"}[r.IntN(4)],
			"region":  []string{"eu-west-1", "us-east-2", "ap-south-1"}[r.IntN(3)],
			"timeout": fmt.Sprintf("%ds", 5+r.IntN(55)),
			"Accept":  "application/json",
		}
		data, _ := json.Marshal(obj)
		fs, err := sc.ScanJSON("p", data)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) > 0 {
			t.Errorf("%s: %v", data, fs)
		}
	}
}
