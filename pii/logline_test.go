package pii

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestLogFieldsAndPublicKeys: a number that is a field's value in a key=value log line is no
// house number beside an address word ("svc=billing pid=19258"), and an OpenSSH public key after
// "key:" is no secret; a real address in prose and a token after "token:" still count.
func TestLogFieldsAndPublicKeys(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(71, 72))
	for k := 0; k < 30; k++ {
		log := fmt.Sprintf("ts=%d level=info svc=%s pid=%d bytes=%d dur_ms=%d", 1700000000000+r.IntN(1e9),
			[]string{"billing", "shipping", "delivery"}[r.IntN(3)], 100+r.IntN(99000), r.IntN(1e9), r.IntN(9000))
		if fs := sc.ScanText(log); len(fs) > 0 {
			t.Errorf("%q: %v", log, fs)
		}
		raw := make([]byte, 32)
		for i := range raw {
			raw[i] = byte(r.IntN(256))
		}
		blob := base64.StdEncoding.EncodeToString(append([]byte("\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20"), raw...))
		pub := fmt.Sprintf("%s:\nssh-ed25519 %s %s", []string{"Our signing key", "deploy key", "public key"}[r.IntN(3)], blob, []string{"ops@bastion", "ci"}[r.IntN(2)])
		if fs := sc.ScanText(pub); len(fs) > 0 {
			t.Errorf("%q: %v", pub, fs)
		}
		if fs := sc.ScanText("token: " + blob); len(fs) == 0 {
			t.Errorf("token: %s: nothing found", blob)
		}
	}
}
