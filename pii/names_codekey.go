package pii

import "strings"

// Name keys as code and command lines write them. A debug print, an object's toString or a repr names a person
// under the same keys a JSON document does, in the program's own spelling: "Customer{firstName=
// 'Sanduni', lastName='Gunawardena'}", "User(first_name='Ann', ...)", "full_name: 'Ann Lee'".
// Before a capitalised word, such a key (camelCase, snake_case or kebab-case, its words those of
// a person's name key) is a cue as "first name:" is in prose; so is the flag that gives an
// account its owner's full name on a command line ("useradd -m -c \"Losa Tuimavave\" ltuimavave",
// "usermod --comment", "adduser --gecos", "chfn -f").

// codeKeyStart returns the start of the identifier that ends with the lower-case run at a:
// letters, digits, '_' and '-' back to lo.
func codeKeyStart(s string, a, lo int) int {
	k := a
	for k > lo && k > a-24 && (isAlnum(s[k-1]) || s[k-1] == '_' || s[k-1] == '-') {
		k--
	}
	return k
}

// codeNameKey reports whether id, an identifier with capitals, '_' or '-' between its words, is
// a key that holds a person's name (classifyKey's keyPersonName).
func codeNameKey(id string) bool {
	if len(id) < 6 || len(id) > 24 || !hasSuffixFold(id, "name") && !hasSuffixFold(id, "names") {
		return false // every person's name key ends so: firstName, last_name, given-names
	}
	mixed := false
	for i := 1; i < len(id); i++ {
		if c := id[i]; c == '_' || c == '-' || c >= 'A' && c <= 'Z' {
			mixed = true
			break
		}
	}
	return mixed && classifyKey(id) == keyPersonName
}

// accountNameFlag reports whether s[a:e], after a '-', is a flag that gives an account's full
// name to the command its line runs.
func accountNameFlag(s string, a, e int) bool {
	switch s[a:e] {
	case "c", "comment", "gecos", "f", "full-name":
	default:
		return false
	}
	ls := strings.LastIndexByte(s[:a], '\n') + 1
	if a-ls > 200 {
		return false
	}
	cmd, _ := commandOf(s[ls:a])
	switch cmd {
	case "useradd", "usermod", "adduser", "luseradd", "lusermod", "chfn":
		return true
	}
	return false
}
