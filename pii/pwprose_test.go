package pii

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPasswordProse: generated passwords stated in seven languages, with or without ':' or '=',
// before or after their cue, are found; sentences about passwords in general are not.
func TestPasswordProse(t *testing.T) {
	s := mustNew(t, nil)
	r := rand.New(rand.NewPCG(8, 1))
	frames := []string{
		"my password is %s", "the wifi password is %s", "Password: %s", "password=%s",
		"das Passwort lautet %s", "mein Passwort ist %s", "Kennwort: %s",
		"le mot de passe est %s", "mot de passe : %s", "la contraseña es %s", "contraseña: %s",
		"a senha é %s", "senha=%s", "la password è %s", "het wachtwoord is %s",
		"use %s as the password", "login with admin / %s", "The password for the staging box is %s.",
		"the access code is %s", "sign in with admin / %s", "creds: admin / %s", "use %s to connect to the VPN",
		"WLAN-Schlüssel: %s", "le code d'accès est %s",
	}
	n, miss := 0, 0
	for k := 0; k < 60; k++ {
		pw := randTok(r, alnum, 2+r.IntN(6)) + randTok(r, "!$%&*#@~?=+", 1) + randTok(r, alnum+"!$%&*", 3+r.IntN(8))
		if k%3 == 0 {
			pw = []string{"Sommer", "Gato", "hunter", "azerty", "Winter"}[r.IntN(5)] + randTok(r, "0123456789", 2+r.IntN(3)) + []string{"!", "$", ""}[r.IntN(3)]
		}
		for _, f := range frames {
			text := strings.Replace(f, "%s", pw, 1)
			n++
			if !Summarize(s.ScanText(text)).Secret {
				if miss++; miss <= 5 {
					t.Errorf("not found: %q", text)
				}
			}
		}
	}
	if miss*50 > n {
		t.Errorf("%d of %d missed", miss, n)
	}
	for _, text := range []string{
		"reset your password from the settings page",
		"password policy requires 12 characters, one digit and one symbol",
		"Das Passwort muss mindestens 12 Zeichen lang sein.",
		"le mot de passe doit contenir au moins 8 caractères",
		"la contraseña debe tener al menos 8 caracteres",
		"Forgot password? Use the link in the e-mail.",
		"The password field is required (see RFC 2617).",
		"password = os.environ[\"APP_PASSWORD\"]",
		"DB_PASSWORD=${DB_PASSWORD:?set it in the vault}",
		"password: <your-password>",
		"password: sk-ant-...",
		"the password manager v2.4.1 shipped on 2024-05-01",
	} {
		if fs := s.ScanText(text); Summarize(fs).Secret {
			t.Errorf("%q: %v", text, fs)
		}
	}
}
