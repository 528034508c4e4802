package directory

import (
	"encoding/json"
	"testing"
)

// matchByMap is Requirements.Match the plain way, decoding the whole
// object; Match must agree with it on every valid metadata.
func matchByMap(r Requirements, metadata []byte) bool {
	if len(r.conds) == 0 {
		return true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(metadata, &obj) != nil {
		return false
	}
	for _, c := range r.conds {
		raw, ok := obj[c.Key]
		if !ok {
			return false
		}
		v, err := decodeValue(raw)
		if err != nil || !c.match(v) {
			return false
		}
	}
	return true
}

func FuzzMatch(f *testing.F) {
	f.Add([]byte(`{"tz": true, "langs": ["en", "de"], "max": 100}`), []byte(`{"langs": ["en"], "max": {"gte": 50}}`))
	f.Add([]byte(`{"a\u0062": "x", "s": "q\"uo}te", "n": {"deep": [1, {"k": "]"}]}}`), []byte(`{"ab": "x", "n": {"deep": [1, {"k": "]"}]}}`))
	f.Add([]byte(` { "x" : -1.5e3 , "y" : null } `), []byte(`{"x": {"lte": 0}, "y": null}`))
	f.Add([]byte(`{}`), []byte(`{"missing": 1}`))
	f.Add([]byte(`{"k": [true, false, "t"]}`), []byte(`{"k": {"includes": [false, "t"], "eq": [true, false, "t"]}}`))
	f.Fuzz(func(t *testing.T, metadata, req []byte) {
		r, err := ParseRequirements(req)
		if err != nil {
			return
		}
		r.Match(metadata) // whatever the bytes, no panic
		if checkMetadata(metadata) != nil {
			return
		}
		if got, want := r.Match(metadata), matchByMap(r, metadata); got != want {
			t.Errorf("Match(%s, %s) = %v, want %v", metadata, req, got, want)
		}
	})
}
