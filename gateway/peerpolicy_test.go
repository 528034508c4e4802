package gateway

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/wire"
)

// TestPeerPolicyConfig: [peers.policy] overrides OSSA's default handling
// for every peer, [peers.org.ORG] overrides it for one, key by key, and
// every key left out keeps its default.
func TestPeerPolicyConfig(t *testing.T) {
	c, err := ParseConfig(`org = "acme"
[peers.policy]
breaker_failures = 8
[peers.policy.retry.TOOL_ERROR]
retries = 1
[peers.org.globex]
breaker_cooldown = "3s"
[peers.org.globex.retry.RATE_LIMITED]
retries = 0
breaker = true
`)
	if err != nil {
		t.Fatal(err)
	}
	def := peers.DefaultPolicy()
	if got := (&PeersConfig{}).PeerPolicy("x"); got.BreakerFailures != def.BreakerFailures || got.Rules[wire.OSSAToolError] != def.Rules[wire.OSSAToolError] {
		t.Fatalf("an empty [peers] is not the default: %+v", got)
	}
	initech := c.Peers.PeerPolicy("initech")
	if initech.BreakerFailures != 8 || initech.BreakerCooldown != time.Second || initech.Rules[wire.OSSAToolError].Retries != 1 ||
		initech.Rules[wire.OSSAToolError].Backoff != def.Rules[wire.OSSAToolError].Backoff || initech.Rules[wire.OSSARateLimited] != def.Rules[wire.OSSARateLimited] {
		t.Fatalf("initech: %+v", initech)
	}
	globex := c.Peers.PeerPolicy("globex")
	rl := globex.Rules[wire.OSSARateLimited]
	if globex.BreakerFailures != 8 || globex.BreakerCooldown != 3*time.Second || globex.Rules[wire.OSSAToolError].Retries != 1 ||
		rl.Retries != 0 || !rl.Breaker || rl.MaxBackoff != def.Rules[wire.OSSARateLimited].MaxBackoff {
		t.Fatalf("globex: %+v", globex)
	}
	if c.Peers.PeerPolicy("initech").Rules[wire.OSSARateLimited].Breaker {
		t.Fatal("one peer's override reached another")
	}
}

func TestPeerPolicyMistakesNameTheKey(t *testing.T) {
	cases := map[string]string{
		"[peers.policy]\nbreaker_failures = 0":                                                         "peers.policy.breaker_failures",
		"[peers.policy]\nbreaker_cooldown = \"1ms\"":                                                   "peers.policy.breaker_cooldown",
		"[peers.policy]\nbreaker_max_cooldown = \"500ms\"":                                             "peers.policy.breaker_max_cooldown",
		"[peers.policy.retry.TOOL_ERRORS]\nretries = 1":                                                "peers.policy.retry.TOOL_ERRORS",
		"[peers.policy.retry.POLICY_VIOLATION]\nretries = 1":                                           "peers.policy.retry.POLICY_VIOLATION",
		"[peers.policy.retry.TOOL_ERROR]\nretries = 11":                                                "peers.policy.retry.TOOL_ERROR.retries",
		"[peers.policy.retry.TOOL_ERROR]\nbackoff = \"-1s\"":                                           "peers.policy.retry.TOOL_ERROR.backoff",
		"[peers.policy.retry.TOOL_ERROR]\nmax_backoff = \"10ms\"":                                      "peers.policy.retry.TOOL_ERROR.max_backoff",
		"[peers.policy.retry.TOOL_ERROR]\nretry = 1":                                                   "peers.policy.retry.TOOL_ERROR.retry",
		"[peers.org.\"a b\"]\nbreaker_failures = 2":                                                    "peers.org.a b",
		"[peers.org.globex]\nbreaker_failures = 5000":                                                  "peers.org.globex.breaker_failures",
		"[peers.policy]\nbreaker_cooldown = \"40m\"\n[peers.org.globex]\n":                             "peers.policy.breaker_cooldown",
		"[peers.policy]\nbreaker_max_cooldown = \"2s\"\n[peers.org.globex]\nbreaker_cooldown = \"5s\"": "peers.org.globex.breaker_max_cooldown",
	}
	for text, key := range cases {
		_, err := ParseConfig("org = \"acme\"\n" + text)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%q: got %v, want a ConfigError", text, err)
			continue
		}
		if ce.Key != key {
			t.Errorf("%q: key %q (%v), want %q", text, ce.Key, err, key)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is not one line: %q", text, err)
		}
	}
}
