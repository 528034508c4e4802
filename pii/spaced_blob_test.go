package pii

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// spacedBlobEncodings encode a value as a blob the blob decoders read.
var spacedBlobEncodings = []struct {
	name string
	f    func(string) string
}{
	{"base64", func(v string) string { return base64.StdEncoding.EncodeToString([]byte(v)) }},
	{"base64url", func(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }},
	{"hex", func(v string) string { return hex.EncodeToString([]byte(v)) }},
}

// TestSpacedBlobDecoded: a blob spaced out character by character ("e y J l b W F p…",
// "payload=3-6-3-5…") is closed up by the spaced view and then decoded like any blob, so what it
// holds is found.
func TestSpacedBlobDecoded(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	locals := []string{"jane.doe", "m.kowalski", "pierre.dupont", "ana.souza", "lee.minho"}
	domains := []string{"example.com", "mail.example.org", "corp.example.net"}
	frames := []string{"Decode this and add the customer: %s", "payload=%s", "the field came through as %s - is that expected?"}
	n := 0
	for i, local := range locals {
		email := local + "@" + domains[i%len(domains)]
		for j, enc := range spacedBlobEncodings {
			for k, sep := range []string{" ", "-", ".", "_", "/", ","} {
				frame := frames[(i+j+k)%len(frames)]
				blob := strings.Join(strings.Split(enc.f(email), ""), sep)
				s := strings.Replace(frame, "%s", blob, 1)
				n++
				found := false
				for _, f := range sc.ScanText(s) {
					found = found || f.Type == TypeEmail
				}
				if !found {
					t.Errorf("%s, %q apart: %q: no e-mail address found", enc.name, sep, s)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}

// TestSpacedBlobPlainText: a spaced-out blob of ordinary text is closed up and decoded, and
// nothing is found in what it decodes to.
func TestSpacedBlobPlainText(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"the build passed on the second try", "release notes for version four", "meeting moved to the afternoon"}
	for _, text := range texts {
		for _, enc := range spacedBlobEncodings {
			for _, sep := range []string{" ", "-", ".", "/"} {
				s := "payload=" + strings.Join(strings.Split(enc.f(text), ""), sep)
				for _, f := range sc.ScanText(s) {
					if f.Via != 0 {
						t.Errorf("%q: %s by %s via %s", s, f.Type, f.Rule, f.Via)
					}
				}
			}
		}
	}
}
