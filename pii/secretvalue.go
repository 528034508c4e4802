package pii

import (
	"strings"
)

// secretValue decides whether s[a:b], assigned to a name of the given kind, is a secret.
func (x *scanCtx) secretValue(kind keyKind, a, b int) (Type, float64, string) {
	s := x.s
	v := s[a:b]
	if jwtHeaderOnly(v) {
		return 0, 0, "" // a JWT's header alone is public; a whole JWT is the jwt rule's
	}
	if startsWithTokenPrefix(v) || publicPrefix(v) {
		return 0, 0, "" // the vendor rule decides; a publishable key is no secret
	}
	switch kind {
	case keyPassword:
		if passcode(v) {
			return TypePassword, 0.9, "secret.passcode"
		}
		if credential(v, 6) && (!codeRef(v) || slugPassword(v) && !secretish(v)) {
			return TypePassword, 0.9, "secret.password-assignment"
		}
		if passphraseWords(v) {
			return TypePassword, 0.85, "secret.passphrase"
		}
	case keyToken, keyPrivate:
		if strings.HasPrefix(v, "ed25519:") || strings.HasPrefix(v, "x25519:") {
			if kind == keyPrivate {
				return TypePrivateKey, 0.97, "secret.private-seed"
			}
			return 0, 0, ""
		}
		if !credential(v, 10) && !(kind == keyToken && credential(v, 6) && len(v) < 10) || codeRef(v) && !randomish(v) {
			return 0, 0, ""
		}
		classes := 0
		var has [3]bool
		for k := 0; k < len(v); k++ {
			switch {
			case isLower(v[k]):
				has[0] = true
			case isUpper(v[k]):
				has[1] = true
			case isDigit(v[k]):
				has[2] = true
			}
		}
		for _, h := range has {
			if h {
				classes++
			}
		}
		h := entropy(v)
		if classes >= 2 && len(v) >= 10 && (h >= 3.0 || len(v) >= 12 && h >= 2.75) {
			if kind == keyPrivate {
				return TypePrivateKey, 0.9, "secret.private-key-assignment"
			}
			return TypeSecret, 0.9, "secret.assignment"
		}
		if kind == keyToken && classes >= 2 && len(v) < 16 && pwShape(v) && strings.ContainsAny(v, pwSymbols) {
			// A short secret with a symbol under a secret's key is a password ("secret": "Xy7!kLm2").
			return TypePassword, 0.85, "secret.password-assignment"
		}
	case keySumoID:
		if len(v) == 14 && strings.HasPrefix(v, "su") && entropy(v) >= 3 && !placeholderRun(v) {
			return TypeAPIToken, 0.9, "secret.sumologic-access-id"
		}
	}
	return 0, 0, ""
}

// codeRef reports values that are references in code rather than literals: dotted identifiers,
// calls, paths, URLs, file names and environment variables named (envRef).
func codeRef(v string) bool {
	if isCall(v) || boundCall(v) || strings.Contains(v, "://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~/") {
		return true
	}
	if envRef(v) {
		return true
	}
	if versioned(v) {
		return true
	}
	if i := strings.LastIndexByte(v, '.'); i > 0 {
		ext := v[i+1:]
		switch strings.ToLower(ext) {
		case "pem", "key", "p12", "pfx", "json", "txt", "cer", "crt", "keytab", "jks", "yaml", "yml", "env", "png", "jpg", "gif":
			return true
		}
		// Dotted identifier: every part a name (letters, digits, _), starting with a letter.
		dotted := true
		for _, part := range strings.Split(v, ".") {
			if part == "" || !(isAlpha(part[0]) || part[0] == '_') {
				dotted = false
				break
			}
			if len(part) >= 20 {
				dotted = false // a random segment: a token, not a name
			}
			for k := 0; k < len(part); k++ {
				if !isAlnum(part[k]) && part[k] != '_' {
					dotted = false
				}
			}
		}
		if dotted {
			return true
		}
	}
	return false
}

// versioned reports artifact coordinates such as "jjwt-jackson-0.11.2".
func versioned(v string) bool {
	d := strings.LastIndexByte(v, '-')
	if d < 1 {
		return false
	}
	tail := v[d+1:]
	dots := 0
	for k := 0; k < len(tail); k++ {
		switch {
		case tail[k] == '.':
			dots++
		case !isDigit(tail[k]):
			return false
		}
	}
	return dots >= 1 && len(tail) >= 3
}

func startsWithTokenPrefix(v string) bool {
	if len(v) < 3 || strings.HasPrefix(v, "eyJ") {
		return false
	}
	if !cueBloom.has(fold3(v, 0)) {
		return false
	}
	for _, r := range tokenRules {
		if strings.HasPrefix(v, r.prefix) {
			return true
		}
	}
	return false
}

// boundCall reports a function called on a bind parameter, as SQL and code write a value they
// compute: "crypt($2, gen_salt('bf'))", "hash(?)", "encode(:pw)". The function's name is letters
// alone and the parameter ends at ',' or ')'.
func boundCall(v string) bool {
	k := strings.IndexByte(v, '(')
	if k < 3 || k+1 >= len(v) {
		return false
	}
	for j := 0; j < k; j++ {
		if !isAlpha(v[j]) && v[j] != '_' && v[j] != '.' {
			return false
		}
	}
	e := k + 2
	switch v[k+1] {
	case '$':
		for e < len(v) && isDigit(v[e]) {
			e++
		}
		if e == k+2 {
			return false
		}
	case ':':
		for e < len(v) && (isAlnum(v[e]) || v[e] == '_') {
			e++
		}
	case '?':
	default:
		return false
	}
	return e == len(v) || v[e] == ',' || v[e] == ')'
}

// envRefPrefixes name an environment variable for a tool to read at run time: LiteLLM's
// "os.environ/NAME", PowerShell's "$env:NAME", and "env:NAME" of CI and secret-manager configs.
var envRefPrefixes = []string{"os.environ/", "$env:", "env:", "ENV:"}

// envRef reports a value that is one of envRefPrefixes and a variable's name (letters, digits and
// underscores, not starting with a digit).
func envRef(v string) bool {
	for _, p := range envRefPrefixes {
		name, ok := strings.CutPrefix(v, p)
		if !ok || name == "" || isDigit(name[0]) {
			continue
		}
		for k := 0; k < len(name); k++ {
			if !isAlnum(name[k]) && name[k] != '_' {
				return false
			}
		}
		return true
	}
	return false
}
