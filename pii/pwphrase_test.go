package pii

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPasswordPhrasings: generated passwords in phrasings the prose rule was not written from:
// the value before its noun, a question and its answer, an aside between cue and value, more
// languages, command lines, payload keys, and passphrases of plain words. Hard negatives of the
// same shapes (tax codes, promo and error codes, plural talk of passwords) pass.
func TestPasswordPhrasings(t *testing.T) {
	s := mustNew(t, nil)
	r := rand.New(rand.NewPCG(20, 7))
	frames := []string{
		"%s is the password", "%s is my new password", "%s ist das Passwort", "%s est le mot de passe",
		"%s es la contraseña", "she typed %s as her password", "Password for the VPN? It's %s", "my password? %s",
		"the password (case-sensitive) is %s", "your temporary password, %s, expires in 24 hours",
		"The code for the wifi is %s", "heslo je %s", "hasło: %s", "lösenordet är %s", "salasana on %s",
		"пароль: %s", "密码是 %s", "パスワードは %s", "p/w: %s", "unlock it with %s", "mysql -u root -p%s -h db.internal",
		"sshpass -p '%s' ssh deploy@10.0.0.7", "redis-cli -a %s ping", "the vault passphrase is '%s'",
		"use '%s' to unlock", "log in with %s", "my pw is %s", "Kennwort lautet %s", "mot de passe : %s",
		"contraseña es %s", `{"pwd":"%s"}`, `{"secret":"%s"}`, `{"credentials":{"user":"admin","pass":"%s"}}`,
		`Error: login failed (user=admin, password=%s)`, "Server=db;User Id=sa;Password=%s;", "--password=%s",
	}
	n, miss := 0, 0
	for k := 0; k < 30; k++ {
		pw := randTok(r, alnum, 2+r.IntN(5)) + randTok(r, "!$%&*#@~?+", 1) + randTok(r, alnum+"!$%&*", 3+r.IntN(8))
		if k%3 == 0 {
			pw = []string{"Sommer", "Gato", "hunter", "Tr0ub4dor", "Winter", "v9"}[r.IntN(6)] + randTok(r, "0123456789", 2+r.IntN(3)) + []string{"!", "$", "&3"}[r.IntN(3)]
		}
		for _, f := range frames {
			text := strings.Replace(f, "%s", pw, 1)
			n++
			if !Summarize(scanAny(t, s, text)).Secret {
				if miss++; miss <= 8 {
					t.Errorf("not found: %q", text)
				}
			}
		}
	}
	if miss*50 > n {
		t.Errorf("%d of %d missed", miss, n)
	}

	words := []string{"correct", "horse", "battery", "staple", "orange", "violin", "granite", "harbour", "velvet",
		"tundra", "pepper", "lantern", "marble", "cobalt", "meadow", "falcon"}
	phrase := func() string {
		k := 3 + r.IntN(3)
		w := make([]string, k)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	for k := 0; k < 20; k++ {
		for _, f := range []string{"the passphrase we agreed: %s", "Passphrase: \"%s\"", `{"passphrase":"%s"}`,
			"das Kennwort für den Tresor: %s", "wifi key: %s"} {
			text := strings.Replace(f, "%s", phrase(), 1)
			if !Summarize(scanAny(t, s, text)).Secret {
				t.Errorf("passphrase not found: %q", text)
			}
		}
	}

	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for k := 0; k < 20; k++ {
		code := randTok(r, upper, 6) + randTok(r, "0123456789", 2) + randTok(r, upper, 1) + randTok(r, "0123456789", 2) +
			randTok(r, upper, 1) + randTok(r, "0123456789", 3) + randTok(r, upper, 1)
		for _, f := range []string{"My tax code is %s.", "Please verify the applicant's tax code %s before onboarding.",
			"promo code %s gives 10% off", "error code %s was returned", "reference %s, see the ticket",
			"%s-style passwords are weak", "the password policy: at least 12 characters",
			"the passphrase must be: at least four words, no names", "password: see the vault entry",
			`{"passphrase":"stored in the vault"}`, "mysql -u root -p", "docker run -p8080:80 nginx"} {
			text := strings.Replace(f, "%s", code, 1)
			if fs := scanAny(t, s, text); Summarize(fs).Secret {
				t.Errorf("%q: %v", text, fs)
			}
		}
	}
}

// scanAny scans text as a payload when it is JSON, else as free text.
func scanAny(t *testing.T, s *Scanner, text string) []Finding {
	t.Helper()
	if strings.HasPrefix(text, "{") {
		fs, err := s.ScanJSON("payload", []byte(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		return fs
	}
	return s.ScanText(text)
}
