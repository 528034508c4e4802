package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// maskings are the ways logs and support tools star out an address's local part.
var maskings = []func(r *rand.Rand, local string) string{
	func(_ *rand.Rand, l string) string { return l[:1] + "***" },                            // k***
	func(r *rand.Rand, l string) string { return l[:1] + strings.Repeat("*", 2+r.IntN(6)) }, // k**, k*******
	func(r *rand.Rand, l string) string { // j****e
		return l[:1] + strings.Repeat("*", max(2, len(l)-2)) + l[len(l)-1:]
	},
	func(_ *rand.Rand, l string) string { return l[:2] + "**" }, // jo**
	func(_ *rand.Rand, l string) string { // j.***, when the local part has a dot
		if k := strings.IndexByte(l, '.'); k > 0 {
			return l[:1] + ".***"
		}
		return l[:1] + "****"
	},
	func(_ *rand.Rand, l string) string { return strings.Repeat("*", len(l)) }, // *****
	func(_ *rand.Rand, l string) string { // j***n.d**e: each part's first and last kept
		var parts []string
		for _, p := range strings.Split(l, ".") {
			if len(p) <= 3 {
				parts = append(parts, p[:1]+"**")
				continue
			}
			parts = append(parts, p[:1]+strings.Repeat("*", len(p)-2)+p[len(p)-1:])
		}
		return strings.Join(parts, ".")
	},
	func(_ *rand.Rand, l string) string { return l[:len(l)/2] + "***" }, // jane.d***
}

var maskedTemplates = []string{
	"sent code to %s", "We emailed a reset link to %s.", "Verification code sent to %s (expires in 10 min)",
	"account: %s", "notify=%s status=sent", "Code envoyé à %s", "Bestätigungslink an %s gesendet",
	"- recipient: %s\n- channel: email", "If %s is your address, check your inbox.",
}

func maskLocals(r *rand.Rand) (string, string) {
	firsts := []string{"katja", "jonas", "mei", "olusegun", "ines", "pavel", "aroha", "siobhan", "tomasz", "leilani"}
	lasts := []string{"virtanen", "okafor", "dubois", "kowalczyk", "nakamura", "silva", "oconnell", "moreau"}
	doms := []string{"fastmail.fm", "example.com", "gmail.com", "web.de", "proton.me", "outlook.co.uk", "kozelj.fi", "uol.com.br"}
	f, l := firsts[r.IntN(len(firsts))], lasts[r.IntN(len(lasts))]
	local := []string{f, f + "." + l, f[:1] + l, f + "_" + l + fmt.Sprint(r.IntN(99)), l + fmt.Sprint(10+r.IntN(89))}[r.IntN(5)]
	return local, doms[r.IntN(len(doms))]
}

// TestMaskedEmailPasses: an address whose local part is starred out is a redacted value and
// passes, in text and in a payload, whatever the masking and the sentence around it; the same
// address in the clear, or with Markdown emphasis around or inside it, is still found.
func TestMaskedEmailPasses(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(20, 2))
	masked, clear := 0, 0
	for k := 0; k < 240; k++ {
		local, dom := maskLocals(r)
		tpl := maskedTemplates[r.IntN(len(maskedTemplates))]
		m := maskings[k%len(maskings)](r, local) + "@" + dom
		if fs := sc.ScanText(fmt.Sprintf(tpl, m)); hasType(fs, TypeEmail) {
			t.Errorf("%q: email found in a masked address", fmt.Sprintf(tpl, m))
		}
		payload := wire.ObjectValue(wire.Member{Key: "email", Value: wire.StringValue(m)})
		if block, fs := gateDecision(sc, payload); block {
			t.Errorf("{\"email\": %q}: blocked: %v", m, fs)
		}
		masked++
		// The same address given, plainly, in bold or in code, or with emphasis a hostile writer
		// put inside it, is found.
		addr := local + "@" + dom
		for _, v := range []string{addr, "**" + addr + "**", "`" + addr + "`", local[:len(local)-2] + "**" + local[len(local)-2:] + "@" + dom} {
			if !hasType(sc.ScanText(fmt.Sprintf(tpl, v)), TypeEmail) {
				t.Errorf("%q: no email", fmt.Sprintf(tpl, v))
			}
			clear++
		}
	}
	if masked < 20 || clear < 20 {
		t.Fatalf("only %d masked and %d clear variants", masked, clear)
	}
}

func TestMaskedEmail(t *testing.T) {
	for _, c := range []struct {
		addr string
		want bool
	}{
		{"k***@fastmail.fm", true}, {"j.***@example.com", true}, {"j****e@example.com", true},
		{"jo**@gmail.com", true}, {"j***n.d**e@example.org", true}, {"jane.d***@web.de", true},
		{"**jane@example.com**", false}, {"jane.do**e@example.com", false}, {"jane**@example.com", false},
		{"jane@example.com", false}, {"k*@example.com", false},
	} {
		if got := maskedEmail(c.addr); got != c.want {
			t.Errorf("maskedEmail(%q) = %v, want %v", c.addr, got, c.want)
		}
	}
}
