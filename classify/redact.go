package classify

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// Logs. Redactor wraps any slog.Handler and rewrites every record before it passes it on:
//
//   - the message and every string value are scanned: personal data becomes "[email]",
//     "[phone]"..., secret material "[secret]";
//   - a value under a secret-like key (password, token, secret, api_key, authorization,
//     private_key, seed, passphrase, cookie...) becomes "[secret]" whatever it is;
//   - a *wire.Message is logged by its class: header and payload for pub and int (payload
//     masked as above), header only for conf (the payload is dropped), header and masked payload
//     for pii (pii_meta.mask_fields hidden too), and nothing but id, op, parties and cls for sec;
//   - a wire.Value is logged masked; errors and other values by their masked text; byte slices
//     by their length only.
//
// ReplaceAttr applies the same rules through slog.HandlerOptions, for the built-in handlers.

// Redactor is a slog.Handler that keeps classified data out of the handler it wraps.
type Redactor struct {
	next slog.Handler
	sc   *pii.Scanner
}

// NewRedactor wraps next.
func NewRedactor(next slog.Handler, sc *pii.Scanner) *Redactor {
	return &Redactor{next: next, sc: sc}
}

// Enabled implements slog.Handler.
func (h *Redactor) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *Redactor) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.sc.MaskString(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redact(h.sc, a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h *Redactor) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = redact(h.sc, a)
	}
	return &Redactor{next: h.next.WithAttrs(red), sc: h.sc}
}

// WithGroup implements slog.Handler.
func (h *Redactor) WithGroup(name string) slog.Handler {
	return &Redactor{next: h.next.WithGroup(name), sc: h.sc}
}

// ReplaceAttr returns a slog.HandlerOptions.ReplaceAttr function with the rules of Redactor.
// The built-in handlers pass the message through it as the attribute "msg".
func ReplaceAttr(sc *pii.Scanner) func(groups []string, a slog.Attr) slog.Attr {
	return func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.SourceKey) {
			return a
		}
		return redact(sc, a)
	}
}

// secretKey reports keys whose values are secret whatever they look like.
func secretKey(k string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "", ".", "").Replace(k))
	for _, s := range []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "authorization",
		"privatekey", "privkey", "seed", "cookie", "credential", "signingkey"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return n == "pwd" || n == "auth" || n == "bearer"
}

func redact(sc *pii.Scanner, a slog.Attr) slog.Attr {
	if secretKey(a.Key) {
		return slog.String(a.Key, pii.MaskSecret)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, sc.MaskString(v.String()))
	case slog.KindGroup:
		gs := v.Group()
		out := make([]slog.Attr, len(gs))
		for i, g := range gs {
			out[i] = redact(sc, g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		switch x := v.Any().(type) {
		case *wire.Message:
			return slog.Attr{Key: a.Key, Value: messageValue(sc, x)}
		case wire.Value:
			return slog.String(a.Key, sc.MaskTree("", x, nil).String())
		case []byte:
			return slog.String(a.Key, fmt.Sprintf("[%d bytes]", len(x)))
		case error:
			return slog.String(a.Key, sc.MaskString(x.Error()))
		case nil:
			return a
		default:
			return slog.String(a.Key, sc.MaskString(fmt.Sprint(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// messageValue renders m as a log group according to its class.
func messageValue(sc *pii.Scanner, m *wire.Message) slog.Value {
	as := []slog.Attr{slog.String("id", m.ID), slog.String("op", string(m.Op)),
		slog.String("from", m.From.Ref().String()), slog.String("to", m.To.String()), slog.String("cls", m.Cls.String())}
	if m.Re != "" {
		as = append(as, slog.String("re", m.Re))
	}
	rule := Rules(m.Cls).Log
	if rule == LogNever {
		return slog.GroupValue(as...)
	}
	if m.PIIMeta != nil {
		as = append(as, slog.String("pii_types", strings.Join(m.PIIMeta.Types, ",")))
	}
	tree, err := m.Tree()
	if err != nil {
		return slog.GroupValue(as...)
	}
	p := tree.Get("p")
	switch rule {
	case LogMetadata:
		as = append(as, slog.String("p", "[dropped: "+m.Cls.String()+"]"))
	case LogMasked:
		var fields []string
		if m.PIIMeta != nil {
			fields = m.PIIMeta.MaskFields
		}
		as = append(as, slog.String("p", sc.MaskTree("p", p, fields).String()))
	default:
		as = append(as, slog.String("p", sc.MaskTree("p", p, nil).String()))
	}
	return slog.GroupValue(as...)
}
