package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPasswordWordsMoreLanguages: a password after the password word of Welsh, Albanian,
// Luxembourgish or Maltese, with those languages' "to be" before a joined-words one, is a
// password; the same sentences about the password without a value are not.
func TestPasswordWordsMoreLanguages(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(61, 62))
	for k := 0; k < 40; k++ {
		pw := []string{genPassword(r), genSlugPassword(r)}[r.IntN(2)]
		s := fmt.Sprintf([]string{
			"Y cyfrinair dros dro yw %s.",
			"Fjalëkalimi i përkohshëm është %s.",
			"D'Passwuert ass %s, w.e.g. änneren.",
			"Il-password temporanja hi %s.",
			"Cyfrinair y llwybrydd yw %s",
		}[r.IntN(5)], pw)
		if !hasType(sc.ScanText(s), TypePassword) {
			t.Errorf("%q: no password", s)
		}
		neg := []string{
			"Y cyfrinair dros dro yw'r un a anfonwyd ddoe.",
			"Fjalëkalimi duhet të ketë të paktën 12 karaktere.",
			"D'Passwuert ass ze kuerz, w.e.g. e längert wielen.",
			"Il-password trid tinbidel kull 90 jum.",
		}[r.IntN(4)]
		if fs := sc.ScanText(neg); hasType(fs, TypePassword) {
			t.Errorf("%q: a password: %v", neg, fs)
		}
	}
}

// TestPasswordLeadingDigits: a password that opens with digits joined by a symbol to the rest
// ("1%gk-cTWBMrA") is read from its first digit, after a command's password flag as after a
// password word; amounts, percentages and sums beside the same flag are none.
func TestPasswordLeadingDigits(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(63, 64))
	const tail = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_"
	for k := 0; k < 40; k++ {
		pw := fmt.Sprint(r.IntN(100)) + string("!#$%&*^~?=+"[r.IntN(11)])
		for n := 8 + r.IntN(6); n > 0; n-- {
			pw += string(tail[r.IntN(len(tail))])
		}
		s := fmt.Sprintf([]string{
			"redis-cli -h cache.internal -a %s ping",
			"The password is %s",
			"sqlcmd -S db -U sa -P %s -Q \"select 1\"",
		}[r.IntN(3)], pw)
		if fs := sc.ScanText(s); !hasType(fs, TypePassword) {
			t.Errorf("%q: no password: %v", s, fs)
		}
		neg := fmt.Sprintf([]string{
			"Prices rose %d%% in March and 3+4=7 as ever.",
			"The password policy changed: %d%% of accounts reset theirs.",
			"Load is %d%% on cache.internal, run redis-cli -h cache.internal ping",
		}[r.IntN(3)], r.IntN(100))
		if fs := sc.ScanText(neg); hasType(fs, TypePassword) {
			t.Errorf("%q: a password: %v", neg, fs)
		}
	}
}
