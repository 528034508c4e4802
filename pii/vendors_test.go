package pii

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	wordDash = alnum + "_-"
	hexLower = "0123456789abcdef"
	upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64Chars = alnum + "+/"
)

// randTok returns n bytes drawn from set.
func randTok(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	return string(b)
}

// shape makes one token of a provider: real is the documented shape, off another length.
type shape struct {
	real func(r *rand.Rand) string
	off  func(r *rand.Rand) string
}

// providers are the vendors agents carry most, each with its documented shapes and a
// wrong-length variant (a key cut short, padded, or of a newer, longer generation).
var providers = map[string][]shape{
	"openai": {
		{func(r *rand.Rand) string {
			return "sk-proj-" + randTok(r, wordDash, 74) + "T3BlbkFJ" + randTok(r, wordDash, 74)
		}, func(r *rand.Rand) string { return "sk-proj-" + randTok(r, wordDash, 20+r.IntN(100)) }},
		{func(r *rand.Rand) string {
			return "sk-svcacct-" + randTok(r, wordDash, 58) + "T3BlbkFJ" + randTok(r, wordDash, 58)
		},
			func(r *rand.Rand) string { return "sk-svcacct-" + randTok(r, alnum, 30+r.IntN(60)) }},
		{func(r *rand.Rand) string {
			return "sk-admin-" + randTok(r, wordDash, 58) + "T3BlbkFJ" + randTok(r, wordDash, 58)
		},
			func(r *rand.Rand) string { return "sk-admin-" + randTok(r, alnum, 24+r.IntN(40)) }},
		{func(r *rand.Rand) string { return "sk-" + randTok(r, alnum, 20) + "T3BlbkFJ" + randTok(r, alnum, 20) },
			func(r *rand.Rand) string { return "sk-" + randTok(r, alnum, 32+r.IntN(30)) }},
	},
	"anthropic": {
		{func(r *rand.Rand) string { return "sk-ant-api03-" + randTok(r, wordDash, 93) + "AA" },
			func(r *rand.Rand) string { return "sk-ant-api03-" + randTok(r, wordDash, 20+r.IntN(70)) }},
		{func(r *rand.Rand) string { return "sk-ant-admin01-" + randTok(r, wordDash, 93) + "AA" },
			func(r *rand.Rand) string { return "sk-ant-admin01-" + randTok(r, alnum, 40+r.IntN(40)) }},
	},
	"google": {
		{func(r *rand.Rand) string { return "AIza" + randTok(r, wordDash, 35) },
			func(r *rand.Rand) string { return "AIza" + randTok(r, alnum, 20+r.IntN(30)) }},
		{func(r *rand.Rand) string { return "ya29." + randTok(r, wordDash, 150+r.IntN(60)) },
			func(r *rand.Rand) string { return "ya29." + randTok(r, alnum, 24+r.IntN(20)) }},
		{func(r *rand.Rand) string { return "GOCSPX-" + randTok(r, wordDash, 28) },
			func(r *rand.Rand) string { return "GOCSPX-" + randTok(r, alnum, 18+r.IntN(30)) }},
	},
	"github": {
		{func(r *rand.Rand) string {
			return []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}[r.IntN(5)] + randTok(r, alnum, 36)
		},
			func(r *rand.Rand) string {
				return []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}[r.IntN(5)] + randTok(r, alnum, 20+r.IntN(40))
			}},
		{func(r *rand.Rand) string { return "github_pat_" + randTok(r, alnum, 22) + "_" + randTok(r, alnum, 59) },
			func(r *rand.Rand) string {
				return "github_pat_" + randTok(r, alnum, 22) + "_" + randTok(r, alnum, 20+r.IntN(30))
			}},
	},
	"slack": {
		{func(r *rand.Rand) string {
			return "xoxb-" + randTok(r, "0123456789", 12) + "-" + randTok(r, "0123456789", 13) + "-" + randTok(r, alnum, 24)
		}, func(r *rand.Rand) string { return "xoxb-" + randTok(r, alnum, 20+r.IntN(40)) }},
		{func(r *rand.Rand) string {
			return "xoxp-" + randTok(r, "0123456789", 12) + "-" + randTok(r, "0123456789", 12) + "-" +
				randTok(r, "0123456789", 13) + "-" + randTok(r, hexLower, 32)
		}, func(r *rand.Rand) string {
			return "xoxp-" + randTok(r, "0123456789", 11) + "-" + randTok(r, alnum, 16+r.IntN(20))
		}},
		{func(r *rand.Rand) string {
			return "xapp-1-A" + randTok(r, upperNum, 10) + "-" + randTok(r, "0123456789", 13) + "-" + randTok(r, hexLower, 64)
		}, func(r *rand.Rand) string { return "xoxa-2-" + randTok(r, alnum, 20+r.IntN(30)) }},
		{func(r *rand.Rand) string {
			return "https://hooks.slack.com/services/T" + randTok(r, upperNum, 8) + "/B" + randTok(r, upperNum, 10) + "/" + randTok(r, alnum, 24)
		}, func(r *rand.Rand) string {
			return "https://hooks.slack.com/services/T" + randTok(r, upperNum, 10) + "/B" + randTok(r, upperNum, 8) + "/" + randTok(r, alnum, 30)
		}},
	},
	"sendgrid": {
		{func(r *rand.Rand) string { return "SG." + randTok(r, wordDash, 22) + "." + randTok(r, wordDash, 43) },
			func(r *rand.Rand) string {
				return "SG." + randTok(r, alnum, 16+r.IntN(10)) + "." + randTok(r, alnum, 30+r.IntN(20))
			}},
	},
	"stripe": {
		{func(r *rand.Rand) string {
			return []string{"sk_live_", "rk_live_", "sk_test_"}[r.IntN(3)] + randTok(r, alnum, 24+r.IntN(76))
		},
			func(r *rand.Rand) string { return "sk_live_" + randTok(r, wordDash, 20+r.IntN(20)) }},
		{func(r *rand.Rand) string { return "whsec_" + randTok(r, b64Chars, 32) },
			func(r *rand.Rand) string { return "whsec_" + randTok(r, alnum, 20+r.IntN(40)) }},
	},
	"twilio": {
		{func(r *rand.Rand) string { return "SK" + randTok(r, hexLower, 32) },
			func(r *rand.Rand) string { return "SK" + randTok(r, hexLower, 30+r.IntN(2)*4) }},
		{func(r *rand.Rand) string { return "AC" + randTok(r, hexLower, 32) },
			func(r *rand.Rand) string { return "AC" + randTok(r, hexLower, 34) }},
	},
	"aws": {
		{func(r *rand.Rand) string { return []string{"AKIA", "ASIA"}[r.IntN(2)] + randTok(r, upperNum, 16) },
			func(r *rand.Rand) string { return "AKIA" + randTok(r, upperNum, 18+r.IntN(4)) }},
	},
}

// contexts place a token the way agents and tools write them.
var contexts = []func(name, tok string) string{
	func(n, t string) string { return "Here is the " + n + " key you asked for: " + t + " - keep it safe." },
	func(n, t string) string {
		b, _ := json.Marshal(map[string]any{"tool": "deploy", "args": map[string]string{"provider": n, "credential": t}})
		return string(b)
	},
	func(n, t string) string { return strings.ToUpper(n) + "_API_KEY=" + t },
	func(n, t string) string { return "export " + strings.ToUpper(n) + "_TOKEN=\"" + t + "\"" },
	func(n, t string) string { return "Authorization: Bearer " + t },
	func(n, t string) string { return "x-api-key: " + t },
	func(n, t string) string {
		return "2024-05-01T10:22:31Z ERROR client init failed key=" + t + " status=401"
	},
	func(n, t string) string { return "Error: 401 Unauthorized: invalid credential '" + t + "' for " + n },
	func(n, t string) string {
		return "curl https://api.example.com/v1 -H 'Authorization: Bearer " + t + "'"
	},
	func(n, t string) string { return "I pasted " + t + " into the config, is that right?" },
	func(n, t string) string { return "```\n" + n + ":\n  key: " + t + "\n```" },
}

// TestProviderTokens: for each provider, 24 tokens of the documented shape and 24 of other
// lengths, each in every context, are found as secrets. Every documented shape must be found; a
// body of another length is judged by how random it reads, and a few in a hundred random
// bodies read less random than the judge requires.
func TestProviderTokens(t *testing.T) {
	s := mustNew(t, nil)
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		shapes := providers[name]
		r := rand.New(rand.NewPCG(20, uint64(len(name))))
		var n, missReal, missOff int
		for k := 0; k < 24; k++ {
			sh := shapes[k%len(shapes)]
			for v, tok := range []string{sh.real(r), sh.off(r)} {
				for _, c := range contexts {
					text := c(name, tok)
					n++
					if coversSecret(s.ScanText(text), text, tok) {
						continue
					}
					if v == 0 {
						missReal++
						t.Errorf("%s: documented shape not found in %q", name, text)
					} else if missOff++; missOff <= 3 {
						t.Logf("%s: other length not found in %q", name, text)
					}
				}
			}
		}
		if missOff*100 > n/2*3 {
			t.Errorf("%s: %d of %d tokens of other lengths missed", name, missOff, n/2)
		}
	}
}

// coversSecret reports a secret finding that overlaps tok in text.
func coversSecret(fs []Finding, text, tok string) bool {
	a := strings.Index(text, tok)
	for _, f := range fs {
		if f.Type.Class() == ClassSecret && f.Start < a+len(tok) && f.End > a {
			return true
		}
	}
	return false
}

// TestVendorPrefixWords: prose, identifiers and placeholders that merely start with a vendor
// prefix are not tokens.
func TestVendorPrefixWords(t *testing.T) {
	s := mustNew(t, nil)
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"learn", "hub_download", "config_cache", "project_settings", "YOUR_API_KEY_HERE",
		"xxxxxxxxxxxxxxxxxxxxxxxx", "****************", "<token>", "...", "REPLACE_ME", "example_value_here",
		"gossip-girl", "ProjectConfigurationReader"}
	prefixes := []string{"sk-", "sk-proj-", "sk-ant-", "hf_", "ghp_", "github_pat_", "xoxb-", "xoxo-", "npm_",
		"SG.", "AIza", "ya29.", "whsec_", "glpat-", "pk_live_", "key-", "API-", "secret_", "gsk_", "r8_"}
	for k := 0; k < 60; k++ {
		w := prefixes[r.IntN(len(prefixes))] + words[r.IntN(len(words))]
		for _, text := range []string{
			"we use " + w + " in the notebook",
			`{"name": "` + w + `"}`,
			"api_key=" + w,
			fmt.Sprintf("see docs for %s (placeholder)", w),
		} {
			if fs := s.ScanText(text); Summarize(fs).Secret {
				t.Errorf("%q: %v", text, fs)
			}
		}
	}
}
