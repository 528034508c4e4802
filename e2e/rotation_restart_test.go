package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// load is several callers at once, each calling echo@globex from acme over
// and over on a connection of its own, keeping every outcome.
type load struct {
	mu      sync.Mutex
	ok      int
	started int
	failed  map[string]int // by code
	errs    []error
	stop    chan struct{}
	wg      sync.WaitGroup
}

func startLoad(ctx context.Context, clients []*localbridge.Client) *load {
	l := &load{failed: map[string]int{}, stop: make(chan struct{})}
	for i, c := range clients {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for n := 0; ; n++ {
				select {
				case <-l.stop:
					return
				default:
				}
				l.mu.Lock()
				l.started++
				l.mu.Unlock()
				text := fmt.Sprintf("caller %d call %d", i, n)
				out, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"`+text+`"}`)
				if err == nil && !strings.Contains(string(out), text) {
					err = fmt.Errorf("answered with another call's text: %s", out)
				}
				l.mu.Lock()
				if err != nil {
					l.failed[codeOf(err)]++
					l.errs = append(l.errs, err)
				} else {
					l.ok++
				}
				l.mu.Unlock()
				if err != nil {
					time.Sleep(50 * time.Millisecond) // a caller's pause before trying again
				}
			}
		}()
	}
	return l
}

func (l *load) succeeded() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ok
}

func (l *load) end() {
	close(l.stop)
	l.wg.Wait()
}

// TestRotatedGatewayRestartedUnderLoad: globex rotates its org key while
// serving, takes it up without a restart, and is then restarted while
// four callers at acme keep calling it. Every call ends, and each is
// either answered whole (its own text back) or fails with a code a caller
// may send again after (the peer unavailable while globex is down, or a
// session it no longer knows) and no partial answer: none is lost, none
// hangs. The call in flight at the restart is answered, since a stopping
// gateway drains what it accepted. After the restart globex serves under
// the new key, and acme's calls go on.
func TestRotatedGatewayRestartedUnderLoad(t *testing.T) {
	acme, globex, _, ctx := warmPair(t, 4*time.Minute)
	mg(t, "key", "rotate", "--dir", globex.dir, "--overlap", "1h")
	nw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "globex never switched to its new org key", func() bool {
		return strings.Contains(globex.log.String(), `"msg":"org key switched"`)
	})

	var clients []*localbridge.Client
	for range 4 {
		clients = append(clients, acme.client())
	}
	l := startLoad(ctx, clients)
	waitFor(t, 30*time.Second, "no call answered before the restart", func() bool { return l.succeeded() >= 20 })
	slow := slowCall(t, ctx, acme.client(), 1500)
	globex.restart()
	if err := <-slow; err != nil {
		t.Fatalf("the call in flight at the restart: %v", err)
	}
	n := l.succeeded()
	waitFor(t, 60*time.Second, "calls did not resume after the restart", func() bool { return l.succeeded() >= n+40 })
	l.end()

	codes := make([]string, 0, len(l.failed))
	for code := range l.failed {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		if c := wire.Code(code); !c.Recoverable() && c != wire.ErrPeerUnavailable {
			for _, err := range l.errs {
				if codeOf(err) == code {
					t.Fatalf("%d calls failed with %s, which a caller may not send again: %v", l.failed[code], code, err)
				}
			}
		}
	}
	failed := len(l.errs)
	if l.started != l.ok+failed {
		t.Fatalf("%d calls started, %d answered and %d failed: some were lost", l.started, l.ok, failed)
	}
	t.Logf("%d calls across globex's restart: %d answered, %d failed before any answer, by code %v", l.started, l.ok, failed, l.failed)
	if p := pinOf(t, acme, "globex"); !p.Key.Equal(nw.Signing.Public()) {
		t.Fatalf("acme's pin after globex restarted under its new key: %+v", p)
	}
	if err := presentedKey(t, acme, globex, nw.Signing.Public()); err != nil {
		t.Fatalf("globex after its restart, under its new key: %v", err)
	}
}
