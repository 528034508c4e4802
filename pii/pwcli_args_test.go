package pii

import "testing"

// TestCLIArgPasswords: passwords a command line gives on standard input, as Samba's
// user%password or as htpasswd's last argument; and the same commands with none.
func TestCLIArgPasswords(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"echo 'Antsi#43856' | sudo -S systemctl restart app",
		"echo \"Kemper2019!\" | passwd --stdin deploy",
		"htpasswd -bc .htpasswd deploy 'durban_tide_20'",
		"htpasswd -b /etc/nginx/.htpasswd admin Ajacc!o9921",
		"smbclient //files.internal/share -U root%'antsirabe_moss_49'",
		"rpcclient -U admin%Rotorua#2291 10.0.0.5",
	} {
		found := false
		for _, f := range sc.ScanText(s) {
			found = found || f.Type == TypePassword
		}
		if !found {
			t.Errorf("no password in %q", s)
		}
	}
	for _, s := range []string{
		"echo 'build 2291 done' | sudo tee /var/log/build.log",
		"htpasswd -c .htpasswd deploy",
		"smbclient //files.internal/share -U root",
		"printf '%s\\n' 50% | sudo -S true",
		"echo $PASSWORD | sudo -S systemctl restart app",
	} {
		for _, f := range sc.ScanText(s) {
			if f.Type == TypePassword {
				t.Errorf("a password in %q: %v", s, f)
			}
		}
	}
}
