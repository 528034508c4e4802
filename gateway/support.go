package gateway

import (
	"context"
	"log/slog"
	"os"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/tracing"
)

// newLogger builds the gateway's logger: the given one, or JSON lines on
// standard error, either way behind the classification redaction layer,
// and held back by held until the gateway serves.
func newLogger(base *slog.Logger, level string, sc *pii.Scanner, held *heldLog) *slog.Logger {
	var h slog.Handler
	if base != nil {
		h = base.Handler()
	} else {
		var lv slog.Level
		_ = lv.UnmarshalText([]byte(level))
		h = slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: lv})
	}
	// Trace and request ids are added past the redaction layer: they are
	// ids this gateway made or a W3C header carried, hex that would read
	// as a secret.
	return slog.New(classify.NewRedactor(tracing.LogHandler(heldHandler{h, held}), sc))
}

// heldLog keeps what the gateway logs before it serves: a gateway that
// cannot start (its address taken, say) then prints only its error, not
// the first reports of the agents Open set going. Serve releases the
// records, in order, before its own first line.
type heldLog struct {
	mu       sync.Mutex
	released bool
	records  []heldRecord
}

type heldRecord struct {
	h slog.Handler
	r slog.Record
}

// maxHeld bounds what is kept of a gateway that is opened and never served.
const maxHeld = 1024

// release writes what was held and lets everything after through.
func (l *heldLog) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, hr := range l.records {
		_ = hr.h.Handle(context.Background(), hr.r)
	}
	l.records, l.released = nil, true
}

type heldHandler struct {
	next slog.Handler
	held *heldLog
}

func (h heldHandler) Enabled(ctx context.Context, lv slog.Level) bool { return h.next.Enabled(ctx, lv) }

func (h heldHandler) Handle(ctx context.Context, r slog.Record) error {
	l := h.held
	l.mu.Lock()
	if !l.released {
		if len(l.records) < maxHeld {
			l.records = append(l.records, heldRecord{h.next, r.Clone()})
		}
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	return h.next.Handle(ctx, r)
}

func (h heldHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return heldHandler{h.next.WithAttrs(as), h.held}
}

func (h heldHandler) WithGroup(name string) slog.Handler {
	return heldHandler{h.next.WithGroup(name), h.held}
}

// blockCollector exports the gate's block counts.
type blockCollector struct{ c *classify.Counts }

var blockDesc = prometheus.NewDesc("moltgate_blocked_total", "Messages blocked by the data protection gate, by reason and direction.",
	[]string{"reason", "direction"}, nil)

func (b blockCollector) Describe(ch chan<- *prometheus.Desc) { ch <- blockDesc }

func (b blockCollector) Collect(ch chan<- prometheus.Metric) {
	b.c.Each(func(r classify.Reason, d classify.Direction, n uint64) {
		ch <- prometheus.MustNewConstMetric(blockDesc, prometheus.CounterValue, float64(n), r.String(), d.String())
	})
}

// asyncReplies remembers nothing yet beyond what pending holds; replies made
// after the request's face gave up are sent to the sender's gateway.
type asyncReplies struct{}

func newAsyncReplies() *asyncReplies { return &asyncReplies{} }
