package directory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/moltgate/moltgate/keys"
)

// Limits on an entry. A registration beyond them is refused with a
// FieldError naming the field.
const (
	MaxNameLen        = 128   // agent and org names (bytes, [A-Za-z0-9_-])
	MaxDisplayNameLen = 256   // Entry.Name (bytes of UTF-8)
	MaxDescriptionLen = 4096  // Entry.Description (bytes of UTF-8)
	MaxURLLen         = 2048  // each endpoint URL
	MaxCapabilities   = 256   // capabilities per entry
	MaxCapabilityLen  = 128   // one capability name
	MaxTags           = 64    // tags per entry
	MaxTagLen         = 64    // one tag
	MaxAllowedOrgs    = 256   // organisations in AllowedOrgs
	MaxMetadataLen    = 16384 // Entry.Metadata (bytes of JSON)
	MaxMetadataDepth  = 16    // nesting of Entry.Metadata
	// MaxRegistration bounds Entry.Registration, the signed message kept
	// and published in every sync page that carries the entry: twice
	// what a profile may hold leaves room for the certificates.
	MaxRegistration = 2 * MaxProfileBytes
)

// reservedDomains are the capability domains no agent may register
// (discovery specification, appendix A).
var reservedDomains = []string{"moltspeak", "registry", "admin"}

// FieldError says which field of a registration or a query is wrong and
// why. The register layer answers it as E_INVALID_PROFILE with the field.
type FieldError struct {
	Field  string // as named on the wire: "endpoint.url", "capabilities[2]", …
	Reason string
}

func (e *FieldError) Error() string { return "invalid " + e.Field + ": " + e.Reason }

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, a...)}
}

// Validate checks an entry before it is stored. A tombstone (Removed)
// needs only its id, public key, visibility (which registry sync filters
// on) and SignedAt; anything else it carries is checked all the same.
func (e *Entry) Validate() error {
	if !validName(e.AgentID) {
		return fieldErr("agent_id", "want 1 to %d of A-Z a-z 0-9 _ -", MaxNameLen)
	}
	if !validName(e.Org) {
		return fieldErr("org", "want 1 to %d of A-Z a-z 0-9 _ -", MaxNameLen)
	}
	if err := checkKey("public_key", e.PublicKey, keys.Ed25519Prefix); err != nil {
		return err
	}
	if e.SignedAt.IsZero() {
		return fieldErr("signed_at", "missing")
	}
	if len(e.Registration) > MaxRegistration {
		return fieldErr("registration", "longer than %d bytes", MaxRegistration)
	}
	if !e.Visibility.Valid() {
		return fieldErr("visibility", "want public, unlisted or private")
	}
	if err := checkNames("allowed_orgs", e.AllowedOrgs, MaxAllowedOrgs); err != nil {
		return err
	}
	if e.EncryptionKey != "" {
		if err := checkKey("encryption_key", e.EncryptionKey, keys.X25519Prefix); err != nil {
			return err
		}
	}
	if err := checkText("name", e.Name, MaxDisplayNameLen, false); err != nil {
		return err
	}
	if err := checkText("description", e.Description, MaxDescriptionLen, true); err != nil {
		return err
	}
	if err := checkMetadata(e.Metadata); err != nil {
		return err
	}
	if err := checkTags(e.Tags); err != nil {
		return err
	}
	if e.Removed {
		if e.Endpoint.URL != "" || e.Endpoint.WebSocket != "" {
			if err := e.Endpoint.validate(); err != nil {
				return err
			}
		}
		for i, c := range e.Capabilities {
			if err := CheckCapability(c); err != nil {
				return fieldErr(fmt.Sprintf("capabilities[%d]", i), "%v", err)
			}
		}
		return nil
	}
	if err := e.Endpoint.validate(); err != nil {
		return err
	}
	if len(e.Capabilities) == 0 {
		return fieldErr("capabilities", "at least one is required")
	}
	if len(e.Capabilities) > MaxCapabilities {
		return fieldErr("capabilities", "more than %d", MaxCapabilities)
	}
	seen := make(map[string]bool, len(e.Capabilities))
	for i, c := range e.Capabilities {
		f := fmt.Sprintf("capabilities[%d]", i)
		if err := CheckCapability(c); err != nil {
			return fieldErr(f, "%v", err)
		}
		if isReserved(c) {
			return fieldErr(f, "domain %q is reserved", strings.SplitN(c, ".", 2)[0])
		}
		if seen[c] {
			return fieldErr(f, "duplicate %q", c)
		}
		seen[c] = true
	}
	if e.ExpiresAt.IsZero() {
		return fieldErr("expires_at", "missing")
	}
	return nil
}

func (ep *Endpoint) validate() error {
	if err := checkURL("endpoint.url", ep.URL, "http", "https"); err != nil {
		return err
	}
	switch ep.Transport {
	case "", "https", "http", "websocket", "grpc":
	default:
		return fieldErr("endpoint.transport", "want https, http, websocket or grpc")
	}
	if ep.WebSocket != "" {
		if err := checkURL("endpoint.websocket", ep.WebSocket, "ws", "wss"); err != nil {
			return err
		}
	}
	return nil
}

func checkURL(field, s string, schemes ...string) error {
	if s == "" {
		return fieldErr(field, "missing")
	}
	if len(s) > MaxURLLen {
		return fieldErr(field, "longer than %d bytes", MaxURLLen)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fieldErr(field, "not a URL")
	}
	ok := false
	for _, sc := range schemes {
		ok = ok || u.Scheme == sc
	}
	if !ok {
		return fieldErr(field, "scheme must be %s", strings.Join(schemes, " or "))
	}
	if u.Host == "" || u.Hostname() == "" {
		return fieldErr(field, "missing host")
	}
	if u.User != nil {
		return fieldErr(field, "credentials are not allowed in the URL")
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return fieldErr(field, "fragments are not allowed")
	}
	return nil
}

// checkKey checks the text form of a public key with the keys package:
// the prefix, canonical standard padded base64 of 32 bytes, and for X25519
// a key not of low order. The entry keeps the text.
func checkKey(field, s, prefix string) error {
	if s == "" {
		return fieldErr(field, "missing")
	}
	var err error
	switch prefix {
	case keys.Ed25519Prefix:
		_, err = keys.ParseEd25519Public(s)
	case keys.X25519Prefix:
		_, err = keys.ParseX25519Public(s)
	}
	if err != nil {
		return fieldErr(field, "%v", err)
	}
	return nil
}

func checkText(field, s string, max int, multiline bool) error {
	if len(s) > max {
		return fieldErr(field, "longer than %d bytes", max)
	}
	if !utf8.ValidString(s) {
		return fieldErr(field, "not valid UTF-8")
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) {
			return fieldErr(field, "control characters are not allowed")
		}
	}
	return nil
}

func checkNames(field string, names []string, max int) error {
	if len(names) > max {
		return fieldErr(field, "more than %d", max)
	}
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if !validName(n) {
			return fieldErr(fmt.Sprintf("%s[%d]", field, i), "want 1 to %d of A-Z a-z 0-9 _ -", MaxNameLen)
		}
		if seen[n] {
			return fieldErr(fmt.Sprintf("%s[%d]", field, i), "duplicate %q", n)
		}
		seen[n] = true
	}
	return nil
}

func checkTags(tags []string) error {
	if len(tags) > MaxTags {
		return fieldErr("tags", "more than %d", MaxTags)
	}
	seen := make(map[string]bool, len(tags))
	for i, t := range tags {
		f := fmt.Sprintf("tags[%d]", i)
		if t == "" || len(t) > MaxTagLen {
			return fieldErr(f, "want 1 to %d bytes", MaxTagLen)
		}
		if err := checkText(f, t, MaxTagLen, false); err != nil {
			return err
		}
		if seen[t] {
			return fieldErr(f, "duplicate %q", t)
		}
		seen[t] = true
	}
	return nil
}

// checkMetadata accepts nil or one JSON object within the size and depth
// limits, with no key repeated in any object: parsers disagree on which of
// two equal keys wins, and a requirement must mean one thing.
func checkMetadata(m []byte) error {
	if m == nil {
		return nil
	}
	if len(m) > MaxMetadataLen {
		return fieldErr("metadata", "longer than %d bytes", MaxMetadataLen)
	}
	if t := bytes.TrimLeft(m, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return fieldErr("metadata", "want a JSON object")
	}
	if !json.Valid(m) {
		return fieldErr("metadata", "not valid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(m))
	dec.UseNumber()
	if err := walkJSON(dec, 0); err != nil {
		return fieldErr("metadata", "%v", err)
	}
	return nil
}

var errDepth = errors.New("nested too deeply")

// walkJSON reads one value from dec, checking depth and duplicate keys.
func walkJSON(dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth+1 > MaxMetadataDepth {
		return errDepth
	}
	switch d {
	case '{':
		keys := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			ks, _ := k.(string)
			if keys[ks] {
				return fmt.Errorf("key %q repeated", ks)
			}
			keys[ks] = true
			if err := walkJSON(dec, depth+1); err != nil {
				return err
			}
		}
	case '[':
		for dec.More() {
			if err := walkJSON(dec, depth+1); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// validName reports whether s is a MoltSpeak agent or org name.
func validName(s string) bool {
	if len(s) == 0 || len(s) > MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// CheckCapability checks a capability name: dot-separated segments of
// A-Z a-z 0-9 _ -, at most MaxCapabilityLen bytes ("calendar.schedule",
// "code.execute.python", "weather").
func CheckCapability(c string) error {
	if c == "" {
		return errors.New("empty capability")
	}
	if len(c) > MaxCapabilityLen {
		return fmt.Errorf("capability longer than %d bytes", MaxCapabilityLen)
	}
	for _, seg := range strings.Split(c, ".") {
		if seg == "" {
			return fmt.Errorf("capability %q has an empty segment", c)
		}
		for i := 0; i < len(seg); i++ {
			if !nameByte(seg[i]) {
				return fmt.Errorf("capability %q: want segments of A-Z a-z 0-9 _ -", c)
			}
		}
	}
	return nil
}

func isReserved(c string) bool {
	dom, _, _ := strings.Cut(c, ".")
	for _, r := range reservedDomains {
		if strings.EqualFold(dom, r) {
			return true
		}
	}
	return false
}
