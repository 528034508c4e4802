package pii

import (
	"math/rand/v2"
	"testing"
)

// TestPasswordsInManyLanguages: a password stated in a chat, in the languages of the EU's east
// and north, the Balkans and beyond, with or without ':'.
func TestPasswordsInManyLanguages(t *testing.T) {
	s := mustNew(t, nil)
	frames := []string{
		"parole ir %s, nomaini pēc pirmās pieslēgšanās", // Latvian
		"Jūsų slaptažodis yra %s",                       // Lithuanian
		"ajutine parool on %s",                          // Estonian
		"uus salasõna: %s",                              // Estonian
		"lozinka je %s",                                 // Croatian
		"novo geslo je %s",                              // Slovenian
		"паролата е %s",                                 // Bulgarian
		"ο κωδικός είναι %s",                            // Greek
		"tymczasowe hasło: %s",                          // Polish
		"heslo zní %s",                                  // Czech
		"lösenordet är %s",                              // Swedish
		"het wachtwoord is %s",                          // Dutch
		"kodeordet er %s",                               // Danish
		"kata sandi Anda adalah %s",                     // Indonesian
		"mật khẩu là %s",                                // Vietnamese
		"die wagwoord is %s",                            // Afrikaans
		"la contrasenya és %s",                          // Catalan
		"a jelszó: %s",                                  // Hungarian
	}
	secretsInFrames(t, s, frames, rand.New(rand.NewPCG(41, 3)), 72)
}

// Sentences about passwords in general, in the same languages, and "parole" in French prose.
func TestPasswordWordsInGeneral(t *testing.T) {
	s := mustNew(t, nil)
	for _, text := range []string{
		"parolei jābūt vismaz 12 rakstzīmes garai",
		"Slaptažodis turi būti bent 8 simbolių.",
		"lozinka mora imati najmanje 8 znakova",
		"hasło musi mieć co najmniej 12 znaków",
		"heslo musí mít alespoň 8 znaků",
		"Il a pris la parole le 12/03/2024 à 10h30.",
		"He was released on parole in 2019-03 after 4 years.",
		"паролата трябва да е поне 8 символа",
		"lösenordet måste ha minst 12 tecken",
	} {
		if fs := s.ScanText(text); Summarize(fs).Secret {
			t.Errorf("%q: %v", text, fs)
		}
	}
}
