package pii

import "strings"

// Passphrases of plain words and passwords on command lines: the forms a password takes that
// have no digit or symbol for the scan to stop at ("the passphrase we agreed: correct horse
// battery staple", {"passphrase":"correct horse battery staple"}) or that sit after a flag
// rather than a word ("mysql -u root -pS3cret!", "sshpass -p 'S3cret!'").

// pwNouns name a password itself (not a login, a user or a code): the cues a passphrase of plain
// words needs before it.
var pwNouns = newCues("password", "passwort", "passwd", "passphrase", "pass phrase", "passcode", "pw ", "pwd",
	"kennwort", "mot de passe", "mdp", "contraseña", "contrasena", "clave", "senha", "palavra-passe",
	"parola d'ordine", "wachtwoord", "wifi key", "network key", "wlan-schlüssel", "heslo", "hasło", "lösenord",
	"passord", "salasana", "adgangskode", "jelszó", "jelszo", "şifre", "sifre", "пароль", "密码", "密碼", "パスワード",
	"비밀번호", "parole", "paroli", "parool", "salasõna", "slaptažod", "lozink", "geslo", "парола", "κωδικό",
	"kodeord", "lykilorð", "wagwoord", "contrasenya", "contrasinal", "pasahitza", "kata sandi", "kata laluan",
	"mật khẩu", "รหัสผ่าน", "סיסמה", "סיסמא", "كلمة المرور", "كلمة السر", "पासवर्ड", "cyfrinair", "pasfhocal",
	"facal-faire", "fjalëkalim", "fjalekalim", "passwuert", "лозинк", "პაროლ", "գաղտնաբառ", "رمز عبور", "گذرواژه",
	"şifrə", "құпиясөз", "nenosiri", "পাসওয়ার্ড", "கடவுச்சொல்")

// phraseStop are words that make a run of plain words a sentence rather than a passphrase.
var phraseStop = []string{"the", "a", "an", "of", "in", "on", "to", "is", "are", "was", "be", "been", "see", "your",
	"our", "my", "not", "no", "and", "or", "with", "for", "from", "by", "at", "as", "it", "this", "that", "set",
	"stored", "vault", "env", "same", "above", "below", "usual", "default", "empty", "unknown", "none", "null",
	"hidden", "redacted", "changed", "reset", "required", "optional", "missing", "expired", "invalid", "incorrect",
	"sent", "separately", "later", "der", "die", "das", "und", "ist", "le", "la", "les", "et",
	"est", "el", "los", "las", "es", "y", "de", "du", "des", "il", "e", "o"}

// passphraseWords reports v as three to eight lower-case words of three or more letters (a
// hyphen allowed), none of them a function word, twelve bytes or more in all.
func passphraseWords(v string) bool {
	if len(v) < 12 || len(v) > 96 {
		return false
	}
	n := 0
	for k := 0; k < len(v); {
		for k < len(v) && v[k] == ' ' {
			k++
		}
		if k == len(v) {
			break
		}
		a := k
		for k < len(v) && v[k] != ' ' {
			if c := v[k]; !isLower(c) && (c != '-' || k == a) {
				return false
			}
			k++
		}
		w := v[a:k]
		if len(w) < 3 || len(w) > 16 || w[len(w)-1] == '-' {
			return false
		}
		for _, st := range phraseStop {
			if w == st {
				return false
			}
		}
		n++
	}
	return n >= 3 && n <= 8
}

// passphraseAt handles the ':' at i that assign found no key for: "the passphrase we agreed:
// correct horse battery staple". A password noun must end within 40 bytes before it in the same
// sentence with no general word between, and the rest of the line (quoted or not, up to a
// sentence's end) must be a passphrase of plain words.
func (x *scanCtx) passphraseAt(i int) int {
	s := x.s
	if a := i + 2; a+1 >= len(s) || !isLower(s[a]) && !isLower(s[a+1]) {
		return i // no plain word after ": " (or ": \"")
	}
	a := i + 1
	for a < len(s) && (s[a] == ' ' || s[a] == '\t') {
		a++
	}
	b := a
	q := byte(0)
	if a < len(s) && (s[a] == '"' || s[a] == '\'' || s[a] == '`' || s[a] == 0xE2) {
		if s[a] == 0xE2 { // a typographic quote, three bytes
			if a+3 > len(s) {
				return i
			}
			a += 3
			q = 0xE2
		} else {
			q = s[a]
			a++
		}
		b = phraseEnd(s, a)
		if b >= len(s) || s[b] != q {
			return i
		}
	} else if b = phraseEnd(s, a); b < len(s) && s[b] != '\n' && !sentenceEnd(s, b) {
		return i
	}
	if !passphraseWords(s[a:b]) {
		return i
	}
	lo := max(0, i-48)
	if k := strings.LastIndexAny(s[lo:i], "\n.!?"); k >= 0 {
		lo += k + 1
	}
	ce := lastCueEnd(s, lo, i, pwNouns)
	if ce < 0 || i-ce > 40 || hasCue(s, ce, i, pwGeneric) || strings.ContainsAny(s[ce:i], "([{$<=") {
		return i
	}
	x.add(TypePassword, a, b, 0.85, "secret.passphrase")
	return b
}

// mysqlTools take their password joined to -p: "mysql -u root -pS3cret!".
var mysqlTools = []string{"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlsh", "mariadb",
	"mariadb-dump", "mysqlpump"}

// flagPassword handles "-p" at i (the dash) joined to its value, on a line that runs a MySQL
// client. "-p" alone asks for the password; "-p 3306" or "-p8080:80" elsewhere is a port.
func (x *scanCtx) flagPassword(i int) int {
	s := x.s
	if i+2 >= len(s) || s[i+1] != 'p' || isSpace(s[i+2]) || s[i+2] == '-' {
		return i
	}
	ls := strings.LastIndexByte(s[:i], '\n') + 1
	line := s[ls:i]
	tool := false
	for _, t := range mysqlTools {
		if k := strings.Index(line, t); k >= 0 && (k == 0 || !isWordByte(line[k-1])) &&
			(k+len(t) == len(line) || line[k+len(t)] == ' ') {
			tool = true
			break
		}
	}
	if !tool {
		return i
	}
	a := i + 2
	b := a
	for b < len(s) && !isSpace(s[b]) && b-a < 128 {
		b++
	}
	v := s[a:b]
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		a, b = a+1, b-1
		v = s[a:b]
	}
	if !credential(v, 4) || codeRef(v) && !hasDigit(v) {
		return i
	}
	x.add(TypePassword, a, b, 0.9, "secret.cli-password")
	return b
}

// pwSymbols are the symbols a password holds that identifiers, versions and slugs do not.
const pwSymbols = "!#$%&*+?@^~=;,'()[]{}|<>"

// phraseEnd returns the end of the run of lower-case letters, spaces and hyphens from a (at most
// 100 bytes): what passphraseWords can accept.
func phraseEnd(s string, a int) int {
	b := a
	for b < len(s) && b-a < 100 && (isLower(s[b]) || s[b] == ' ' || s[b] == '-') {
		b++
	}
	return b
}
