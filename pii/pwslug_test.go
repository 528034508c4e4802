package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var slugWords = []string{"tango", "lumi", "vltava", "fjord", "paprika", "taiga", "kiwi", "aurora", "sauna", "gouda", "pivo", "bosque"}

func genSlugPassword(r *rand.Rand) string {
	return fmt.Sprintf("%s%c%s%d", slugWords[r.IntN(len(slugWords))], "._-"[r.IntN(3)], slugWords[r.IntN(len(slugWords))], r.IntN(90)+10)
}

// TestSlugPasswords: lower-case words joined with a number on the last are a password right after
// a password word, in prose and under a key; slugs, versions and hosts after the same words, and
// the same words far from a password word, are not.
func TestSlugPasswords(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(20, 26))
	for k := 0; k < 40; k++ {
		pw := genSlugPassword(r)
		s := fmt.Sprintf([]string{"password: %s", "wachtwoord is %s", "senha nova %s", "pw %s (same as before)",
			"[ftp]\nlogin=upload\npwd=%s\n", "lösenordet är %s", "hasło: %s"}[r.IntN(7)], pw)
		if !hasType(sc.ScanText(s), TypePassword) {
			t.Errorf("%q: no password", s)
		}
		neg := fmt.Sprintf([]string{"the password service runs in %s", "deploy %s after the password reset",
			"my password is stored on %s", "we talked about %s and the password policy"}[r.IntN(4)],
			[]string{"eu-west-1", "db01.internal", "v2.1.0-rc1", pw, "gpt-4o-mini"}[r.IntN(5)])
		if fs := sc.ScanText(neg); hasType(fs, TypePassword) {
			t.Errorf("%q: a password: %v", neg, fs)
		}
	}
}

// TestLoginAnswers: "root / X" and "admin:X" below a line that asks for a login are a password;
// the same pairs with no login asked for, and /etc/passwd lines, are not.
func TestLoginAnswers(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(3, 9))
	for k := 0; k < 30; k++ {
		pw := []string{genSlugPassword(r), fmt.Sprintf("Sauna%d+", r.IntN(9000)+1000), fmt.Sprintf("0QLp%dFd-Zo", r.IntN(99))}[r.IntN(3)]
		acct := []string{"root", "admin", "postgres", "ubuntu"}[r.IntN(4)]
		pair := []string{acct + " / " + pw, acct + ":" + pw}[r.IntN(2)]
		s := fmt.Sprintf("[%02d:10] ops: %s\n[%02d:12] dev: %s\n", 9+r.IntN(8),
			[]string{"what's the login for the staging box?", "creds for the db?", "can you send me the password for grafana?"}[r.IntN(3)], 9+r.IntN(8), pair)
		if !hasType(sc.ScanText(s), TypePassword) {
			t.Errorf("%q: no password", s)
		}
		neg := fmt.Sprintf("[%02d:10] ops: which role does the job use?\n[%02d:12] dev: %s\n", 9+r.IntN(8), 9+r.IntN(8),
			[]string{acct + ":read-only", acct + " / " + "team-b", "root:x:0:0:root:/root:/bin/bash"}[r.IntN(3)])
		if fs := sc.ScanText(neg); hasType(fs, TypePassword) {
			t.Errorf("%q: a password: %v", neg, fs)
		}
	}
}

// TestPasswordWordForms: a password straight after a CJK password word, after a password word
// in leetspeak, under a *_pw key and after htpasswd -b; a function of a bind parameter and a
// secret store's path after a password word are none.
func TestPasswordWordForms(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(5, 8))
	for k := 0; k < 30; k++ {
		pw := fmt.Sprintf("%s%d%c", []string{"Gouda", "Fjord", "Kiwi", "Tango"}[r.IntN(4)], r.IntN(900)+100, "+!#%"[r.IntN(4)])
		s := fmt.Sprintf([]string{"密码是%s", "密碼：%s", "パスワードは%s", "pa55word is %s", "p4ssw0rd -> %s", "ldap_bind_pw: %s",
			"DB_PW=%s", "htpasswd -b .htpasswd admin '%s'"}[r.IntN(8)], pw)
		if !hasType(sc.ScanText(s), TypePassword) {
			t.Errorf("%q: no password", s)
		}
		neg := []string{fmt.Sprintf("UPDATE accounts SET password = crypt($%d, gen_salt('bf')) WHERE id = $1;", r.IntN(3)+2),
			fmt.Sprintf("vault kv get -field=password secret/data/prod/db%d", r.IntN(9)),
			fmt.Sprintf("SET password = hash(?) WHERE id = %d", r.IntN(100))}[r.IntN(3)]
		if fs := sc.ScanText(neg); hasType(fs, TypePassword) {
			t.Errorf("%q: a password: %v", neg, fs)
		}
	}
}

// Joined words with the number as their own last part, and a clause that ends in a colon or in
// the Lithuanian, Romanian or Ukrainian "to be" before the value, are passwords; regions, hosts
// and versions written after the same words are not.
func TestPasswordSlugNumberPart(t *testing.T) {
	sc, _ := New(nil)
	for _, text := range []string{
		"the vpn pass is erdenet.attaya.950 — i'll rotate it friday",
		"la contraseña del correo es atitlan.mate.984, cámbiala después",
		"пароль від роутера: ljubljana.chai.958 (не кажи нікому)",
		"slaptažodis į admin panelę yra boquete.mate.2",
		"parola de la contul de bancă e samana.cafe.41",
	} {
		if !hasType(sc.ScanText(text), TypePassword) {
			t.Errorf("%q: password not found", text)
		}
	}
	for _, text := range []string{
		"the password for eu-west-1 is in the vault",
		"the password policy is v2.0 now",
		"password server: db.internal.01",
		"the password rotation is release-2",
	} {
		if hasType(sc.ScanText(text), TypePassword) {
			t.Errorf("%q: read as a password", text)
		}
	}
}
