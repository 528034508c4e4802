package pii

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// TestJSONInString: a payload whose string member holds, as JSON text, a document with a value
// that only its member name makes personal (a diagnosis beside a patient's name, a date under
// dateOfBirth), nested once or twice, is refused as the document itself is, with the finding on
// the whole string and Via naming the reading; text that only looks like JSON is read as text.
func TestJSONInString(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(41, 7))
	docs := []func() string{
		func() string {
			return fmt.Sprintf(`{"person":{"dateOfBirth":"19%02d-%02d-%02d"}}`, 40+r.IntN(60), 1+r.IntN(12), 1+r.IntN(28))
		},
		func() string {
			return fmt.Sprintf(`{"parts":["jane.doe%d","@","example.com"]}`, r.IntN(100))
		},
		func() string {
			return fmt.Sprintf(`{"db":{"user":"app","password":"%s"}}`, []string{"Tr0ub4dor&3", "hunter2hunter2", "Sommer2024!x"}[r.IntN(3)])
		},
	}
	n := 0
	for i := 0; i < 60; i++ {
		doc := docs[i%len(docs)]()
		direct, _ := gateDecision(sc, mustParse(t, doc))
		if !direct {
			t.Fatalf("the document itself passes: %s", doc)
		}
		text := doc
		depth := 1 + r.IntN(2)
		for d := 0; d < depth; d++ {
			q, _ := json.Marshal(text)
			text = `{"result":` + string(q) + `}`
		}
		block, fs := gateDecision(sc, mustParse(t, text))
		if !block {
			t.Errorf("passed: %s", text)
			continue
		}
		n++
		for _, f := range fs {
			if !strings.Contains(f.Via.String(), "json") {
				t.Errorf("%s: via %q, want json", text, f.Via)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d variants", n)
	}
	// Braces in prose, and JSON with text around it, are text.
	for _, s := range []string{"{see the notes} and [1] above", `{"a":1} trailing`, "[draft]", "{}"} {
		if fs := sc.ScanText(s); len(fs) != 0 {
			t.Errorf("%q: %v", s, fs)
		}
	}
}

func mustParse(t *testing.T, s string) wire.Value {
	t.Helper()
	v, err := wire.Parse([]byte(s), 0)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// TestLookAlikesInMixedWordsOnly: Cyrillic and Greek letters are read as Latin ones in a word
// that also holds Latin letters or digits, and as digits in a word of digits; words of Russian
// and Greek prose are read as they are.
func TestLookAlikesInMixedWordsOnly(t *testing.T) {
	var x scanCtx
	for _, c := range []struct{ in, want string }{
		{"jаne@exаmple.com", "jane@example.com"},
		{"раssword: Tr0ub4dor", "password: Tr0ub4dor"},
		{"4111 О111 1111 1111", "4111 0111 1111 1111"},
		{"Сегодня хорошая погода, спасибо", "Сегодня хорошая погода, спасибо"},
		{"Καλημέρα σας, ευχαριστώ", "Καλημέρα σας, ευχαριστώ"},
		{"Отправьте на ivan@mail.ru сегодня", "Отправьте на ivan@mail.ru сегодня"},
	} {
		got, _ := x.fold(c.in)
		if got != c.want {
			t.Errorf("fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
