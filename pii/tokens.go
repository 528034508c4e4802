package pii

import (
	"bytes"
	"encoding/base64"
	"strings"
)

// Secrets without a vendor prefix, found at a long run of token bytes that holds a digit or a
// capital: private keys in DER form without their PEM armour, OpenSSH key files, Twilio and
// Mailchimp keys, Discord bot tokens, Azure DevOps tokens, the AWS secret key that goes with
// an access key id, and any random-looking token that a key word ("token", "api key",
// "Bearer", "client secret", a vendor's name...) announces. The run is measured once, from its
// first byte; runs under 16 bytes, which is nearly every word of prose, cost one span.

// keywordCues announce a credential: the token that follows within a few words is one.
var keywordCues = newCues("token", "secret", "api key", "api-key", "apikey", "api_key", "access key",
	"access_key", "access-key", "accesskey", "bearer", "authorization", "x-api-key", "client_secret",
	"client secret", "clientsecret", "private_key", "private key", "privatekey", "passphrase", "credential",
	"auth", "signing key", "secret key", "session key", "license key", "licence key", "app key", "app_key",
	"master key", "account key", "account_key", "sas", "sig=", "password", "passwd", "pwd", "key:", "key=",
	"key is", "key was", "key \"", "key '", "key`", "the key", "my key", "new key", "this key", "webhook",
	"conn", "dsn", "session", "sid=", "cookie", "jeton", "clé", "cle d", "schlüssel", "zugangs", "clave", "chave",
	"chiave", "sleutel", "llave",
	// Vendors whose keys carry no prefix: a random token after their name is their key.
	"openai", "anthropic", "claude", "mistral", "cohere", "groq", "gemini", "deepseek", "together",
	"fireworks", "perplexity", "replicate", "elevenlabs", "deepgram", "assemblyai", "pinecone", "weaviate",
	"wandb", "langsmith", "huggingface", "datadog", "twilio", "sendgrid", "mailgun", "mailchimp",
	"heroku", "okta", "algolia", "asana", "airtable", "cloudflare", "fastly", "sentry", "pagerduty",
	"newrelic", "new relic", "dropbox", "twitter", "discord", "telegram", "trello", "zendesk", "hubspot",
	"intercom", "plaid", "shopify", "stripe", "slack", "github", "gitlab", "bitbucket", "jira",
	"confluence", "atlassian", "azure", "aws", "gcp", "vercel", "netlify", "supabase", "firebase",
	"linear", "notion", "postman", "doppler", "vault", "snyk", "sonar", "circleci", "travis",
	"jfrog", "artifactory", "contentful", "launchdarkly", "segment", "mixpanel", "amplitude", "braintree",
	"paypal", "adyen", "square", "coinbase", "binance", "kraken", "etsy", "twitch", "zoom", "webex",
	"yandex", "alibaba", "tencent", "baidu", "nvidia", "voyage", "tavily", "serpapi", "firecrawl")

// hashCues label what follows as a digest or an identifier, which a key word further back does
// not make a secret ("token sha256: …", "api key id …"). "ref" is one only as a word of its own
// ("ref: 9f3c…", "refs/heads"): a refresh token is a credential.
var hashCues = newCues("sha", "md5", "hash", "commit", "checksum", "digest", "uuid", "fingerprint",
	"public", "pubkey", "request id", "request-id", "trace", "etag", "version", "build", "rev ", "revision",
	"id:", "id=", "id ", "_id", "-id", "nonce", "salt", "iv:", "iv=", "kid", "key id", "keyid", "sid:", "ref:", "ref=", "ref ", "ref#",
	"refs/", "reference",
	"redacted", "masked", "example", "placeholder", "dummy", "fake", "sample", "authenticity", "csrf", "xsrf")

// tokenRun handles the word s[i:j] (with a digit or a capital, m its classes) when it starts a
// run of 16 or more token bytes. It returns where scanning resumes, or j.
func (x *scanCtx) tokenRun(i, j int) int {
	s := x.s
	const set = csAlnum | csUnder | csDash | csPlusSlash | csDot | csTilde
	if i > 0 && csTab[s[i-1]]&set != 0 {
		// Inside a run. Its first word was measured unless it was plain lower case, which the
		// scan skips ("abcdef-Xk9…", "path/to/Key2"): then measure from the run's start.
		ts := i
		for ts > 0 && i-ts < 128 && csTab[s[ts-1]]&set != 0 {
			if c := s[ts-1]; isUpper(c) || isDigit(c) || c == '_' {
				return j
			}
			ts--
		}
		if ts > 0 && csTab[s[ts-1]]&set != 0 {
			return j
		}
		if e := x.tokenRun(ts, j); e > j {
			return e
		}
		return j
	}
	e := span(s, i, set, 8192)
	for e > i && (s[e-1] == '.' || s[e-1] == '-') {
		e-- // a sentence's full stop, a dash before a comment
	}
	for e < len(s) && e < i+8192 && s[e] == '=' && (e+1 == len(s) || csTab[s[e+1]]&csAlnum == 0 || s[e+1] == '=') {
		e++ // base64 padding
	}
	if e-i < 16 {
		return j
	}
	v := s[i:e]
	switch {
	case v[0] == 'M' && e-i >= 60:
		if k := x.derKey(i); k > i {
			return k
		}
	case strings.HasPrefix(v, "b3BlbnNzaC1rZXktdjE"):
		// base64 of "openssh-key-v1", the container of an OpenSSH private key file.
		k := b64Block(s, i)
		x.add(TypePrivateKey, i, k, 0.97, "secret.openssh-private-key")
		return k
	}
	if t, rule, k := vendorShape(s, i, e, j); k > i {
		x.add(t, i, k, 0.9, rule)
		return k
	}
	if e-i == 40 && x.awsSecret(i, e) {
		x.add(TypeCloudToken, i, e, 0.9, "secret.aws-secret-key")
		return e
	}
	if strings.HasPrefix(v, "AAAA") && sshPublicBefore(s, i) {
		return e // "ssh-ed25519 AAAAC3Nza…": an OpenSSH public key, published to be used
	}
	if publicPEMBlob(v) || publicPEMBody(s, i) {
		return e // certificate-authority-data: a certificate in base64, published to be used
	}
	if x.announced(i, e) {
		x.add(TypeSecret, i, e, 0.85, "secret.keyword-token")
		return e
	}
	return j
}

// vendorShape recognises prefix-less vendor formats in the run s[i:e] (j ends its first word).
func vendorShape(s string, i, e, j int) (Type, string, int) {
	v := s[i:e]
	w := s[i:j]
	switch {
	case len(w) >= 30 && len(w) <= 40 && (strings.HasPrefix(w, "SK") || strings.HasPrefix(w, "AC")) &&
		j == e && allSet(w[2:], setHexAny) && hexRandom(w[2:]):
		if w[0] == 'S' {
			return TypeAPIToken, "secret.twilio-api-key", j
		}
		return TypeAPIToken, "secret.twilio-account-sid", j
	case len(w) == 32 && allSet(w, setHexL) && strings.HasPrefix(s[j:], "-us") && hexRandom(w):
		k := span(s, j+3, csDigitOnly, 3)
		if k > j+3 && rightEdge(s, k) {
			return TypeAPIToken, "secret.mailchimp-api-key", k
		}
	case len(v) == 84 && v[76:80] == "AZDO" && allSet(v, csAlnum):
		return TypeAPIToken, "secret.azure-devops-pat", e
	}
	// Discord bot token: base64 of the bot's numeric id, a timestamp, an HMAC.
	if c := v[0]; (c == 'M' || c == 'N' || c == 'O') && len(w) >= 23 && len(w) <= 28 && j < e && s[j] == '.' {
		p := span(s, j+1, setWordD, 8)
		if p-j-1 == 6 && p < e && s[p] == '.' {
			q := span(s, p+1, setWordD, 40)
			if q-p-1 >= 27 && randomish(s[p+1:q]) {
				return TypeAPIToken, "secret.discord-bot-token", q
			}
		}
	}
	return 0, "", i
}

func allSet(v string, set uint16) bool {
	for k := 0; k < len(v); k++ {
		if csTab[v[k]]&set == 0 {
			return false
		}
	}
	return true
}

// hexRandom reports hex digits that mix digits and letters as random hex does.
func hexRandom(v string) bool {
	d := 0
	for k := 0; k < len(v); k++ {
		if isDigit(v[k]) {
			d++
		}
	}
	return d >= len(v)/5 && d < len(v) && entropy(v) >= 2.8 && !sequential(v)
}

// awsSecret: 40 base64 bytes, random, near an AWS access key id or after an AWS or secret cue.
var awsCues = newCues("aws", "amazon", "secret", "s3", "iam")

func (x *scanCtx) awsSecret(i, e int) bool {
	s := x.s
	v := s[i:e]
	if !allSet(v, setB64) || !randomish(v) {
		return false
	}
	lo, hi := max(0, i-300), min(len(s), e+300)
	for _, p := range [...]string{"AKIA", "ASIA"} {
		if strings.Contains(s[lo:hi], p) {
			return true
		}
	}
	return x.cueBefore(i, 80, awsCues)
}

// announced reports a random-looking run s[i:e] that a key word announces within the 48 bytes
// before it, with no digest or identifier label between them.
func (x *scanCtx) announced(i, e int) bool {
	s := x.s
	v := s[i:e]
	for len(v) > 0 && v[len(v)-1] == '=' {
		v = v[:len(v)-1]
	}
	if jwtHeaderOnly(v) {
		return false // a JWT's header alone, public by design; a whole JWT is the jwt rule's
	}
	if len(v) < 16 || len(v) > 1024 || publicPrefix(v) || codeRef(v) || constName(v) || !randomish(v) ||
		redacted(s, e) || x.metaValue(i) {
		return false
	}
	lo := max(0, i-48)
	if k := strings.LastIndexByte(s[lo:i], '\n'); k >= 0 && k < i-lo-1 {
		// The key word may sit on the line above ("token:\n  abc…") but not further.
		if k2 := strings.LastIndexByte(s[lo:lo+k], '\n'); k2 >= 0 {
			lo += k2 + 1
		}
	}
	if !hasCue(s, lo, i, keywordCues) {
		return false
	}
	return !hasCue(s, max(lo, i-28), i, hashCues)
}

// b64Block returns the end of a base64 block starting at i that may run over several lines
// (line breaks written raw or escaped as \n, as in JSON and logs).
func b64Block(s string, i int) int {
	e := i
	for {
		k := span(s, e, setB64|csEq|csUnder|csDash, 1<<16)
		if k == e {
			break
		}
		e = k
		n := e
		switch {
		case strings.HasPrefix(s[n:], "\r\n"):
			n += 2
		case strings.HasPrefix(s[n:], "\\n"):
			n += 2
		case n < len(s) && (s[n] == '\n' || s[n] == ' '):
			n++
		default:
			return e
		}
		if m := span(s, n, setB64|csEq, 8); m-n < 4 {
			return e
		}
		e = n
	}
	return e
}

// derKey recognises a private key in DER form written in base64 without PEM armour
// ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC…"), from the ASN.1 structure its first bytes must have:
// a SEQUENCE holding version 0 then an INTEGER (PKCS#1 RSA, DSA) or an AlgorithmIdentifier
// (PKCS#8), version 1 then an OCTET STRING (SEC 1 EC key) or an AlgorithmIdentifier (PKCS#8
// v2), version 3 then a SEQUENCE (PKCS#12), or an EncryptedPrivateKeyInfo under PBES2 or a
// PKCS#12 PBE. Certificates and public keys start differently and pass.
func (x *scanCtx) derKey(i int) int {
	s := x.s
	if i+32 > len(s) {
		return i
	}
	var src [32]byte
	copy(src[:], s[i:i+32])
	var der [24]byte
	if _, err := base64.StdEncoding.Decode(der[:], src[:]); err != nil {
		return i
	}
	if !privateDER(der[:]) {
		return i
	}
	e := b64Block(s, i)
	if e-i < 60 {
		return i
	}
	x.add(TypePrivateKey, i, e, 0.97, "secret.der-private-key")
	return e
}

func privateDER(d []byte) bool {
	if d[0] != 0x30 {
		return false
	}
	p := 2
	switch d[1] {
	case 0x81:
		p = 3
	case 0x82:
		p = 4
	case 0x83:
		p = 5
	default:
		if d[1] >= 0x80 {
			return false
		}
	}
	b := d[p:]
	if b[0] == 0x02 && b[1] == 0x01 {
		switch next := b[3]; b[2] {
		case 0:
			return next == 0x02 || next == 0x30
		case 1:
			return next == 0x04 || next == 0x30
		case 3:
			return next == 0x30
		}
		return false
	}
	// EncryptedPrivateKeyInfo: SEQUENCE { SEQUENCE { OID pbes2 | pkcs12-pbe ... } ... }.
	if b[0] != 0x30 {
		return false
	}
	q := 2
	if b[1] == 0x81 {
		q = 3
	} else if b[1] == 0x82 {
		q = 4
	}
	o := b[q:]
	pkcs5 := []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05}
	pkcs12 := []byte{0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01}
	return len(o) >= len(pkcs5) && string(o[:len(pkcs5)]) == string(pkcs5) ||
		len(o) >= len(pkcs12) && string(o[:len(pkcs12)]) == string(pkcs12)
}

// constName reports a constant's name: capitals, digits and underscores, with an underscore
// and fewer than three digits ("XXH3_SECRET_SIZE_MIN").
func constName(v string) bool {
	us, dg := 0, 0
	for k := 0; k < len(v); k++ {
		switch c := v[k]; {
		case c == '_' || c == '-':
			us++
		case isDigit(c):
			dg++
		case !isUpper(c):
			return false
		}
	}
	return us > 0 && dg < 3
}

// metaValue reports a value assigned (key: value, key = "value", "key": "value") to a name
// that says it is an identifier, a name, a path or a digest rather than a secret
// ("credentialId", "key_vault_name", "token_url"): the assignment rule has judged it already.
func (x *scanCtx) metaValue(i int) bool {
	s := x.s
	k := i
	for k > 0 && i-k < 8 && (s[k-1] == '"' || s[k-1] == '\'' || s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	if k == 0 || s[k-1] != ':' && s[k-1] != '=' && s[k-1] != '>' {
		return false
	}
	for k > 0 && (s[k-1] == ':' || s[k-1] == '=' || s[k-1] == '>' || s[k-1] == ' ' || s[k-1] == '"' || s[k-1] == '\'') {
		k--
	}
	e := k
	for k > 0 && e-k < 64 && (isWordByte(s[k-1]) && s[k-1] < 0x80 || s[k-1] == '-' || s[k-1] == '.') {
		k--
	}
	if e-k < 2 {
		return false
	}
	var buf [64]byte
	n := string(normKey(buf[:0], s[k:e]))
	return hasSuffixAny(n, "id", "ids", "name", "names", "url", "uri", "file", "path", "type", "hash",
		"checksum", "digest", "sha", "version", "ref", "prefix", "hint", "label", "vault", "region",
		"project", "bucket", "env", "nonce", "salt", "iv", "etag", "commit", "uuid", "guid", "fingerprint")
}

// jwtHeaderOnly reports a JWT header with nothing after it but dots ("eyJhbGciOiJIUzI1NiJ9.",
// what is left of "eyJhbGciOiJIUzI1NiJ9.<payload>.<signature>"): public by design. A signed
// token with a payload, whatever its segments, is not.
func jwtHeaderOnly(v string) bool {
	if !strings.HasPrefix(v, "eyJ") {
		return false
	}
	k := strings.IndexByte(v, '.')
	if k < 0 {
		return len(v) <= 80
	}
	return k <= 80 && strings.Trim(v[k:], ".") == ""
}

// sshPublicBefore reports an OpenSSH public key's algorithm and a space just before i.
func sshPublicBefore(s string, i int) bool {
	k := i
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	if k == i {
		return false
	}
	a := k
	for a > 0 && !isSpace(s[a-1]) && k-a < 40 {
		a--
	}
	w := s[a:k]
	return strings.HasPrefix(w, "ssh-") || strings.HasPrefix(w, "ecdsa-sha2-") || strings.HasPrefix(w, "sk-ssh-") ||
		strings.HasPrefix(w, "sk-ecdsa-")
}

// publicPEMBlob reports whether v, base64 of PEM text ("LS0tLS1CRUdJTi" is "-----BEGIN"), holds
// certificates or public keys and no private key: kubeconfig's certificate-authority-data and
// client-certificate-data, a Secret's ca.crt. A bundle that holds a private key as well is none.
func publicPEMBlob(v string) bool {
	label, ok := strings.CutPrefix(v, "LS0tLS1CRUdJTi")
	if !ok || !strings.HasPrefix(label, "BDRVJUSUZJQ0FURS") && !strings.HasPrefix(label, "BQVUJMSUMgS0VZ") &&
		!strings.HasPrefix(label, "BSU0EgUFVCTElDIEtFWS") {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
		if err != nil {
			return false
		}
	}
	return !bytes.Contains(b, []byte("PRIVATE KEY"))
}

// publicPEMBody reports whether the run at i is the body of a PEM block of a certificate or a
// public key: a BEGIN line of one ends right before it, on the line above or, where a view has
// joined the block's lines, on the same (the run may then take the label's last word:
// "CERTIFICATE-----MIIB…").
func publicPEMBody(s string, i int) bool {
	w := s[max(0, i-64):min(len(s), i+24)]
	b := strings.LastIndex(w, "-----BEGIN ")
	if b < 0 {
		return false
	}
	label := w[b+len("-----BEGIN "):]
	end := strings.Index(label, "-----")
	if end < 0 {
		return false
	}
	switch label[:end] {
	case "CERTIFICATE", "PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST", "X509 CRL",
		"TRUSTED CERTIFICATE":
	default:
		return false
	}
	// The block's body starts after the label's dashes (and a line break); the run starts there
	// or inside the label.
	body := max(0, i-64) + b + len("-----BEGIN ") + end + 5
	for body < len(s) && (s[body] == '\n' || s[body] == '\r') {
		body++
	}
	return i <= body && i >= max(0, i-64)+b
}
