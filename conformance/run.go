package conformance

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// Config says which gateway to test, as whom, and how.
type Config struct {
	// Dir is the test organisation's directory, made by Init. Required.
	Dir string
	// PeerDoc is the gateway's peer document, as `moltgate peer export`
	// prints it. Required.
	PeerDoc []byte
	// Agent is an agent of the gateway under test that the test
	// organisation may call. Default "echo".
	Agent string
	// Tool is a tool of Agent that takes {"text": string} and answers
	// with success. Default "echo".
	Tool string
	// MaxCls is the class ceiling the operator imported the test
	// organisation with (`peer import --max-cls`). Default int, the
	// import's default.
	MaxCls wire.Class
	// Only, if set, runs the cases whose names start with one of these
	// prefixes. Default: every case.
	Only []string
	// KnownFailures names cases that are expected to fail on the gateway
	// under test. They still run and are reported, as XFAIL, or as XPASS
	// (a failure of the run) once they pass, so that the list cannot go
	// stale. Default none.
	KnownFailures []string
	// CaseTimeout bounds each case. Default 20s.
	CaseTimeout time.Duration
	// Rand is the source of keys, nonces and ids. Default crypto/rand.
	Rand io.Reader
	// Now is the clock messages are stamped with. Default time.Now.
	Now func() time.Time
}

// Status is a case's outcome.
type Status string

// Outcomes of a case.
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	// XFail is a failure of a case listed in Config.KnownFailures.
	XFail Status = "XFAIL"
	// XPass is the success of a case listed in Config.KnownFailures:
	// the list is out of date, which fails the run.
	XPass Status = "XPASS"
	// Skip is a case that cannot run as the gateway was set up (a
	// ceiling too low for it); the line says what it needs.
	Skip Status = "SKIP"
)

// skipError is a case's reason not to run.
type skipError struct{ why string }

func (e *skipError) Error() string { return e.why }

func skipf(format string, args ...any) error { return &skipError{fmt.Sprintf(format, args...)} }

// Result is one case's outcome.
type Result struct {
	Name   string        `json:"name"`
	Status Status        `json:"status"`
	Detail string        `json:"detail"`
	Took   time.Duration `json:"took_ns"`
}

// Report is the outcome of a run.
type Report struct {
	Target  string   `json:"target"`
	Results []Result `json:"results"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	// Known counts the XFAIL cases: failures the run was told to expect.
	Known int `json:"known_failures"`
	// Skipped counts the cases that could not run as the gateway was set
	// up.
	Skipped int `json:"skipped"`
}

// OK reports whether every case passed, known failures aside.
func (r *Report) OK() bool { return r.Failed == 0 }

// WriteText writes one line per case, "STATUS name: detail", and a summary
// line.
func (r *Report) WriteText(w io.Writer) error {
	for _, c := range r.Results {
		if _, err := fmt.Fprintf(w, "%s %s: %s\n", c.Status, c.Name, c.Detail); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d passed, %d failed, %d known failures, %d skipped (%s)\n", r.Passed, r.Failed, r.Known, r.Skipped, r.Target)
	return err
}

// WriteJSON writes the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Names lists every case of the suite, in the order Run runs them.
func Names() []string {
	var out []string
	for _, c := range allCases() {
		out = append(out, c.name)
	}
	return out
}

// Run runs the suite against the gateway of cfg.PeerDoc. It returns an
// error only if the suite cannot start (a bad test directory or peer
// document, a context ended); what the gateway does wrong is in the
// report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Agent == "" {
		cfg.Agent = "echo"
	}
	if cfg.Tool == "" {
		cfg.Tool = "echo"
	}
	if cfg.MaxCls == 0 {
		cfg.MaxCls = wire.Int
	}
	if !cfg.MaxCls.Valid() {
		return nil, wire.Errorf(wire.ErrInvalidParam, "max_cls", "%d is not a class", cfg.MaxCls)
	}
	if !wire.ValidName(cfg.Agent) {
		return nil, wire.Errorf(wire.ErrInvalidParam, "agent", "%q is not a valid agent name", cfg.Agent)
	}
	if cfg.CaseTimeout <= 0 {
		cfg.CaseTimeout = 20 * time.Second
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	known := map[string]bool{}
	for _, n := range cfg.KnownFailures {
		if !slices.Contains(Names(), n) {
			return nil, wire.Errorf(wire.ErrInvalidParam, "known_failures", "known failure %q: no such case (see moltgate conformance --list)", n)
		}
		known[n] = true
	}
	s, err := newSuite(cfg)
	if err != nil {
		return nil, err
	}
	defer s.close()
	rep := &Report{Target: s.target.Org + " at " + s.target.Endpoint}
	for _, c := range allCases() {
		if len(cfg.Only) > 0 && !slices.ContainsFunc(cfg.Only, func(p string) bool { return strings.HasPrefix(c.name, p) }) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, cfg.CaseTimeout)
		detail, err := runCase(cctx, s, c)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r := judge(c.name, detail, err, known[c.name])
		r.Took = time.Since(start)
		switch r.Status {
		case Pass:
			rep.Passed++
		case Fail, XPass:
			rep.Failed++
		case XFail:
			rep.Known++
		case Skip:
			rep.Skipped++
		}
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// judge gives a case's outcome from what it returned and whether it is a
// known failure.
func judge(name, detail string, err error, known bool) Result {
	var skip *skipError
	switch {
	case errors.As(err, &skip):
		return Result{Name: name, Status: Skip, Detail: skip.why}
	case err == nil && known:
		return Result{Name: name, Status: XPass, Detail: "listed as a known failure, but passes: " + detail}
	case err == nil:
		return Result{Name: name, Status: Pass, Detail: detail}
	case known:
		return Result{Name: name, Status: XFail, Detail: "known failure: " + err.Error()}
	}
	return Result{Name: name, Status: Fail, Detail: err.Error()}
}

// runCase runs one case, turning a panic in it into its failure so that
// one broken case does not end the run.
func runCase(ctx context.Context, s *suite, c testCase) (detail string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("case panicked: %v", p)
		}
	}()
	detail, err = c.run(ctx, s)
	if err != nil && ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (case timed out)", err)
	}
	return detail, err
}

// testCase is one named property. run returns what it saw when the
// gateway held, or an error saying how it did not.
type testCase struct {
	name string
	run  func(ctx context.Context, s *suite) (string, error)
}

func allCases() []testCase {
	var out []testCase
	out = append(out, handshakeCases()...)
	out = append(out, transcriptCases()...)
	out = append(out, streamCases()...)
	out = append(out, identityCases()...)
	out = append(out, replayCases()...)
	out = append(out, senderCases()...)
	out = append(out, dataCases()...)
	out = append(out, consentCases()...)
	out = append(out, inputCases()...)
	return out
}
