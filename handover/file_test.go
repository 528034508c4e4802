package handover

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// A set is kept on disk and read back the same, newest last, at most
// Keep statements; a missing file is the empty set.
func TestSetFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handovers.json")
	set, err := LoadFile(path)
	if err != nil || len(set.Handovers) != 0 {
		t.Fatalf("missing file: %v %v", set, err)
	}
	prev := key(t, 1)
	for i := range Keep + 2 {
		next := key(t, byte(i+2))
		st, err := OrgKey("acme", prev, next, encKey(t), t0.Add(time.Duration(i)*time.Hour), time.Hour, t0)
		if err != nil {
			t.Fatal(err)
		}
		set.Add(st)
		prev = next
	}
	if err := set.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", fi.Mode().Perm())
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Handovers) != Keep || got.Handovers[Keep-1].New != prev.Public().String() {
		t.Fatalf("read back %d statements, the last to %s", len(got.Handovers), got.Handovers[len(got.Handovers)-1].New)
	}
	// Each statement still verifies under the key it hands from.
	for i, st := range got.Handovers {
		old, _ := parseKey(st.Old)
		if err := st.Verify(old); err != nil {
			t.Fatalf("statement %d: %v", i, err)
		}
	}
	if got.Find(KindOrgKey, got.Handovers[3].Old, got.Handovers[3].New) != got.Handovers[3] || got.Find(KindTLSPin, got.Handovers[3].Old, got.Handovers[3].New) != nil {
		t.Fatal("Find")
	}
}

// A set is read strictly: a member it does not know, or a statement that
// is not one, is named.
func TestParseSetStrict(t *testing.T) {
	st, _, _ := rotation(t)
	b, _ := st.Marshal()
	for in, field := range map[string]string{
		`{"handovers":[` + string(b) + `],"more":1}`: "handovers",
		`{"handovers":{}}`:                           "handovers",
		`[]`:                                         "handovers",
		`{"handovers":[` + strings.Replace(string(b), `"kind":"org_key"`, `"kind":"x"`, 1) + `]}`: "handovers[0].kind",
	} {
		_, err := ParseSet([]byte(in))
		var e *Error
		if !errors.As(err, &e) || e.Field != field {
			t.Errorf("%.60s: %v, want an error on %s", in, err, field)
		}
	}
}

func parseKey(s string) (keys.Ed25519Public, error) { return keys.ParseEd25519Public(s) }
