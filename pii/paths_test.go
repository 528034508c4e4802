package pii

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// TestPathsNeverShowFlaggedKeys: a member named after what the scanner flags (an address, a
// card number, a token, or one of them encoded) is shown in every path as {n}, its position:
// in the findings of ScanJSON, ScanTree and ScanValue, in those of the document-level health
// pass, in Finding.String, and in the keys MaskTree writes.
func TestPathsNeverShowFlaggedKeys(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(7, 7))
	n := 0
	for _, val := range genValues(r, 24) {
		for _, key := range []string{
			val.v,
			base64.StdEncoding.EncodeToString([]byte(val.v)),
			url.QueryEscape("to " + val.v),
			"ghp_" + randAlnum(r, 36),
		} {
			n++
			payload := map[string]any{"records": map[string]any{
				key: map[string]any{"note": "Patient John Carter, diagnosed with type 2 diabetes", "email": "ann.lee@example.org"},
			}}
			data, _ := json.Marshal(payload)
			raw, err := sc.ScanJSON("p", data)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := wire.Parse(data, 0)
			var dec any
			_ = json.Unmarshal(data, &dec)
			all := append(append(raw, sc.ScanTree("p", v, nil)...), sc.ScanValue("p", dec)...)
			if len(raw) == 0 {
				t.Fatalf("nothing found in %s", data)
			}
			flagged := false
			for _, f := range all {
				if strings.Contains(f.Path, key) || strings.Contains(f.String(), key) {
					t.Errorf("path shows the member name %q: %s", key, f)
				}
				if f.InKey {
					flagged = true
				}
			}
			if !flagged {
				t.Errorf("the member name %q is not flagged: %v", key, raw)
			}
			masked, _ := sc.MaskTree("p", v, nil).MarshalJSON()
			if strings.Contains(string(masked), key) {
				t.Errorf("MaskTree keeps the member name %q: %s", key, masked)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d variants", n)
	}
}

func randAlnum(r *rand.Rand, n int) string {
	const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = abc[r.IntN(len(abc))]
	}
	return string(b)
}
