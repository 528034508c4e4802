package pii

import "strings"

// Credentials in URLs and connection strings. A password in a URL's userinfo may hold any byte
// a careless writer puts there (! $ & ' ( ) * + , ; = ~ # ? / [ ] and '@' itself), raw or
// percent-encoded, in any scheme (postgres, mysql, mongodb+srv, redis, amqp, https, ftp,
// sqlserver, jdbc:…); the authority ends at the last '@' that a host name follows. In key=value
// connection strings the separator of the string ends the value: ';' in ODBC and ADO.NET
// strings, '&' in a URL's query, white space in libpq's.

// urlUserinfo handles the '@' at i when it ends, or lies inside, the userinfo of a URL with a
// password. It reports the password and returns the index after the authority's '@', or i.
func (x *scanCtx) urlUserinfo(i int) int {
	s := x.s
	// The scheme's "://" is in the same token: userinfo with two spaces is no credential (a
	// space in the password, or more than one in the user, is refused below), so the search
	// stops at the second space rather than reading 256 bytes of prose.
	lo := spacedStart(s, max(0, i-256), i, 2)
	p := strings.LastIndex(s[lo:i], "://")
	if p < 0 {
		return x.jdbcThin(i)
	}
	u := lo + p + 3
	// The authority's '@': the last one, within reach, that a host name follows.
	te := i
	for te < len(s) && te-i < 256 && !isSpace(s[te]) && s[te] != '"' && s[te] != '<' && s[te] != '>' && s[te] != '`' {
		te++
	}
	at := -1
	for k := i; k < te; k++ {
		if s[k] == '@' && hostAt(s, k+1, te) {
			at = k
		}
	}
	if at < 0 {
		return i
	}
	info := s[u:at]
	c := strings.IndexByte(info, ':')
	if c < 0 {
		return i
	}
	user, pw := info[:c], info[c+1:]
	if strings.Count(user, " ") > 1 || strings.ContainsAny(user, "/\n\t") || len(user) > 64 ||
		strings.ContainsAny(pw, " \t\n") || !urlPassword(pw) {
		return i
	}
	x.add(TypePassword, u+c+1, at, 0.92, "secret.url-credentials")
	return at + 1
}

// hostAt reports a host name at s[k:te]: letters, digits, '-' and '.', then the end, a port, a
// path, a query or a fragment.
func hostAt(s string, k, te int) bool {
	e := k
	for e < te && (isAlnum(s[e]) || s[e] == '-' || s[e] == '.' || s[e] == '_') {
		e++
	}
	if e == k || !isAlnum(s[k]) {
		return false
	}
	return e == te || oneOf(s[e], ":/?#,;)'")
}

// jdbcThin: Oracle's jdbc:oracle:thin:user/password@host.
func (x *scanCtx) jdbcThin(i int) int {
	s := x.s
	lo := spacedStart(s, max(0, i-128), i, 1) // the userinfo holds no space
	p := strings.LastIndex(s[lo:i], ":thin:")
	if p < 0 {
		return i
	}
	u := lo + p + len(":thin:")
	info := s[u:i]
	c := strings.IndexByte(info, '/')
	if c <= 0 || strings.ContainsAny(info, " \t\n") || !urlPassword(info[c+1:]) {
		return i
	}
	x.add(TypePassword, u+c+1, i, 0.92, "secret.url-credentials")
	return i + 1
}

// urlPassword reports whether the userinfo password pw (perhaps percent-encoded) is a real one,
// not a template or a placeholder.
func urlPassword(pw string) bool {
	if len(pw) == 0 || len(pw) > 200 {
		return false
	}
	var buf [200]byte
	d := buf[:0]
	for k := 0; k < len(pw); k++ {
		if pw[k] == '%' && k+2 < len(pw) && csTab[pw[k+1]]&setHexAny != 0 && csTab[pw[k+2]]&setHexAny != 0 {
			d = append(d, unhex(pw[k+1])<<4|unhex(pw[k+2]))
			k += 2
			continue
		}
		d = append(d, pw[k])
	}
	v := string(d)
	if len(v) < 3 || templated(pw) || placeholderRun(v) {
		return false
	}
	var lb [24]byte
	if len(v) <= len(lb) {
		switch string(lowerInto(lb[:0], v)) {
		case "password", "passwd", "pass", "pwd", "secret", "changeme", "change_me", "example", "redacted",
			"dummy", "sample", "xxx", "yyy", "test", "token", "user", "username", "mypassword", "yourpassword",
			"your_password", "your-password", "pw", "placeholder", "hidden", "masked", "none", "null":
			return false
		}
	}
	return true
}

// isSpace reports ' ', '\t', '\n' or '\r': one compare and one bit test, where four compares
// cost more on the scan's hot paths.
func isSpace(c byte) bool {
	return c <= ' ' && uint64(1<<' '|1<<'\t'|1<<'\n'|1<<'\r')>>c&1 != 0
}

// templated reports a value that stands for one filled in elsewhere: ${VAR}, $VAR, $(cmd),
// {{ .Values.x }}, %VAR%, <password>, [password], {password}, @Value.
func templated(v string) bool {
	if v == "" {
		return false
	}
	if strings.Contains(v, "${") || strings.Contains(v, "$(") || strings.Contains(v, "{{") {
		return true
	}
	if l := strings.IndexByte(v, '<'); l >= 0 && l+2 < len(v) && isAlpha(v[l+1]) {
		if r := strings.IndexByte(v[l:], '>'); r > 1 && identOnly(strings.ReplaceAll(v[l+1:l+r], "-", "_")) {
			return true // "<payload>", "<your-token>"
		}
	}
	last := v[len(v)-1]
	switch v[0] {
	case '<', '[', '{':
		// <password>, [PASSWORD], {SumoAccessKey}, and "<your" cut at a space.
		k := 1
		for k < len(v) && (isAlnum(v[k]) || v[k] == '_' || v[k] == '-' || v[k] == '.') {
			k++
		}
		return k > 1 && isAlpha(v[1]) && (k == len(v) || oneOf(v[k], ">]}")) ||
			v[0] == '<' && last == '>' || v[0] == '[' && last == ']'
	case '$':
		return len(v) > 1 && identOnly(v[1:])
	case '@':
		return len(v) > 1 && identOnly(v[1:]) && !hasDigit(v) // @Value, @env.password
	case '%':
		return last == '%' && len(v) > 2 && identOnly(v[1:len(v)-1])
	}
	return false
}

func identOnly(v string) bool {
	for k := 0; k < len(v); k++ {
		if !isAlnum(v[k]) && v[k] != '_' && v[k] != '.' {
			return false
		}
	}
	return len(v) > 0
}

// isCall reports a call or an index in code: an identifier, then '(' or '[' and a closing
// bracket at the end, or nothing more (the value was cut at a quote: os.environ["X"]).
func isCall(v string) bool {
	k := strings.IndexAny(v, "([")
	if k <= 0 || !identOnly(v[:k]) {
		return false
	}
	return k == len(v)-1 && strings.IndexByte(v[:k], '.') > 0 || v[len(v)-1] == ')' || v[len(v)-1] == ']'
}

// pwValueEnd returns the end of an unquoted password value starting at a, assigned to the name
// that starts at k, by the separators of the string around it: ';' in an ODBC or ADO.NET
// connection string, '&' in a URL query, white space elsewhere (then a closing bracket or a
// sentence's comma or full stop is not part of it).
func pwValueEnd(s string, k, a int) int {
	e := a
	for e < len(s) && !isSpace(s[e]) && s[e] != '"' && e-a < 512 {
		e++
	}
	switch {
	case k > 0 && s[k-1] == ';' || strings.Contains(s[a:e], ";") && connPairAfter(s, a, e):
		if p := strings.IndexByte(s[a:e], ';'); p >= 0 {
			return a + p
		}
	case k > 0 && (s[k-1] == '&' || s[k-1] == '?'):
		if p := strings.IndexAny(s[a:e], "&#"); p >= 0 {
			return a + p
		}
	}
	for e > a && oneOf(s[e-1], ",.;)}]'") && (e-a < 2 || !strings.ContainsRune(",.;)}]'", rune(s[e-2]))) {
		if s[e-1] == '\'' && strings.IndexByte(s[a:e-1], '\'') < 0 && s[a] != '\'' {
			break // a quote the password itself ends with
		}
		e--
		break
	}
	return e
}

// connPairAfter reports a ';' in s[a:e] followed by another Key=Value pair, as in
// "Password=p;Encrypt=true".
func connPairAfter(s string, a, e int) bool {
	for p := strings.IndexByte(s[a:e], ';'); p >= 0; {
		q := a + p + 1
		r := q
		for r < e && (isAlnum(s[r]) || s[r] == ' ' || s[r] == '_') {
			r++
		}
		if r > q && r < e && s[r] == '=' {
			return true
		}
		n := strings.IndexByte(s[q:e], ';')
		if n < 0 {
			break
		}
		p = q - a + n
	}
	return false
}

// spacedStart returns the start of the tail of s[lo:i] that holds fewer than n spaces (and no
// line break).
func spacedStart(s string, lo, i, n int) int {
	for k := i - 1; k >= lo; k-- {
		if c := s[k]; c == '\n' || c == ' ' && n <= 1 {
			return k + 1
		} else if c == ' ' {
			n--
		}
	}
	return lo
}
