package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// scanResult is one line of `moltgate pii scan`: the decision and what was found, by type and
// byte span, never the matched text.
type scanResult struct {
	Block    bool          `json:"block"`
	Types    []string      `json:"types"`
	Findings []scanFinding `json:"findings"`
}

type scanFinding struct {
	Type  string `json:"type"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// result summarises findings: types are the pii_meta types of the personal data (what a
// consent must cover) followed by the type names of the secrets found.
func result(fs []pii.Finding) scanResult {
	r := scanResult{Block: len(fs) > 0, Types: []string{}, Findings: []scanFinding{}}
	sum := pii.Summarize(fs)
	for _, t := range sum.Types {
		r.Types = append(r.Types, string(t))
	}
	for _, t := range sum.SecretTypes {
		r.Types = append(r.Types, t.String())
	}
	for _, f := range fs {
		r.Findings = append(r.Findings, scanFinding{Type: f.Type.String(), Start: f.Start, End: f.End})
	}
	return r
}

func runPII(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "pii", args, false, subcommand{"scan", func(args []string) error { return runPIIScan(e, args) }})
}

func runPIIScan(e *env, args []string) error {
	fs := newFlags(e, "pii scan")
	jsonl := fs.Bool("jsonl", false, `read one JSON object per line with a "text" field; write one result per line`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sc, err := pii.New(nil)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(e.stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	limit := wire.DefaultLimits().MaxMessage
	if !*jsonl {
		b, err := readInput(e, limit)
		if err != nil {
			return err
		}
		return enc.Encode(result(sc.ScanText(string(b))))
	}
	in := bufio.NewScanner(e.stdin)
	in.Buffer(make([]byte, 64<<10), limit+1)
	var findings []pii.Finding
	for n := 1; in.Scan(); n++ {
		line := bytes.TrimSpace(in.Bytes())
		if len(line) == 0 {
			continue
		}
		v, err := wire.Parse(line, 0)
		if err != nil {
			return wire.Errorf(wire.ErrParse, "", "line %d: not JSON", n)
		}
		text, ok := v.Get("text").Str()
		if v.Kind() != wire.Object || !ok {
			return wire.Errorf(wire.ErrSchema, "text", "line %d: want an object with a string field text", n)
		}
		findings = sc.AppendText(findings[:0], text)
		if err := enc.Encode(result(findings)); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := in.Err(); err != nil {
		return wire.Errorf(wire.ErrTooLarge, "", "read standard input: %v", err)
	}
	return nil
}
