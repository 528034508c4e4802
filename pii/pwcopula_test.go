package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSlugPasswordAfterClause: a joined-words password at the end of a clause that says what
// the password is for, with "to be" right before it, is a password in the languages of the
// clause; the same slugs after a clause that ends in another word, or past a comma or a full
// stop, are not.
func TestSlugPasswordAfterClause(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(21, 27))
	places := []string{"tenant portal", "school app", "staff laptop", "shared mailbox", "router"}
	for k := 0; k < 48; k++ {
		pw := genSlugPassword(r)
		place := places[r.IntN(len(places))]
		s := fmt.Sprintf([]string{
			"Salasanasi asukasportaaliin on %[2]s, vaihda se heti.",
			"Kata laluan sementara %[1]s anda ialah %[2]s.",
			"Ang password mo sa %[1]s ay %[2]s, palitan mo agad.",
			"The password for the %[1]s is %[2]s",
			"Lösenordet till %[1]s är %[2]s",
			"Het wachtwoord voor de %[1]s is %[2]s.",
			"Hasło startowe %[2]s — zmień je po zalogowaniu.",
			"Adgangskoden til beboerportalen er %[2]s",
		}[r.IntN(8)], place, pw)
		if !hasType(sc.ScanText(s), TypePassword) {
			t.Errorf("%q: no password", s)
		}
		neg := fmt.Sprintf([]string{
			"The password for the %[1]s is kept in %[2]s",
			"The password for the %[1]s was reset, the host is %[2]s",
			"Password reset done. The %[1]s is %[2]s",
			"The password manager for the %[1]s runs on %[2]s",
		}[r.IntN(4)], place, []string{"eu-west-1", "db01.internal", "v2.1.0-rc1", pw}[r.IntN(4)])
		if fs := sc.ScanText(neg); hasType(fs, TypePassword) {
			t.Errorf("%q: a password: %v", neg, fs)
		}
	}
}

// TestLoginCodeWords: codes that log in named by Dutch, Quebec French and Turkish words with
// their endings ("inlogcode", "votre NIP", "parolanız") are passwords; the same words beside a
// sum of money are not, and a sum after any password word is none.
func TestLoginCodeWords(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(22, 28))
	for k := 0; k < 40; k++ {
		pw := genPassword(r)
		s := fmt.Sprintf([]string{
			"Log in met je e-mailadres en inlogcode %s.",
			"Je toegangscode is %s",
			"Votre NIP temporaire est %s, changez-le.",
			"Votre NIP temporaire pour le portail des locataires est %s, changez-le.",
			"Ton nouveau NIP: %s",
			"Kiracı portalına giriş için parolanız %s olarak belirlendi.",
			"Parolası %s, ilk girişte değiştirin.",
		}[r.IntN(7)], pw)
		if !hasType(sc.ScanText(s), TypePassword) {
			t.Errorf("%q: no password", s)
		}
		sum := []string{"€%d", "₱%d", "£%d.50", "%d€", "₺%d", "¥%d"}[r.IntN(6)]
		neg := fmt.Sprintf([]string{
			"Thought: the user wants the cheapest flat under " + sum + ". I'll sort by price.",
			"The user paid " + sum + " for the parking pass yesterday.",
			"Votre NIP ne change pas; les frais sont de " + sum + ".",
			"Login fee for the portal: " + sum,
		}[r.IntN(4)], 100+r.IntN(9000))
		if fs := sc.ScanText(neg); hasType(fs, TypePassword) {
			t.Errorf("%q: a password: %v", neg, fs)
		}
	}
}

// genPassword is a password as people make them: a word, a year and a symbol, or mixed bytes.
func genPassword(r *rand.Rand) string {
	const mixed = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#%&*"
	if r.IntN(2) == 0 {
		return fmt.Sprintf("%s%d%c", []string{"Zomer", "Kesä", "Bahar", "Maple", "Tulipan", "Fjord"}[r.IntN(6)],
			2019+r.IntN(9), "!#$%&*?"[r.IntN(7)])
	}
	b := make([]byte, 10+r.IntN(7))
	for i := range b {
		b[i] = mixed[r.IntN(len(mixed))]
	}
	b[r.IntN(len(b))] = "23456789"[r.IntN(8)]
	return string(b)
}
