package pii

import (
	"fmt"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// FuzzScanText: no panics, spans in bounds and ordered, and nothing printed about a finding
// contains the text it covers.
func FuzzScanText(f *testing.F) {
	for _, s := range []string{"", "a@b.co", "+1 415 555 2671", "4111111111111111", "ed25519:", "-----BEGIN PRIVATE KEY-----",
		"xoxb-1234567890-1234567890-abcdefghijABCDEFGHIJ1234", "password=hunter2xyz", "Dear Ann", "221 Baker Street",
		"jane\u200b@example\uff0ecom \uff14\uff11\uff11\uff11\u00a01111", benchProse} {
		f.Add(s)
	}
	sc, err := New(&Config{MinConfidence: 0.01})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := -1
		for _, fd := range sc.ScanText(s) {
			if fd.Start < 0 || fd.End > len(s) || fd.Start >= fd.End {
				t.Fatalf("span [%d,%d) out of bounds for %d bytes", fd.Start, fd.End, len(s))
			}
			if fd.Start < prev {
				t.Fatalf("findings out of order")
			}
			prev = fd.Start
			v := s[fd.Start:fd.End]
			if len(v) >= 4 && strings.Contains(fd.String(), v) && !strings.Contains(fd.Type.String()+fd.Rule, v) {
				t.Fatalf("String() shows the value %q: %s", v, fd)
			}
		}
	})
}

// FuzzScanJSON: arbitrary bytes never panic, and findings in valid JSON stay in bounds of a string.
func FuzzScanJSON(f *testing.F) {
	f.Add([]byte(`{"email":"a@b.co","n":[1,"x"],"k":{"password":"Xk9#mP2$vL7q"}}`))
	f.Add([]byte(`["\u00e9\ud83d\ude00", {"": null}]`))
	sc, _ := New(nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, err := sc.ScanJSON("p", b)
		if err != nil {
			return
		}
		for _, fd := range fs {
			if fd.Start < 0 || fd.Start >= fd.End || fd.End > len(b) {
				t.Fatalf("bad span %v", fd)
			}
		}
	})
}

// FuzzScanTree: on any JSON the wire parser accepts, scanning the decoded tree finds exactly
// what scanning the raw bytes finds.
func FuzzScanTree(f *testing.F) {
	f.Add([]byte(`{"email":"a@b.co","n":[1,"x"],"k":{"password":"Xk9#mP2$vL7q"},"ssn":078051120}`))
	f.Add([]byte(`{"input":{"text":"Patient: John Carter was diagnosed with diabetes.","items":["call +44 20 7946 0958"]}}`))
	f.Add([]byte(`["\u00e9\ud83d\ude00", {"ann@example.org": null}]`))
	sc, _ := New(nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := wire.Parse(b, 0)
		if err != nil || (v.Kind() != wire.Object && v.Kind() != wire.Array) {
			return
		}
		raw, err := sc.ScanJSON("p", b)
		if err != nil {
			t.Fatalf("wire accepts what ScanJSON refuses: %v", err)
		}
		tree := sc.ScanTree("p", v, nil)
		if fmt.Sprint(raw) != fmt.Sprint(tree) {
			t.Fatalf("ScanTree %v\nScanJSON %v", tree, raw)
		}
	})
}
