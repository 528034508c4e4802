package pii

import "strings"

// Credentials that are not a password word: a user and a password written as one value under
// a login key ("login": "admin/s3cret", "creds": "deploy:hunter2"), and access codes of digits
// only ("passcode: 482913", "Your PIN is 4821", "door code 7731#"), which the password rules,
// wanting a letter, pass by.

// loginPair reports whether v is a user name and a password joined by one '/' or ':', as a
// value under a login key writes them: the user an identifier or an e-mail address, the
// password three bytes or more that no placeholder, path or URL reads as.
func loginPair(v string) bool {
	if len(v) < 5 || len(v) > 200 || strings.ContainsAny(v, " \t\n") || strings.Contains(v, "://") ||
		v[0] == '/' || templated(v) || placeholderRun(v) || envRef(v) {
		return false // envRef: "os.environ/NAME" names a variable, no user and password
	}
	k := strings.IndexAny(v, "/:")
	if k < 1 || k > 64 || strings.IndexByte(v[k+1:], v[k]) >= 0 {
		return false
	}
	user, pw := v[:k], v[k+1:]
	if len(pw) < 3 || len(pw) > 128 || !isAlnum(user[0]) {
		return false
	}
	for i := 0; i < len(user); i++ {
		if c := user[i]; !isAlnum(c) && !oneOf(c, "._-@+") {
			return false
		}
	}
	var b1, b2 [24]byte
	if len(user) <= len(b1) && valueSchemes.has(string(lowerInto(b1[:0], user))) {
		return false // "x25519:…", "sha256:…": a typed key or digest, whose scheme reads like a user
	}
	if len(user) <= len(b1) && len(pw) <= len(b2) {
		lu, lp := string(lowerInto(b1[:0], user)), string(lowerInto(b2[:0], pw))
		if loginFieldWords.has(lu) && loginFieldWords.has(lp) {
			return false // "user/password", "email:password": what the field holds, not its value
		}
		if loginFieldWords.has(lp) && (lp == "password" || lp == "passwd" || lp == "pwd" || lp == "secret" || lp == "token") {
			return false // "admin/password": a password's place, not one
		}
	}
	return !strings.ContainsAny(pw, "<>{}*") && !strings.HasPrefix(pw, "$") && !filePath(pw)
}

// filePath reports a value that is an absolute or home-relative path of two parts or more
// ("/etc/app/token", "~/.config/key"): where a secret is kept, as systemd's
// "LoadCredential=token:/etc/app/token" and a container's "secret:/run/secrets/db" say, not
// the secret.
func filePath(v string) bool {
	switch {
	case strings.HasPrefix(v, "/"):
		v = v[1:]
	case strings.HasPrefix(v, "~/"):
		v = v[2:]
	default:
		return false
	}
	k := strings.IndexByte(v, '/')
	return k > 0 && k < len(v)-1
}

// loginFieldWords name the parts of a login rather than hold them.
var loginFieldWords = toSet(`user username login email e-mail mail name userid uid account password passwd pwd pass secret
token pin sso saml oauth oauth2 oidc ldap basic digest none`)

// valueSchemes name the algorithm or encoding that typed values start with ("x25519:" public
// keys in every registration, "sha256:" pins and digests): a value so typed is not a login.
var valueSchemes = toSet(`ed25519 x25519 ed448 x448 p256 secp256k1 ecdsa rsa sha1 sha224 sha256 sha384 sha512 sha3-256
sha3-512 md5 blake2b blake2s blake3 base64 base64url b64 base32 hex multibase`)

// passcode reports whether v, the whole value under a password or PIN key, is an access code
// of digits only: four to ten of them, not one digit repeated or counted up.
func passcode(v string) bool {
	if len(v) < 4 || len(v) > 10 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return !placeholderRun(v) && !countedDigits(v)
}

// countedDigits reports "1234", "0000", "9876": digits that step by one or stay.
func countedDigits(v string) bool {
	for _, d := range []int{0, 1, -1} {
		ok := true
		for i := 1; i < len(v) && ok; i++ {
			ok = int(v[i])-int(v[i-1]) == d
		}
		if ok {
			return true
		}
	}
	return false
}

// pinCues say an access code of digits follows.
var pinCues = newCues("passcode", "pass code", "pin", "pin-code", "access code", "door code", "entry code", "gate code",
	"alarm code", "lock code", "unlock code", "safe code", "security code", "keypad code", "one-time code",
	"verification code", "otp", "2fa code", "sms code", "zugangscode", "türcode", "code d'accès", "code d’accès",
	"código de acceso", "código de acesso", "codice di accesso", "code pin", "kod pin", "código pin", "codice pin",
	"pincode")

// passcodeAt tries the number s[i:j], all digits, as an access code after a cue of pinCues in the
// same clause, with only a colon, "is" or "=" between ("Your PIN is 4821", "door code: 7731#").
// A six-digit number after "PIN code" is India's postal code, not a secret.
func (x *scanCtx) passcodeAt(i, j int) int {
	s := x.s
	if j-i < 4 || j-i > 10 || j < len(s) && (isAlnum(s[j]) || s[j] == '.' && j+1 < len(s) && isDigit(s[j+1]) || s[j] == ',' && j+1 < len(s) && isDigit(s[j+1])) {
		return i
	}
	// What stands between the cue and the number: spaces, ':', '=', '#' and one short verb.
	k := i
	for k > 0 && oneOf(s[k-1], " :=#") {
		k--
	}
	if k > 2 && isAlpha(s[k-1]) {
		if w, ok := wordBefore(s, k); ok && w.b-w.a <= 4 && pinVerbs.has(s[w.a:w.b]) {
			k = w.a
			for k > 0 && oneOf(s[k-1], " :=") {
				k--
			}
		}
	}
	if k == i || k == 0 || !isAlpha(s[k-1]) && s[k-1] < 0x80 {
		return i
	}
	// Every cue ends with one of a few words: most numbers have another before them, and cost
	// that one lookup.
	if s[k-1] < 0x80 && !pinLastBytes[lower(s[k-1])] {
		return i
	}
	if w, ok := wordBefore(s, k); !ok || w.b-w.a > 12 || !pinLastWords.hasFold(s[w.a:w.b]) {
		return i
	}
	lo := max(0, k-24)
	ce := lastCueEnd(s, lo, k, pinCues)
	if ce != k {
		return i
	}
	if j-i == 6 && (hasFoldSuffix(s[lo:ce], "pin code") || hasFoldSuffix(s[lo:ce], "pincode") || hasFoldSuffix(s[lo:ce], "pin-code")) {
		return i // an Indian postal code
	}
	if placeholderRun(s[i:j]) || countedDigits(s[i:j]) {
		return i
	}
	x.add(TypePassword, i, j, 0.85, "secret.passcode")
	return j
}

// pinLastWords are the last words of the cues of pinCues.
var pinLastWords = func() *wordSet {
	var b strings.Builder
	for _, c := range pinCues.cues {
		f := strings.Fields(c)
		b.WriteString(f[len(f)-1])
		b.WriteByte(' ')
	}
	return toSet(b.String())
}()

// pinLastBytes holds the last bytes of pinLastWords.
var pinLastBytes = func() (t [256]bool) {
	for w := range pinLastWords.m {
		t[w[len(w)-1]] = true
	}
	return t
}()

// pinVerbs may stand between a cue and its code: "the PIN is 4821", "der Code ist 4711".
var pinVerbs = toSet("is was are ist est es é è are will be")
