package localbridge

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/pii"
)

// TestAgentOutputHidesPrivateKeys: an agent that prints a private key in
// PEM form (a crash dump of its configuration, say) writes it one line at
// a time, and no line of its body reads as a key on its own. The log keeps
// none of it; the output after the key is logged as before.
func TestAgentOutputHidesPrivateKeys(t *testing.T) {
	sc, err := pii.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := slog.New(classify.NewRedactor(slog.NewJSONHandler(&buf, nil), sc))
	w := &lineLogger{log: log, agent: "a", stream: "stderr"}
	body := []string{
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
		"MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
		"NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ",
	}
	out := "config dump:\n-----BEGIN PRIVATE KEY-----\n" + strings.Join(body, "\n") + "\n-----END PRIVATE KEY-----\nlistening on 8080\n"
	for _, c := range []string{out[:40], out[40:100], out[100:]} {
		w.Write([]byte(c))
	}
	w.flush()
	logs := buf.String()
	for _, b := range body {
		if strings.Contains(logs, b[:16]) {
			t.Errorf("a line of the key reached the log: %s", logs)
		}
	}
	for _, want := range []string{"config dump:", "listening on 8080", pii.MaskSecret} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q: %s", want, logs)
		}
	}
	// A mention of a key in prose hides nothing after it.
	buf.Reset()
	w.Write([]byte("no -----BEGIN PRIVATE KEY----- block was found\nstarting up\n"))
	if logs := buf.String(); !strings.Contains(logs, "starting up") {
		t.Errorf("output after a mention of a key is lost: %s", logs)
	}
}
