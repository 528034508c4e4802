package pii

import "strings"

// Passwords stated in prose, in English, German, French, Spanish, Portuguese, Italian and
// Dutch: "my password is hunter2!", "das Passwort lautet Sommer2024", "le mot de passe est
// azerty123", "la contraseña es Gato$2019", "use Xk9#mP2 as the password", "login with admin /
// Gain69*". The value is the candidate: a word of four to 64 bytes with a letter and a digit or
// a symbol, the first byte of which the scan stops at (prose words are plain and never one). A
// password word shortly before it, or "as the password" just after, makes it a password, unless
// the words between say the text is about passwords in general ("policy", "must", "at least",
// "reset your"...). Assignments ("Passwort: x", "senha=x") are the assignment rule's.

// pwCues name a password, or a login followed by "user / password".
var pwCues = newCues("password", "passwort", "passwd", "passphrase", "passcode", "pass ", "pass:", "pw ", "pw:",
	"pwd", "kennwort", "mot de passe", "mdp", "contraseña", "contrasena", "clave", "senha", "palavra-passe",
	"palavra passe", "parola d'ordine", "parola d’ordine", "wachtwoord", "login with", "login is", "logon",
	"log in with", "credentials", "zugangsdaten", "identifiant", "usuario", "utilisateur", "user ", "benutzer",
	"reset it to", "changed it to", "set it to", "secret ", "secret:", "pin ", "access code", "door code", "entry code",
	"gate code", "alarm code", "lock code", "unlock code", "safe code", "security code", "zugangscode", "türcode",
	"code d'accès", "code d’accès", "wifi ", "wi-fi ", "código de acceso", "código de acesso", "codice di accesso", "wifi key", "wlan",
	"network key", "sign in with", "log in using", "login using", "sign in using", "credentials are", "creds",
	"anmelden mit", "connexion avec", "iniciar sesión con", "entrar com", "p/w", "heslo", "hasło", "haslo",
	"lösenord", "losenord", "passord", "adgangskode", "salasana", "jelszó", "jelszo", "şifre", "sifre", "parola ",
	"пароль", "密码", "密碼", "パスワード", "비밀번호", "sshpass -p ", "redis-cli -a ", "htpasswd -b", "htpasswd -nb", "htpasswd -cb", "unlock with", "unlocks with", "unlock it with",
	"open it with", "decrypt it with", "protected with", "encrypted with the", "locked with",
	// Baltic, Slavic, Balkan, Greek, Nordic, Iberian and Asian words for a password.
	"parole", "paroli", "parool", "salasõna", "slaptažod", "lozink", "geslo", "парола", "κωδικό", "kodeord",
	"lykilorð", "wagwoord", "contrasenya", "contrasinal", "pasahitza", "kata sandi", "kata laluan", "mật khẩu",
	"รหัสผ่าน", "סיסמה", "סיסמא", "كلمة المرور", "كلمة السر", "पासवर्ड",
	// Celtic, Albanian, Luxembourgish, Caucasian, Persian, Turkic, Swahili and South Asian words.
	"cyfrinair", "pasfhocal", "facal-faire", "fjalëkalim", "fjalekalim", "passwuert", "лозинк", "პაროლ",
	"գաղտնաբառ", "رمز عبور", "گذرواژه", "şifrə", "құпиясөз", "nenosiri", "পাসওয়ার্ড", "கடவுச்சொல்")

// pwAfterCues follow the value: "use X as the password".
var pwAfterCues = newCues("as the password", "as password", "as your password", "as the passphrase",
	"to open it", "to open the", "to unlock", "to decrypt", "to unzip", "to extract", "to log in", "to sign in",
	"zum öffnen", "zum entsperren", "pour ouvrir", "pour déverrouiller", "para abrir", "para desbloquear",
	"per aprire", "om te openen", "to connect", "to access", "to get in", "for the vpn", "for login",
	"als passwort", "als kennwort", "comme mot de passe", "como contraseña", "como senha", "come password",
	"als wachtwoord")

// pwGeneric are words that make a text about passwords in general, not a statement of one.
var pwGeneric = newCues("policy", "policies", "must", "should", "require", "at least", "minimum", "maximum",
	"length", "character", "reset your", "forgot", "hash", "manager", "field", "expire", "rule", "strength",
	"hint", "example", "such as", "like ", "e.g", "never", "don't", "do not", "weak", "strong", "complex",
	"muss", "mindestens", "doit", "debe", "deve", "moet", "zeichen", "caract")

// tokenByte[c]&1 is set when c continues a token read back (no white space, no '"'), &2 when
// it continues one read forward (nor '<').
var tokenByte = func() (t [256]uint8) {
	for c := range 256 {
		if !isSpace(byte(c)) && c != '"' {
			t[c] |= 1
			if c != '<' {
				t[c] |= 2
			}
		}
	}
	return t
}()

// pwWord handles the token (delimited by white space) around p, a byte the scan stopped at in a
// word with a digit or a symbol, after the lower-case letters s[from:p] the scan has read (from ==
// p when none). It returns the end of a password found, or p.
func (x *scanCtx) pwWord(p, from int) int {
	s := x.s
	ts := max(from, p-64) // token bytes all
	for ts > 0 && p-ts < 64 && tokenByte[s[ts-1]]&1 != 0 {
		ts--
	}
	te := p
	digitOrSym := false
	for te < len(s) && te-ts < 80 && tokenByte[s[te]]&2 != 0 {
		if !isAlpha(s[te]) {
			digitOrSym = true
		}
		te++
	}
	x.pwSeen = te
	if te-ts >= 6 && te-ts <= 17 && (s[ts]|0x20 == 'p' || s[ts]|0x20 == 'k' || s[ts]|0x20 == 'w') && leetNoun(s[ts:te]) {
		x.leetCue = te // a password word in leetspeak: a cue for the word after it
		return p
	}
	cjk := false
	if s[ts] >= 0x80 {
		// "密码是X": a value straight after a CJK character.
		if t := cjkValueStart(s, ts, te); t > ts && t < te {
			ts, cjk = t, true
		}
	}
	if !digitOrSym || ts > 0 && !isSpace(s[ts-1]) && s[ts-1] != '"' && !cjk {
		return p
	}
	for k := ts; k < p; k++ {
		if !isAlpha(s[k]) {
			digitOrSym = true
		}
	}
	// Quotes around the value and a sentence's end after it.
	a, b := ts, te
	if s[a] == '\'' || s[a] == '`' {
		a++
	}
	for b > a && oneOf(s[b-1], ".,;)'`") && b-a > 4 {
		if s[b-1] == '\'' && (a == ts || strings.IndexByte(s[a:b-1], '\'') >= 0) {
			break // a password that ends in a quote
		}
		b--
		if s[b] != '.' || b+1 < te {
			break
		}
	}
	if b-a < 4 || b-a > 64 {
		return p
	}
	cli := false
	slug, acct := false, -1
	if !pwShape(s[a:b]) {
		if b-a >= 9 && accountMay(s, ts, a, b) {
			acct = accountAnswer(s, ts, a, b)
		}
		if acct < 0 {
			if b-a < 6 || !isDigit(s[b-1]) || !isLower(s[a]) {
				return p
			}
			// After a command's password flag a slug needs no cue ("-p ember-amber-falcon56").
			if cli = x.cliPassword(ts, te); !cli {
				if !numberOnWord(s, a, b) || !slugPassword(s[a:b]) {
					return p
				}
				slug = true
			}
		}
	}
	// A cue before, within the same sentence (or the question just before: "Password for the
	// VPN? It's X"), with nothing general between.
	lo := max(0, ts-56)
	if k := strings.LastIndexAny(s[lo:ts], "\n.!?"); k >= 0 && (s[lo+k] == '\n' || lo+k+1 < ts && s[lo+k+1] == ' ') {
		if s[lo+k] != '?' || ts-(lo+k) > 12 {
			lo += k + 1
		}
	}
	ce := lastCueEnd(s, lo, ts, pwCues)
	if ce < 0 && b-a >= 6 && !strings.ContainsAny(s[a:b], "=:/") {
		// pwcopula.go: "inlogcode X", "votre NIP est X"; not for ordinals ("99th"), assignments,
		// times and paths, the tokens of prose that reach here most.
		ce = codeWordBefore(s, lo, ts)
	}
	if ce < 0 && x.leetCue > lo && x.leetCue <= ts {
		ce = x.leetCue // "pa55word is X"
	}
	switch {
	case cli:
		// "docker login -u ci -p X": the flag names the value.
	case acct >= 0:
		a = acct
	case ce >= 0:
		if hasCue(s, ce, ts, pwGeneric) || ts-ce > 40 && (ts-ce > copulaSpan || !copulaAfterCode(s, ce, ts)) || strings.ContainsAny(asideless(s[ce:ts]), "([{$<") ||
			weakCueBefore(s, ce) && !closeAfterCue(s, ce, ts) {
			return p // general words, or code: os.environ["X"], f(password=…)
		}
	case !slug && x.cliPassword(ts, te):
		cli = true
	case !slug && (hasCue(s, b, min(len(s), b+24), pwAfterCues) || pwNounAfter(s, b)):
	default:
		if !(ts >= 3 && s[ts-2] == '/' || b-a >= 9) {
			return p
		}
		if !accountMay(s, ts, a, b) {
			return p
		}
		if acct = accountAnswer(s, ts, a, b); acct < 0 {
			return p
		}
		a = acct
	}
	if slug && (ce < 0 || !closeAfterCue(s, ce, ts) && !copulaAfterCue(s, ce, ts)) {
		return p
	}
	v := s[a:b]
	if k := strings.LastIndexAny(v, "=:"); k > 2 && secretish(v[:k]) {
		return p // "…;Password=x": the assignment rule's
	}
	if strings.ContainsAny(v, "<>") || strings.Contains(v, "$") && templatedPart(v) || containsFold(v, "password") ||
		containsFold(v, "username") {
		return p // "<user:password>", "$USER:$PASSWORD", "neo4j:[PASSWORD]"
	}
	if k := strings.IndexAny(v, "({"); k > 0 && identOnly(v[:k]) && strings.IndexByte(v[:k], '.') > 0 {
		return p // new AWS.SharedIniFileCredentials({
	}
	if templatedPart(v) || !credential(v, 4) || codeRef(v) && !hasDigit(v) || versioned(v) || constName(v) || startsWithTokenPrefix(v) || amount(v) ||
		redacted(s, b) || strings.Contains(v, "...") || strings.Contains(v, "**") || containsFold(v, "your") {
		return p // placeholders and the vendor rules' own
	}
	rule := "secret.password-prose"
	if cli {
		rule = "secret.cli-password"
	}
	x.add(TypePassword, a, b, 0.9, rule)
	return te
}

// pwShape: letters with a digit or a symbol, not a number, date, version, path, address or URL.
func pwShape(v string) bool {
	var letters, digits, symbols, joins, uppers int
	assign := false
	for k := 0; k < len(v); k++ {
		switch c := v[k]; {
		case isAlpha(c):
			letters++
			if isUpper(c) {
				uppers++
			}
		case isDigit(c):
			digits++
		case c > ' ' && c < 0x7f:
			if k > 0 && k < len(v)-1 {
				symbols++ // a bracket or a full stop at an end is the sentence's
				if c == '-' || c == '.' || c == '_' {
					joins++
				}
				if (c == '=' || c == ':') && digits == 0 && symbols == 1 && uppers == 0 && letters >= 2 {
					assign = lowerSlug(v[k+1:]) // status=ok, region=eu-west-1: the assignment rule's
				}
			}
		default:
			return false
		}
	}
	if letters == 0 || digits+symbols == 0 || assign || letters+digits < 4 ||
		letters+digits < 5 && digits == 0 && symbols == joins {
		return false
	}
	if uppers == 0 && symbols > 0 && symbols == joins {
		return false // a slug or a version: eu-west-1, gpt-4o-mini, 1.8s
	}
	if strings.Contains(v, "://") || v[0] == '/' && identOnly(strings.ReplaceAll(v, "/", "_")) ||
		strings.Count(v, "/") >= 2 && identOnly(pathFold.Replace(v)) {
		return false // a URL or a path (secret/data/prod/db6)
	}
	if digits == 0 && tzName(v) {
		return false // a time zone: Europe/Budapest, America/New_York
	}
	if (v[0] == '@' || v[0] == '#' || v[0] == '-') && (identOnly(strings.TrimLeft(v, "-")) && digits == 0 || v[1] == '-') {
		return false // @mention, #tag, --flag, -rf
	}
	if versionWord(v) {
		return false // v3.2.0, v2.1-rc1
	}
	// A word that ends in punctuation alone ("box:", "is.") states nothing.
	return digits > 0 || symbols > 1 || !strings.ContainsAny(v[len(v)-1:], ".,:;!?")
}

// pathFold reads a path's separators as an identifier's, to see whether its parts are names.
var pathFold = strings.NewReplacer("/", "_", "-", "_", ".", "_")

// lastCueEnd returns the end of the last cue of cues in s[lo:hi] (at a word start), or -1.
func lastCueEnd(s string, lo, hi int, cl *cueList) int {
	best := -1
	for p := lo; p < hi; p++ {
		if p > 0 && isAlnum(s[p-1]) {
			continue
		}
		if !cl.may(s, p) || p > 0 && s[p-1] == '_' {
			continue // (DB_PASSWORD names a variable)
		}
		w := s[p:hi]
		for _, c := range cl.starting(lower(s[p])) {
			if hasFoldPrefix(w, c) {
				if e := p + len(c); c[len(c)-1] != ' ' && e < len(s) && (isAlnum(s[e]) || s[e] == '_') && !isLower(s[e]) {
					continue // PASSWORD_FILE, password2
				} else if e > best {
					best = e
				}
			}
		}
	}
	return best
}

func containsFold(v, w string) bool {
	for k := 0; k+len(w) <= len(v); k++ {
		if hasFoldPrefix(v[k:], w) {
			return true
		}
	}
	return false
}

// sentenceEnd reports punctuation at j that ends a word in prose: ". ", ", ", "?" at the end.
func sentenceEnd(s string, j int) bool {
	if !oneOf(s[j], ".,;:!?)") {
		return false
	}
	return j+1 >= len(s) || isSpace(s[j+1]) || s[j+1] == '"'
}

// lowerSlug: lower-case letters, digits and . - _ only.
func lowerSlug(v string) bool {
	for k := 0; k < len(v); k++ {
		if c := v[k]; !isLower(c) && !isDigit(c) && c != '.' && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// templatedPart reports a part of v, split at ':' '/' '@', that is a template.
func templatedPart(v string) bool {
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == '/' || r == '@' }) {
		if templated(strings.Trim(part, "\"'")) {
			return true
		}
	}
	return false
}

// versionWord: 'v', digits and dots, and at most a lower-case pre-release or build suffix after
// '-' or '+' (v3, v3.2.0, v2.1.0-rc1). A password that starts with "v" and a digit is none.
func versionWord(v string) bool {
	if len(v) < 2 || v[0] != 'v' && v[0] != 'V' || !isDigit(v[1]) {
		return false
	}
	k := 1
	for k < len(v) && (isDigit(v[k]) || v[k] == '.' && k+1 < len(v) && isDigit(v[k+1])) {
		k++
	}
	if k < len(v) && (v[k] == '-' || v[k] == '+') {
		k++
		for k < len(v) && (isLower(v[k]) || isDigit(v[k]) || v[k] == '.') {
			k++
		}
	}
	for k < len(v) && oneOf(v[k], ".,;:)") {
		k++ // the sentence's
	}
	return k == len(v)
}

// asideless returns w without a parenthesised aside of plain words ("the password (case-sensitive)
// is"), which says nothing of code.
func asideless(w string) string {
	l := strings.IndexByte(w, '(')
	if l < 0 {
		return w
	}
	r := strings.IndexByte(w[l:], ')')
	if r < 0 {
		return w
	}
	for k := l + 1; k < l+r; k++ {
		if c := w[k]; !isAlpha(c) && c != ' ' && c != '-' {
			return w
		}
	}
	return w[:l] + w[l+r+1:]
}

// pwFiller are the words that may stand between a value and the password noun after it:
// "X is the password", "X is my new password", "X ist das Passwort", "X es la contraseña".
var pwFiller = []string{"is", "was", "will", "be", "the", "my", "our", "your", "his", "her", "their", "its",
	"new", "current", "temporary", "old", "default", "admin", "root", "wifi", "master", "main", "actual", "as",
	"ist", "war", "das", "mein", "meine", "unser", "neue", "neues", "est", "était", "le", "mon", "notre",
	"nouveau", "es", "era", "la", "mi", "nuestra", "nueva", "é", "a", "minha", "nossa", "è", "il", "mio",
	"nostra", "het", "mijn", "ons", "nieuwe"}

// pwNounAfter reports a password noun after the value that ends at b, with only filler words
// between (at most four, in the same sentence): "X is the password".
func pwNounAfter(s string, b int) bool {
	if !hasCue(s, b, min(len(s), b+40), pwNouns) {
		return false
	}
	k := b
	for w := 0; w < 5; w++ {
		for k < len(s) && (s[k] == ' ' || s[k] == ',') {
			k++
		}
		if k == b || k >= len(s) {
			return false
		}
		e := k
		for e < len(s) && !isSpace(s[e]) && !sentenceEnd(s, e) {
			e++
		}
		word := s[k:e]
		if ne := cueEndAt(s, k, pwNouns); ne > 0 {
			// Not "passwords are weak": a noun of one password, and nothing general after it.
			return (ne == len(s) || !isAlpha(s[ne])) && !hasCue(s, ne, min(len(s), ne+40), pwGeneric)
		}
		filler := false
		for _, f := range pwFiller {
			if len(f) == len(word) && hasFoldPrefix(word, f) || word == f {
				filler = true
				break
			}
		}
		if !filler {
			return false
		}
		k = e
	}
	return false
}

// cueEndAt returns the end of a cue of cl that starts at k, or 0.
func cueEndAt(s string, k int, cl *cueList) int {
	if !cl.may(s, k) {
		return 0
	}
	return max(0, cl.at(s, k, len(s)))
}

// pwLeadSymbol reports a symbol that joins a password's leading digits to the rest of it: none
// that writes a number, a date, a time, a range or a path ("3.5", "10:30", "2-4", "1/2").
func pwLeadSymbol(c byte) bool {
	switch c {
	case '!', '#', '$', '%', '&', '*', '^', '~', '?', '=', '+':
		return true
	}
	return false
}

// tzAreas are the areas of the time zone database's names ("Europe/Budapest"), which settings,
// profiles and an assistant's notes of a user's preferences carry.
var tzAreas = toSet(`africa america antarctica arctic asia atlantic australia europe indian pacific etc`)

// tzName reports a time zone's name: an area of tzAreas, a slash and a capitalised location of
// letters and underscores, perhaps with a second slash ("America/Argentina/Salta").
func tzName(v string) bool {
	area, loc, ok := strings.Cut(strings.TrimRight(v, ".,;"), "/")
	if !ok || len(area) < 3 || len(loc) < 2 || !isUpper(loc[0]) || !isUpper(area[0]) || !tzAreas.hasFold(area) {
		return false
	}
	for k := 0; k < len(loc); k++ {
		if c := loc[k]; !isAlpha(c) && c != '_' && c != '/' && c != '-' {
			return false
		}
	}
	return true
}
