package directory

import (
	"strings"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// Personal data and secrets in the directory.
//
// What a registry holds it publishes: every record to the organisations
// that may see it, and the signed registration behind it in registry sync
// pages. A consent names one grantee and cannot cover that, so a registry
// holds nothing the gate would stop: a registration in which the scanner
// finds personal data or secret material is refused.
//
// The scan is the gate's own (the same scanner, member names read as
// context, the registration whole), on what a peer's gate will see. What a
// registry publishes must pass the gates of the peers that receive it:
// one entry they would stop makes them refuse every discovery answer and
// sync page that carries it.

// CheckContent refuses register message m if the scanner finds personal
// data or secret material anywhere in it, header included: the message is
// published as it is, in registry sync pages, and the entry made of it in
// every record. Secret material is E_CLASSIFICATION, as the gate has it;
// personal data is E_INVALID_PROFILE, since no consent can make it
// publishable. Either names the member that holds it, never its content.
//
// Register and Import check every message they keep. A gateway calls
// CheckContent before its gate as well, whose refusal would name no member
// and suggest a consent.
func (r *Registry) CheckContent(m *wire.Message) error {
	t, err := m.Tree()
	if err != nil {
		return wire.Errorf(wire.ErrSchema, "", "the registration has no JSON form")
	}
	return contentError(r.sc.ScanTree("", t, nil))
}

// contentError is the refusal of a registration in which fs were found,
// or nil if fs is empty. Secrets come first, as in the gate.
func contentError(fs []pii.Finding) error {
	if len(fs) == 0 {
		return nil
	}
	sum := pii.Summarize(fs)
	if sum.Secret {
		names := make([]string, len(sum.SecretTypes))
		for i, t := range sum.SecretTypes {
			names[i] = t.String()
		}
		f := first(fs, pii.ClassSecret)
		return wire.Errorf(wire.ErrClassification, f.Path,
			"secret material (%s) in a registration: it would be published to every organisation that may see the entry",
			strings.Join(names, ", ")).WithSuggestion(removeIt(f))
	}
	names := make([]string, len(sum.Types))
	for i, t := range sum.Types {
		names[i] = string(t)
	}
	f := first(fs, pii.ClassPII)
	return wire.Errorf(wire.ErrInvalidProfile, f.Path,
		"personal data (%s) in a registration: it would be published to every organisation that may see the entry, which no consent covers",
		strings.Join(names, ", ")).WithSuggestion(removeIt(f))
}

func first(fs []pii.Finding, c pii.Class) pii.Finding {
	for _, f := range fs {
		if f.Type.Class() == c {
			return f
		}
	}
	return fs[0]
}

// removeIt tells the registrant what to do about f.
func removeIt(f pii.Finding) wire.Suggestion {
	from := "the registration"
	if f.Path == "p.profile" || strings.HasPrefix(f.Path, "p.profile.") {
		from = "the profile"
	}
	return wire.Suggestion{Action: wire.ActionRetry, Fix: "remove the " + f.Type.String() + " from " + from + " and register again"}
}
