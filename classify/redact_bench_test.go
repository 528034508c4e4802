package classify

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/moltgate/moltgate/internal/benchcpu"
)

// BenchmarkRedactorCallAnswered is the line the gateway logs for each
// answered call (SuccessSample 1, the default), through the redactor into
// a JSON handler, as the gateway's own logger writes it. The yardstick in
// the same run is the same line with no redactor.
//
//	go test -run '^$' -bench 'Redactor|SecretKey' -benchmem ./classify
func BenchmarkRedactorCallAnswered(b *testing.B) {
	for _, bc := range []struct {
		name string
		h    slog.Handler
	}{
		{"json", slog.NewJSONHandler(io.Discard, nil)},
		{"redacted", NewRedactor(slog.NewJSONHandler(io.Discard, nil), scanner(b))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			log := slog.New(bc.h)
			ctx := context.Background()
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				log.LogAttrs(ctx, slog.LevelInfo, "call answered", slog.String("op", "tool"), slog.String("face", "websocket"),
					slog.String("peer", "acme"), slog.String("from", "client@acme"), slog.String("to", "echo@globex"),
					slog.String("message_id", "89359099-ced9-46f2-b0a9-41f8664234bc"), slog.String("cls", "conf"),
					slog.Float64("duration_ms", 1.25))
			}
		})
	}
}

// BenchmarkSecretKey is the check every attribute of every line is put to.
func BenchmarkSecretKey(b *testing.B) {
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		secretKey("message_id")
		secretKey("Session-Token")
	}
}
