package main

import (
	"context"
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

// TestFlagMistakesAndHelp holds every command and subcommand to the same
// flag handling: a flag it does not know is one line of error and exit
// status 2, and --help (or -h) shows its synopsis and flags on standard
// output, with exit status 0.
func TestFlagMistakesAndHelp(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		for _, s := range c.synopses {
			words := strings.Fields(s)
			name := words[0]
			if len(words) > 1 && strings.Trim(words[1], "abcdefghijklmnopqrstuvwxyz") == "" {
				name += " " + words[1]
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			args := strings.Fields(name)
			code, stdout, stderr := runCLI(t, context.Background(), "", append(args, "--bogus")...)
			want := "moltgate " + c.name + ": E_INVALID_PARAM: flag provided but not defined: -bogus (see moltgate " + name + " --help)\n"
			if c.name == "consent" || c.name == "audit" || c.name == "receipt" {
				want = strings.Replace(want, "moltgate "+c.name+":", "moltgate "+name+":", 1)
			}
			if code != 2 || stdout != "" || stderr != want {
				t.Errorf("%s --bogus: exit %d, stdout %q, stderr %q; want exit 2 and %q", name, code, stdout, stderr, want)
			}
			for _, help := range []string{"--help", "-h"} {
				code, stdout, stderr = runCLI(t, context.Background(), "", append(args, help)...)
				if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: moltgate "+name) {
					t.Errorf("%s %s: exit %d, stdout %q, stderr %q", name, help, code, stdout, stderr)
				}
			}
		}
	}
	// A command with subcommands shows them all, and wants one.
	for _, cmd := range []string{"consent", "peer", "agent", "pii", "audit", "receipt"} {
		code, stdout, stderr := runCLI(t, context.Background(), "", cmd, "--help")
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: moltgate "+cmd+" ") {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
		code, stdout, stderr = runCLI(t, context.Background(), "", cmd)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "moltgate "+cmd+": E_INVALID_PARAM: "+cmd+" needs a subcommand") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}
