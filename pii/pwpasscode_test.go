package pii

import (
	"encoding/json"
	"fmt"
	"testing"
)

// hasPassword reports a password or another secret: a pair under "auth" may read as a token.
func hasPassword(fs []Finding) bool {
	for _, f := range fs {
		if f.Type.Class() == ClassSecret {
			return true
		}
	}
	return false
}

func TestLoginPairsUnderALoginKey(t *testing.T) {
	sc, _ := New(nil)
	keys := []string{"login", "creds", "auth", "userpass", "basic_auth", "Login", "logon"}
	values := []string{"admin/pass", "jdoe:Winter2024", "deploy:hunter2", "ops.lead@example.org:Kx9!vL", "root/toor",
		"svc-backup/Tr0ub4dor&3", "m.keller:sommer24"}
	n := 0
	for i, k := range keys {
		for j, v := range values {
			if (i+j)%2 != 0 {
				continue
			}
			n++
			p, _ := json.Marshal(map[string]any{"task": "deploy", k: v})
			fs, err := sc.ScanJSON("p", p)
			if err != nil {
				t.Fatal(err)
			}
			if !hasPassword(fs) {
				t.Errorf("%s: no password found", p)
			}
			text := fmt.Sprintf("%s: %s", k, v)
			if k != "logon" && !hasPassword(sc.ScanText(text)) { // "logon" names no secret in prose
				t.Errorf("%q: no password found", text)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	// What a login field is, rather than holds, passes.
	for _, v := range []string{"user/password", "email:password", "SSO/SAML", "required", "oauth2", "admin/password",
		"https://example.org/login", "/var/lib/login", "${USER}:${PASS}", "<user>:<password>"} {
		p, _ := json.Marshal(map[string]string{"login": v})
		if fs, _ := sc.ScanJSON("p", p); hasPassword(fs) {
			t.Errorf("%s: password found", p)
		}
	}
}

// A typed key or digest is the form moltgate itself publishes (every registration carries
// "encryption_key": "x25519:…"), not a user and a password, under whatever key it stands.
// A public key under a key's name is no secret at all.
func TestTypedValuesAreNoLogin(t *testing.T) {
	sc, _ := New(nil)
	keys := []string{"encryption_key", "login", "creds", "auth", "api_token", "session_key", "signing_key", "userpass"}
	schemes := []string{"x25519", "ed25519", "sha256", "SHA512", "blake2b", "base64"}
	bodies := []string{"zbG", "mQ3v9Rk2LrT0a8bXcYpWq1sZ4nH7uJ6eD5fG2hK0lM8=", "3f1a9c0e77b2d4c6a8e0f1b3d5c7e9a1",
		"Zm9vYmFyYmF6cXV4-_"}
	n := 0
	for i, k := range keys {
		for j, sch := range schemes {
			v := sch + ":" + bodies[(i+j)%len(bodies)]
			n++
			p, _ := json.Marshal(map[string]any{"profile": map[string]string{k: v}})
			fs, err := sc.ScanJSON("p", p)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.Rule == "secret.login-pair" {
					t.Errorf("%s: read as a login: %+v", p, f)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, k := range []string{"encryption_key", "enc_key", "public_key", "verify_key"} {
		for _, v := range []string{"x25519:mQ3v9Rk2LrT0a8bXcYpWq1sZ4nH7uJ6eD5fG2hK0lM8=", "ed25519:zbGq0Lr8Tc1xWm4NvB7aYs2dQk9pE6hJ3uF5iO0lR_c"} {
			p, _ := json.Marshal(map[string]any{"profile": map[string]string{k: v}})
			if fs, _ := sc.ScanJSON("p", p); hasPassword(fs) {
				t.Errorf("%s: secret found: %+v", p, fs)
			}
		}
	}
}

// A name and then the path a secret is kept at (systemd's LoadCredential, container secret
// mounts) is no login pair; a name and a password after the same key is.
func TestCredentialPathsAreNoLogin(t *testing.T) {
	sc, _ := New(nil)
	for _, text := range []string{
		"LoadCredential=token:/etc/app/token",
		"LoadCredential=db-password:/run/secrets/db_password",
		"secret=api_key:/var/lib/app/keys/api.key",
		"creds=deploy:~/.config/deploy/key",
	} {
		for _, f := range sc.ScanText(text) {
			if f.Rule == "secret.login-pair" {
				t.Errorf("%q: read as a login: %+v", text, f)
			}
		}
	}
	if !hasPassword(sc.ScanText("login: admin/Vilnius42!x")) {
		t.Errorf("a login pair is no longer found")
	}
}

func TestShortPasswordKeys(t *testing.T) {
	sc, _ := New(nil)
	keys := []string{"PW", "pw", "Pw"}
	ops := []string{"=", ": ", " = ", ":"}
	values := []string{"hunter2!", "Sommer2024", "Winter#2024", "x7Kq!92m", "Tr0ub4dor&3"}
	n := 0
	for _, k := range keys {
		for i, op := range ops {
			for j, v := range values {
				if (i+j)%2 != 0 {
					continue
				}
				n++
				text := "ssh to the box, " + k + op + v
				if !hasPassword(sc.ScanText(text)) {
					t.Errorf("%q: no password found", text)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, text := range []string{"The pw field is empty", "set pw=$PW", "pw=<password>", "pw: ********"} {
		if hasPassword(sc.ScanText(text)) {
			t.Errorf("%q: password found", text)
		}
	}
}

func TestDigitPasscodes(t *testing.T) {
	sc, _ := New(nil)
	templates := []string{
		"passcode: %s", "Your PIN is %s", "door code %s#", "The passcode is %s.", "Zugangscode: %s",
		"gate code = %s", "The alarm code is %s, please change it.", "Le code d'accès est %s", "OTP: %s",
	}
	codes := []string{"482913", "7731", "90210", "884213", "3317", "51946208"}
	n := 0
	for i, tpl := range templates {
		for j, c := range codes {
			if (i+j)%2 != 0 {
				continue
			}
			n++
			text := fmt.Sprintf(tpl, c)
			if !hasPassword(sc.ScanText(text)) {
				t.Errorf("%q: no passcode found", text)
			}
		}
	}
	for _, k := range []string{"pin", "passcode", "door_code", "otp"} {
		for _, c := range codes[:3] {
			n++
			p, _ := json.Marshal(map[string]string{k: c})
			if fs, _ := sc.ScanJSON("p", p); !hasPassword(fs) {
				t.Errorf("%s: no passcode found", p)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, text := range []string{
		"In 2024 we shipped 1532 units.", "Order 48213 shipped today.", "The tax code is 48213.",
		"PIN code: 560001, Bengaluru", "Use PIN 1234 for the demo unit.", "The promo code is 4821.",
		"Error code 4012 means the card was declined.", "Pinned 4821 messages.",
	} {
		if hasPassword(sc.ScanText(text)) {
			t.Errorf("%q: password found", text)
		}
	}
	if fs, _ := sc.ScanJSON("p", []byte(`{"address":{"city":"Bengaluru","pincode":"560001"}}`)); hasPassword(fs) {
		t.Errorf("pincode: password found")
	}
}
