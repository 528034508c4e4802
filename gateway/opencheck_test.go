package gateway

import (
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// openFails opens the gateway of d, which must be refused with a
// *ConfigError naming key, on one line that holds no protocol error code
// (the command line puts the one code in front).
func openFails(t *testing.T, d Dir, key string) *ConfigError {
	t.Helper()
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		s.Shutdown(t.Context())
		t.Fatalf("opened; want a mistake in %s", key)
	}
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v (%T), want a ConfigError naming %s", err, err, key)
	}
	if ce.Key != key {
		t.Errorf("key %q (%v), want %q", ce.Key, err, key)
	}
	line := err.Error()
	if strings.ContainsAny(line, "\n\t\r") {
		t.Errorf("not one line: %q", line)
	}
	for _, c := range wire.Codes() {
		if strings.Contains(line, string(c)) {
			t.Errorf("the line holds the code %s: %q", c, line)
		}
	}
	return ce
}

// truncate cuts the file at path to its first n bytes.
func truncate(t *testing.T, path string, n int64) {
	t.Helper()
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
}

// An identity file that is not one, cut short or empty, is named.
func TestOpenNamesAMalformedKeyFile(t *testing.T) {
	for _, n := range []int64{0, 50} {
		d := initDir(t, "acme", "127.0.0.1:9443")
		truncate(t, d.OrgKeyPath(), n)
		openFails(t, d, "keys/org.json")

		d = initDir(t, "acme", "127.0.0.1:9443")
		if _, err := AddAgent(d, AddAgentOptions{ID: "bot"}); err != nil {
			t.Fatal(err)
		}
		truncate(t, d.AgentKeyPath("bot"), n)
		openFails(t, d, "keys/agents/bot.json")
	}
}

// writeFile writes a file of the gateway directory as an operator editing
// it would.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A mistake in an agent record is named by the file and key, and its
// message does not carry a code of its own.
func TestOpenNamesAnAgentRecordMistake(t *testing.T) {
	d := initDir(t, "acme", "127.0.0.1:9443")
	if _, err := AddAgent(d, AddAgentOptions{ID: "bot"}); err != nil {
		t.Fatal(err)
	}
	path := d.AgentsDir() + "/bot.json"
	writeFile(t, path, `{"id":"bot","max_cls":"ultra"}`)
	ce := openFails(t, d, "agents/bot.json: max_cls")
	if want := "config: agents/bot.json: max_cls: must be one of pub, int, conf, pii, sec"; ce.Error() != want {
		t.Errorf("got %q, want %q", ce, want)
	}
}
