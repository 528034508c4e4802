package httpface

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// cryptoRand reads crypto/rand, the default source of request ids.
type cryptoRand struct{}

func (cryptoRand) Read(p []byte) (int, error) { return rand.Read(p) }

// readBody reads a request body of at most limit bytes. A body it cannot
// take is refused here, with the reason: too large, too slow, or not a
// well-formed HTTP body. It counts as a message of no op on face.
func (f *Face) readBody(w http.ResponseWriter, r *http.Request, face string, limit int) ([]byte, bool) {
	err := bodyError(r.ContentLength, limit, nil)
	if err == nil {
		// A body announced as too large is refused before it is read, so a
		// client that asked to continue is told at once.
		b, rerr := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(limit)))
		if rerr == nil {
			return b, true
		}
		err = bodyError(r.ContentLength, limit, rerr)
	}
	if err.Code != wire.ErrTooLarge {
		f.refuseBody(w, face, err)
		return nil, false
	}
	if r.ProtoMajor == 1 {
		// The connection ends after the answer: what is left of the body
		// is not read as the next request.
		w.Header().Set("Connection", "close")
	}
	f.refuseBody(w, face, err)
	f.drain(w, r)
	return nil, false
}

// drain reads and throws away what is left of a body refused as too large,
// up to DrainBytes, once the refusal is sent. Most clients send their whole
// body before they read (Python's http.client, for one): a server that
// closes with the body unread resets the connection, and the reset discards
// the 413 before the client reads it. A client that asked to continue and
// was refused sends nothing more, and a body announced larger than the
// bound would be cut off anyway: neither is waited for.
//
// The client has DrainTime for each drainStep it sends, not for the whole
// body: a client on a loaded machine that keeps sending is read to the
// end, and one that trickles is cut off within DrainTime of falling behind.
func (f *Face) drain(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	rc.Flush()
	if r.ContentLength > f.cfg.DrainBytes || r.ProtoAtLeast(1, 1) && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return
	}
	for left := f.cfg.DrainBytes; left > 0; {
		rc.SetReadDeadline(time.Now().Add(f.cfg.DrainTime))
		n, err := io.CopyN(io.Discard, r.Body, min(left, drainStep))
		left -= n
		if err != nil {
			return
		}
	}
}

// drainStep is how much of a refused body a client must send within each
// DrainTime to be read on: 1 MiB in 5 s by default, which any client
// that is not stalling manages, and 16 MiB is then read within 80 s at most.
const drainStep = 1 << 20

// refuseBody answers a request refused before its message was read, and
// counts it as a message of no op on face.
func (f *Face) refuseBody(w http.ResponseWriter, face string, err *wire.Error) {
	f.cfg.Messages.WithLabelValues("none", face, string(err.Code)).Inc()
	WriteAnswer(w, f.cfg.Pipeline.Refuse(nil, nil, err))
}

// bodyError is the refusal of a request body of announced length n (-1 if
// not announced) under limit, given the error reading it ended with.
func bodyError(n int64, limit int, err error) *wire.Error {
	var mb *http.MaxBytesError
	var ne net.Error
	switch {
	case n > int64(limit) || errors.As(err, &mb):
		return wire.Errorf(wire.ErrTooLarge, "", "body exceeds %d bytes", limit)
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return wire.Errorf(wire.ErrTimeout, "", "the request body did not arrive in time")
	default:
		return wire.Errorf(wire.ErrParse, "", "the request body could not be read")
	}
}

// deadline is the request's deadline on the process's clock: its
// X-Moltgate-Deadline header (unix milliseconds, on the gateway's clock
// like every time in a message), at most the request timeout.
func (f *Face) deadline(r *http.Request) time.Time {
	left := f.cfg.RequestTimeout
	if v := r.Header.Get(HeaderDeadline); v != "" {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			left = min(left, time.UnixMilli(ms).Sub(f.cfg.Now()))
		}
	}
	return time.Now().Add(left)
}

// WriteAnswer writes the pipeline's answer as an HTTP response: its
// status (200 if none), Retry-After if it says when to try again, and the
// envelope, if any, as a JSON line.
func WriteAnswer(w http.ResponseWriter, a pipeline.Answer) {
	if a.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(a.RetryAfter)))
	}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	if a.Body == nil {
		w.WriteHeader(a.Status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	w.Write(a.Body)
	w.Write([]byte("\n"))
}

// RetryAfterSeconds rounds a delay up to whole seconds, as Retry-After
// carries.
func RetryAfterSeconds(d time.Duration) int {
	return int(math.Ceil(max(d, time.Second).Seconds()))
}

// serveMessage is POST /moltspeak/v0.1/message: one envelope or bare
// message. The reply comes in the response when it is ready within the
// request's deadline and the face's reply wait; otherwise the answer is 202
// and the reply is delivered to the sender's gateway when it is ready. A
// client that accepts application/x-ndjson gets a streamed reply as one
// envelope per line.
func (f *Face) serveMessage(w http.ResponseWriter, r *http.Request) {
	body, ok := f.readBody(w, r, pipeline.FaceHTTP, f.cfg.Pipeline.EnvelopeLimit())
	if !ok {
		return
	}
	deadline := f.deadline(r)
	if !time.Now().Before(deadline) {
		// Nothing could be answered in time, and a 202 would promise a
		// reply to a call that is not taken.
		f.refuseBody(w, pipeline.FaceHTTP, wire.Errorf(wire.ErrTimeout, "", "the request's deadline (%s) has passed", HeaderDeadline))
		return
	}
	streaming := strings.Contains(r.Header.Get("Accept"), ContentNDJSON)
	// The call outlives the request if it must: it is bounded by its own
	// deadline, not by the connection.
	ctx, cancel := context.WithDeadline(context.WithoutCancel(r.Context()), deadline)
	var mu sync.Mutex
	started, gone := false, false
	requestID := ""              // the message's id, once the pipeline has authenticated it
	taken := make(chan struct{}) // closed then
	flusher, _ := w.(http.Flusher)
	var emit func([]byte) error
	if streaming {
		emit = func(env []byte) error {
			mu.Lock()
			defer mu.Unlock()
			if gone {
				return nil
			}
			if !started {
				w.Header().Set("Content-Type", ContentNDJSON)
				w.WriteHeader(http.StatusOK)
				started = true
			}
			w.Write(env)
			w.Write([]byte("\n"))
			if flusher != nil {
				flusher.Flush()
			}
			return nil
		}
	}
	done := make(chan pipeline.Answer, 1)
	o := pipeline.Origin{Face: pipeline.FaceHTTP, Remote: r.RemoteAddr, OnRequest: func(id string) {
		mu.Lock()
		requestID = id
		mu.Unlock()
		close(taken)
	}}
	go func() {
		defer cancel()
		done <- f.cfg.Pipeline.Handle(ctx, o, body, emit)
	}()
	finish := func(a pipeline.Answer) {
		mu.Lock()
		defer mu.Unlock()
		if started {
			if a.Body != nil {
				w.Write(a.Body)
				w.Write([]byte("\n"))
			}
			return
		}
		WriteAnswer(w, a)
	}
	leave := func() {
		mu.Lock()
		gone = true
		mu.Unlock()
		go f.deliverLater(done)
	}
	wait := time.NewTimer(min(f.cfg.ReplyWait, time.Until(deadline)))
	defer wait.Stop()
	select {
	case a := <-done:
		finish(a)
		return
	case <-r.Context().Done():
		leave()
		return
	case <-wait.C:
	}
	// A 202 promises a reply later, so it is only for a message that the
	// pipeline has taken in; anything refused before that is answered here.
	select {
	case <-taken:
	default:
		select {
		case a := <-done:
			finish(a)
			return
		case <-r.Context().Done():
			leave()
			return
		case <-taken:
		}
	}
	mu.Lock()
	if started {
		// Chunks are flowing: keep the response open to the end.
		mu.Unlock()
		finish(<-done)
		return
	}
	gone = true
	id := requestID
	mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	// The reference is the request's own id: the late reply is a
	// message whose re names it.
	accepted, _ := json.Marshal(struct {
		Status    string `json:"status"`
		RequestID string `json:"request_id"`
		Delivery  string `json:"delivery"`
	}{"accepted", id, "the reply will be sent to your gateway as a message whose re is request_id"})
	w.Write(append(accepted, '\n'))
	go f.deliverLater(done)
}

// deliverLater hands a reply that was not ready in time to Late, which
// sends it to the gateway of the organisation that asked.
func (f *Face) deliverLater(done <-chan pipeline.Answer) {
	a := <-done
	if a.Body == nil || a.Peer == "" {
		return
	}
	f.cfg.Late(a)
}

// serveBatch is POST /moltspeak/v0.1/batch: a JSON array of envelopes,
// answered with an array of per-item results {"status":…,"reply":envelope}.
func (f *Face) serveBatch(w http.ResponseWriter, r *http.Request) {
	body, ok := f.readBody(w, r, pipeline.FaceBatch, f.cfg.BatchBytes)
	if !ok {
		return
	}
	v, err := wire.Parse(body, wire.MaxDepth+2)
	if err != nil || v.Kind() != wire.Array {
		if err == nil {
			err = wire.Errorf(wire.ErrSchema, "", "a batch is a JSON array of envelopes")
		}
		WriteAnswer(w, f.cfg.Pipeline.Refuse(nil, nil, err))
		return
	}
	if v.Len() > f.cfg.MaxBatch {
		WriteAnswer(w, f.cfg.Pipeline.Refuse(nil, nil, wire.Errorf(wire.ErrTooLarge, "", "a batch holds at most %d envelopes", f.cfg.MaxBatch)))
		return
	}
	ctx, cancel := context.WithDeadline(r.Context(), f.deadline(r))
	defer cancel()
	o := pipeline.Origin{Face: pipeline.FaceBatch, Remote: r.RemoteAddr, Unread: &pipeline.UnreadRefusals{}}
	results := make([]pipeline.Answer, v.Len())
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, item := range v.Elems() {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = f.cfg.Pipeline.Handle(ctx, o, wire.AppendCanonical(nil, item.Value), nil)
		}()
	}
	wg.Wait()
	out := make([]byte, 0, 1024)
	out = append(out, '[')
	for i, a := range results {
		if i > 0 {
			out = append(out, ',')
		}
		if a.Status == 0 {
			a.Status = http.StatusOK
		}
		out = append(out, `{"status":`...)
		out = strconv.AppendInt(out, int64(a.Status), 10)
		if a.Body != nil {
			out = append(out, `,"reply":`...)
			out = append(out, a.Body...)
		}
		out = append(out, '}')
	}
	out = append(out, ']', '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}
