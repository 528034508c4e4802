package pii

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJoinedChars: a value spelt one character an item is found and masked on every item, and
// an array of letters of ordinary words is not.
func TestJoinedChars(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"jane.doe@example.org", "4111 1111 1111 1111", "GB82WEST12345698765432"} {
		b, _ := json.Marshal(map[string]any{"v": strings.Split(v, "")})
		fs, err := sc.ScanJSON("p", b)
		if err != nil {
			t.Fatal(err)
		}
		paths := map[string]bool{}
		for _, f := range fs {
			paths[f.Path] = true
		}
		if len(paths) < len(v)/2 {
			t.Errorf("%s spelt out: found on %d items: %v", v, len(paths), fs)
		}
	}
	b, _ := json.Marshal(map[string]any{"v": strings.Split("the quick brown fox jumps over the lazy dog", "")})
	if fs, _ := sc.ScanJSON("p", b); len(fs) != 0 {
		t.Errorf("letters of a sentence: %v", fs)
	}
}

// TestJoinedCharsBound: an array of more characters than maxCharParts records no more parts.
func TestJoinedCharsBound(t *testing.T) {
	var parts []jpart
	for range 10 * maxCharParts {
		if !partRoom(parts, "x", "") {
			break
		}
		parts = append(parts, jpart{s: "x"})
	}
	if len(parts) != maxCharParts {
		t.Errorf("%d parts recorded, want %d", len(parts), maxCharParts)
	}
	if partRoom(parts[:maxJoinParts+1], "xy", "") || partRoom(parts[:maxJoinParts+1], "x", "k") {
		t.Errorf("room beyond maxJoinParts for a part that is no character of an array")
	}
}
