package pipeline

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// Level is the level the security log gives a refusal with code c, after
// the security model's table: a signature that does not hold is an error
// (a forgery, or a peer whose keys are broken); failed authentication,
// capability, rate limits, replays and the data protection gate are
// warnings; the rest (malformed or misaddressed messages, an agent's own
// failure) are information. An internal error is an error.
func Level(c wire.Code) slog.Level {
	switch c {
	case wire.ErrSignature, wire.ErrInternal:
		return slog.LevelError
	case wire.ErrAuthFailed, wire.ErrCapability, wire.ErrRateLimit, wire.ErrRateLimitDiscovery, wire.ErrReplay,
		wire.ErrConsent, wire.ErrClassification, wire.ErrVisibilityDenied:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// logOutcome writes the security log's line for one envelope: every
// refusal once, at its Level, and one in SuccessSample of the calls from
// peers that were answered. It names parties, codes and ids, never
// content: a refusal's words are the gate's or the pipeline's own, and
// its field is cut as ErrorField cuts it.
func (p *Pipeline) logOutcome(ctx context.Context, in *Inbound, a Answer, took time.Duration) {
	if a.Code == "" {
		if !in.admitted || !in.FromPeer || IsReply(in.M) || !p.sampleSuccess() {
			return
		}
		if !p.Log.Enabled(ctx, slog.LevelInfo) {
			return
		}
		m := in.M
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "call answered", 0)
		r.AddAttrs(slog.String("op", string(m.Op)), slog.String("face", in.Origin.Face),
			slog.String("peer", m.From.Org), slog.String("from", m.From.Ref().String()), slog.String("to", m.To.String()),
			slog.String("message_id", m.ID), slog.String("cls", m.Cls.String()), DurationAttr("duration_ms", took))
		// Straight to the handler: Logger.LogAttrs would walk the stack for
		// the caller's pc on every answered call, for a source that is
		// always this line and that the gateway's handler does not print.
		_ = p.Log.Handler().Handle(ctx, r)
		return
	}
	level := Level(a.Code)
	if !p.Log.Enabled(ctx, level) {
		return
	}
	msg := "message refused"
	switch {
	case in.block != nil:
		msg = "message blocked"
	case in.hello:
		msg = "handshake refused"
	}
	attrs := make([]slog.Attr, 0, 12)
	attrs = append(attrs, slog.String("code", string(a.Code)), slog.String("reason", p.reason(in, a)), slog.String("face", in.Origin.Face))
	if in.Origin.Remote != "" {
		attrs = append(attrs, slog.String("remote", in.Origin.Remote))
	}
	var m *wire.Message
	switch {
	case in.M != nil:
		m = in.M
	case in.env != nil && !in.env.Encrypted:
		m = in.env.Message // what it claims, read before it was checked
	}
	switch {
	case m != nil:
		attrs = append(attrs, slog.String("op", string(m.Op)), slog.String("peer", m.From.Org), slog.String("from", m.From.Ref().String()),
			slog.String("message_id", m.ID))
	case a.refusedID != "":
		attrs = append(attrs, slog.String("peer", a.refused.Org), slog.String("from", a.refused.String()), slog.String("message_id", a.refusedID))
	}
	if in.block != nil {
		attrs = append(attrs, slog.String("direction", "inbound"), slog.String("cls", in.M.Cls.String()), slog.String("findings", in.block.findings))
	}
	attrs = append(attrs, DurationAttr("duration_ms", took))
	p.Log.LogAttrs(ctx, level, msg, attrs...)
}

// reason is a refusal's reason in the log: the short one a step gave, or
// the refusal's own words on one line.
func (p *Pipeline) reason(in *Inbound, a Answer) string {
	switch {
	case in.block != nil:
		return in.block.reason
	case in.reason != "":
		return in.reason
	case a.Err != nil:
		return OneLine(a.Err.Message)
	}
	return string(a.Code)
}

// sampleSuccess reports whether this answered call is one of the
// SuccessSample logged: exactly that share, spread evenly, at the cost of
// one atomic add.
func (p *Pipeline) sampleSuccess() bool {
	r := p.SuccessSample
	switch {
	case r <= 0:
		return false
	case r >= 1:
		return true
	}
	n := p.successes.Add(1)
	return uint64(float64(n)*r) != uint64(float64(n-1)*r)
}

// OneLine is s with its line breaks made spaces, so that an error's words
// keep a log line one line in any log format.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// DurationAttr is d in milliseconds, with a fraction: log readers take
// milliseconds, where slog writes a Duration in nanoseconds.
func DurationAttr(key string, d time.Duration) slog.Attr {
	return slog.Float64(key, float64(d.Microseconds())/1000)
}
