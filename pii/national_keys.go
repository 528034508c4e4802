package pii

// idKeyWord reports whether a member named n holds a national identifier whose check the scanner
// knows under a name in another language: Romanian cod numeric personal, Portuguese número do
// CPF, Italian codice fiscale. Names of schemes it cannot check (a Korean jumin beonho, an
// Indonesian NIK) are left out: under a national identifier's member, a number is judged by the
// schemes' checks, and one no check knows would pass where other rules block it now.
func idKeyWord(n string) bool {
	return containsAny(n, "numericpersonal", "codnumeric", "numerocpf", "cpfnumero", "codicefiscale", "codfiscale",
		"codfisc") || inList(n, "cnp")
}
