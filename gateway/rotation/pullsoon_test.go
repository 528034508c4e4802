package rotation

import (
	"strings"
	"testing"
	"time"
)

// A handshake under a key the pin does not accept has the peer's
// statements fetched at once, at most once per pullSoonEvery, and only for
// a peer: a stranger's handshakes fetch nothing.
func TestPullSoonFetchesAPeerAtMostOncePerInterval(t *testing.T) {
	r := newRig(t)
	fetches := func() int {
		return strings.Count(r.log.String(), "peer handovers not fetched after a key its pin does not accept")
	}
	r.room.PullSoon("globex")
	if n := fetches(); n != 1 {
		t.Fatalf("%d fetches after the first mismatch, want 1:\n%s", n, r.log)
	}
	r.now = r.now.Add(pullSoonEvery - time.Millisecond)
	r.room.PullSoon("globex")
	if n := fetches(); n != 1 {
		t.Fatalf("%d fetches after a second mismatch within %v, want 1", n, pullSoonEvery)
	}
	r.now = r.now.Add(time.Millisecond)
	r.room.PullSoon("globex")
	if n := fetches(); n != 2 {
		t.Fatalf("%d fetches after a mismatch %v later, want 2", n, pullSoonEvery)
	}
	r.room.PullSoon("initech")
	if n := fetches(); n != 2 || strings.Contains(r.log.String(), "initech") {
		t.Fatalf("a stranger's mismatch fetched something:\n%s", r.log)
	}
}
