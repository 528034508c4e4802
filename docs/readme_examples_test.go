package docs

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeGoAgent holds README.md's Go agent to examples/goagent/main.go,
// which the build compiles and e2e runs: the README shows what works.
func TestReadmeGoAgent(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../examples/goagent/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(src)+"```\n") {
		t.Fatal("README.md's Go agent differs from examples/goagent/main.go: copy the file into the README's ```go block")
	}
}
