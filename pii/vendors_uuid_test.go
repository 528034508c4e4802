package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randUUID returns a version-4 UUID drawn from r.
func randUUID(r *rand.Rand) string {
	h := randTok(r, hexLower, 32)
	return fmt.Sprintf("%s-%s-4%s-%c%s-%s", h[:8], h[8:12], h[13:16], "89ab"[r.IntN(4)], h[17:20], h[20:])
}

// TestUUIDBodiedTokens: tokens that are a vendor's prefix and a UUID, and Honeycomb's ingest keys,
// are found in the places agents keep them; the UUID alone, Langfuse's public key and
// placeholders pass.
func TestUUIDBodiedTokens(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(8, 8))
	places := []string{"%s", "LANGFUSE_SECRET_KEY=%s\n", `{"env": {"TOKEN": "%s"}}`, "curl -H 'Authorization: Bearer %s' https://api.example.com",
		"X-Honeycomb-Team: %s", "api_key = \"%s\""}
	makers := []func() string{
		func() string { return "sk-lf-" + randUUID(r) },
		func() string { return "pat-na1-" + randUUID(r) },
		func() string { return "pat-eu1-" + randUUID(r) },
		func() string { return "xaat-" + randUUID(r) },
		func() string { return "xapt-" + randUUID(r) },
		func() string { return "hcaik_01" + randTok(r, "abcdefghijklmnopqrstuvwxyz0123456789", 56) },
	}
	for i := range 48 {
		tok := makers[i%len(makers)]()
		text := fmt.Sprintf(places[i/len(makers)%len(places)], tok)
		if !hasType(sc.ScanText(text), TypeAPIToken) {
			t.Errorf("%q not found", text)
		}
	}
	for _, text := range []string{
		"record " + randUUID(r) + " updated",
		"LANGFUSE_PUBLIC_KEY is pk-lf-" + randUUID(r),
		"sk-lf-00000000-0000-0000-0000-000000000000", "sk-lf-12345678-1234-1234-1234-123456789abc",
		"HUBSPOT_ACCESS_TOKEN=pat-na1-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
		"the pat-down at the gate took " + fmt.Sprint(r.IntN(40)) + " minutes",
	} {
		if fs := sc.ScanText(text); hasType(fs, TypeAPIToken) {
			t.Errorf("%q reported: %v", text, fs)
		}
	}
}
