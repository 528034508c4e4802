package keys

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Fingerprint is the short form of an org key that operators compare out
// of band (read over the telephone, pasted in a ticket) before they trust
// a peer document: "SHA256:" and the SHA-256 of the key's 32 bytes in eight
// groups of eight lower-case hex digits. Two keys with one fingerprint
// would need a SHA-256 collision.
func (k Ed25519Public) Fingerprint() string {
	sum := sha256.Sum256(k[:])
	h := hex.EncodeToString(sum[:])
	var b strings.Builder
	b.WriteString("SHA256:")
	for i := 0; i < len(h); i += 8 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h[i : i+8])
	}
	return b.String()
}

// FingerprintMatches reports whether fp, as a person typed or pasted it,
// is k's fingerprint: the "SHA256:" prefix, spaces, colons and the case of
// the hex digits may differ; every digit must be there.
func (k Ed25519Public) FingerprintMatches(fp string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		s = strings.TrimPrefix(s, "sha256:")
		return strings.NewReplacer(" ", "", ":", "", "\t", "").Replace(s)
	}
	got := norm(fp)
	return len(got) == 2*sha256.Size && got == norm(k.Fingerprint())
}
