package wire

import "testing"

// TestOSSAEveryCode holds the mapping whole: every code moltgate knows has
// an OSSA code of its own choosing, and its default handling agrees with
// what the code itself says of recovery.
func TestOSSAEveryCode(t *testing.T) {
	for _, c := range Codes() {
		o, ok := ossaCodes[c]
		if !ok {
			t.Errorf("%s has no OSSA code", c)
			continue
		}
		h := o.DefaultHandling()
		if h.Strategy == StrategyRetry && h.Retries == 0 {
			t.Errorf("%s → %s: retry with no retries", c, o)
		}
		// A code the protocol calls unrecoverable is never retried as is.
		if !c.Recoverable() && h.Strategy == StrategyRetry {
			t.Errorf("%s is not recoverable but %s retries it", c, o)
		}
	}
	for c := range ossaCodes {
		if _, ok := codes[c]; !ok {
			t.Errorf("OSSA table maps %s, which is not a known code", c)
		}
	}
}

func TestOSSADefaults(t *testing.T) {
	for _, tc := range []struct {
		code     Code
		ossa     OSSACode
		strategy string
		retries  int
	}{
		{ErrInvalidParam, OSSAValidation, StrategyAbort, 0},
		{ErrRateLimit, OSSARateLimited, StrategyRetry, 3},
		{ErrTimeout, OSSAToolTimeout, StrategyRetry, 2},
		{ErrInternal, OSSAToolError, StrategyRetry, 3},
		{ErrPeerUnavailable, OSSACircuitOpen, StrategyFallback, 0},
		{ErrConsent, OSSAContentFiltered, StrategyEscalate, 0},
		{ErrSignature, OSSAPolicyViolation, StrategyEscalate, 0},
		{Code("E_SOMETHING_NEW"), OSSAToolError, StrategyRetry, 3},
	} {
		if got := tc.code.OSSA(); got != tc.ossa {
			t.Errorf("%s.OSSA() = %s; want %s", tc.code, got, tc.ossa)
		}
		if h := tc.code.OSSA().DefaultHandling(); h.Strategy != tc.strategy || h.Retries != tc.retries {
			t.Errorf("%s: handling %+v; want %s %d", tc.code, h, tc.strategy, tc.retries)
		}
	}
}

func TestOSSAContext(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want string
	}{
		{(&Error{Code: ErrRateLimit}).WithSuggestion(Suggestion{Action: ActionRetryAfter, DelayMS: 250}),
			`{"ossa_code":"RATE_LIMITED","ossa_retries":3,"ossa_strategy":"retry","retry_after_ms":250}`},
		{(&Error{Code: ErrConsent}).WithSuggestion(Suggestion{Action: ActionRequestConsent, DataTypes: []string{"email"}}),
			`{"escalation":"request_consent","ossa_code":"CONTENT_FILTERED","ossa_retries":0,"ossa_strategy":"escalate"}`},
		{&Error{Code: ErrAuthFailed},
			`{"escalation":"operator","ossa_code":"POLICY_VIOLATION","ossa_retries":0,"ossa_strategy":"escalate"}`},
		{&Error{Code: ErrPeerUnavailable},
			`{"ossa_code":"CIRCUIT_OPEN","ossa_retries":0,"ossa_strategy":"fallback"}`},
		{&Error{Code: ErrParse},
			`{"ossa_code":"VALIDATION_ERROR","ossa_retries":0,"ossa_strategy":"abort"}`},
	} {
		if got := OSSAContext(c.e).String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.e.Code, got, c.want)
		}
	}
}
