package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// leakRow is a must-block row of the pii corpus: free text, or a payload.
type leakRow struct {
	ID     string          `json:"id"`
	Family string          `json:"family"`
	Must   bool            `json:"must_block"`
	Text   *string         `json:"text"`
	JSON   json.RawMessage `json:"json"`
}

// TestRefusalsNeverEchoFlaggedValues feeds every must-block row of the pii corpus (every family,
// both parts) through the gate's step as a query from a peer, and checks that the refusal (the
// signed error message, its field and its text) and the log line of the block hold none of what
// the scanner flags in it: no value, and no member name, the row's own values being used as
// member names too. A refusal whose field points into a member named by such a value does not
// echo it either.
func TestRefusalsNeverEchoFlaggedValues(t *testing.T) {
	p, self := newTestPipeline(t)
	var logs bytes.Buffer
	p.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	policy, err := classify.NewPolicy(classify.Config{Peers: map[string]wire.Class{"acme": wire.Sec}})
	if err != nil {
		t.Fatal(err)
	}
	p.Gate, err = classify.NewGate(classify.GateConfig{Scanner: p.Scanner, Policy: policy,
		Consents: &consent.Verifier{Trust: identity.NewTrustStore(), Now: time.Now}})
	if err != nil {
		t.Fatal(err)
	}
	rows := readLeakRows(t)
	families := map[string]int{}
	for k, r := range rows {
		params, values := leakPayload(t, p.Scanner, r)
		if len(values) == 0 {
			continue // a value the scanner finds only across fields or in a view; the gate still blocks it
		}
		pv, err := wire.ValueOf(params)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		m := &wire.Message{V: wire.Version, ID: NewMessageID(p.Rand), TS: time.Now().UnixMilli(), Op: wire.OpQuery,
			From: wire.Sender{Agent: "bot", Org: "acme"}, To: wire.Ref{Agent: "desk", Org: "globex"}, Cls: wire.Int,
			Payload: &wire.QueryPayload{Domain: "support", Params: pv}}
		logs.Reset()
		a, done := classification(p, t.Context(), &Inbound{M: m})
		if !done {
			continue // must-block rows the gate lets through are TestAccuracy's to count
		}
		e := refusal(t, p, self, a)
		families[r.Family]++
		for _, v := range values {
			if bytes.Contains(a.Body, []byte(v)) || strings.Contains(e.Message, v) || strings.Contains(e.Field, v) {
				t.Errorf("%s (%s): the refusal echoes %q: %s", r.ID, r.Family, v, a.Body)
			}
			if strings.Contains(logs.String(), v) || strings.Contains(logs.String(), jsonQuoted(v)) {
				t.Errorf("%s (%s): the log line of the block holds %q: %s", r.ID, r.Family, v, logs.String())
			}
		}
		// A refusal that names a field inside a member the sender named after the value.
		v := values[k%len(values)]
		for _, field := range []string{"p.params." + v + ".x", `p.params["` + strings.ReplaceAll(v, `"`, `\"`) + `"].x`} {
			a := p.Refuse(m, nil, &wire.Error{Code: wire.ErrInvalidParam, Field: field, Message: "not a string"})
			if bytes.Contains(a.Body, []byte(v)) {
				t.Errorf("%s (%s): the field of a refusal echoes %q: %s", r.ID, r.Family, v, a.Body)
			}
		}
	}
	for _, f := range []string{"struct_pii", "intl_phone", "national_id", "dob_context", "names_context", "health",
		"vendor_secret", "url_credentials", "password_prose", "keyword_token", "pem_key", "encoded", "split_json", "error_text"} {
		if families[f] < 20 {
			t.Errorf("family %s: %d rows refused, want at least 20", f, families[f])
		}
	}
}

func readLeakRows(t *testing.T) []leakRow {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "pii", "testdata", "corpus", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var rows []leakRow
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var r leakRow
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Must {
				rows = append(rows, r)
			}
		}
		f.Close()
	}
	return rows
}

// leakPayload returns the row as query params (a text row as the member "text"), with each value
// it flags also used as a member name, and the flagged values: what the scanner finds in each
// string and member name of the row, four bytes or longer.
func leakPayload(t *testing.T, sc *pii.Scanner, r leakRow) (map[string]any, []string) {
	t.Helper()
	params := map[string]any{}
	if r.Text != nil {
		params["text"] = *r.Text
	} else {
		var v any
		if err := json.Unmarshal(r.JSON, &v); err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		params["record"] = v
	}
	var values []string
	var walk func(v any)
	flag := func(s string) {
		for _, f := range sc.ScanText(s) {
			if v := s[f.Start:f.End]; len(v) >= 4 {
				values = append(values, v)
			}
		}
	}
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			flag(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				flag(k)
				walk(e)
			}
		}
	}
	walk(params)
	for i, v := range values {
		if i < 3 {
			params[v] = map[string]any{"note": "see the text"}
		}
	}
	return params, values
}

func jsonQuoted(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
