package pii

import (
	"strings"
)

// Trigger-byte detectors: e-mail addresses and URL credentials at '@', PEM blocks and curl
// credentials at '-', assignments at ':' and '=', Azure client secrets and OpenShift tokens at '~'.

// at handles '@' at i: URL userinfo credentials, else an e-mail address.
func (x *scanCtx) at(i int) int {
	s := x.s
	// Local part.
	a := i
	for a > 0 {
		c := s[a-1]
		if isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '\'' {
			a--
			continue
		}
		break
	}
	// URL credentials: scheme://user:pass@host, whatever the password holds.
	if e := x.urlUserinfo(i); e > i {
		return e
	}
	if a >= 3 && s[a-3:a] == "://" || a > 0 && s[a-1] == ':' {
		return i + 1 // a user name alone, or a host after a scheme: no address, no password
	}
	for a < i && (s[a] == '.' || s[a] == '\'' || s[a] == '-') {
		a++
	}
	if a == i || s[i-1] == '.' || a > 0 && s[a-1] == '*' && maskedLocal(s, a, i) {
		return i
	}
	// Domain.
	e := i + 1
	labels := 0
	lastLabel := e
	for {
		ls := e
		for e < len(s) && (isAlnum(s[e]) || s[e] == '-' || s[e] >= 0x80) {
			e++
		}
		if e == ls || s[ls] == '-' || s[e-1] == '-' {
			e = ls
			if e > i+1 && s[e-1] == '.' {
				e--
			}
			break
		}
		labels++
		lastLabel = ls
		if e+1 < len(s) && s[e] == '.' && (isAlnum(s[e+1]) || s[e+1] >= 0x80) {
			e++
			continue
		}
		break
	}
	if labels < 2 {
		return x.reversedAt(i)
	}
	tld := s[lastLabel:e]
	if len(tld) < 2 || len(tld) > 24 {
		return x.reversedAt(i)
	}
	for k := 0; k < len(tld); k++ {
		if !isAlpha(tld[k]) {
			return x.reversedAt(i)
		}
	}
	c := 0.95
	if e < len(s) && (s[e] == '@' || isDigit(s[e])) || scpRemote(s, a, e) {
		return i
	}
	x.add(TypeEmail, a, e, c, "email.address")
	return e
}

// credential reports whether v looks like a real password rather than a placeholder.
func credential(v string, minLen int) bool {
	if len(v) < minLen || len(v) > 512 || placeholderRun(v) {
		return false
	}
	if templated(v) || strings.ContainsAny(v, " \t\n") {
		return false
	}
	var buf [24]byte
	if len(v) <= len(buf) {
		lv := string(lowerInto(buf[:0], v))
		switch lv {
		case "password", "passwd", "pass", "secret", "token", "test", "changeme", "null", "none", "nil",
			"true", "false", "undefined", "example", "redacted", "dummy", "sample", "username", "user",
			"admin", "xxx", "yyy", "zzz", "foo", "bar", "foobar", "mypassword", "yourpassword",
			"your_password", "your-password", "apikey", "api_key", "value", "string", "required", "optional":
			return false
		}
		if strings.HasPrefix(lv, "your") || strings.HasPrefix(lv, "my_") || strings.Contains(lv, "example") || strings.Contains(lv, "placeholder") {
			return false
		}
	}
	if entropy(v) < 1.5 {
		return false
	}
	return true
}

// dash handles '-' at i: a PEM block, or curl's -u / --user credentials.
func (x *scanCtx) dash(i int) int {
	s := x.s
	if i+1 >= len(s) {
		return i
	}
	if s[i+1] == '-' && strings.HasPrefix(s[i:], "-----BEGIN ") {
		return x.pem(i)
	}
	if i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
		return i
	}
	if s[i+1] == 'p' {
		return x.flagPassword(i)
	}
	k := i + 1
	switch {
	case strings.HasPrefix(s[k:], "u ") || strings.HasPrefix(s[k:], "u\"") || strings.HasPrefix(s[k:], "u'"):
		k++
	case strings.HasPrefix(s[k:], "-user ") || strings.HasPrefix(s[k:], "-user="):
		k += 5
	default:
		return i
	}
	for k < len(s) && (s[k] == ' ' || s[k] == '=') {
		k++
	}
	// The credential: a quoted or bare token, possibly "user":"pass" quoted separately.
	e := k
	for e < len(s) && s[e] != ' ' && s[e] != '\t' && s[e] != '\n' && s[e] != '\\' {
		e++
	}
	tok := s[k:e]
	c := strings.IndexByte(tok, ':')
	if c < 0 || templated(strings.Trim(tok, `"'`)) {
		return i
	}
	user := strings.Trim(tok[:c], `"'{}`)
	pass := strings.Trim(tok[c+1:], `"'{}`)
	pa, pb := k+c+1, e
	cand := pass
	if pass == "" {
		cand = user
		pa, pb = k, k+c
	}
	if !credential(cand, 6) || cand == user && pass != "" {
		return i
	}
	if strings.EqualFold(user, pass) {
		return i
	}
	for pa < pb && (s[pa] == '"' || s[pa] == '\'' || s[pa] == '{') {
		pa++
	}
	for pb > pa && (s[pb-1] == '"' || s[pb-1] == '\'' || s[pb-1] == '}') {
		pb--
	}
	x.add(TypePassword, pa, pb, 0.9, "secret.curl-user")
	return e
}

// pem handles "-----BEGIN ... PRIVATE KEY-----" blocks.
func (x *scanCtx) pem(i int) int {
	s := x.s
	l := i + len("-----BEGIN ")
	le := strings.Index(s[l:min(len(s), l+64)], "-----")
	if le < 0 {
		return i
	}
	label := s[l : l+le]
	if !strings.Contains(label, "PRIVATE KEY") {
		return i + 11
	}
	b := l + le + 5
	end := strings.Index(s[b:], "-----END ")
	bodyEnd := len(s)
	stop := len(s)
	if end >= 0 {
		bodyEnd = b + end
		stop = bodyEnd + len("-----END ")
		if k := strings.Index(s[stop:min(len(s), stop+64)], "-----"); k >= 0 {
			stop += k + 5
		}
	}
	// Count base64 characters of the body (skipping headers such as "Proc-Type:" lines).
	n := 0
	for k := b; k < bodyEnd; k++ {
		if csTab[s[k]]&setB64 != 0 {
			n++
		}
	}
	if n < 32 {
		return i + 11
	}
	x.add(TypePrivateKey, i, stop, 0.99, "secret.pem-private-key")
	return stop
}

// tilde handles '~' at i: Azure AD client secrets (xxx9Q~...) and OpenShift sha256~ tokens.
func (x *scanCtx) tilde(i int) int {
	s := x.s
	if i >= 6 && s[i-6:i] == "sha256" && leftEdge(s, i-6) {
		e := span(s, i+1, setWordD, 44)
		if e-i-1 == 43 && rightEdge(s, e) && !placeholderRun(s[i+1:e]) && entropy(s[i+1:e]) >= 3.5 {
			x.add(TypeAPIToken, i-6, e, 0.95, "secret.openshift-user-token")
			return e
		}
		return i
	}
	if i < 5 || s[i-1] != 'Q' || !isDigit(s[i-2]) {
		return i
	}
	a := i - 5
	for k := a; k < i-2; k++ {
		if csTab[s[k]]&(csAlnum|csUnder|csTilde|csDot) == 0 {
			return i
		}
	}
	if !leftEdge(s, a) {
		return i
	}
	e := span(s, i+1, csAlnum|csUnder|csTilde|csDot|csDash, 35)
	n := e - i - 1
	if n < 31 || n > 34 || !rightEdge(s, e) || placeholderRun(s[i+1:e]) || entropy(s[i+1:e]) < 3.5 {
		return i
	}
	x.add(TypeCloudToken, a, e, 0.95, "secret.azure-ad-client-secret")
	return e
}

// assign handles ':' or '=' at i: "name = value" where the name says password, secret, token or key.
// s[lo:i] are lower-case letters the scan has read before i (lo == i when none).
func (x *scanCtx) assign(i, lo int) int {
	if e := x.assignKey(i, lo); e > i || x.s[i] != ':' {
		return e
	}
	return x.passphraseAt(i)
}

// keyByte holds the bytes of the name before an assignment: ASCII word bytes, '.' and '-'.
var keyByte = func() (t [256]bool) {
	for c := range 0x80 {
		t[c] = isWordByte(byte(c)) || c == '.' || c == '-'
	}
	return t
}()

// assignKey: see assign.
func (x *scanCtx) assignKey(i, lo int) int {
	s := x.s
	// The identifier before the operator.
	k := i
	for k > 0 && (s[k-1] == ':' || s[k-1] == '?' || s[k-1] == '!' || s[k-1] == '+') {
		k--
	}
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	for k > 0 && (s[k-1] == '"' || s[k-1] == '\'' || s[k-1] == ']') {
		k--
	}
	ie := k
	if k == i && lo < k {
		k = lo // lower-case letters the scan has read already: name bytes, none a look-alike
	}
	var leet byte // the look-alikes among the name's bytes, as leetLetter reads them
	for k > 0 && keyByte[s[k-1]] {
		leet |= leetLetter[s[k-1]]
		k--
	}
	// leetIdent reads the name again over '@' and '$' as well: it finds nothing where the name
	// holds no look-alike and neither of those stands before it, which is most names.
	mayLeet := leet != 0 || k > 0 && (s[k-1] == '@' || s[k-1] == '$')
	var lb [40]byte
	if ie-k > 80 {
		return i
	}
	if ie-k < 2 {
		if !mayLeet {
			return i
		}
		if _, _, ok := leetIdent(lb[:0], s, ie); !ok {
			return i // too short, unless it is a key in look-alikes that the bytes above cut ("pa$$:")
		}
	}
	ident := s[k:ie]
	if pw := ie-k == 2 && lower(s[k]) == 'p' && lower(s[k+1]) == 'w'; !pw && !secretish(ident) {
		// "PW=" and "pw:" are a password's key too, too short for the filter; "p4ssw0rd:" is
		// one spelt in look-alikes.
		if !mayLeet {
			return i
		}
		l, lk, ok := leetIdent(lb[:0], s, ie)
		if !ok || !secretish(l) {
			return i
		}
		ident, k = l, lk
	}
	kind := classifyKey(ident)
	if kind == keyNone && mayLeet {
		// "passw0rd": secretish, and a key once read in letters.
		if l, lk, ok := leetIdent(lb[:0], s, ie); ok && secretish(l) {
			ident, k, kind = l, lk, classifyKey(l)
		}
	}
	sidekiq := false
	if kind == keyNone {
		if len(ident) > 20 && strings.HasSuffix(strings.ToUpper(ident), "__CONTRIBSYS__COM") {
			sidekiq = true
		} else {
			return i
		}
	}
	switch kind {
	case keyPassword, keyToken, keyPrivate, keySumoID, keyLogin:
	default:
		if !sidekiq {
			return i
		}
	}
	// The value after the operator.
	v := i + 1
	for v < len(s) && (s[v] == '=' || s[v] == ':' || s[v] == '>') {
		v++
	}
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if v >= len(s) {
		return i
	}
	var a, b int
	switch q := s[v]; q {
	case '"', '\'', '`':
		a = v + 1
		b = a
		for b < len(s) && s[b] != q && s[b] != '\n' && b-a < 2048 {
			if s[b] == '\\' && b+1 < len(s) && s[b+1] == q {
				if b == a || kind != keyPassword {
					break
				}
				b++ // a password may hold the quote that delimits it, escaped
			}
			b++
		}
	case '\\':
		return i
	default:
		a = v
		b = a
		if kind == keyPassword {
			b = pwValueEnd(s, k, a)
			break
		}
		for b < len(s) && s[b] != ' ' && s[b] != '\t' && s[b] != '\n' && s[b] != '\r' && s[b] != ',' &&
			s[b] != ';' && s[b] != ')' && s[b] != '}' && s[b] != '"' && s[b] != '\'' && s[b] != '&' && s[b] != '\\' && b-a < 2048 {
			b++
		}
	}
	if b <= a {
		return i
	}
	n := classifyNorm(ident)
	if sidekiq {
		if c := strings.IndexByte(s[a:b], ':'); c == 8 && b-a == 17 {
			x.add(TypeAPIToken, a, b, 0.9, "secret.sidekiq")
			return b
		}
		return i
	}
	if n == "authorization" || strings.HasSuffix(n, "authorization") {
		return x.authHeader(a, b, i)
	}
	t, c, rule := x.secretValue(kind, a, b)
	if t == 0 && (kind == keyLogin || kind == keyToken) && loginPair(s[a:b]) {
		t, c, rule = TypePassword, 0.9, "secret.login-pair" // "login: admin/s3cret"
	}
	if t == 0 {
		return i
	}
	x.add(t, a, b, c, rule)
	return b
}

// secretWords are the words secretish looks for; secretStarts holds their first three bytes
// (case-folded), so that a name is read once with a rolling three-byte key and a position is
// compared in full only when its key starts one of them.
var secretWords = []string{"pass", "pwd", "priv", "secret", "seed", "sumo", "token", "key", "auth",
	"cred", "contribsys", "login", "bearer", "senha", "kennwort", "contrase", "wachtwoord", "mdp", "session",
	"sid", "cookie", "_pw"}

var secretStarts = func() (b bloom) {
	for _, w := range secretWords {
		b.add(w)
	}
	return b
}()

// secretish is a cheap filter before classifyKey: the name must mention a secret word.
func secretish(ident string) bool {
	if len(ident) < 3 {
		return false
	}
	var k uint32
	hit := false
	for i := 0; i < len(ident); i++ {
		k = k>>8 | uint32(ident[i]|0x20)<<16 // ident[i-2], ident[i-1], ident[i], as fold3 orders them
		if i >= 2 && secretStarts.has(k) {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	return secretishAt(ident)
}

func secretishAt(ident string) bool {
	for k := 0; k+3 <= len(ident); k++ {
		r := ident[k:]
		switch lower(ident[k]) {
		case 'p':
			if hasFoldPrefix(r, "pass") || hasFoldPrefix(r, "pwd") || hasFoldPrefix(r, "priv") {
				return true
			}
		case 's':
			if hasFoldPrefix(r, "secret") || hasFoldPrefix(r, "seed") || hasFoldPrefix(r, "sumo") ||
				hasFoldPrefix(r, "senha") || hasFoldPrefix(r, "session") || hasFoldPrefix(r, "sid") {
				return true
			}
		case 't':
			if hasFoldPrefix(r, "token") {
				return true
			}
		case 'k':
			if hasFoldPrefix(r, "key") || hasFoldPrefix(r, "kennwort") {
				return true
			}
		case 'a':
			if hasFoldPrefix(r, "auth") {
				return true
			}
		case 'c':
			if hasFoldPrefix(r, "cred") || hasFoldPrefix(r, "contribsys") || hasFoldPrefix(r, "contrase") || hasFoldPrefix(r, "cookie") {
				return true
			}
		case 'w':
			if hasFoldPrefix(r, "wachtwoord") {
				return true
			}
		case 'm':
			if hasFoldPrefix(r, "mdp") {
				return true
			}
		case 'l':
			if hasFoldPrefix(r, "login") {
				return true
			}
		case 'b':
			if hasFoldPrefix(r, "bearer") {
				return true
			}
		case '_':
			if len(r) == 3 && hasFoldPrefix(r, "_pw") {
				return true // bind_pw, DB_PW
			}
		}
	}
	return false
}

func hasFoldPrefix(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lower(s[i]) != p[i] {
			return false
		}
	}
	return true
}

func classifyNorm(ident string) string {
	var buf [64]byte
	return string(normKey(buf[:0], ident))
}

// authHeader: "Authorization: [scheme] credential".
func (x *scanCtx) authHeader(a, b, i int) int {
	s := x.s
	// A quoted header value stops at the quote; a bare one may hold "Bearer token".
	if a > 0 && s[a-1] != '"' && s[a-1] != '\'' {
		e := b
		for e < len(s) && s[e] != '"' && s[e] != '\'' && s[e] != '\n' {
			e++
		}
		b = e
	}
	v := s[a:b]
	scheme := ""
	if sp := strings.IndexByte(v, ' '); sp > 0 {
		scheme = strings.ToLower(v[:sp])
		switch scheme {
		case "bearer", "basic", "token", "api-token", "digest", "bot", "jwt", "apikey", "key":
			a += sp + 1
			for a < b && s[a] == ' ' {
				a++
			}
		default:
			scheme = ""
		}
	}
	e := a
	for e < b && s[e] != ' ' && s[e] != ',' {
		e++
	}
	cand := s[a:e]
	if !credential(cand, 8) || placeholderRun(cand) || startsWithTokenPrefix(cand) || constName(cand) ||
		strings.Contains(cand, "...") || strings.Contains(cand, "**") || containsFold(cand, "your") {
		return i // a placeholder, or a vendor token its own rule judges
	}
	if scheme == "basic" {
		// Basic credentials are base64("user:password").
		if !basicCreds(cand) {
			return i
		}
	}
	if strings.HasPrefix(cand, "eyJ") {
		return i // a JWT: the token rule reports it
	}
	x.add(TypePassword, a, e, 0.9, "secret.authorization-header")
	return e
}

func basicCreds(v string) bool {
	var buf [256]byte
	if len(v) > 340 {
		return false
	}
	n, err := decodeB64(buf[:], v)
	if err != nil {
		return false
	}
	return strings.IndexByte(string(buf[:n]), ':') > 0
}

// digitSecret: secrets that begin with digits (Facebook app tokens "id|secret", Telegram bot
// tokens "id:AA...").
func (x *scanCtx) digitSecret(i, j int) int {
	s := x.s
	n := j - i
	if j < len(s) && s[j] == '|' && (n == 15 || n == 16) && isDigits([]byte(s[i:j])) {
		e := span(s, j+1, setWordD, 28)
		if e-j-1 == 27 && rightEdge(s, e) {
			x.add(TypeAPIToken, i, e, 0.9, "secret.facebook-access-token")
			return e
		}
	}
	if j+3 < len(s) && s[j] == ':' && n >= 8 && n <= 10 && s[j+1] == 'A' && s[j+2] == 'A' && isDigits([]byte(s[i:j])) {
		e := span(s, j+1, setWordD, 46)
		if k := e - j - 1; (k == 35 || k >= 30 && k <= 45 && randomish(s[j+1:e])) && rightEdge(s, e) {
			x.add(TypeAPIToken, i, e, 0.9, "secret.telegram-bot-token")
			return e
		}
	}
	return i
}
