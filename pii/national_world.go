package pii

// National identifiers outside the EU's check-digit family: India (Aadhaar, Verhoeff; PAN),
// China (resident identity number, ISO 7064 MOD 11-2), Japan (My Number), Brazil (CPF, CNPJ),
// Canada (SIN, Luhn), Australia (TFN, Medicare) and Germany's identity card number. Each
// validator takes the bare digits (or upper-case letters and digits) and applies the number's
// issuing rules as well as its check digit, so that a number that fails either passes.

// worldValidators are the digit-only identifiers tried after natValidators.
var worldValidators = []natValidator{
	{"in.aadhaar", 12, aadhaarValid},
	{"jp.mynumber", 12, myNumberValid},
	{"br.cpf", 11, cpfValid},
	{"br.cnpj", 14, cnpjValid},
	{"ca.sin", 9, sinValid},
	{"au.tfn", 9, tfnValid},
	{"au.tfn", 8, tfnValid},
	{"au.medicare", 10, medicareValid},
	{"cn.ric", 18, ricValid},
}

// worldFormat reports whether n is written the way the identifier is printed on its card or
// form, which makes it likely enough to count without a context word.
func worldFormat(n *numSpan, rule string) (float64, bool) {
	sep := n.sameSep()
	switch rule {
	case "br.cpf":
		// 123.456.789-09
		if n.groups(3, 3, 3, 2) && n.gsep[1] == '.' && n.gsep[2] == '.' && n.gsep[3] == '-' {
			return 0.85, true
		}
	case "br.cnpj":
		// 11.222.333/0001-81
		if n.groups(2, 3, 3, 4, 2) && n.gsep[1] == '.' && n.gsep[2] == '.' && n.gsep[3] == '/' && n.gsep[4] == '-' {
			return 0.85, true
		}
	case "in.aadhaar", "jp.mynumber":
		if n.groups(4, 4, 4) && (sep == ' ' || sep == '-') {
			return 0.7, true
		}
	case "ca.sin":
		if n.groups(3, 3, 3) && (sep == ' ' || sep == '-') {
			return 0.6, true
		}
	case "au.medicare":
		if n.groups(4, 5, 1) || n.groups(4, 5, 1, 1) {
			return 0.75, true
		}
	case "cn.ric":
		if n.ng == 1 || n.groups(6, 8, 4) {
			return 0.9, true // a province, a date of birth and a check digit
		}
	}
	return 0, false
}

// verhoeff tables: the dihedral group D5's multiplication and the position permutation.
var (
	verhoeffD = [10][10]uint8{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5}, {2, 3, 4, 0, 1, 7, 8, 9, 5, 6},
		{3, 4, 0, 1, 2, 8, 9, 5, 6, 7}, {4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
		{6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3}, {8, 7, 6, 5, 9, 3, 2, 1, 0, 4},
		{9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
	}
	verhoeffP = [8][10]uint8{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4}, {5, 8, 0, 3, 7, 9, 6, 1, 4, 2},
		{8, 9, 1, 6, 0, 4, 3, 5, 2, 7}, {9, 4, 5, 3, 1, 2, 6, 8, 7, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
		{2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8},
	}
)

func verhoeff(d []byte) bool {
	c := uint8(0)
	for i := range d {
		c = verhoeffD[c][verhoeffP[i%8][d[len(d)-1-i]-'0']]
	}
	return c == 0
}

// aadhaarValid: twelve digits, not starting with 0 or 1, not a palindrome, Verhoeff check digit.
func aadhaarValid(d []byte) bool {
	if d[0] < '2' {
		return false
	}
	pal := true
	for i := range len(d) / 2 {
		if d[i] != d[len(d)-1-i] {
			pal = false
			break
		}
	}
	return !pal && verhoeff(d)
}

// myNumberValid: Japan's individual number, eleven digits and a check digit over weights 2..7.
func myNumberValid(d []byte) bool {
	if allSame(d) {
		return false
	}
	sum := 0
	for n := 1; n <= 11; n++ {
		q := n + 1
		if n >= 7 {
			q = n - 5
		}
		sum += int(d[11-n]-'0') * q
	}
	c := 0
	if r := sum % 11; r > 1 {
		c = 11 - r
	}
	return c == int(d[11]-'0')
}

// mod11Check is the Brazilian check digit: 11 minus the weighted sum mod 11, 0 for 10 and 11.
func mod11Check(d []byte, w []int) int {
	c := 11 - weightedMod(d, w, 11)
	if c >= 10 {
		c = 0
	}
	return c
}

func cpfValid(d []byte) bool {
	if allSame(d) {
		return false
	}
	return mod11Check(d, []int{10, 9, 8, 7, 6, 5, 4, 3, 2}) == int(d[9]-'0') &&
		mod11Check(d, []int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2}) == int(d[10]-'0')
}

func cnpjValid(d []byte) bool {
	if allSame(d) {
		return false
	}
	return mod11Check(d, []int{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}) == int(d[12]-'0') &&
		mod11Check(d, []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}) == int(d[13]-'0')
}

// sinValid: Canada's social insurance number; 0 is never issued and 8 is for business numbers.
func sinValid(d []byte) bool {
	return d[0] != '0' && d[0] != '8' && luhn(d)
}

// tfnValid: Australia's tax file number, eight or nine digits whose weighted sum is a multiple of 11.
func tfnValid(d []byte) bool {
	return !allSame(d) && weightedMod(d, []int{1, 4, 3, 7, 5, 8, 6, 9, 10}[:len(d)], 11) == 0
}

// medicareValid: Australia's Medicare card number; the first digit is 2-6, the ninth a check
// digit over the first eight, then the card's issue number.
func medicareValid(d []byte) bool {
	if d[0] < '2' || d[0] > '6' || d[9] == '0' {
		return false
	}
	return weightedMod(d, []int{1, 3, 7, 9, 1, 3, 7, 9}, 10) == int(d[8]-'0')
}

// ricProvinces are the first two digits of the administrative divisions that issue China's
// resident identity numbers.
var ricProvinces = toSet("11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 64 65 71 81 82 83")

// ricCheck returns the check character of the seventeen digits of a resident identity number
// (ISO 7064 MOD 11-2), 'X' standing for ten.
func ricCheck(d []byte) byte {
	sum := 0
	w := 1
	for i := 16; i >= 0; i-- {
		w = w * 2 % 11
		sum += int(d[i]-'0') * w
	}
	c := (12 - sum%11) % 11
	if c == 10 {
		return 'X'
	}
	return byte('0' + c)
}

// ricValid checks China's resident identity number: a province code, a date of birth that
// exists, and its check character (d[17] may be 'X').
func ricValid(d []byte) bool {
	if len(d) != 18 || !isDigits(d[:17]) || !ricProvinces.has(string(d[:2])) {
		return false
	}
	y := atoi(d[6:10])
	if y < 1880 || y > 2100 || !validDate(y, atoi(d[10:12]), atoi(d[12:14])) {
		return false
	}
	return ricCheck(d) == d[17]
}

// panValid: India's permanent account number, five letters, four digits and a letter, the
// fourth letter saying who holds it (P a person, C a company...).
func panValid(u []byte) bool {
	if len(u) != 10 {
		return false
	}
	for i, c := range u {
		if i >= 5 && i < 9 {
			if !isDigit(c) {
				return false
			}
		} else if !isUpper(c) {
			return false
		}
	}
	return containsByte("ABCFGHJKLPT", u[3])
}

// idCardDEValid checks the number of a German identity card issued since 2010: nine characters
// of its alphabet (no vowels, no B, D, Q or S) beginning with a letter, then a check digit over
// weights 7, 3, 1 with letters counting 10..35.
func idCardDEValid(u []byte) bool {
	const alpha = "CFGHJKLMNPRTVWXYZ"
	if len(u) != 10 || !containsByte(alpha, u[0]) || !isDigit(u[9]) {
		return false
	}
	sum := 0
	for i, c := range u[:9] {
		var v int
		switch {
		case isDigit(c):
			v = int(c - '0')
		case containsByte(alpha, c):
			v = int(c-'A') + 10
		default:
			return false
		}
		sum += v * [3]int{7, 3, 1}[i%3]
	}
	return sum%10 == int(u[9]-'0')
}

var allNatValidators = append(append(append(append([]natValidator(nil), natValidators...), worldValidators...), schemeValidators...),
	append(moreSchemeValidators, nzMUValidators...)...) // national_more.go, national_nz_mu.go

// alnumID10 reads the ten-character word s[i:j] as an Indian PAN or a German identity card
// number; it returns j if it is one.
func (x *scanCtx) alnumID10(i, j int) int {
	s := x.s
	var buf [10]byte
	u := buf[:0]
	for k := i; k < j; k++ {
		u = append(u, upper(s[k]))
	}
	// Written in mixed case it is a token or a word, not an identifier.
	if string(u) != s[i:j] {
		return i
	}
	cue := x.key == keyNationalID || x.cueBefore(i, 40, nationalCues)
	switch {
	case panValid(u):
		c := 0.45
		switch {
		case cue:
			c = 0.95
		case u[3] == 'P':
			c = 0.7 // the holder is a person
		}
		x.add(TypeNationalID, i, j, c, "in.pan")
		return j
	case idCardDEValid(u) && cue:
		x.add(TypeNationalID, i, j, 0.95, "de.idcard")
		return j
	}
	return i
}

// ricWithX reads seventeen digits followed by the check character X as China's resident
// identity number; it returns the end, or n.start.
func (x *scanCtx) ricWithX(n *numSpan) int {
	s := x.s
	b := n.end
	if n.ng != 1 || n.nd != 17 || b >= len(s) || s[b]|0x20 != 'x' || b+1 < len(s) && isWordByte(s[b+1]) {
		return n.start
	}
	var d [18]byte
	copy(d[:], n.digits())
	d[17] = 'X'
	if !ricValid(d[:]) {
		return n.start
	}
	x.add(TypeNationalID, n.start, b+1, 0.9, "cn.ric")
	return b + 1
}
