// Package pii finds personal data and secrets in the text and JSON payloads that cross the
// gateway, so that the gate can block them unless the message is classified and consented for
// them.
//
// A Scanner is built once from a Config and shared. ScanText scans free text; ScanJSON scans raw
// JSON bytes in one walk without building a tree, and ScanValue scans a value decoded by
// encoding/json. In JSON every string value is scanned with its key as context ("email",
// "ssn", "dob", "password", "diagnosis"...), keys are scanned too, and each Finding carries the
// path of its string, such as p.input.items[2].text.
//
// A Finding says what was found (Type, with its Class, pii or sec, and its pii_meta type), where
// (Path, Start, End in bytes of the string), how sure the detector is (Confidence) and which rule
// fired. It never holds the matched value, so findings can be logged and returned in errors.
// Summarize reduces findings to the set of pii_meta types and whether a secret was found.
//
// The scan is a single pass over the bytes with a byte-class table; a word is examined further
// only when it holds a digit, when its first bytes hit a small filter of cue words and token
// prefixes, or when a trigger byte follows it. Candidates are confirmed by check digits (Luhn,
// ISO 7064 mod 97, ABA, NHS mod 11, SSA rules, national id checks), formats, numbering plans
// (github.com/nyaruka/phonenumbers) and context words. No regular expression runs, and clean
// text allocates nothing. docs/pii-accuracy.md has the measured accuracy and the policy for
// names, dates of birth and health information.
package pii
