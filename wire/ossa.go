package wire

// OSSACode is an error code of the OSSA runtime semantics' taxonomy, the
// vocabulary agent runtimes use to decide how to recover from a failure.
type OSSACode string

// The OSSA codes a MoltSpeak code maps to.
const (
	OSSAValidation         OSSACode = "VALIDATION_ERROR"
	OSSASchemaViolation    OSSACode = "SCHEMA_VIOLATION"
	OSSAContentFiltered    OSSACode = "CONTENT_FILTERED"
	OSSAPolicyViolation    OSSACode = "POLICY_VIOLATION"
	OSSAToolError          OSSACode = "TOOL_ERROR"
	OSSAToolTimeout        OSSACode = "TOOL_TIMEOUT"
	OSSAStateError         OSSACode = "STATE_ERROR"
	OSSARateLimited        OSSACode = "RATE_LIMITED"
	OSSACircuitOpen        OSSACode = "CIRCUIT_OPEN"
	OSSADelegationFailed   OSSACode = "DELEGATION_FAILED"
	OSSAEscalationRequired OSSACode = "ESCALATION_REQUIRED"
)

// OSSA recovery strategies.
const (
	StrategyRetry    = "retry"
	StrategyFallback = "fallback"
	StrategyEscalate = "escalate"
	StrategyAbort    = "abort"
)

// ossaCodes maps every MoltSpeak code to its OSSA code. The choices:
// malformed input is VALIDATION_ERROR and input of the wrong shape
// SCHEMA_VIOLATION; anything the boundary refuses on authority (a key, a
// signature, a capability, a class, a replay) is POLICY_VIOLATION; personal
// data without a consent is CONTENT_FILTERED, since what fixes it is a
// person's consent, reached by escalation; a peer, registry or storage that cannot be
// reached is CIRCUIT_OPEN (the caller falls back rather than hammers it); a
// remote agent's failure is DELEGATION_FAILED, the OSSA name for a child
// agent that failed.
var ossaCodes = map[Code]OSSACode{
	ErrParse:          OSSAValidation,
	ErrVersion:        OSSAValidation,
	ErrSchema:         OSSASchemaViolation,
	ErrMissingField:   OSSASchemaViolation,
	ErrInvalidParam:   OSSAValidation,
	ErrAuthFailed:     OSSAPolicyViolation,
	ErrSignature:      OSSAPolicyViolation,
	ErrCapability:     OSSAPolicyViolation,
	ErrConsent:        OSSAContentFiltered,
	ErrClassification: OSSAPolicyViolation,
	ErrRateLimit:      OSSARateLimited,
	ErrTimeout:        OSSAToolTimeout,
	ErrTaskFailed:     OSSADelegationFailed,
	ErrInternal:       OSSAToolError,

	ErrAgentNotFound:        OSSAValidation,
	ErrCapabilityUnknown:    OSSAValidation,
	ErrRegistrationExpired:  OSSAStateError,
	ErrRegistrationConflict: OSSAPolicyViolation,
	ErrVisibilityDenied:     OSSAPolicyViolation,
	ErrRegistryUnavailable:  OSSACircuitOpen,
	ErrRateLimitDiscovery:   OSSARateLimited,
	ErrInvalidProfile:       OSSAValidation,

	ErrTooLarge:           OSSAValidation,
	ErrReplay:             OSSAPolicyViolation,
	ErrExpired:            OSSAValidation,
	ErrSessionExpired:     OSSAStateError,
	ErrPeerUnavailable:    OSSACircuitOpen,
	ErrStorageUnavailable: OSSACircuitOpen,
}

// OSSA returns the OSSA code of c; an unknown code is TOOL_ERROR, as an
// unexplained failure of the call.
func (c Code) OSSA() OSSACode {
	if o, ok := ossaCodes[c]; ok {
		return o
	}
	return OSSAToolError
}

// Handling is the OSSA default handling of a code: its strategy and how
// many times to retry.
type Handling struct {
	Strategy string
	Retries  int
}

// DefaultHandling returns OSSA's default handling of o. Codes its table does
// not list are handled as their cause demands: a refusal on policy or
// content is not retried but escalated to whoever can grant what is
// missing; a lost state is retried once, after the session or registration
// is renewed; a remote agent's failure is reported, not retried, as the
// protocol calls it unrecoverable.
func (o OSSACode) DefaultHandling() Handling {
	switch o {
	case OSSAToolError:
		return Handling{StrategyRetry, 3}
	case OSSAToolTimeout:
		return Handling{StrategyRetry, 2}
	case OSSARateLimited:
		return Handling{StrategyRetry, 3}
	case OSSACircuitOpen:
		return Handling{StrategyFallback, 0}
	case OSSAStateError:
		return Handling{StrategyRetry, 1}
	case OSSAContentFiltered, OSSAPolicyViolation, OSSAEscalationRequired:
		return Handling{StrategyEscalate, 0}
	}
	return Handling{StrategyAbort, 0}
}

// OSSAContext is what an error payload's context says of e in OSSA's
// terms, so that an agent runtime can recover without knowing MoltSpeak's
// codes: ossa_code, ossa_strategy and ossa_retries (its default
// handling), retry_after_ms when the refusal names a wait, and, when the
// strategy is to escalate, escalation: what to ask for (the suggestion's
// action, such as request_consent or request_capability), or "operator"
// when only a person at the refusing organisation can change the outcome.
func OSSAContext(e *Error) Value {
	o := e.Code.OSSA()
	h := o.DefaultHandling()
	ms := []Member{
		{Key: "ossa_code", Value: StringValue(string(o))},
		{Key: "ossa_strategy", Value: StringValue(h.Strategy)},
		{Key: "ossa_retries", Value: IntValue(int64(h.Retries))},
	}
	if s := e.Suggestion; s != nil && s.DelayMS > 0 {
		ms = append(ms, Member{Key: "retry_after_ms", Value: IntValue(s.DelayMS)})
	}
	if h.Strategy == StrategyEscalate {
		hint := "operator"
		if s := e.Suggestion; s != nil && s.Action != "" && s.Action != ActionRetry && s.Action != ActionRetryAfter {
			hint = s.Action
		}
		ms = append(ms, Member{Key: "escalation", Value: StringValue(hint)})
	}
	return ObjectValue(ms...)
}
