package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/limit"
	"github.com/moltgate/moltgate/localbridge"
)

// TestConcurrentCallsGetTheirOwnReplies runs many calls at once on one
// connection, each with its own text, streamed and not, and checks each
// gets back exactly its own. Envelope buffers are recycled once written or
// opened; one given back while still in use would show here as a reply
// with another call's bytes, or one that fails to open.
func TestConcurrentCallsGetTheirOwnReplies(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			for _, s := range []*Server{acme.s, globex.s} {
				s.pipe.OrgLimit = limit.NewBuckets(1e9, 1<<30, 64, time.Now)
				s.pipe.AgentLimit = limit.NewBuckets(1e9, 1<<30, 64, time.Now)
			}
			// Each call is bounded by its own deadline, the gateway's
			// request_timeout, as a caller's would be; one budget for
			// all of them would time the machine's throughput, not
			// check the replies.
			ctx := t.Context()
			// Six calls a caller give each its six sizes, streamed in
			// one to three chunks, while the other callers' run.
			const callers, calls = 24, 6
			var wg sync.WaitGroup
			errs := make(chan error, callers)
			for g := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range calls {
						text := fmt.Sprintf("caller %d call %d ", g, i) + strings.Repeat(string(rune('a'+(g+i)%26)), 200*(1+i%6))
						repeat := 1 + i%3
						in, _ := json.Marshal(map[string]any{"text": text, "repeat": repeat})
						// The gateway may cut the stream elsewhere than the
						// agent did (textStream), but every piece is of this
						// call's text, and they give it whole.
						want := strings.Repeat(text, repeat)
						var streamed strings.Builder
						out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: in},
							func(ev localbridge.StreamEvent) error {
								if !strings.Contains(want, ev.Text) || len(ev.Block) > 0 {
									return fmt.Errorf("caller %d call %d: a chunk of another call: %.80s", g, i, string(ev.Block)+ev.Text)
								}
								streamed.WriteString(ev.Text)
								return nil
							})
						if err == nil && streamed.String() != want {
							err = fmt.Errorf("streamed %.80q, want %.80q", streamed.String(), want)
						}
						if err != nil {
							errs <- fmt.Errorf("caller %d call %d: %w", g, i, err)
							return
						}
						if !strings.Contains(string(out), text) {
							errs <- fmt.Errorf("caller %d call %d: the reply of another call: %.80s", g, i, out)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}
