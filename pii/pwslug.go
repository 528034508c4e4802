package pii

import "strings"

// Passwords of joined lower-case words. People choose passwords of words joined by a full stop,
// an underscore or a hyphen, with a number at the end ("tango.lumi17", "vltava_fjord96"): in
// prose these read like slugs and versions ("eu-west-1", "gpt-4o-mini"), and after a password
// key like a dotted name in code ("settings.db_password"). Such a word is a password only when a
// password word stands right before it ("password: tango.lumi17", "wachtwoord is tango.lumi17",
// "pwd=kanelbulle.gouda47"), and only when its number is written onto a word of letters and its
// last dotted part holds it (not "db01.internal", not "eu-west-1").

// slugPassword reports whether v is lower-case words joined by '.', '_' or '-' with a number
// written onto its last word.
func slugPassword(v string) bool {
	if len(v) < 6 || len(v) > 64 || !isLower(v[0]) {
		return false
	}
	letters, joins := 0, 0
	for k := 0; k < len(v); k++ {
		switch c := v[k]; {
		case isLower(c):
			letters++
		case isDigit(c):
		case c == '.' || c == '_' || c == '-':
			if k == len(v)-1 || !isLower(v[k-1]) && !isDigit(v[k-1]) {
				return false
			}
			joins++
		default:
			return false
		}
	}
	last := v[strings.LastIndexAny(v, "._-")+1:]
	d := len(last)
	for d > 0 && isDigit(last[d-1]) {
		d--
	}
	if d == 0 {
		return numberPart(v, last)
	}
	// The number ends the last word and is written onto letters: "lumi17", not "west-1" or "2.0".
	if letters < 5 || d == len(last) || d < 2 || !isLower(last[d-1]) {
		return false
	}
	for k := 0; k < d; k++ {
		if !isLower(last[k]) {
			return false
		}
	}
	return joins > 0 // one word with a number is pwShape's
}

// pwFillers may stand between a password word and the value it names.
var pwFillers = []string{"is", "was", "est", "es", "é", "è", "ist", "is:", "now", "nova", "novo", "new", "nieuw", "neu",
	"nouveau", "nuevo", "nuova", "är", "er", "on", "je", "to", "jest", "ir", "yra", "е", "є", "это", "este",
	"zní", "brzmi", "lautet", "van", "adalah", "ialah", "là", "คือ", "הוא", "هي", "है", "nun", "jetzt", "agora",
	"ahora", "maintenant", "ora", "nu", "nyt", "nå", "teraz", "nyní", "tagad", "nüüd", "dabar", "sada", "zdaj",
	"és", "είναι", "anda", "kamu", "sua", "seu", "din", "dit", "jūsų", "tavs", "sinu", "vaš", "tvoje", "twoje",
	"váš", "ваш", "ваша", "jouw", "uw", "je", "dein", "ihr", "votre", "ton", "tu",
	// "initial", "temporary": "hasło startowe X", "tijdelijk wachtwoord X".
	"startowe", "tymczasowe", "początkowe", "sementara", "väliaikainen", "midlertidig", "midlertidige", "tillfälligt",
	"tillfälliga", "dočasné", "počáteční", "geçici", "temporaire", "provisoire", "tijdelijk", "tijdelijke",
	"temporary", "initial", "ay"}

// closeAfterCue reports whether only an operator and at most two filler words stand between a
// password word ending at ce and a value starting at ts.
func closeAfterCue(s string, ce, ts int) bool {
	if ts-ce > 24 {
		return false
	}
	for ce < ts && isAlpha(s[ce]) {
		ce++ // the word's ending: "lösenordet", "Passwort"
	}
	words := 0
	for _, w := range strings.FieldsFunc(s[ce:ts], func(r rune) bool { return r == ' ' || r == ':' || r == '=' || r == '\t' }) {
		found := false
		for _, f := range pwFillers {
			if strings.EqualFold(w, f) {
				found = true
				break
			}
		}
		if words++; !found || words > 2 {
			return false
		}
	}
	return true
}

// accountWords are the names of accounts whose password is asked for and given as "root / X" or
// "admin:X".
var accountWords = []string{"admin", "administrator", "root", "sa", "postgres", "ubuntu", "pi", "oracle",
	"guest", "superuser", "sysadmin", "deploy", "ec2-user", "operator", "support", "service"}

// loginAsked are words that ask for or give a login, in the lines before an answer.
var loginAsked = newCues("login", "log in", "logon", "password", "passwort", "credentials", "creds", "sign in",
	"user/pass", "user / pass", "zugang", "anmeld", "identifiant", "mot de passe", "acceso", "contraseña", "senha",
	"inloggning", "lösenord", "přihlaš", "heslo", "hasło", "logowani", "giriş", "şifre", "kirjau", "salasana")

// accountAnswer returns where the password starts in the token s[a:b] that answers a login asked
// for in the lines before ("what's the login for the box?" … "root / X", "admin:X"), or -1.
func accountAnswer(s string, ts, a, b int) int {
	v := s[a:b]
	start := -1
	if k := strings.IndexByte(v, ':'); k > 1 && k < 14 && isAccount(v[:k]) {
		start = a + k + 1
	} else if k < 0 && ts >= 3 && (s[ts-2] == '/' || s[ts-2] == '|') && s[ts-1] == ' ' && s[ts-3] == ' ' {
		w := ts - 3
		for w > 0 && isAccountByte(s[w-1]) {
			w--
		}
		if (w == 0 || !isAlnum(s[w-1])) && isAccount(s[w:ts-3]) {
			start = a
		}
	}
	if start < 0 || b-start < 6 || !pwShape(s[start:b]) && !slugPassword(s[start:b]) {
		return -1
	}
	if !hasCue(s, max(0, ts-240), ts, loginAsked) {
		return -1
	}
	return start
}

// accountMay is accountAnswer's cheap front: a ':' after the token's first two bytes, or " / "
// or " | " just before it. Most tokens in prose have neither.
func accountMay(s string, ts, a, b int) bool {
	return ts >= 3 && (s[ts-2] == '/' || s[ts-2] == '|') || strings.IndexByte(s[a+2:min(b, a+14)], ':') >= 0
}

func isAccountByte(c byte) bool { return isAlnum(c) || c == '-' }

func isAccount(w string) bool {
	for _, a := range accountWords {
		if len(a) == len(w) && strings.EqualFold(w, a) {
			return true
		}
	}
	return false
}

// cjkValueStart returns where a value written straight after a CJK, kana or Hangul character starts
// in the token s[ts:p] ("密码是Gouda962+"), or ts: such scripts put no space before it.
func cjkValueStart(s string, ts, p int) int {
	for k := p - 1; k >= ts; k-- {
		if s[k] < 0x80 {
			continue
		}
		// k is the last byte of a character; its lead byte is 0xE2-0xED for U+2E80-U+D7FF.
		if k >= ts+2 && s[k-2] >= 0xE2 && s[k-2] <= 0xED && !(s[k-2] == 0xE2 && s[k-1] < 0xBA) {
			return k + 1
		}
		return ts
	}
	return ts
}

// numberOnWord reports whether the digits that end s[a:b] are written onto a lower-case letter
// ("lumi7"), or joined to one ("boquete.mate.2"): the cheap part of slugPassword's test, tried
// first.
func numberOnWord(s string, a, b int) bool {
	k := b - 1
	for k > a && isDigit(s[k-1]) {
		k--
	}
	return k > a && (isLower(s[k-1]) || k > a+1 && oneOf(s[k-1], "._-") && isLower(s[k-2]))
}

// numberPart reports a slug whose number stands as its own last part ("ljubljana.chai.958"):
// a password when at least two words of four letters or more come before a number of at most
// four digits, which regions, hosts and versions ("eu-west-1", "db.internal.01", "v2.0") do not
// have.
func numberPart(v, last string) bool {
	if len(last) > 4 {
		return false
	}
	words := strings.FieldsFunc(v[:len(v)-len(last)-1], func(r rune) bool { return r == '.' || r == '_' || r == '-' })
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if len(w) < 4 {
			return false
		}
		for k := 0; k < len(w); k++ {
			if !isLower(w[k]) {
				return false
			}
		}
	}
	return true
}

// weakPwCues are words for a password that mean something else too ("parole" is also speech in
// French and a release in English): the value must follow them closely.
var weakPwCues = []string{"parole", "paroli"}

// weakCueBefore reports whether the cue that ends at ce is one of weakPwCues.
func weakCueBefore(s string, ce int) bool {
	for _, w := range weakPwCues {
		if ce >= len(w) && hasFoldPrefix(s[ce-len(w):], w) {
			return true
		}
	}
	return false
}
