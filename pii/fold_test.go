package pii

import (
	"strings"
	"testing"
	"unicode"

	"github.com/moltgate/moltgate/wire"
)

// TestLookAlikes checks that a value written with characters that read as ASCII ones (the
// spaces and hyphens of word processors, zero-width characters, full-width forms, digits of
// other scripts) is found as the value, and masked whole.
func TestLookAlikes(t *testing.T) {
	s := mustNew(t, nil)
	cases := []struct{ text, want, value string }{
		{"mail jane.doe\uff20example.com", "email", "jane.doe\uff20example.com"},
		{"mail jane.doe\u200b@example.com", "email", "jane.doe\u200b@example.com"},
		{"mail jane.doe\u00ad@example\u3002com", "email", "jane.doe\u00ad@example\u3002com"},
		{"mail jane.doe\ufe6bexample.com", "email", "jane.doe\ufe6bexample.com"},
		{"card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11", "card",
			"\uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11"},
		{"card 4111\u200d1111\u200d1111\u200d1111", "card", "4111\u200d1111\u200d1111\u200d1111"},
		{"card 4111\u00a01111\u00a01111\u00a01111", "card", "4111\u00a01111\u00a01111\u00a01111"},
		{"card 4111\u20131111\u20131111\u20131111", "card", "4111\u20131111\u20131111\u20131111"},
		{"card \u0664\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661", "card",
			"\u0664\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661"},
		{"card \U0001d7d2\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf", "card",
			"\U0001d7d2\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf\U0001d7cf"},
		{"call +44\u00a020\u00a07946\u00a00958", "phone", "+44\u00a020\u00a07946\u00a00958"},
		{"call +1 415\u2011555\u20110132", "phone", "+1 415\u2011555\u20110132"},
		{"call \uff0b\uff11 \uff14\uff11\uff15 \uff15\uff15\uff15 \uff10\uff11\uff13\uff12", "phone",
			"\uff0b\uff11 \uff14\uff11\uff15 \uff15\uff15\uff15 \uff10\uff11\uff13\uff12"},
		{"SSN: \uff10\uff17\uff18-\uff10\uff15-\uff11\uff11\uff12\uff13", "ssn", "\uff10\uff17\uff18-\uff10\uff15-\uff11\uff11\uff12\uff13"},
		{"IBAN DE89\u200b3704\u200b0044\u200b0532\u200b0130\u200b00", "iban", "DE89\u200b3704\u200b0044\u200b0532\u200b0130\u200b00"},
		{"key AKIA\u200bZ3MSJV4WWNKWW5V2", "cloud_token", "AKIA\u200bZ3MSJV4WWNKWW5V2"},
		{"token \uff47\uff48\uff50\uff3fR7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi", "api_token", "\uff47\uff48\uff50\uff3fR7kq2mZp9XvL4sT8wN3bY6cJ1dF5gH0aQeUi"},
		{"\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44: Xk9#mP2$vL7q", "password", "Xk9#mP2$vL7q"},
		{"born \uff11\uff12/\uff10\uff13/\uff11\uff19\uff18\uff10", "dob", "\uff11\uff12/\uff10\uff13/\uff11\uff19\uff18\uff10"},
		{"Dear \U0001d409\U0001d428\U0001d421\U0001d427 Smith,", "name", "\U0001d409\U0001d428\U0001d421\U0001d427 Smith"},
	}
	for _, c := range cases {
		fs := s.ScanText(c.text)
		if got := types(fs); got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
			continue
		}
		if got := c.text[fs[0].Start:fs[0].End]; !strings.Contains(got, c.value) {
			t.Errorf("%q: the finding spans %q, not the whole of %q", c.text, got, c.value)
		}
		if m := s.MaskString(c.text); strings.Contains(m, c.value) || strings.ContainsAny(m, "0123456789\uff11\u0661") && c.want != "password" {
			t.Errorf("%q: masked as %q", c.text, m)
		}
	}
}

// TestLookAlikesInTrees checks the same through the scan of a message: in values, in numbers
// under a telling key written as text, and in keys, whose name also gives its value's context.
func TestLookAlikesInTrees(t *testing.T) {
	s := mustNew(t, nil)
	for _, c := range []struct{ json, want string }{
		{`{"note":"write to jane.doe\uff20example.com"}`, "email"},
		{`{"jane.doe\u200b@example.com":true}`, "email"},
		{`{"\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44":"Xk9mP2vL7qRt"}`, "password"},
		{`{"pass\u200bword":"Xk9mP2vL7qRt"}`, "password"},
	} {
		v, err := wire.Parse([]byte(c.json), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := types(s.ScanTree("p", v, nil)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.json, got, c.want)
		}
	}
}

// TestLookAlikesCleanTextPasses checks that text in other scripts, and typography of the
// kind word processors make, is no more suspect than its ASCII reading.
func TestLookAlikesCleanTextPasses(t *testing.T) {
	s := mustNew(t, nil)
	for _, text := range []string{
		"Le rapport du 3\u00a0mars compte 1\u00a0250\u00a0lignes\u202f; merci\u00a0!",
		"Die Lieferung kommt am Montag \u2013 bitte die Rechnung pr\u00fcfen.",
		"\u4f1a\u8b70\u306f\uff13\u6642\u304b\u3089\u3067\u3059\u3002\u8cc7\u6599\u306f\uff12\u4ef6\u3002",
		"\u0627\u0644\u0627\u062c\u062a\u0645\u0627\u0639 \u0641\u064a \u0627\u0644\u0633\u0627\u0639\u0629 \u0663",
		"Q3 revenue rose 12\u202f% year\u2011on\u2011year \u2014 see page\u00a04.",
		"\u0928\u092e\u0938\u094d\u0924\u0947, \u092c\u0948\u0920\u0915 \u096a \u092c\u091c\u0947 \u0939\u0948\u0964",
		"emoji \U0001f469\u200d\U0001f4bb and flags \U0001f1eb\U0001f1f7 stay as they are \ufe0f",
	} {
		if fs := s.ScanText(text); len(fs) != 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
}

// TestDigitRunsOfTen checks what digitOf assumes: Unicode's decimal digits come in runs of ten.
func TestDigitRunsOfTen(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !unicode.Is(unicode.Nd, r) {
			continue
		}
		d := digitOf(r)
		if d < 0 || d > 9 {
			t.Fatalf("U+%04X: digit %d", r, d)
		}
		if d > 0 && (!unicode.Is(unicode.Nd, r-1) || digitOf(r-1) != d-1) {
			t.Fatalf("U+%04X: digit %d does not follow its predecessor", r, d)
		}
	}
	if digitOf('\u0663') != 3 || digitOf('\uff17') != 7 || digitOf('x') != -1 || digitOf('\u00b2') != -1 {
		t.Error("digitOf")
	}
}

func TestHasHigh(t *testing.T) {
	for n := 0; n < 70; n++ {
		if hasHigh(strings.Repeat("a", n)) {
			t.Fatalf("%d ASCII bytes", n)
		}
		for at := 0; at < n; at++ {
			b := []byte(strings.Repeat("a", n))
			b[at] = 0x80
			if !hasHigh(string(b)) {
				t.Fatalf("byte %d of %d", at, n)
			}
		}
	}
}
