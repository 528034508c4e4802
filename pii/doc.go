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
// Paths never repeat payload content. A member name is shown as it is only when it is a plain
// identifier in which nothing was found; any other (an e-mail address, a token, a card number,
// or one of them encoded, used as a key) is shown as {n}, its position in its object: "p.{0}.note"
// for {"jane@example.com":{"note":...}}. This holds for every path the package produces, those of
// the document-level health pass included, and MaskTree writes such a key as {n} too, so that a
// refusal or an error built from a Finding names the field without leaking its name.
//
// Before matching, what hides a value is undone (see normalize.go): percent-encoding, HTML
// entities and markup (attribute values and "mailto:" links included), base64, base32 and hex
// blobs that decode to text, and separators spelt out or spread ("jane dot doe at example dot
// com", "4111/1111/1111/1111"); each view runs only on a candidate a cheap prefilter flags,
// nests at most four deep and decodes a bounded number of bytes. The scalar values of sibling
// members and array items are also read together (see joined.go), so a value split over
// fields is found and reported at every field it takes. Such a finding's Via names how it was
// reached ("base64", "percent → html", "joined"), never what it is.
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
