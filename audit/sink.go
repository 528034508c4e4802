package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// SinkConfig configures a Sink.
type SinkConfig struct {
	// URL receives batches of events by POST, in CloudEvents' batched
	// HTTP mode (application/cloudevents-batch+json). Required: http or
	// https.
	URL string
	// Client sends the batches. Default: an http.Client with a 10 s
	// timeout.
	Client *http.Client
	// Buffer is how many events wait to be sent before new ones are
	// dropped. Default 4096.
	Buffer int
	// Batch is the most events one request carries. Default 100.
	Batch int
	// FlushInterval is the longest an event waits for a batch to fill.
	// Default 1 s.
	FlushInterval time.Duration
	// Retries is how many times a failed batch is sent again, with a
	// doubling pause from RetryWait, before it is dropped. Default 3.
	Retries int
	// RetryWait is the first pause before a retry. Default 500 ms.
	RetryWait time.Duration
	// Log receives one line per dropped batch. Default: discarded.
	Log *slog.Logger
}

// Sink sends events to an HTTP collector in the background. Offer never
// blocks: the ledger is the record, and the sink a copy, so a slow or
// absent collector costs events sent to it, never a call's latency.
type Sink struct {
	cfg  SinkConfig
	q    chan Event
	stop chan struct{}
	done chan struct{}
	once sync.Once

	sent, dropped atomic.Uint64
}

// NewSink checks cfg and starts a Sink.
func NewSink(cfg SinkConfig) (*Sink, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("audit sink: url %q is not an http or https URL: set [audit] sink_url to the collector's address", cfg.URL)
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = 4096
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 100
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = time.Second
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	} else if cfg.Retries == 0 {
		cfg.Retries = 3
	}
	if cfg.RetryWait <= 0 {
		cfg.RetryWait = 500 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Sink{cfg: cfg, q: make(chan Event, cfg.Buffer), stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s, nil
}

// Offer queues ev to be sent. It reports false, and counts the event as
// dropped, when the buffer is full or the sink is closed.
func (s *Sink) Offer(ev Event) bool {
	select {
	case <-s.stop:
		s.dropped.Add(1)
		return false
	default:
	}
	select {
	case s.q <- ev:
		return true
	default:
		s.dropped.Add(1)
		return false
	}
}

// Sent is the number of events the collector accepted.
func (s *Sink) Sent() uint64 { return s.sent.Load() }

// Dropped is the number of events given up: refused by a full buffer, or
// in a batch the collector did not accept after every retry.
func (s *Sink) Dropped() uint64 { return s.dropped.Load() }

func (s *Sink) run() {
	defer close(s.done)
	t := time.NewTicker(s.cfg.FlushInterval)
	defer t.Stop()
	batch := make([]Event, 0, s.cfg.Batch)
	flush := func(ctx context.Context) {
		if len(batch) > 0 {
			s.send(ctx, batch)
			batch = batch[:0]
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for {
		select {
		case ev := <-s.q:
			batch = append(batch, ev)
			if len(batch) == s.cfg.Batch {
				flush(ctx)
			}
		case <-t.C:
			flush(ctx)
		case <-s.stop:
			for {
				select {
				case ev := <-s.q:
					batch = append(batch, ev)
					if len(batch) == s.cfg.Batch {
						flush(ctx)
					}
				default:
					flush(ctx)
					return
				}
			}
		}
	}
}

// send posts one batch, retrying with a doubling pause, and counts it as
// sent or dropped.
func (s *Sink) send(ctx context.Context, batch []Event) {
	body, err := json.Marshal(batch)
	if err != nil {
		s.dropped.Add(uint64(len(batch)))
		s.cfg.Log.Error("audit sink: events dropped", "events", len(batch), "cause", err.Error())
		return
	}
	wait := s.cfg.RetryWait
	for attempt := 0; ; attempt++ {
		err = s.post(ctx, body)
		if err == nil {
			s.sent.Add(uint64(len(batch)))
			return
		}
		if attempt == s.cfg.Retries {
			break
		}
		select {
		case <-time.After(wait):
			wait *= 2
		case <-s.stop:
			// Closing: one last try is all a batch gets.
			if attempt > 0 {
				s.dropped.Add(uint64(len(batch)))
				s.cfg.Log.Error("audit sink: events dropped", "events", len(batch), "cause", err.Error())
				return
			}
		}
	}
	s.dropped.Add(uint64(len(batch)))
	s.cfg.Log.Error("audit sink: events dropped", "events", len(batch), "cause", err.Error(), "tries", s.cfg.Retries+1)
}

func (s *Sink) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/cloudevents-batch+json")
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("collector answered %s", resp.Status)
	}
	return nil
}

// Close sends what is queued and stops the sink, waiting at most until ctx
// ends; what is still unsent then is dropped.
func (s *Sink) Close(ctx context.Context) error {
	s.once.Do(func() { close(s.stop) })
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return errors.Join(errors.New("audit sink: closed before every event was sent"), ctx.Err())
	}
}
