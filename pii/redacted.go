package pii

import "strings"

// redactedValue reports whether v is a secret shown elided or redacted rather than given: a key
// cut off with an ellipsis ("sk-proj-4f…", "AKIA4BB...REDACTED") or marked redacted, which logs,
// tickets and documentation print in place of the secret. What is left of it opens nothing.
func redactedValue(v string) bool {
	if len(v) < 4 {
		return false
	}
	if strings.Contains(v, "...") || strings.Contains(v, "…") {
		return true
	}
	i := strings.IndexAny(v, "Rr")
	return i >= 0 && (strings.Contains(v[i:], "REDACTED") || strings.Contains(v[i:], "redacted") || strings.Contains(v[i:], "Redacted"))
}
