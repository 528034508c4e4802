package pii

import (
	"fmt"
	"slices"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// Config tunes a Scanner. The zero value is ready to use; every field states its default.
type Config struct {
	// MinConfidence drops findings whose confidence is below it. Default 0.5: a bare
	// checksum-valid 9-digit number scores below it, the same number after "SSN:" scores above.
	MinConfidence float64

	// PhoneRegions are the ISO 3166 regions tried, in order, for phone numbers written in national
	// format (numbers in international format, +CC or 00CC, need none). Default: US, GB, DE, FR,
	// ES, IT, NL, BE, CH, AT, SE, DK, NO, FI, IE, PT, PL, CA, AU, IN, JP, CN, BR.
	PhoneRegions []string

	// Disable lists types that are never reported. Default: none.
	Disable []Type

	// AllowValues lists exact values that are never reported as secrets, in addition to the
	// published documentation examples built in (AWS's AKIAIOSFODNN7EXAMPLE and the example API
	// keys of the Firebase SDKs). Default: none.
	AllowValues []string
}

var defaultRegions = []string{"US", "GB", "DE", "FR", "ES", "IT", "NL", "BE", "CH", "AT", "SE", "DK",
	"NO", "FI", "IE", "PT", "PL", "CA", "AU", "IN", "JP", "CN", "BR"}

// Scanner finds personal data and secrets in text and JSON payloads. Build one with New and share
// it: it holds no mutable state and is safe for concurrent use.
type Scanner struct {
	minConf  float64
	regions  []string
	disabled [numTypes + 1]bool
	allow    map[string]bool
	ctxPool  sync.Pool
}

// New returns a Scanner for cfg; a nil cfg means the defaults.
func New(cfg *Config) (*Scanner, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	s := &Scanner{minConf: cfg.MinConfidence, allow: map[string]bool{}}
	if s.minConf == 0 {
		s.minConf = 0.5
	}
	if s.minConf < 0 || s.minConf > 1 {
		return nil, fmt.Errorf("pii: MinConfidence %v outside [0,1]", cfg.MinConfidence)
	}
	s.regions = defaultRegions
	if len(cfg.PhoneRegions) > 0 {
		for _, r := range cfg.PhoneRegions {
			if phonenumbers.GetCountryCodeForRegion(r) == 0 {
				return nil, fmt.Errorf("pii: unknown phone region %q", r)
			}
		}
		s.regions = slices.Clone(cfg.PhoneRegions)
	}
	for _, t := range cfg.Disable {
		if t == 0 || int(t) > numTypes {
			return nil, fmt.Errorf("pii: cannot disable unknown type %d", t)
		}
		s.disabled[t] = true
	}
	for _, v := range publishedExamples {
		s.allow[v] = true
	}
	for _, v := range cfg.AllowValues {
		s.allow[v] = true
	}
	s.ctxPool.New = func() any { return new(scanCtx) }
	return s, nil
}

// ScanText returns the findings in free text, ordered by position. Offsets are bytes of text.
// Clean text allocates nothing.
func (s *Scanner) ScanText(text string) []Finding {
	return s.AppendText(nil, text)
}

// AppendText appends the findings in text to dst and returns the extended slice.
func (s *Scanner) AppendText(dst []Finding, text string) []Finding {
	x := s.getCtx()
	start := len(dst)
	x.out = dst
	x.scanString(text, keyNone, false)
	n := len(x.out)
	x.finishDoc(0, nil)
	if len(x.out) > n {
		// Health findings were added after the others: restore position order.
		slices.SortStableFunc(x.out[start:], func(a, b Finding) int { return a.Start - b.Start })
	}
	dst = x.out
	s.putCtx(x)
	return dst
}

func (s *Scanner) getCtx() *scanCtx {
	x := s.ctxPool.Get().(*scanCtx)
	x.sc = s
	return x
}

func (s *Scanner) putCtx(x *scanCtx) {
	x.out = nil
	x.sc = nil
	x.s = ""
	x.healthCues = x.healthCues[:0]
	x.identity = false
	x.personCue = false
	x.docBytes = 0
	x.lower = lowerState{}
	x.titleSeen = false
	x.keyBuf = x.keyBuf[:0]
	x.segs = x.segs[:0]
	x.runs = x.runs[:0]
	x.runPersonal = false
	x.strBuf = x.strBuf[:0]
	x.foldAt = x.foldAt[:0]
	x.normState = normState{hints: x.hints[:0], jparts: x.jparts[:0]}
	if x.second != nil {
		x.second.flaggedKeys = nil // member names of a finished document are not kept
	}
	s.ctxPool.Put(x)
}
