package gateway

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/moltgate/moltgate/localbridge"
)

// editConfig replaces lines of d's config file, old and new in turn.
func editConfig(t *testing.T, d Dir, oldNew ...string) {
	t.Helper()
	b, err := os.ReadFile(d.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(s, oldNew[i]+"\n") {
			t.Fatalf("no line %q in the config", oldNew[i])
		}
		s = strings.Replace(s, oldNew[i]+"\n", oldNew[i+1]+"\n", 1)
	}
	if err := os.WriteFile(d.ConfigPath(), []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSessionRenewalUnderLoad: busy callers use up session after session
// (the byte limit is 512 KiB here, 100 MiB by default), and every call
// succeeds: a session is renewed once half its bytes are spent, calls in
// flight finish in the old one, and the breaker never opens. 128 calls of
// about 8 KB make four sessions or so. The eight callers have at most
// 64 KB in flight, less than the quarter of a session left once a stream
// connection takes no more calls (three quarters spent), so none outruns
// its session on a stream, however slow the machine.
func TestSessionRenewalUnderLoad(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
			db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
			trustEachOther(t, da, db, "pii")
			for _, d := range []Dir{da, db} {
				editConfig(t, d, "session_bytes = 104857600", "session_bytes = 524288",
					"message_bytes = 1048576", "message_bytes = 524288", // a session carries one message at least
					"agent_per_second = 50.0", "agent_per_second = 100000.0",
					"peer_org_per_second = 200.0", "peer_org_per_second = 100000.0")
			}
			acme := start(t, da, la, tr)
			globex := start(t, db, lb, tr)

			// About 8 KB a call: the request, three chunks and the reply.
			in, _ := json.Marshal(map[string]any{"text": strings.Repeat("renew ", 170), "repeat": 3})
			const workers, calls = 8, 16
			var wg sync.WaitGroup
			errs := make(chan error, workers*calls)
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range calls {
						// Each call has its own deadline, against a hang
						// only: the calls queue behind each other on a
						// loaded machine, and one deadline for all of
						// them would measure its speed.
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: in},
							func(localbridge.StreamEvent) error { return nil })
						cancel()
						if err != nil {
							errs <- err
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("call failed: %v", err)
			}
			// The responder logs each session it accepts.
			if n := strings.Count(globex.logs()+acme.logs(), `"msg":"session established"`); n < 3 {
				t.Errorf("%d sessions made for 1 MB of calls; want renewals", n)
			}
			for _, l := range []string{acme.logs(), globex.logs()} {
				for _, bad := range []string{"peer circuit changed", "cannot sign an error reply", "dropped a frame"} {
					if strings.Contains(l, bad) {
						t.Errorf("log has %q:\n%s", bad, l)
					}
				}
			}
			if tr == TransportHTTP {
				return
			}
			// Renewed ahead, while calls went on over the worn session. Eight
			// callers on a fast machine may spend the session's last quarter
			// before the new connection's handshake is done (the callers then
			// wait for one, as they should): calls one at a time, a pause
			// apart, leave a renewal the time a handshake takes.
			background := func() float64 {
				var m dto.Metric
				if err := acme.s.metrics.renewals.WithLabelValues("globex", "background").Write(&m); err != nil {
					t.Fatal(err)
				}
				return m.GetCounter().GetValue()
			}
			for guard := time.Now().Add(time.Minute); background() < 1 && time.Now().Before(guard); time.Sleep(20 * time.Millisecond) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: in},
					func(localbridge.StreamEvent) error { return nil })
				cancel()
				if err != nil {
					t.Fatalf("a call one at a time: %v", err)
				}
			}
			if n := background(); n < 1 {
				t.Errorf("%v renewals in the background; want at least one", n)
			}
			// Retired connections close once their calls are done: what is
			// left is the connection in use (its session on each side).
			for wait := time.Now().Add(10 * time.Second); acme.s.sessions.Len() > 1; {
				if time.Now().After(wait) {
					t.Fatalf("%d sessions still open on acme's side", acme.s.sessions.Len())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
