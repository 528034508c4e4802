package pii

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func mustNew(t testing.TB, cfg *Config) *Scanner {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func types(fs []Finding) string {
	var b []string
	for _, f := range fs {
		b = append(b, f.Type.String())
	}
	return strings.Join(b, ",")
}

func TestScanTextCases(t *testing.T) {
	s := mustNew(t, nil)
	cases := []struct{ text, want string }{
		{"write to jane.roe@example.co.uk today", "email"},
		{"call me on +1 415-555-2671", "phone"},
		{"card 4111 1111 1111 1111", "card"},
		{"SSN: 078-05-1123", "ssn"},
		{"routing number 121000358", "aba_routing"},
		{"NHS number 401 023 2137", "nhs"},
		{"NI number AB123456C", "nino"},
		{"IBAN DE89 3704 0044 0532 0130 00", "iban"},
		{"PESEL 44051401359", "national_id"},
		{"codice fiscale RSSMRA45C12F205C", "national_id"},
		{"ship to 221 Baker Street, London", "address"},
		{"Friedhofstrasse 33, 8048 Zürich", "address"},
		{"Dear Alice Smith, thanks", "name"},
		{"born on 3 March 1990", "dob"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----", "private_key"},
		{"private seed ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", "private_key"},
		{"peer key ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", ""},
		{"export GITHUB_TOKEN=ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi", "api_token"},
		{"db_password = 'Xk9#mP2$vL7q'", "password"},
		{"jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"},
		// Tokens glued to a name or a path by a separator.
		{"capability deploy.AKIAZ3MSJV4WWNKWW5V2", "cloud_token"},
		{"tag prod-AKIAZ3MSJV4WWNKWW5V2", "cloud_token"},
		{"ci.ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi", "api_token"},
		{"secret@ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi", "api_token"},
		// Inside a longer word a prefix is not a token's start.
		{"XAKIAZ3MSJV4WWNKWW5V2", ""},
		// Must pass: dates, versions, IPs, plain counts, digit runs.
		{"released v1.2.3 on 2024-01-05 at 10:30, build 20240105, 12,000 rps", ""},
		{"server 10.0.0.12 answered 404 in 1.25 s", ""},
		{"order 1234567890 shipped in 3 boxes", ""},
		{"Patient is a 38-year-old male with a history of headaches", ""},
	}
	for _, c := range cases {
		if got := types(s.ScanText(c.text)); got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}

func TestHealthNeedsIdentity(t *testing.T) {
	s := mustNew(t, nil)
	got := Summarize(s.ScanText("Patient: John Carter was diagnosed with diabetes."))
	if fmt.Sprint(got.Types) != "[health name]" {
		t.Errorf("got %v", got.Types)
	}
	if got := s.ScanText("The cohort was diagnosed with diabetes."); len(got) != 0 {
		t.Errorf("health without identity: %v", got)
	}
}

// TestHealthTermsAsWords checks that health terms count only written as
// words: base64 in keys and signatures is full of them in mixed case.
func TestHealthTermsAsWords(t *testing.T) {
	s := mustNew(t, nil)
	cases := []struct{ text, want string }{
		{"Ticket for jane@example.com, sig ed25519:Qk1s/hIvR2x0c3Vt+DiSeAsEbG8gd29ybGQ=", "email"},
		{"jane@example.com keeps a hive and asked Mrinal", "email"},
		{"jane@example.com: HIV positive", "email,health"},
		{"jane@example.com: hiv-positive, two MRIs", "email,health,health"},
		{"jane@example.com had a Heart Attack", "email,health"},
		{"jane@example.com: ADHD", "email,health"},
		{"jane@example.com: tHeRaPy", "email"},
	}
	for _, c := range cases {
		if got := types(s.ScanText(c.text)); got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}

func TestJSONPathsAndKeys(t *testing.T) {
	s := mustNew(t, nil)
	payload := `{"input":{"email":"bob@example.com","items":[{"text":"ok"},{"text":"call +44 20 7946 0958"}],
		"first_name":"Robert","dob":"1990-04-01","password":"hunter2!Xq","key":"ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
		"seed":"ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=","bob@example.com":"x","diagnosis":"asthma"}}`
	raw, err := s.ScanJSON("p", []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	d := json.NewDecoder(strings.NewReader(payload))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	dec := s.ScanValue("p", v)
	for _, fs := range [][]Finding{raw, dec} {
		paths := map[string]string{}
		for _, f := range fs {
			paths[f.Path+"/"+f.Type.String()] = f.Rule
			if strings.Contains(f.Path, "bob@") || strings.Contains(f.String(), "bob@") {
				t.Errorf("path or String leaks a value: %v", f)
			}
		}
		for _, want := range []string{"p.input.email/email", "p.input.items[1].text/phone", "p.input.first_name/name",
			"p.input.dob/dob", "p.input.password/password", "p.input.seed/private_key", "p.input.diagnosis/health"} {
			if _, ok := paths[want]; !ok {
				t.Errorf("missing %s in %v", want, paths)
			}
		}
		if _, ok := paths["p.input.key/private_key"]; ok {
			t.Errorf("public key reported as secret")
		}
	}
	if _, err := s.ScanJSON("p", []byte(`{"a":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
}

func TestConfig(t *testing.T) {
	if _, err := New(&Config{PhoneRegions: []string{"XX"}}); err == nil {
		t.Error("bad region accepted")
	}
	s := mustNew(t, &Config{Disable: []Type{TypeEmail}})
	if fs := s.ScanText("a@example.com"); len(fs) != 0 {
		t.Errorf("disabled type reported: %v", fs)
	}
	s = mustNew(t, &Config{AllowValues: []string{"ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi"}})
	if fs := s.ScanText("ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi"); len(fs) != 0 {
		t.Errorf("allowed value reported: %v", fs)
	}
}

func TestCleanTextAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	s := mustNew(t, nil)
	text := benchMessage(4096)
	text = strings.Repeat(benchProse, 4)
	if n := testing.AllocsPerRun(20, func() { s.ScanText(text) }); n != 0 {
		t.Errorf("%v allocations on clean text", n)
	}
}
