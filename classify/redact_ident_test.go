package classify

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// callAnswered logs the line the gateway writes for every answered call,
// with the attributes the pipeline gives it.
func callAnswered(log *slog.Logger, op, face, peer, from, to, id, cls string) {
	log.LogAttrs(context.Background(), slog.LevelInfo, "call answered", slog.String("op", op), slog.String("face", face),
		slog.String("peer", peer), slog.String("from", from), slog.String("to", to),
		slog.String("message_id", id), slog.String("cls", cls), slog.Float64("duration_ms", 1.25))
}

func TestRedactorIdentifiersKept(t *testing.T) {
	c := newCapture()
	log := slog.New(NewRedactor(lockedHandler{c, c.inner}, scanner(t)))
	for range 2 { // the second time from what the redactor remembers
		c.buf.Reset()
		callAnswered(log, "tool", "grpc_stream", "globex", "client@globex", "echo@acme", "89359099-ced9-46f2-b0a9-41f8664234bc", "conf")
		for _, want := range []string{`"msg":"call answered"`, `"op":"tool"`, `"face":"grpc_stream"`, `"peer":"globex"`,
			`"from":"client@globex"`, `"to":"echo@acme"`, `"message_id":"89359099-ced9-46f2-b0a9-41f8664234bc"`,
			`"cls":"conf"`, `"duration_ms":1.25`} {
			if !strings.Contains(c.text(), want) {
				t.Errorf("log lacks %s:\n%s", want, c.text())
			}
		}
	}
	c.buf.Reset()
	log.Warn("message refused", "code", "E_CONSENT", "op", "query", "cls", "pii")
	for _, want := range []string{`"code":"E_CONSENT"`, `"op":"query"`, `"cls":"pii"`} {
		if !strings.Contains(c.text(), want) {
			t.Errorf("log lacks %s:\n%s", want, c.text())
		}
	}
}

// The keys that spare the scanner a known form still have what does not
// have that form scanned, and a party's name that reads as personal data
// or a key is masked each time it is logged, not remembered.
func TestRedactorIdentifierKeysStillMask(t *testing.T) {
	c := newCapture()
	log := slog.New(NewRedactor(lockedHandler{c, c.inner}, scanner(t)))
	const mail = "ann.lee@example.org"
	for range 2 {
		callAnswered(log, "mail "+mail, "ws "+mail, "415-555-0123", ghToken+"@acme", mail, "call "+mail+" at +44 20 7946 0958", "conf "+mail)
		log.Warn("message refused", "code", "E_CONSENT "+mail, "peer", mail, "to", "echo@"+ghToken, "from", "AKIAQYLPMN5HFAKEKEY7@globex")
	}
	out := c.text()
	for _, leak := range []string{"ann.lee", "example.org", "555-0123", "7946", ghToken, "AKIAQYLPMN5HFAKEKEY7"} {
		if strings.Contains(out, leak) {
			t.Errorf("log leaks %q:\n%s", leak, out)
		}
	}
	if n := strings.Count(out, `"peer":"[phone]"`); n != 2 {
		t.Errorf("a phone number as a peer's name was masked %d times of 2:\n%s", n, out)
	}
	if n := strings.Count(out, `"from":"[secret]@acme"`); n != 2 {
		t.Errorf("a key as an agent's name was masked %d times of 2:\n%s", n, out)
	}
}

// The attributes that carry words (a refusal's reason, the gate's
// findings, an error, anything else) are scanned whatever else the line
// holds.
func TestRedactorContentBesideIdentifiers(t *testing.T) {
	c := newCapture()
	log := slog.New(NewRedactor(lockedHandler{c, c.inner}, scanner(t)))
	log.LogAttrs(context.Background(), slog.LevelWarn, "message blocked", slog.String("code", "E_CONSENT"), slog.String("op", "tool"),
		slog.String("peer", "globex"), slog.String("from", "client@globex"),
		slog.String("reason", "personal data for ann.lee@example.org without consent"),
		slog.String("findings", "email at p.input.text: ann.lee@example.org; key "+ghToken),
		slog.Any("error", errors.New("upstream said AKIAQYLPMN5HFAKEKEY7")),
		slog.String("remote", "call +44 20 7946 0958"))
	out := c.text()
	for _, leak := range []string{"ann.lee", ghToken, "AKIAQYLPMN5HFAKEKEY7", "7946"} {
		if strings.Contains(out, leak) {
			t.Errorf("log leaks %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{`"code":"E_CONSENT"`, `"peer":"globex"`, `"from":"client@globex"`, `[email]`, `[secret]`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

func TestSecretKey(t *testing.T) {
	for k, want := range map[string]bool{
		"password": true, "Session-Token": true, "API_KEY": true, "x.private.key": true, "PWD": true, "auth": true,
		"Bearer": true, "db_passwd": true, "coo\u212Aie": true, // a Kelvin sign lower-cases to k
		"peer": false, "author": false, "authority": false, "message_id": false, "pw": false, "": false,
		strings.Repeat("x", 100) + "_token": true, strings.Repeat("x", 100): false,
	} {
		if got := secretKey(k); got != want {
			t.Errorf("secretKey(%q) = %v, want %v", k, got, want)
		}
	}
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(100, func() { secretKey("Session-Token"); secretKey("message_id") }); n != 0 {
		t.Errorf("secretKey allocates %v times", n)
	}
}
