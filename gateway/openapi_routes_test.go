package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// wildcard is a path parameter, named as ServeMux or OpenAPI names it.
var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// TestOpenAPICoversEveryRoute holds docs/openapi.json to the HTTPS face's
// own table of routes, as the gateway builds the face (the WebSocket
// stream, the event stream, the registry's lists mounted on it): every route
// the face serves is documented, with its method, and every documented one
// is served. (e2e's TestOpenAPIHeldToServer then probes each against a
// running gateway.)
func TestOpenAPICoversEveryRoute(t *testing.T) {
	b, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	var documented []string
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				documented = append(documented, strings.ToUpper(method)+" "+wildcard.ReplaceAllString(path, "{}"))
			}
		}
	}
	d, _ := newTestDir(t, "globex")
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	var served []string
	for _, p := range s.faces.http(nil, s.faces.ws()).Patterns() {
		if !strings.Contains(p, " ") {
			t.Errorf("route %q answers every method: a route names its method", p)
		}
		served = append(served, wildcard.ReplaceAllString(p, "{}"))
	}
	if len(served) == 0 {
		t.Fatal("the face lists no routes")
	}
	for _, p := range served {
		if !slices.Contains(documented, p) {
			t.Errorf("the HTTPS face serves %s, which docs/openapi.json does not document", p)
		}
	}
	for _, p := range documented {
		if !slices.Contains(served, p) {
			t.Errorf("docs/openapi.json documents %s, which the HTTPS face does not serve", p)
		}
	}
}
