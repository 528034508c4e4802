package pipeline

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// BenchmarkCallAnsweredLine is the security log's line for an answered
// call from a peer (SuccessSample 1, the default), written through the
// redactor into JSON as the gateway's log writes it, against the same
// call with SuccessSample 0 (the yardstick: the check alone).
//
//	go test -run '^$' -bench CallAnsweredLine -benchmem ./gateway/pipeline
func BenchmarkCallAnsweredLine(b *testing.B) {
	sc, err := pii.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	in := &Inbound{Origin: Origin{Face: FaceWS}, FromPeer: true, admitted: true,
		M: &wire.Message{ID: "89359099-ced9-46f2-b0a9-41f8664234bc", Op: wire.OpTool, Cls: wire.Conf,
			From: wire.Sender{Agent: "client", Org: "acme"}, To: wire.Ref{Agent: "echo", Org: "globex"},
			Payload: &wire.ToolPayload{Action: "invoke", Tool: "echo"}}}
	for _, sample := range []float64{0, 1} {
		name := "logged"
		if sample == 0 {
			name = "not_logged"
		}
		b.Run(name, func(b *testing.B) {
			p := &Pipeline{Config: Config{Scanner: sc, SuccessSample: sample,
				Log: slog.New(classify.NewRedactor(slog.NewJSONHandler(io.Discard, nil), sc))}}
			ctx := context.Background()
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				p.logOutcome(ctx, in, Answer{}, 1250*time.Microsecond)
			}
		})
	}
}
