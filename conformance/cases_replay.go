package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// replayCases: a message accepted once is refused when it comes again, on
// every face and across faces; in a session, a counter used once is
// refused, and so is a signed message sealed again under a new counter.
func replayCases() []testCase {
	// accepted sends a fresh sealed ping on the message route and returns
	// its bytes once it was served.
	accepted := func(ctx context.Context, s *suite) ([]byte, error) {
		r, b, err := s.sendOutside(ctx, func() []byte { return s.sealedTree(s.prober, s.tree(s.ping())) }, s.prober)
		if err != nil {
			return nil, err
		}
		if err := served(r, wire.OpPong); err != nil {
			return nil, fmt.Errorf("the first copy: %w", err)
		}
		return b, nil
	}
	sessionReplay := func(face string) testCase {
		return testCase{"replay." + face + ".session_counter", func(ctx context.Context, s *suite) (string, error) {
			ch, err := s.dial(ctx, face)
			if err != nil {
				return "", err
			}
			defer ch.close()
			sess, err := s.session(ctx, ch)
			if err != nil {
				return "", err
			}
			env := sess.sealNext(signTree(s.tree(s.sessionPing()), s.prober.Signing))
			r, err := s.exchange(ctx, ch, env, opener{sess: sess})
			if err != nil {
				return "", err
			}
			if err := served(r, wire.OpPong); err != nil {
				return "", fmt.Errorf("the first copy: %w", err)
			}
			if r, err = s.exchange(ctx, ch, env, opener{sess: sess}); err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the first copy answered with pong", err
		}}
	}
	return []testCase{
		{"replay.http.message", func(ctx context.Context, s *suite) (string, error) {
			b, err := accepted(ctx, s)
			if err != nil {
				return "", err
			}
			r, err := s.postMessage(ctx, b, opener{as: s.prober})
			if err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the first copy answered with pong", err
		}},
		{"replay.http.batch", func(ctx context.Context, s *suite) (string, error) {
			b := s.sealedTree(s.prober, s.tree(s.ping()))
			rs, err := s.postBatch(ctx, [][]byte{b, b}, opener{as: s.prober})
			if err != nil {
				return "", err
			}
			// A batch's items may be handled at once: whichever copy comes
			// second is the replay.
			first, second := rs[0], rs[1]
			if first.code() == wire.ErrReplay {
				first, second = second, first
			}
			if err := served(first, wire.OpPong); err != nil {
				return "", fmt.Errorf("neither copy in the batch: %w", err)
			}
			d, err := refused(second, replayOnly...)
			return "one copy in the batch " + d + ", the other answered with pong", err
		}},
		{"replay.http.message_then_batch", func(ctx context.Context, s *suite) (string, error) {
			b, err := accepted(ctx, s)
			if err != nil {
				return "", err
			}
			rs, err := s.postBatch(ctx, [][]byte{b}, opener{as: s.prober})
			if err != nil {
				return "", err
			}
			d, err := refused(rs[0], replayOnly...)
			return d + "; the copy on the message route answered with pong", err
		}},
		{"replay.grpc.send", func(ctx context.Context, s *suite) (string, error) {
			b := s.sealedTree(s.prober, s.tree(s.ping()))
			r, err := s.grpcSend(ctx, b, opener{as: s.prober})
			if err != nil {
				return "", err
			}
			if err := served(r, wire.OpPong); err != nil {
				return "", fmt.Errorf("the first copy: %w", err)
			}
			if r, err = s.grpcSend(ctx, b, opener{as: s.prober}); err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the first copy answered with pong", err
		}},
		{"replay.grpc.after_http", func(ctx context.Context, s *suite) (string, error) {
			b, err := accepted(ctx, s)
			if err != nil {
				return "", err
			}
			r, err := s.grpcSend(ctx, b, opener{as: s.prober})
			if err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the copy on the HTTP message route answered with pong", err
		}},
		{"replay.websocket.after_http", func(ctx context.Context, s *suite) (string, error) {
			b, err := accepted(ctx, s)
			if err != nil {
				return "", err
			}
			ch, err := s.dial(ctx, "websocket")
			if err != nil {
				return "", err
			}
			defer ch.close()
			r, err := s.exchange(ctx, ch, b, opener{as: s.prober})
			if err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the copy on the HTTP message route answered with pong", err
		}},
		sessionReplay("http"),
		sessionReplay("websocket"),
		sessionReplay("grpc-stream"),
		{"replay.session.resealed_under_a_new_counter", func(ctx context.Context, s *suite) (string, error) {
			// The same signed message, sealed again in the same session: a
			// tool with side effects must not run twice for one id.
			ch := s.httpChannel()
			sess, err := s.session(ctx, ch)
			if err != nil {
				return "", err
			}
			signed := signTree(s.tree(s.sessionPing()), s.prober.Signing)
			r, err := s.exchange(ctx, ch, sess.sealNext(signed), opener{sess: sess})
			if err != nil {
				return "", err
			}
			if err := served(r, wire.OpPong); err != nil {
				return "", fmt.Errorf("the first copy: %w", err)
			}
			if r, err = s.exchange(ctx, ch, sess.sealNext(signed), opener{sess: sess}); err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the first sealing answered with pong", err
		}},
		{"replay.ts_stale", func(ctx context.Context, s *suite) (string, error) {
			return s.timeCase(ctx, func(m *wire.Message) { m.TS = s.cfg.Now().Add(-10 * time.Minute).UnixMilli() }, wire.ErrReplay)
		}},
		{"replay.ts_future", func(ctx context.Context, s *suite) (string, error) {
			return s.timeCase(ctx, func(m *wire.Message) { m.TS = s.cfg.Now().Add(10 * time.Minute).UnixMilli() }, wire.ErrReplay)
		}},
		{"replay.exp_passed", func(ctx context.Context, s *suite) (string, error) {
			return s.timeCase(ctx, func(m *wire.Message) {
				m.TS = s.cfg.Now().Add(-2 * time.Minute).UnixMilli()
				m.Exp = s.cfg.Now().Add(-time.Minute).UnixMilli()
			}, wire.ErrExpired)
		}},
	}
}

// timeCase sends the prober's ping with its times changed by alter.
func (s *suite) timeCase(ctx context.Context, alter func(*wire.Message), want wire.Code) (string, error) {
	r, _, err := s.sendOutside(ctx, func() []byte {
		m := s.ping()
		alter(m)
		return s.sealedTree(s.prober, s.tree(m))
	}, s.prober)
	if err != nil {
		return "", err
	}
	d, err := refused(r, want)
	return withControl(ctx, d, err, s.genuinePing)
}
