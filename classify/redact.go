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
//   - a string under one of the keys the gateway names what it has checked with (op, cls,
//     code, face, message_id) is written as it is when it has that key's strict form (a known
//     op, class or code; a message id); under peer, from and to, a name of the wire's
//     grammar is scanned once and then remembered as clean (masker.str);
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
	m    *masker // shared by the handlers WithAttrs and WithGroup derive
}

// NewRedactor wraps next.
func NewRedactor(next slog.Handler, sc *pii.Scanner) *Redactor {
	return &Redactor{next: next, m: newMasker(sc)}
}

// Enabled implements slog.Handler.
func (h *Redactor) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *Redactor) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.m.sc.MaskString(r.Message), r.PC)
	// Added at once: one by one, a record past its five inline attributes
	// grows its slice for each.
	var buf [16]slog.Attr
	as := buf[:0]
	r.Attrs(func(a slog.Attr) bool {
		as = append(as, h.m.attr(a))
		return true
	})
	out.AddAttrs(as...)
	return h.next.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h *Redactor) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.m.attr(a)
	}
	return &Redactor{next: h.next.WithAttrs(red), m: h.m}
}

// WithGroup implements slog.Handler.
func (h *Redactor) WithGroup(name string) slog.Handler {
	return &Redactor{next: h.next.WithGroup(name), m: h.m}
}

// ReplaceAttr returns a slog.HandlerOptions.ReplaceAttr function with the rules of Redactor.
// The built-in handlers pass the message through it as the attribute "msg".
func ReplaceAttr(sc *pii.Scanner) func(groups []string, a slog.Attr) slog.Attr {
	m := newMasker(sc)
	return func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.SourceKey) {
			return a
		}
		return m.attr(a)
	}
}

// secretKey reports keys whose values are secret whatever they look like,
// compared lower-cased and without '_', '-' and '.'. It allocates nothing
// for the ASCII keys of up to 64 bytes that logs use.
func secretKey(k string) bool {
	var buf [64]byte
	n, ok := foldKey(buf[:0], k)
	if !ok {
		n = []byte(strings.ToLower(strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == '.' {
				return -1
			}
			return r
		}, k)))
	}
	for i := range n {
		var words []string
		switch n[i] { // the words, by their first letter
		case 'a':
			words = []string{"apikey", "authorization"}
		case 'c':
			words = []string{"cookie", "credential"}
		case 'p':
			words = []string{"password", "passwd", "passphrase", "privatekey", "privkey"}
		case 's':
			words = []string{"secret", "seed", "signingkey"}
		case 't':
			words = []string{"token"}
		}
		for _, w := range words {
			if len(n)-i >= len(w) && string(n[i:i+len(w)]) == w {
				return true
			}
		}
	}
	return string(n) == "pwd" || string(n) == "auth" || string(n) == "bearer"
}

// foldKey appends k to dst lower-cased, without '_', '-' and '.', and
// reports false if k is not ASCII: Unicode's case rules are then left to
// strings.ToLower.
func foldKey(dst []byte, k string) ([]byte, bool) {
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 0x80:
			return dst[:0], false
		case c == '_' || c == '-' || c == '.':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, true
}

// attr is a with its value redacted by the rules of Redactor.
func (m *masker) attr(a slog.Attr) slog.Attr {
	sc := m.sc
	if secretKey(a.Key) {
		return slog.String(a.Key, pii.MaskSecret)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		s := v.String()
		if t := m.str(a.Key, s); t != s {
			return slog.String(a.Key, t)
		}
		return slog.Attr{Key: a.Key, Value: v}
	case slog.KindGroup:
		gs := v.Group()
		out := make([]slog.Attr, len(gs))
		for i, g := range gs {
			out[i] = m.attr(g)
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
