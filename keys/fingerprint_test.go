package keys

import "testing"

func TestFingerprintMatches(t *testing.T) {
	k, err := ParseEd25519Public("ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
	if err != nil {
		t.Fatal(err)
	}
	const fp = "SHA256:21fe31df a154a261 626bf854 046fd227 1b7bed4b 6abe45aa 58877ef4 7f9721b9"
	for _, in := range []string{fp, "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9",
		"sha256:21FE31DF:A154A261:626BF854:046FD227:1B7BED4B:6ABE45AA:58877EF4:7F9721B9", "  " + fp + "\n"} {
		if !k.FingerprintMatches(in) {
			t.Errorf("%q does not match", in)
		}
	}
	// A prefix, one digit changed, or another key's fingerprint is refused.
	other := k
	other[0] ^= 1
	for _, in := range []string{"", "SHA256:21fe31df", fp[:len(fp)-1] + "8", other.Fingerprint()} {
		if k.FingerprintMatches(in) {
			t.Errorf("%q matches", in)
		}
	}
}
