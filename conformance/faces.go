package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// postMessage sends one envelope to the HTTP message route.
func (s *suite) postMessage(ctx context.Context, b []byte, o opener) (reply, error) {
	a, err := s.net.post(ctx, messagePath, b)
	if err != nil {
		return reply{}, err
	}
	r := reply{face: "http", status: a.status, retryAfter: a.retryAfter}
	if r.msg, err = s.open(a.body, o); err != nil {
		return r, fmt.Errorf("HTTP %d: %w", a.status, err)
	}
	if r.msg == nil && a.status != 200 {
		return r, fmt.Errorf("HTTP %d with an empty body", a.status)
	}
	return r, nil
}

// postBatch sends envelopes to the HTTP batch route and returns each
// one's answer, in order.
func (s *suite) postBatch(ctx context.Context, bodies [][]byte, o opener) ([]reply, error) {
	arr := []byte{'['}
	for i, b := range bodies {
		if i > 0 {
			arr = append(arr, ',')
		}
		arr = append(arr, b...)
	}
	arr = append(arr, ']')
	a, err := s.net.post(ctx, batchPath, arr)
	if err != nil {
		return nil, err
	}
	if a.status != 200 {
		return nil, fmt.Errorf("batch answered HTTP %d: %.200q", a.status, a.body)
	}
	var items []struct {
		Status int             `json:"status"`
		Reply  json.RawMessage `json:"reply"`
	}
	if err := json.Unmarshal(a.body, &items); err != nil {
		return nil, fmt.Errorf("batch answer is not an array of {status, reply}: %v", err)
	}
	if len(items) != len(bodies) {
		return nil, fmt.Errorf("batch of %d answered with %d items", len(bodies), len(items))
	}
	out := make([]reply, len(items))
	for i, it := range items {
		out[i] = reply{face: "batch", status: it.Status}
		if out[i].msg, err = s.open(it.Reply, o); err != nil {
			return nil, fmt.Errorf("batch item %d: %w", i, err)
		}
	}
	return out, nil
}

// grpcSend sends one envelope to the gRPC Send method.
func (s *suite) grpcSend(ctx context.Context, b []byte, o opener) (reply, error) {
	a, err := s.net.send(ctx, b)
	if err != nil {
		return reply{}, err
	}
	r := reply{face: "grpc", grpc: a.code, isGRPC: true}
	if r.msg, err = s.open(a.reply, o); err != nil {
		return r, fmt.Errorf("gRPC %s: %w", a.code, err)
	}
	if r.msg == nil {
		return r, fmt.Errorf("gRPC %s (%s) with no envelope", a.code, a.msg)
	}
	return r, nil
}

// streamExchange sends one envelope on a stream connection and reads the
// next one back.
func (s *suite) streamExchange(ctx context.Context, c streamConn, face string, b []byte, o opener) (reply, error) {
	if err := c.Send(ctx, b); err != nil {
		return reply{}, fmt.Errorf("%s: send: %w", face, err)
	}
	return s.streamReceive(ctx, c, face, o)
}

func (s *suite) streamReceive(ctx context.Context, c streamConn, face string, o opener) (reply, error) {
	in, err := c.Receive(ctx)
	if err != nil {
		return reply{}, fmt.Errorf("%s: no answer: %w", face, err)
	}
	r := reply{face: face}
	if r.msg, err = s.open(in, o); err != nil {
		return r, fmt.Errorf("%s: %w", face, err)
	}
	return r, nil
}

// retry sends what build makes until the gateway stops answering
// E_RATE_LIMIT, waiting as it says. It returns the last answer and the
// bytes that got it.
func (s *suite) retry(ctx context.Context, build func() []byte, send func([]byte) (reply, error)) (reply, []byte, error) {
	for {
		b := build()
		r, err := send(b)
		if err != nil || r.code() != wire.ErrRateLimit {
			return r, b, err
		}
		if err := sleep(ctx, backoff(r)); err != nil {
			return r, b, fmt.Errorf("still rate limited: %w", err)
		}
	}
}

// backoff is how long a rate-limited sender waits: what the refusal
// suggests, within [50ms, 3s].
func backoff(r reply) time.Duration {
	d := 500 * time.Millisecond
	if p, ok := wire.PayloadAs[wire.ErrorPayload](r.msg); ok && p.Suggestion != nil && p.Suggestion.DelayMS > 0 {
		d = time.Duration(p.Suggestion.DelayMS) * time.Millisecond
	} else if n, err := strconv.Atoi(r.retryAfter); err == nil {
		d = time.Duration(n) * time.Second
	}
	return min(max(d, 50*time.Millisecond), 3*time.Second)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// once builds the same bytes every time: for a message that must be sent
// exactly as it is (a replay).
func once(b []byte) func() []byte { return func() []byte { return b } }
