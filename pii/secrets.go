package pii

import (
	"encoding/base64"
	"math"
	"strings"
)

// Secrets: vendor tokens recognised by their documented prefixes and body formats (the rules of
// the common gitleaks set), PEM private keys, JWTs, our own ed25519:/x25519: private seeds, and
// values assigned to secret-like names (password=, client_secret:, api_key =...) that are not
// placeholders and carry enough entropy.

// publishedExamples are credentials published as documentation examples, never real.
var publishedExamples = []string{
	"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	// Example API keys in the Firebase SDKs' public sources.
	"AIzaSyabcdefghijklmnopqrstuvwxyz1234567", "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
	"AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM", "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
	"AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0", "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A",
	"AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c", "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4",
	"AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY", "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM",
	"AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ", "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g",
	"AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU", "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw",
	"AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE", "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY",
}

// Character sets of token bodies.
const (
	csAlnum = 1 << iota
	csUnder
	csDash
	csPlusSlash
	csEq
	csDot
	csLowerHex
	csUpperHex
	csTilde
)

var csTab = func() (t [256]uint16) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if isAlnum(b) {
			t[c] |= csAlnum
		}
		if isDigit(b) || (b >= 'a' && b <= 'f') {
			t[c] |= csLowerHex
		}
		if isDigit(b) || (b >= 'A' && b <= 'F') {
			t[c] |= csUpperHex
		}
	}
	t['_'] |= csUnder
	t['-'] |= csDash
	t['+'] |= csPlusSlash
	t['/'] |= csPlusSlash
	t['='] |= csEq
	t['.'] |= csDot
	t['~'] |= csTilde
	return t
}()

const (
	setWord    = csAlnum | csUnder
	setWordD   = csAlnum | csUnder | csDash
	setB64     = csAlnum | csPlusSlash
	setHexL    = csLowerHex
	setHexAny  = csLowerHex | csUpperHex
	setTokenCh = csAlnum | csUnder | csDash | csPlusSlash | csEq | csDot | csTilde
)

// span returns the end of the run of set bytes starting at i, stopping after max bytes.
func span(s string, i int, set uint16, max int) int {
	e := i
	for e < len(s) && e-i < max && csTab[s[e]]&set != 0 {
		e++
	}
	return e
}

// rightEdge reports whether a token may end at e: end of text or a byte that cannot continue it.
func rightEdge(s string, e int) bool {
	if e >= len(s) {
		return true
	}
	c := s[e]
	if c == '.' {
		return e+1 >= len(s) || !isAlnum(s[e+1])
	}
	return csTab[c]&(csAlnum|csUnder|csDash|csPlusSlash|csEq|csTilde) == 0
}

// leftEdge reports whether a token may start at i: at the start of the text or after any ASCII
// byte that is not a letter or a digit. Tokens are glued to what comes before them in names and
// paths ("deploy.AKIA…", "ci-ghp_…", "prod/sk_live_…"): only a byte that would make the prefix the
// middle of a longer word keeps one from being read.
func leftEdge(s string, i int) bool {
	if i == 0 {
		return true
	}
	c := s[i-1]
	return c < 0x80 && !isAlnum(c)
}

// entropy returns the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if len(s) == 0 {
		return 0
	}
	var cnt [256]uint16
	for i := 0; i < len(s); i++ {
		cnt[s[i]]++
	}
	h := 0.0
	n := float64(len(s))
	for _, c := range cnt {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderRun reports a run of 4+ identical filler characters (xxxx, XXXX, ****, ####, ....), or a
// value elided or marked redacted (redactedValue).
func placeholderRun(v string) bool {
	if redactedValue(v) {
		return true
	}
	run := 0
	var prev byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == prev && (c == 'x' || c == 'X' || c == '*' || c == '#' || c == '.' || c == '0') {
			run++
			// Four zeros in a row come once in a few dozen random hex keys; six do not.
			if run >= 3 && c != '0' || run >= 5 {
				return true
			}
		} else {
			run = 0
		}
		prev = c
	}
	return false
}

// tokenRule is tried at a word that begins with prefix. check returns end > i for a token found
// at i: a finding of type t, or, with t 0, a public token read whole that nothing else may be
// read inside.
type tokenRule struct {
	prefix string
	check  func(x *scanCtx, i int) (end int, t Type, c float64, rule string)
}

// fixed returns a check for prefix + body of the given set and length range, with an optional
// minimum entropy of the body.
func fixed(prefix string, set uint16, minLen, maxLen int, minH float64, t Type, rule string) tokenRule {
	return tokenRule{prefix, func(x *scanCtx, i int) (int, Type, float64, string) {
		s := x.s
		if !strings.HasPrefix(s[i:], prefix) || !leftEdge(s, i) {
			return i, 0, 0, ""
		}
		b := i + len(prefix)
		e := span(s, b, set, maxLen+1)
		// Base64 bodies may end in '=' padding.
		if set&csPlusSlash != 0 {
			for e < len(s) && s[e] == '=' && e-b < maxLen+3 {
				e++
			}
		}
		n := e - b
		body := s[b:e]
		if n < minLen || n > maxLen+2 || !rightEdge(s, e) || placeholderRun(body) ||
			minH > 0 && (entropy(body) < minH || n >= 16 && wordy(body)) {
			return looseBody(s, i, b, set, t, rule)
		}
		return e, t, 0.95, rule
	}}
}

// Extra character classes for rules that need case-specific sets.
const (
	csLower     = 1 << 12
	csUpperOnly = 1 << 13
	csDigitOnly = 1 << 14
)

var _ = func() int {
	for c := 'a'; c <= 'z'; c++ {
		csTab[c] |= csLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		csTab[c] |= csUpperOnly
	}
	for c := '0'; c <= '9'; c++ {
		csTab[c] |= csDigitOnly
	}
	return 0
}()

func ok(e int, t Type, c float64, rule string) (int, Type, float64, string) { return e, t, c, rule }
func no(i int) (int, Type, float64, string)                                 { return i, 0, 0, "" }

func onePasswordKey(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if !leftEdge(s, i) {
		return no(i)
	}
	e := span(s, i, csUpperOnly|csDigitOnly|csDash, 60)
	body := s[i:e]
	parts := strings.Split(body, "-")
	total := 0
	digits := 0
	for _, p := range parts[1:] {
		total += len(p)
		for k := 0; k < len(p); k++ {
			if isDigit(p[k]) {
				digits++
			}
		}
	}
	if len(parts) >= 6 && len(parts[1]) == 6 && total == 32 && digits >= 3 && rightEdge(s, e) {
		return ok(e, TypeAPIToken, 0.95, "secret.1password-secret-key")
	}
	return no(i)
}

func databricks(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if !strings.HasPrefix(s[i:], "dapi") || !leftEdge(s, i) {
		return no(i)
	}
	e := span(s, i+4, setHexL, 33)
	if e-i-4 != 32 {
		return no(i)
	}
	if e+1 < len(s) && s[e] == '-' && isDigit(s[e+1]) {
		e += 2
	}
	if !rightEdge(s, e) || entropy(s[i+4:e]) < 3 {
		return no(i)
	}
	return ok(e, TypeAPIToken, 0.95, "secret.databricks-api-token")
}

func notion(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if !strings.HasPrefix(s[i:], "ntn_") || !leftEdge(s, i) {
		return no(i)
	}
	b := i + 4
	e := span(s, b, csAlnum, 60)
	if e-b != 46 || !rightEdge(s, e) || !isDigits([]byte(s[b:b+11])) {
		return no(i)
	}
	letters := 0
	for k := b + 11; k < e; k++ {
		if isAlpha(s[k]) {
			letters++
		}
	}
	if letters < 10 {
		return no(i)
	}
	return ok(e, TypeAPIToken, 0.95, "secret.notion-api-token")
}

func facebookToken(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if i+4 > len(s) || s[i:i+3] != "EAA" || (s[i+3] != 'M' && s[i+3] != 'C') || !leftEdge(s, i) {
		return no(i)
	}
	e := span(s, i+4, csAlnum, 400)
	if e-i-4 < 100 || !rightEdge(s, e) || entropy(s[i:e]) < 3.5 {
		return no(i)
	}
	return ok(e, TypeAPIToken, 0.95, "secret.facebook-access-token")
}

func sourcegraph(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if !strings.HasPrefix(s[i:], "sgp_") || !leftEdge(s, i) {
		return no(i)
	}
	b := i + 4
	if strings.HasPrefix(s[b:], "local_") {
		b += 6
	} else if e := span(s, b, setHexAny, 17); e-b == 16 && e < len(s) && s[e] == '_' {
		b = e + 1
	}
	e := span(s, b, setHexAny, 41)
	if e-b != 40 || !rightEdge(s, e) || entropy(s[b:e]) < 3.5 {
		return no(i)
	}
	return ok(e, TypeAPIToken, 0.95, "secret.sourcegraph-access-token")
}

func sendgrid(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if !strings.HasPrefix(s[i:], "SG.") || !leftEdge(s, i) {
		return no(i)
	}
	e1 := span(s, i+3, setWordD, 23)
	if e1-i-3 != 22 || e1 >= len(s) || s[e1] != '.' {
		return no(i)
	}
	e := span(s, e1+1, setWordD, 44)
	if e-e1-1 != 43 || !rightEdge(s, e) {
		return no(i)
	}
	return ok(e, TypeAPIToken, 0.95, "secret.sendgrid-api-token")
}

// slack handles xoxb-, xoxp-, xoxa-, xoxs-, xoxo-, xoxr-, xoxe- and xoxe.xox?- tokens: numeric
// workspace and user segments then a random alphanumeric tail, or a long configuration token.
func slack(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if i+5 > len(s) || !leftEdge(s, i) || s[i:i+3] != "xox" {
		return no(i)
	}
	k := i + 3
	if strings.HasPrefix(s[k:], "e.xox") && k+7 < len(s) && (s[k+5] == 'b' || s[k+5] == 'p') && strings.HasPrefix(s[k+6:], "-1-") {
		b := k + 9
		e := span(s, b, csAlnum, 400)
		if e-b >= 100 && rightEdge(s, e) && entropy(s[b:e]) >= 3.5 {
			return ok(e, TypeAPIToken, 0.95, "secret.slack-config-token")
		}
		return no(i)
	}
	if !containsByte("abposre", s[k]) || k+1 >= len(s) || s[k+1] != '-' {
		return no(i)
	}
	k += 2
	if s[k-2] == 'e' && strings.HasPrefix(s[k:], "1-") {
		b := k + 2
		e := span(s, b, csAlnum, 400)
		if e-b >= 100 && rightEdge(s, e) && entropy(s[b:e]) >= 3.5 {
			return ok(e, TypeAPIToken, 0.95, "secret.slack-config-refresh-token")
		}
		return no(i)
	}
	if k+2 < len(s) && isDigit(s[k]) && s[k+1] == '-' {
		k += 2 // version segment, as in xoxa-2-
	}
	nums := 0
	for {
		e := span(s, k, csDigitOnly, 14)
		if e-k < 5 || e >= len(s) || s[e] != '-' {
			break
		}
		nums++
		k = e + 1
	}
	e := span(s, k, csAlnum, 80)
	tail := s[k:e]
	hasL, hasD := false, false
	for c := 0; c < len(tail); c++ {
		if isDigit(tail[c]) {
			hasD = true
		} else {
			hasL = true
		}
	}
	if nums >= 1 && len(tail) >= 10 && hasL && (hasD || len(tail) >= 18) && rightEdge(s, e) && !placeholderRun(tail) {
		return ok(e, TypeAPIToken, 0.95, "secret.slack-token")
	}
	return no(i)
}

func slackWebhook(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	r := s[i:]
	if !strings.HasPrefix(r, "hooks.slack.com/services/") && !strings.HasPrefix(r, "hooks.slack.com/workflows/") {
		return no(i)
	}
	b := i + strings.Index(r, "/") + 1
	b = b + strings.Index(s[b:], "/") + 1
	e := span(s, b, csAlnum|csPlusSlash, 200)
	if e-b < 30 {
		return no(i)
	}
	return ok(e, TypeAPIToken, 0.97, "secret.slack-webhook-url")
}

// jwt: three base64url segments, header and payload JSON objects ("eyJ" / "ey"), the signature
// possibly empty (alg "none").
func jwt(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if !strings.HasPrefix(s[i:], "eyJ") || !leftEdge(s, i) {
		return no(i)
	}
	e1 := span(s, i, setWordD, 4000)
	if e1-i < 18 || e1 >= len(s) || s[e1] != '.' || !strings.HasPrefix(s[e1+1:], "ey") {
		return no(i)
	}
	e2 := span(s, e1+1, setWordD|csPlusSlash, 20000)
	if e2-e1-1 < 17 || e2 >= len(s) || s[e2] != '.' {
		return no(i)
	}
	e := span(s, e2+1, setWordD|csPlusSlash, 4000)
	for e < len(s) && s[e] == '=' {
		e++
	}
	if e > e2+1 && e-e2-1 < 10 {
		return no(i)
	}
	return ok(e, TypeJWT, 0.95, "secret.jwt")
}

// seed recognises moltgate's key and signature text forms (package keys): ed25519:/x25519: +
// padded base64 of a 32-byte key (44 characters) or, for ed25519, of a 64-byte signature (88).
// A private seed has the form of a public key (and a 64-byte private key that of a signature), so
// either is a secret only under a private-key name or after a private/seed/secret cue. Otherwise the text form is a
// public key or a signature, which every identity and capability certificate carries: it is
// consumed whole, without a finding (type 0), so that what its base64 spells by chance is not
// read as a token of its own ("ed25519:oy2…" as a NuGet key, ".../AIza…" as a Google key).
func seed(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	p := strings.IndexByte(s[i:], ':')
	if p < 0 || p > 8 {
		return no(i)
	}
	b := i + p + 1
	e := span(s, b, setB64|csEq, 89)
	n := e - b
	if n != 44 && (n != 88 || s[i] != 'e') || s[e-1] != '=' || !rightEdge(s, e) {
		return no(i)
	}
	if k, err := base64.StdEncoding.DecodeString(s[b:e]); err != nil || len(k) != 32 && len(k) != 64 {
		return no(i)
	}
	if x.key == keyPrivate || x.cueBefore(i, 48, seedCues) {
		return ok(e, TypePrivateKey, 0.97, "secret.private-seed")
	}
	return e, 0, 0, ""
}

// "encryption_key" is no cue: a directory attestation names the agent's public key so, an
// identity file its private one, which the identity file's own rule finds.
var seedCues = newCues("private", "seed", "secret", "priv", "signing_key", "signingkey")

// identityFile recognises moltgate's identity file (keys.KeyFile) by its version member,
// "moltgate_identity": the file exists to hold an agent's two private keys, in the clear or
// sealed under a passphrase, and neither form may leave the organisation. It fires on the
// member name alone (a JSON key, scanned as its own string) or, in text, on the member followed
// by a "private" or "encrypted" object.
func identityFile(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	const m = "moltgate_identity"
	if !strings.HasPrefix(s[i:], m) {
		return no(i)
	}
	e := i + len(m)
	if i == 0 && e == len(s) {
		return ok(e, TypePrivateKey, 0.95, "secret.moltgate-identity-file")
	}
	r := s[e:min(len(s), e+4096)]
	if !strings.HasPrefix(strings.TrimLeft(r, `"\ `), ":") {
		return no(i)
	}
	if strings.Contains(r, `"private"`) || strings.Contains(r, `"encrypted"`) || strings.Contains(r, `\"private\"`) ||
		strings.Contains(r, `\"encrypted\"`) {
		return ok(e, TypePrivateKey, 0.95, "secret.moltgate-identity-file")
	}
	return no(i)
}
