package pii

// mailRoleWord says whether a member named n (as normKey writes it: lower-case ASCII letters
// only, so that an accented letter is dropped: "usuário" is "usurio") holds the user ('u') or the
// domain ('d') of a mailbox in a language other than English: {"usuario":"jane.doe",
// "dominio":"example.com"}. Words for a connection's host or server are left out, as in
// English, since {"servidor":..,"usuario":..} configures a connection.
func mailRoleWord(n string) byte {
	switch {
	case inList(n,
		"usuario", "usurio", "nomeusuario", "nombreusuario", "utente", "nomeutente", "utilisateur", "utilizator",
		"benutzer", "benutzername", "pengguna", "namapengguna", "felhasznalo", "felhasznl", "gebruiker",
		"gebruikersnaam", "uzytkownik", "uytkownik", "kullanici", "kullanc", "partelocal", "partelocale",
		"caixapostal", "buzon", "buzn", "casella", "postfach"):
		return 'u'
	case inList(n,
		"dominio", "domnio", "domaine", "domeniu", "domena", "domny", "domeny", "tartomany", "tartomny", "domein",
		"alanadi", "alanad"):
		return 'd'
	}
	return 0
}
