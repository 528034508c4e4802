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

// scanFinding is one finding. Form is the form in which it was found: its type, after the
// decodings or the joined view that led to it ("base64 → email", "joined → card"); Via lists
// those stages; Path is the field of a JSON payload that holds it, and InKey says the finding is
// in that field's member name. None of them holds the value.
type scanFinding struct {
	Type  string   `json:"type"`
	Path  string   `json:"path,omitempty"`
	InKey bool     `json:"in_key,omitempty"`
	Start int      `json:"start"`
	End   int      `json:"end"`
	Form  string   `json:"form"`
	Via   []string `json:"via,omitempty"`
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
		sf := scanFinding{Type: f.Type.String(), Path: f.Path, InKey: f.InKey, Start: f.Start, End: f.End, Form: f.Type.String()}
		if f.Via != 0 {
			sf.Form = f.Via.String() + " → " + sf.Form
			for _, st := range f.Via.Stages() {
				sf.Via = append(sf.Via, st.String())
			}
		}
		r.Findings = append(r.Findings, sf)
	}
	return r
}

func runPII(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "pii", args, false, subcommand{"scan", func(args []string) error { return runPIIScan(e, args) }})
}

func runPIIScan(e *env, args []string) error {
	fs := newFlags(e, "pii scan")
	jsonl := fs.Bool("jsonl", false, `read one JSON object per line with a string field "text", or a field "json" holding a payload; write one result per line`)
	payload := fs.Bool("json", false, "read standard input as one JSON payload (an object or an array) and scan it as the gate scans a message payload")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *jsonl && *payload {
		return wire.Errorf(wire.ErrInvalidParam, "", "--json and --jsonl exclude each other: give one")
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
		if !*payload {
			return enc.Encode(result(sc.ScanText(string(b))))
		}
		v, err := wire.Parse(b, 0)
		if err != nil || v.Kind() != wire.Object && v.Kind() != wire.Array {
			return wire.Errorf(wire.ErrParse, "", "standard input is not a JSON object or array (for text, leave out --json)")
		}
		return enc.Encode(result(sc.ScanTree("", v, nil)))
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
		p := v.Get("json")
		switch {
		case v.Kind() != wire.Object:
			ok = false
		case ok:
			findings = sc.AppendText(findings[:0], text)
		case p.Kind() == wire.Object || p.Kind() == wire.Array:
			findings = sc.AppendTree(findings[:0], "", p, nil)
			ok = true
		}
		if !ok {
			return wire.Errorf(wire.ErrSchema, "text", "line %d: want an object with a string field text or an object or array field json", n)
		}
		if err := enc.Encode(result(findings)); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := in.Err(); err != nil {
		return wire.Errorf(wire.ErrTooLarge, "", "read standard input: %v", err)
	}
	return nil
}
