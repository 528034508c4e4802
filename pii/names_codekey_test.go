package pii

import "testing"

func TestCodeNameKeys(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"IllegalStateException: Customer{firstName='Sanduni', lastName='Gunawardena'} has an open dispute",
		"DEBUG loaded User(id=7, first_name='Nerea', last_name='Elorza')",
		`{"msg": "patient familyName=Ngata givenName=Aroha"}`,
		"  77  sudo useradd -m -c \"Losa Tuimavave\" ltuimavave",
		"usermod --comment 'Rawiri Parata' rparata",
		"$ chfn -f \"Mele Taufa\" mtaufa",
	} {
		found := false
		for _, f := range sc.ScanText(s) {
			found = found || f.Type == TypeName
		}
		if !found {
			t.Errorf("no name in %q", s)
		}
	}
	for _, s := range []string{
		"Product{displayMode='Compact', themeName='Solarized'}",
		"config: fileName='Quarterly Report', lastModified='Monday'",
		"gcc -c Main.c -o Main.o",
		"type Customer { firstName: String!, lastName: String! }",
		"interface Person { givenName: Text; familyName: Text }",
		"git commit -c Release -m 'Quarterly Report'",
	} {
		for _, f := range sc.ScanText(s) {
			if f.Type == TypeName {
				t.Errorf("a name in %q: %v", s, f)
			}
		}
	}
}
