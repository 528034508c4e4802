package classify

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// capture is a slog.Handler that keeps every record as the JSON line it would print.
type capture struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	inner slog.Handler
}

func newCapture() *capture {
	c := &capture{}
	c.inner = slog.NewJSONHandler(&c.buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	return c
}

func (c *capture) text() string { c.mu.Lock(); defer c.mu.Unlock(); return c.buf.String() }

type lockedHandler struct {
	c *capture
	h slog.Handler
}

func (l lockedHandler) Enabled(ctx context.Context, lv slog.Level) bool { return true }
func (l lockedHandler) Handle(ctx context.Context, r slog.Record) error {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	return l.h.Handle(ctx, r)
}
func (l lockedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return lockedHandler{l.c, l.h.WithAttrs(as)}
}
func (l lockedHandler) WithGroup(g string) slog.Handler { return lockedHandler{l.c, l.h.WithGroup(g)} }

func scanner(t testing.TB) *pii.Scanner {
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

const (
	ghToken = "ghp_R7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi"
	seedTxt = "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
)

func TestRedactorMessagesByClass(t *testing.T) {
	f := newFixture(t)
	c := newCapture()
	log := slog.New(NewRedactor(lockedHandler{c, c.inner}, scanner(t)))
	text := "Ship to ann.lee@example.org, quarterly figures attached, token " + ghToken

	log.Info("outbound", "msg", f.msg(t, alice, bob, wire.Int, text, nil))
	out := c.text()
	if !strings.Contains(out, "[email]") || !strings.Contains(out, "quarterly figures") || !strings.Contains(out, `"cls":"int"`) {
		t.Errorf("int message: payload should be logged, masked: %s", out)
	}

	c.buf.Reset()
	log.Info("outbound", "msg", f.msg(t, alice, bob, wire.Conf, text, nil))
	out = c.text()
	if strings.Contains(out, "quarterly") || !strings.Contains(out, "[dropped: conf]") || !strings.Contains(out, `"id":"`) {
		t.Errorf("conf message: payload must be dropped, header kept: %s", out)
	}

	c.buf.Reset()
	tok := f.token(t, f.acme, bob, "crm-sync", "email", "name")
	m := meta(tok, "crm-sync", "email", "name")
	m.MaskFields = []string{"p.params.text"}
	log.Info("outbound", "msg", f.msg(t, alice, bob, wire.PII, text, m))
	out = c.text()
	if strings.Contains(out, "quarterly") || !strings.Contains(out, `\"text\":\"[masked]\"`) || !strings.Contains(out, `"pii_types":"email,name"`) {
		t.Errorf("pii message: mask_fields must be masked: %s", out)
	}

	c.buf.Reset()
	log.Info("outbound", "msg", f.msg(t, alice, bob, wire.PII, text, meta(tok, "crm-sync", "email")))
	out = c.text()
	if !strings.Contains(out, "quarterly figures") || !strings.Contains(out, "[email]") {
		t.Errorf("pii message: payload logged with personal data masked: %s", out)
	}

	c.buf.Reset()
	log.Info("outbound", "msg", f.msg(t, alice, bob, wire.Sec, "db password is hunter2-Xq9!", nil))
	out = c.text()
	if strings.Contains(out, "hunter2") || strings.Contains(out, "password") || strings.Contains(out, `"p"`) || !strings.Contains(out, `"cls":"sec"`) {
		t.Errorf("sec message: nothing of the payload may be logged: %s", out)
	}

	for _, leak := range []string{"ann.lee", ghToken, "hunter2", tok[20:60]} {
		if strings.Contains(c.text(), leak) {
			t.Errorf("log leaks %q", leak)
		}
	}
}

func TestRedactorAttributes(t *testing.T) {
	c := newCapture()
	sc := scanner(t)
	key, _ := keys.Ed25519FromSeed(bytes.Repeat([]byte{3}, 32))
	log := slog.New(NewRedactor(lockedHandler{c, c.inner}, sc)).With("session_token", "s3cr3t-session-value", "peer", "globex")
	log = log.WithGroup("req")
	log.Warn("call from ann.lee@example.org failed",
		"password", "correct horse battery staple",
		"Authorization", "Bearer abc.def.ghi",
		"key", key,
		"seed", key.Seed(),
		"raw", []byte("secret bytes"),
		"err", errors.New("lookup +44 20 7946 0958: "+ghToken+" rejected"),
		"payload", wire.ObjectValue(wire.Member{Key: "email", Value: wire.StringValue("ann.lee@example.org")}),
		"note", "private seed "+seedTxt,
		slog.Group("nested", "api_key", "AKIAQYLPMN5HFAKEKEY7", "count", 3),
		"fine", "the build took 42 s",
	)
	out := c.text()
	for _, leak := range []string{"ann.lee", "correct horse", "abc.def.ghi", "s3cr3t", "7946", ghToken,
		"11qYAYKxCrfVS", "secret bytes", "AKIAQYLPMN5HFAKEKEY7", key.Secret()} {
		if strings.Contains(out, leak) {
			t.Errorf("log leaks %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{`"msg":"call from [email] failed"`, `"peer":"globex"`, `"fine":"the build took 42 s"`,
		`"count":3`, `"raw":"[12 bytes]"`, `"password":"[secret]"`, `"payload":"{\"email\":\"[email]\"}"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

func TestReplaceAttr(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: ReplaceAttr(scanner(t))}))
	log.Info("mail ann.lee@example.org", "token", "xyz", "n", 1)
	out := buf.String()
	if strings.Contains(out, "ann.lee") || strings.Contains(out, "xyz") || !strings.Contains(out, "level=INFO") || !strings.Contains(out, "[email]") {
		t.Errorf("ReplaceAttr: %s", out)
	}
}
