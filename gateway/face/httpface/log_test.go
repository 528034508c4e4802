package httpface

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestHTTPErrorLogLevels(t *testing.T) {
	var out bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "x"}, []string{"kind"})
	el := errorLog(l, errs)
	for _, line := range []string{
		"http: TLS handshake error from 10.0.0.1:4711: EOF",
		"http: panic serving 10.0.0.1:4711: boom",
		"http: Accept error: too many open files; retrying in 5ms",
		"http2: server: error reading preface from client 10.0.0.1:4711: bogus greeting",
	} {
		el.Print(line)
	}
	want := []struct{ level, kind string }{{"DEBUG", "tls_handshake"}, {"ERROR", "panic"}, {"WARN", "accept"}, {"DEBUG", "other"}}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	for i, line := range lines {
		var r struct{ Level, Msg, Kind string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Level != want[i].level || r.Kind != want[i].kind || strings.HasSuffix(r.Msg, "\n") {
			t.Errorf("line %d: %+v, want %+v", i, r, want[i])
		}
		if n := testCounter(t, errs.WithLabelValues(want[i].kind)); n != 1 {
			t.Errorf("%s counted %v times", want[i].kind, n)
		}
	}
}

func testCounter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
