package audit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

type collector struct {
	mu     sync.Mutex
	events []Event
	ctypes []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var batch []Event
	if err := json.NewDecoder(r.Body).Decode(&batch); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.events = append(c.events, batch...)
	c.ctypes = append(c.ctypes, r.Header.Get("Content-Type"))
	c.mu.Unlock()
}

func TestSinkSendsBatches(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	s, err := NewSink(SinkConfig{URL: srv.URL, Batch: 4, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c := testConfig()
	var ids []string
	for i := range 10 {
		ev, err := c.NewEvent(TypeAllowed, "", Decision{Direction: "inbound", Op: "tool", MessageID: string(rune('a' + i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.ID)
		if !s.Offer(ev) {
			t.Fatal("Offer refused an event with room in the buffer")
		}
	}
	// Close flushes the last, partial batch although the interval is long.
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.events) != 10 || s.Sent() != 10 || s.Dropped() != 0 {
		t.Fatalf("collector has %d events, sent %d, dropped %d; want 10, 10, 0", len(col.events), s.Sent(), s.Dropped())
	}
	for i, ev := range col.events {
		if ev.ID != ids[i] || ev.SpecVersion != "1.0" {
			t.Fatalf("event %d = %+v; want id %s in order", i, ev, ids[i])
		}
	}
	for _, ct := range col.ctypes {
		if ct != "application/cloudevents-batch+json" {
			t.Fatalf("Content-Type %q", ct)
		}
	}
	if len(col.ctypes) != 3 {
		t.Fatalf("%d requests for 10 events in batches of 4; want 3", len(col.ctypes))
	}
}

// TestSinkNeverBlocks holds the collector still: Offer returns at once
// whatever happens, and what does not fit is counted as dropped.
func TestSinkNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	s, err := NewSink(SinkConfig{URL: srv.URL, Buffer: 8, Batch: 1, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := testConfig()
	accepted := 0
	for range 100 {
		ev, _ := c.NewEvent(TypeAllowed, "", Decision{})
		if s.Offer(ev) {
			accepted++
		}
	}
	// One event is in flight, at most Buffer wait; the rest are dropped.
	if accepted > 9 || s.Dropped() < 91 {
		t.Fatalf("accepted %d, dropped %d of 100 with a buffer of 8", accepted, s.Dropped())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Close(ctx); err == nil {
		t.Fatal("Close with the collector stuck reported every event sent")
	}
}

func TestSinkRetriesThenDrops(t *testing.T) {
	var mu sync.Mutex
	tries := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tries++
		mu.Unlock()
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	s, err := NewSink(SinkConfig{URL: srv.URL, Batch: 1, Retries: 2, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := testConfig().NewEvent(TypeAllowed, "", Decision{})
	s.Offer(ev)
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if s.Dropped() != 1 || s.Sent() != 0 {
		t.Fatalf("sent %d, dropped %d; want 0, 1", s.Sent(), s.Dropped())
	}
	if tries < 1 || tries > 3 {
		t.Fatalf("%d tries; want between 1 and 3", tries)
	}
}

func TestNewSinkRefusesBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x/", "http://", "::"} {
		if _, err := NewSink(SinkConfig{URL: u}); err == nil {
			t.Errorf("NewSink(%q) succeeded", u)
		}
	}
}
