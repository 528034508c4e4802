package httpface

import (
	"net/netip"
	"testing"
	"time"
)

func TestRetryAfterSeconds(t *testing.T) {
	if RetryAfterSeconds(10*time.Millisecond) != 1 || RetryAfterSeconds(1500*time.Millisecond) != 2 {
		t.Fatal("Retry-After rounding")
	}
}

func TestFromNetworks(t *testing.T) {
	nets := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for addr, want := range map[string]bool{
		"127.0.0.1:9000": true, "[::1]:9000": true, "[::ffff:127.0.0.2]:9000": true,
		"10.0.0.1:9000": false, "[::2]:9000": false, "not an address": false,
	} {
		if got := fromNetworks(addr, nets); got != want {
			t.Errorf("fromNetworks(%q) = %v, want %v", addr, got, want)
		}
	}
}
