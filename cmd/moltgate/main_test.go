package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as the real moltgate command inside
// scripts, so the scripts exercise the binary end to end.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"moltgate":  main,
		"echoagent": echoAgentMain,
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// getfield FILE FIELD VAR: set $VAR to a string field of a JSON
			// object file.
			"getfield": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: getfield FILE FIELD VAR")
				}
				var obj map[string]any
				ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &obj))
				s, ok := obj[args[1]].(string)
				if !ok {
					ts.Fatalf("%s has no string field %s", args[0], args[1])
				}
				ts.Setenv(args[2], s)
			},
			// replace FILE OLD NEW OUT: write FILE with the first OLD
			// replaced by NEW to OUT.
			"replace": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 4 {
					ts.Fatalf("usage: replace FILE OLD NEW OUT")
				}
				in := ts.ReadFile(args[0])
				if !strings.Contains(in, args[1]) {
					ts.Fatalf("%s does not contain %q", args[0], args[1])
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(strings.Replace(in, args[1], args[2], 1)), 0o644))
			},
		},
	})
}
