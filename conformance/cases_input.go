package conformance

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/moltgate/moltgate/wire"
)

// inputCases: bodies above the limits and messages that are not well-formed
// JSON or not well-typed MoltSpeak, each refused with the decoder's code.
// Each is made from the prober's genuine signed ping, sent bare (which pub
// allows), and the genuine ping is served.
func inputCases() []testCase {
	// field is the JSON path the refusal must name; "" names none, for
	// input that is not JSON at all.
	bare := func(name, field string, want wire.Code, alter func(s *suite, b []byte) []byte) testCase {
		return testCase{"input." + name, func(ctx context.Context, s *suite) (string, error) {
			r, _, err := s.sendOutside(ctx, func() []byte { return alter(s, s.barePing()) }, s.prober)
			if err != nil {
				return "", err
			}
			d, err := refused(r, want)
			if field != "" && err == nil {
				d, err = refusedAt(r, field, want)
			}
			return withControl(ctx, d, err, func(ctx context.Context) error {
				r, _, err := s.sendOutside(ctx, s.barePing, s.prober)
				if err != nil {
					return err
				}
				return served(r, wire.OpPong)
			})
		}}
	}
	// inNonce puts raw bytes inside the ping's nonce string.
	inNonce := func(raw string) func(*suite, []byte) []byte {
		return func(_ *suite, b []byte) []byte {
			return bytes.Replace(b, []byte(`"nonce":"conformance-`), []byte(`"nonce":"conformance-`+raw), 1)
		}
	}
	member := func(path string, v wire.Value) func(*suite, []byte) []byte {
		return func(_ *suite, b []byte) []byte { return wire.AppendCanonical(nil, set(parseTree(b), path, v)) }
	}
	// A limit's worth and more of one string, as JSON.
	big := func(n int) []byte {
		return append(append([]byte(`{"moltspeak":"0.1","pad":"`), bytes.Repeat([]byte("x"), n)...), `"}`...)
	}
	return []testCase{
		bare("json.truncated", "", wire.ErrParse, func(_ *suite, b []byte) []byte { return b[:len(b)/2] }),
		bare("json.trailing_data", "", wire.ErrParse, func(_ *suite, b []byte) []byte { return append(b, `{"v":"0.1"}`...) }),
		bare("json.duplicate_key", "cls", wire.ErrParse, func(_ *suite, b []byte) []byte {
			return append([]byte(`{"cls":"pub",`), b[1:]...)
		}),
		bare("json.deep_nesting", "", wire.ErrParse, func(_ *suite, b []byte) []byte {
			deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
			return bytes.Replace(b, []byte(`"p":{`), []byte(`"p":{"deep":`+deep+`,`), 1)
		}),
		bare("json.integer_beyond_2^53", "x-amount", wire.ErrParse, func(_ *suite, b []byte) []byte {
			return append([]byte(`{"x-amount":9007199254740993,`), b[1:]...)
		}),
		bare("json.comment", "", wire.ErrParse, func(_ *suite, b []byte) []byte { return append([]byte("/* a comment */"), b...) }),
		bare("utf8.invalid_byte", "p.nonce", wire.ErrParse, inNonce("\xff")),
		bare("utf8.overlong", "p.nonce", wire.ErrParse, inNonce("\xc0\xaf")),
		bare("utf8.encoded_surrogate", "p.nonce", wire.ErrParse, inNonce("\xed\xa0\x80")),
		bare("utf8.lone_surrogate_escape", "p.nonce", wire.ErrParse, inNonce(`\ud800`)),
		bare("type.ts_string", "ts", wire.ErrSchema, member("ts", wire.StringValue("1800000000000"))),
		bare("type.from_string", "from", wire.ErrSchema, member("from", wire.StringValue("prober@conformance"))),
		bare("type.payload_number", "p.nonce", wire.ErrSchema, member("p.nonce", wire.IntValue(42))),
		bare("type.p_array", "p", wire.ErrSchema, member("p", wire.ArrayValue())),
		bare("missing.id", "id", wire.ErrMissingField, func(_ *suite, b []byte) []byte {
			return wire.AppendCanonical(nil, parseTree(b).Without("id"))
		}),
		bare("missing.from.agent", "from.agent", wire.ErrMissingField, func(_ *suite, b []byte) []byte {
			t := parseTree(b)
			return wire.AppendCanonical(nil, t.With("from", t.Get("from").Without("agent")))
		}),
		bare("invalid.id", "id", wire.ErrInvalidParam, member("id", wire.StringValue("not-a-uuid"))),
		bare("invalid.ts_in_seconds", "ts", wire.ErrInvalidParam, func(s *suite, b []byte) []byte {
			return member("ts", wire.IntValue(s.cfg.Now().Unix()))(s, b)
		}),
		bare("invalid.op", "op", wire.ErrInvalidParam, member("op", wire.StringValue("teleport"))),
		bare("invalid.cls", "cls", wire.ErrInvalidParam, member("cls", wire.StringValue("top-secret"))),
		bare("version.unknown", "v", wire.ErrVersion, member("v", wire.StringValue("9.9"))),
		bare("envelope.unknown_member", "smuggled", wire.ErrSchema, func(_ *suite, b []byte) []byte {
			return fmt.Appendf(nil, `{"envelope":{"encrypted":false},"message":%s,"moltspeak":"0.1","smuggled":1}`, b)
		}),
		{"input.sealed.not_json", func(ctx context.Context, s *suite) (string, error) {
			// Well sealed by the prober, but what it seals is not a message.
			r, _, err := s.sendOutside(ctx, func() []byte { return s.seal(s.prober, []byte(`{"v":"0.1",`)) }, s.prober)
			if err != nil {
				return "", err
			}
			d, err := refused(r, wire.ErrParse)
			return withControl(ctx, d, err, s.genuinePing)
		}},
		{"input.oversize.message", func(ctx context.Context, s *suite) (string, error) {
			r, err := s.postMessage(ctx, big(3<<20), opener{as: s.prober})
			if err != nil {
				return "", fmt.Errorf("a 3 MiB body got no answer the client could read: %w", err)
			}
			d, err := refused(r, wire.ErrTooLarge)
			return withControl(ctx, "3 MiB "+d, err, s.genuinePing)
		}},
		{"input.oversize.batch", func(ctx context.Context, s *suite) (string, error) {
			a, err := s.net.post(ctx, batchPath, append(append([]byte(`[`), big(11<<20)...), ']'))
			if err != nil {
				return "", fmt.Errorf("an 11 MiB batch got no answer the client could read: %w", err)
			}
			r := reply{face: "batch", status: a.status}
			if r.msg, err = s.open(a.body, opener{as: s.prober}); err != nil {
				return "", err
			}
			d, err := refused(r, wire.ErrTooLarge)
			return withControl(ctx, "11 MiB "+d, err, func(ctx context.Context) error {
				rs, err := s.postBatch(ctx, [][]byte{s.sealedTree(s.prober, s.tree(s.ping()))}, opener{as: s.prober})
				if err != nil {
					return err
				}
				return served(rs[0], wire.OpPong)
			})
		}},
		{"input.oversize.grpc", func(ctx context.Context, s *suite) (string, error) {
			r, err := s.grpcSend(ctx, big(2<<20), opener{as: s.prober})
			if err != nil {
				return "", err
			}
			d, err := refused(r, wire.ErrTooLarge)
			return withControl(ctx, "2 MiB "+d, err, func(ctx context.Context) error {
				r, err := s.grpcSend(ctx, s.sealedTree(s.prober, s.tree(s.ping())), opener{as: s.prober})
				if err != nil {
					return err
				}
				return served(r, wire.OpPong)
			})
		}},
		{"input.oversize.websocket", func(ctx context.Context, s *suite) (string, error) {
			ch, err := s.dial(ctx, "websocket")
			if err != nil {
				return "", err
			}
			defer ch.close()
			r, err := s.exchange(ctx, ch, big(2<<20), opener{as: s.prober})
			if err != nil {
				return "", err
			}
			d, err := refused(r, wire.ErrTooLarge)
			return withControl(ctx, "2 MiB "+d, err, func(ctx context.Context) error {
				r, err := s.exchange(ctx, ch, s.sealedTree(s.prober, s.tree(s.ping())), opener{as: s.prober})
				if err != nil {
					return fmt.Errorf("the same connection after the refusal: %w", err)
				}
				return served(r, wire.OpPong)
			})
		}},
	}
}

// barePing is the prober's genuine ping, signed and not sealed.
func (s *suite) barePing() []byte { return signTree(s.tree(s.ping()), s.prober.Signing) }
