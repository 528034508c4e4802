package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDemoConsent(t *testing.T) {
	var out bytes.Buffer
	if err := demoConsent(context.Background(), &out, t.TempDir(), time.UnixMilli(1_767_222_000_000)); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	t.Log("\n" + s)
	for _, want := range []string{
		"blocked: E_CONSENT personal data needs cls pii with a consent in pii_meta (suggestion: request_consent [email])",
		"found email at p.params.attendee, bytes 14-34",
		"allowed: [email]",
		"blocked: E_CONSENT consent has been revoked",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("demo lacks %q", want)
		}
	}
	if strings.Contains(s, "jane.doe@example.com") {
		t.Error("demo prints the e-mail address")
	}
	if !regexp.MustCompile(`consent-token:[A-Za-z0-9_-]{34}…`).MatchString(s) {
		t.Error("demo does not show the token's start")
	}
}
