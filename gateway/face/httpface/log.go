package httpface

import (
	"bytes"
	"context"
	"log"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
)

// errorLog is the error log of the face's http.Server. Left nil,
// net/http prints to the process's standard logger: plain lines among the
// JSON ones, one for every client that fails its TLS handshake, so anyone
// who can reach the port could fill the log with them. Here each line goes
// through the gateway's logger (and its redaction) at a level that fits
// it, and is counted by kind: a port scan shows in /metrics without debug
// logging, and a panic in a handler still reaches the log at error.
func errorLog(l *slog.Logger, errs *prometheus.CounterVec) *log.Logger {
	return log.New(httpLogWriter{l, errs}, "", 0)
}

type httpLogWriter struct {
	l    *slog.Logger
	errs *prometheus.CounterVec // kind
}

func (w httpLogWriter) Write(p []byte) (int, error) {
	line := string(bytes.TrimRight(p, "\n"))
	kind, level := "other", slog.LevelDebug
	switch {
	case bytes.Contains(p, []byte("TLS handshake error")):
		kind = "tls_handshake"
	case bytes.Contains(p, []byte("panic serving")):
		kind, level = "panic", slog.LevelError
	case bytes.Contains(p, []byte("Accept error")):
		kind, level = "accept", slog.LevelWarn
	}
	w.l.Log(context.Background(), level, "https face: "+line, "kind", kind)
	w.errs.WithLabelValues(kind).Inc()
	return len(p), nil
}
