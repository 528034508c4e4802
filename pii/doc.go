// Package pii finds personal data and secrets in the text and JSON payloads that cross the
// gateway, so that the gate can block them unless the message is classified and consented for
// them.
//
// A Scanner is built once from a Config and shared. ScanText scans free text; ScanJSON scans raw
// JSON bytes in one walk without building a tree; ScanTree scans a decoded message's wire.Value
// in place (what the gateway's gate uses), and ScanValue a value decoded by encoding/json. In
// JSON every string value is scanned with its key as context ("email", "ssn", "dob",
// "password", "diagnosis"...), keys are scanned too, and each Finding carries the path of its
// string, such as p.input.items[2].text. MaskString and MaskTree return copies with what was
// found replaced by "[email]", "[secret]" or, for pii_meta.mask_fields, "[masked]". Consent
// tokens are in the consent sub-package.
//
// A Finding says what was found (Type, with its Class, pii or sec, and its pii_meta type), where
// (Path, Start, End in bytes of the string), how sure the detector is (Confidence) and which rule
// fired. It never holds the matched value, so findings can be logged and returned in errors.
// Summarize reduces findings to the set of pii_meta types and whether a secret was found.
//
// The scan is a single pass. Ordinary prose (lower-case letters, spaces, punctuation) is
// skipped through a 64-bit mask built eight bytes at a time; only the other bytes are looked at,
// with the word around them: digits, capitals, '@', '-', ':', '=' and the like. A capitalised
// word looks back for a name cue; a word is tested against token prefixes and cue words through
// a small filter of their first bytes. Candidates are confirmed by check digits (Luhn, ISO 7064
// mod 97, ABA, NHS mod 11, SSA rules, national id checks), formats, context words and, for
// phone numbers, the numbering plans of github.com/nyaruka/phonenumbers. The only regular
// expressions are those plans' number patterns, run on the digits of a phone candidate. Clean
// text allocates nothing. docs/pii-accuracy.md has the measured accuracy and the policy for
// names, dates of birth and health information.
package pii
