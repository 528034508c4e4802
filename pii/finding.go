package pii

import (
	"slices"
	"strconv"
)

// Type names what a finding is: a kind of personal data or a kind of secret.
type Type uint8

// The detected types. Personal data first, then secrets (Class() == ClassSecret).
const (
	TypeEmail          Type = iota + 1 // e-mail address
	TypePhone                          // telephone number
	TypeCard                           // payment card number (IIN range and Luhn)
	TypeIBAN                           // international bank account number (mod 97)
	TypeBankAccount                    // domestic bank account number, with context
	TypeABARouting                     // US ABA routing transit number (checksum)
	TypeSSN                            // US social security number (SSA rules)
	TypeITIN                           // US individual taxpayer identification number
	TypePassport                       // passport number, with context
	TypeNationalID                     // national identity or personal tax number (check digits)
	TypeNHS                            // UK NHS number (mod 11)
	TypeNINO                           // UK national insurance number
	TypeDriversLicense                 // driving licence number, with context
	TypeAddress                        // street or postal address
	TypeName                           // person name, with context
	TypeDOB                            // date of birth, with context
	TypeHealth                         // health information about an identified person
	TypePrivateKey                     // private key: PEM block, ed25519/x25519 seed, age key
	TypeCloudToken                     // cloud provider credential (AWS, GCP, Azure)
	TypeAPIToken                       // SaaS API token (GitHub, Slack, Stripe, OpenAI...)
	TypeJWT                            // JSON web token
	TypePassword                       // password or credential in an assignment, URL or header
	TypeSecret                         // other high-entropy secret under a secret-like name

	numTypes = iota
)

var typeNames = [numTypes + 1]string{
	"", "email", "phone", "card", "iban", "bank_account", "aba_routing", "ssn", "itin",
	"passport", "national_id", "nhs", "nino", "drivers_license", "address", "name", "dob",
	"health", "private_key", "cloud_token", "api_token", "jwt", "password", "secret",
}

// String returns the type's stable lower-case name, e.g. "email" or "private_key".
func (t Type) String() string {
	if int(t) < len(typeNames) && t != 0 {
		return typeNames[t]
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// ParseType returns the Type named s, or false.
func ParseType(s string) (Type, bool) {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i), true
		}
	}
	return 0, false
}

// Class is the classification a type demands.
type Class uint8

const (
	// ClassPII is personal data: it may cross only in a `pii` message with a consent covering its
	// pii_meta type.
	ClassPII Class = iota + 1
	// ClassSecret is secret material: it may cross only in a `sec` message.
	ClassSecret
)

// String returns the wire tag of the class: "pii" or "sec".
func (c Class) String() string {
	switch c {
	case ClassPII:
		return "pii"
	case ClassSecret:
		return "sec"
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Class reports whether t is personal data or a secret.
func (t Type) Class() Class {
	if t >= TypePrivateKey {
		return ClassSecret
	}
	return ClassPII
}

// MetaType is a member of the MoltSpeak pii_meta type vocabulary.
type MetaType string

// The pii_meta vocabulary.
const (
	MetaEmail     MetaType = "email"
	MetaPhone     MetaType = "phone"
	MetaName      MetaType = "name"
	MetaAddress   MetaType = "address"
	MetaSSN       MetaType = "ssn"
	MetaDOB       MetaType = "dob"
	MetaFinancial MetaType = "financial"
	MetaHealth    MetaType = "health"
	MetaLocation  MetaType = "location"
	MetaOther     MetaType = "other"
)

// Meta maps a personal-data type to its pii_meta type. ITIN maps to "ssn" because it is issued in
// place of an SSN and a consent for one is a consent for the other. Secret types have no pii_meta
// type and return "".
func (t Type) Meta() MetaType {
	switch t {
	case TypeEmail:
		return MetaEmail
	case TypePhone:
		return MetaPhone
	case TypeCard, TypeIBAN, TypeBankAccount, TypeABARouting:
		return MetaFinancial
	case TypeSSN, TypeITIN:
		return MetaSSN
	case TypePassport, TypeNationalID, TypeNHS, TypeNINO, TypeDriversLicense:
		return MetaOther
	case TypeAddress:
		return MetaAddress
	case TypeName:
		return MetaName
	case TypeDOB:
		return MetaDOB
	case TypeHealth:
		return MetaHealth
	}
	return ""
}

// Finding is one detected item. It holds where the item is and what it is, never the item itself,
// so a Finding can be logged, returned in an error or printed without leaking what it found.
type Finding struct {
	Type Type
	// Path locates the string in a JSON payload, e.g. "p.items[2].text"; empty for free text.
	// Object keys that are not plain identifiers, or that themselves hold a finding, are shown
	// as {n}, the key's position in its object, so a path never repeats payload content.
	Path string
	// InKey is true when the finding lies in an object key rather than in a string value.
	InKey bool
	// Start and End are byte offsets into the string at Path (End exclusive).
	Start, End int
	// Confidence is the detector's confidence, from 0 to 1.
	Confidence float64
	// Rule names the detector that fired, e.g. "card.luhn" or "secret.github-pat".
	Rule string
	// Via says how the finding was reached when it was not in the text as given: the decodings
	// applied (base64, percent → html...) or a joined view of sibling fields. Start and End then
	// cover the encoded text, or the part of this field the joined value took. Zero otherwise.
	Via Via
}

// String shows the type, location and confidence only.
func (f Finding) String() string {
	b := make([]byte, 0, 64)
	b = append(b, f.Type.String()...)
	if f.Path != "" {
		b = append(b, " at "...)
		b = append(b, f.Path...)
		if f.InKey {
			b = append(b, " (key)"...)
		}
	}
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(f.Start), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(f.End), 10)
	b = append(b, "] "...)
	b = strconv.AppendFloat(b, f.Confidence, 'f', 2, 64)
	b = append(b, ' ')
	b = append(b, f.Rule...)
	if f.Via != 0 {
		b = append(b, " via "...)
		b = append(b, f.Via.String()...)
	}
	return string(b)
}

// GoString makes %#v print the same as String.
func (f Finding) GoString() string { return "pii.Finding{" + f.String() + "}" }

// Summary condenses findings into what a decision needs.
type Summary struct {
	// Types is the sorted set of pii_meta types of the personal data found.
	Types []MetaType
	// PII is true when any personal data was found.
	PII bool
	// Secret is true when any secret was found.
	Secret bool
	// SecretTypes is the sorted set of secret types found.
	SecretTypes []Type
}

// Summarize returns the pii_meta types found and whether any secret was found.
func Summarize(findings []Finding) Summary {
	var s Summary
	var seen [numTypes + 1]bool
	for _, f := range findings {
		if f.Type == 0 || int(f.Type) > numTypes || seen[f.Type] {
			continue
		}
		seen[f.Type] = true
		if f.Type.Class() == ClassSecret {
			s.Secret = true
			s.SecretTypes = append(s.SecretTypes, f.Type)
			continue
		}
		s.PII = true
		if m := f.Type.Meta(); !slices.Contains(s.Types, m) {
			s.Types = append(s.Types, m)
		}
	}
	slices.Sort(s.Types)
	slices.Sort(s.SecretTypes)
	return s
}
