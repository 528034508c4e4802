package main

import (
	"context"
	"log/slog"
	"sync"
)

// logBook keeps the records of a gateway's log (after the gateway's own
// redaction layer), so that the demo can show what an operator would read:
// which session was established, which message was blocked and why.
type logBook struct {
	mu      sync.Mutex
	records []logEntry
	changed chan struct{} // closed and replaced on every record
}

// logEntry is one record, its attributes flattened by key.
type logEntry struct {
	Msg   string
	Attrs map[string]slog.Value
}

// Str returns a string attribute.
func (e logEntry) Str(key string) string {
	v, ok := e.Attrs[key]
	if !ok {
		return ""
	}
	return v.String()
}

func newLogBook() *logBook { return &logBook{changed: make(chan struct{})} }

func (b *logBook) handler() slog.Handler { return &bookHandler{b: b} }

func (b *logBook) add(e logEntry) {
	b.mu.Lock()
	b.records = append(b.records, e)
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// mark is a position in the book, so that a step looks only at what was
// logged after it began.
func (b *logBook) mark() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.records)
}

// find returns the first record since mark with message msg for which
// match (if not nil) holds, without waiting.
func (b *logBook) find(mark int, msg string, match func(logEntry) bool) (logEntry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.records[min(mark, len(b.records)):] {
		if e.Msg == msg && (match == nil || match(e)) {
			return e, true
		}
	}
	return logEntry{}, false
}

// await returns the first record since mark with message msg for which
// match (if not nil) holds, waiting for it until ctx ends. It sets no
// deadline of its own: the records the demo waits for are written before
// the call that causes them returns, so a slow machine only makes the wait
// longer, and the demo's own deadline bounds it.
func (b *logBook) await(ctx context.Context, mark int, msg string, match func(logEntry) bool) (logEntry, bool) {
	for {
		// The channel is taken before looking, so that a record added
		// after the look closes it and wakes this wait.
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		if e, ok := b.find(mark, msg, match); ok {
			return e, true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return logEntry{}, false
		}
	}
}

type bookHandler struct {
	b     *logBook
	attrs []slog.Attr
}

func (h *bookHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *bookHandler) Handle(_ context.Context, r slog.Record) error {
	e := logEntry{Msg: r.Message, Attrs: make(map[string]slog.Value, len(h.attrs)+r.NumAttrs())}
	for _, a := range h.attrs {
		e.Attrs[a.Key] = a.Value.Resolve()
	}
	r.Attrs(func(a slog.Attr) bool {
		e.Attrs[a.Key] = a.Value.Resolve()
		return true
	})
	h.b.add(e)
	return nil
}

func (h *bookHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &bookHandler{b: h.b, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

// WithGroup is not needed by the gateway's records; attributes stay flat.
func (h *bookHandler) WithGroup(string) slog.Handler { return h }
