package bench

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// load is what one measured phase's callers did.
type load struct {
	ops     int             // calls (or streamed messages) completed inside the window
	lat     []time.Duration // their latencies
	errs    map[string]int  // failures by code
	elapsed time.Duration
}

func (l *load) fail(err error) {
	c := "error"
	var re *localbridge.RPCError
	switch {
	case errors.As(err, &re) && re.MoltSpeakCode != "":
		c = re.MoltSpeakCode
	case errors.As(err, &re):
		c = re.Message
	case err != nil:
		c = err.Error()
	}
	if l.errs == nil {
		l.errs = map[string]int{}
	}
	l.errs[c]++
}

func (l *load) merge(o *load) {
	l.ops += o.ops
	l.lat = append(l.lat, o.lat...)
	for k, v := range o.errs {
		if l.errs == nil {
			l.errs = map[string]int{}
		}
		l.errs[k] += v
	}
}

// percentile returns the p-th percentile (0 < p <= 100) of the latencies,
// by the nearest-rank method.
func percentile(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// window runs workers from now until d has passed and reports what they
// completed inside it. at is called at the start and at the end of the
// window, to read the processes' CPU clocks at the same moments.
func window(ctx context.Context, workers int, d time.Duration, at func(), work func(ctx context.Context, w int, end time.Time, l *load)) *load {
	start := time.Now()
	end := start.Add(d)
	// Work in flight at the end of the window is cut off: a stream is
	// cancelled, a call's late answer is not counted.
	wctx, cancel := context.WithDeadline(ctx, end.Add(5*time.Second))
	defer cancel()
	at()
	loads := make([]*load, workers)
	var wg sync.WaitGroup
	for w := range workers {
		loads[w] = &load{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(wctx, w, end, loads[w])
		}()
	}
	time.Sleep(time.Until(end))
	at()
	wg.Wait()
	total := &load{elapsed: d}
	for _, l := range loads {
		total.merge(l)
	}
	return total
}

// A roundTrip makes one call and waits for its answer. Each worker has
// its own (see callers), so it may keep state of its own between calls.
type roundTrip func(ctx context.Context) error

// echoCalls gives worker w a call of the echo tool over one of the
// clients, answered by the peer's agent: one request and one reply cross
// between the gateways per call.
func echoCalls(clients []*localbridge.Client, req localbridge.QueryRequest) func(w int) roundTrip {
	return func(w int) roundTrip {
		cl := clients[w%len(clients)]
		return func(ctx context.Context) error {
			_, err := cl.Query(ctx, req, nil)
			return err
		}
	}
}

// roundTrips makes calls in a loop from each worker, the next when the
// last one ends.
func roundTrips(calls func(w int) roundTrip) func(ctx context.Context, w int, end time.Time, l *load) {
	return func(ctx context.Context, w int, end time.Time, l *load) {
		call := calls(w)
		for time.Now().Before(end) && l.call(ctx, call, time.Now(), end) {
		}
	}
}

// call makes one call and counts it, its latency taken from start. It
// reports false if the window ended before the call did.
func (l *load) call(ctx context.Context, call roundTrip, start, end time.Time) bool {
	err := call(ctx)
	done := time.Now()
	if done.After(end) {
		return false
	}
	if err != nil {
		l.fail(err)
	} else {
		l.ops++
		l.lat = append(l.lat, done.Sub(start))
	}
	return true
}

// pacedCallers is how many callers share the paced phase's rate: enough
// that a slow reply does not hold up the next call's start.
const pacedCallers = 64

// paced makes calls from each worker at a fixed rate (calls a second),
// whatever the replies do: the load of a steady stream of requests, below
// what the gateways can take. Each call's latency runs from the moment it
// was due, so a call that starts late because the one before it was slow
// counts its wait too.
func paced(calls func(w int) roundTrip, rate float64) func(ctx context.Context, w int, end time.Time, l *load) {
	every := time.Duration(float64(time.Second) / rate)
	return func(ctx context.Context, w int, end time.Time, l *load) {
		call := calls(w)
		// Workers start spread over one interval, not all at once.
		due := time.Now().Add(every * time.Duration(w) / pacedCallers)
		for due.Before(end) {
			time.Sleep(time.Until(due))
			if !l.call(ctx, call, due, end) {
				return
			}
			due = due.Add(every)
		}
	}
}

// errWindowEnd stops a stream when the measured window is over.
var errWindowEnd = errors.New("the measured window ended")

// oneWay calls the stamp tool in a loop from each worker: each partial
// result the agent streams crosses from the peer's gateway to this one as
// its own signed, sealed stream message. Its latency is from the agent
// sending it to the caller receiving it (one machine, one clock).
func oneWay(clients []*localbridge.Client, req localbridge.QueryRequest) func(ctx context.Context, w int, end time.Time, l *load) {
	return func(ctx context.Context, w int, end time.Time, l *load) {
		cl := clients[w%len(clients)]
		sctx, cancel := context.WithDeadline(ctx, end)
		defer cancel()
		for time.Now().Before(end) {
			_, err := cl.Query(sctx, req, func(ev localbridge.StreamEvent) error {
				now := time.Now()
				if now.After(end) {
					return errWindowEnd
				}
				var s struct {
					SentUS int64 `json:"sent_us"`
				}
				if err := jsonrpc.Unmarshal(ev.Block, &s); err != nil || s.SentUS == 0 {
					return errors.New("a streamed message without its time")
				}
				l.ops++
				l.lat = append(l.lat, time.Duration(now.UnixMicro()-s.SentUS)*time.Microsecond)
				return nil
			})
			// What ends with the window is not a failure.
			if err != nil && !errors.Is(err, errWindowEnd) && sctx.Err() == nil && time.Now().Before(end) {
				l.fail(err)
			}
		}
	}
}
