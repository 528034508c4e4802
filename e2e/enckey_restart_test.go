package e2e

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/gateway/retired"
	"github.com/moltgate/moltgate/wire"
)

// TestEncKeyRetiredAcrossRestart: globex rotates its keys, switches, and
// restarts during the overlap. key rotate kept the X25519 key it replaced in
// keys/retired, mode 0600, so the restarted gateway opens an envelope
// sealed to it outside a session, as a sender that has not taken the
// handover seals, and answers from the new key. Once the overlap ends,
// the serving gateway removes the file and refuses the old key, naming
// it, while the new key opens.
func TestEncKeyRetiredAcrossRestart(t *testing.T) {
	acme, globex, _, _ := warmPair(t, 3*time.Minute)
	raw := newRawPeer(t, acme, globex, "raw")
	old, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	oldEnc := old.Encryption.Public()
	const overlap = 45 * time.Second
	mg(t, "key", "rotate", "--dir", globex.dir, "--overlap", overlap.String())
	rotated := time.Now()
	nw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	newEnc := nw.Encryption.Public()
	file := filepath.Join(gateway.Dir(globex.dir).RetiredKeysDir(), retired.Name(oldEnc))
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key rotate did not keep the X25519 key it replaced in keys/retired, mode 0600: %v", err)
	}

	// globex restarts once its peers have the handover, as an operator
	// restarting during the overlap would meet it; the raw client seals
	// to the key replaced all the same, as one that did not take it.
	waitFor(t, 30*time.Second, "globex never switched to its new keys", func() bool {
		return strings.Contains(globex.log.String(), `"new_enc_key":"`+newEnc.String()+`"`)
	})
	globex.restart()
	a := raw.post(raw.sealedPingTo("echo", oldEnc))
	if a.status != http.StatusOK || a.reply.Op != wire.OpPong || !a.reply.From.EncKey.Equal(newEnc) {
		t.Fatalf("restarted during the overlap, sealed to the key replaced: %d %v", a.status, a.reply)
	}
	if time.Since(rotated) >= overlap {
		t.Fatal("the overlap ended before the envelope sealed to the key replaced was answered; nothing was shown")
	}

	// After the overlap, the serving gateway removes the file, and the
	// key replaced is refused, named.
	waitFor(t, overlap+30*time.Second, "globex kept the file of its key replaced after the overlap", func() bool {
		_, err := os.Stat(file)
		return errors.Is(err, os.ErrNotExist)
	})
	if time.Since(rotated) < overlap {
		t.Fatalf("the file of the key replaced went %v after the rotation, before the overlap of %v ended", time.Since(rotated), overlap)
	}
	// The refusal is signed with globex's new org key, which its peer
	// document names.
	if globex.doc, err = gateway.ParsePeerDoc([]byte(mg(t, "peer", "export", "--dir", globex.dir))); err != nil {
		t.Fatal(err)
	}
	a = raw.post(raw.sealedPingTo("echo", oldEnc))
	wantRefusal(t, "after the overlap, sealed to the key replaced", a, wire.ErrAuthFailed)
	if e := a.reply.Payload.(*wire.ErrorPayload); !strings.Contains(e.Message, oldEnc.String()+", refused since") || !strings.Contains(e.Message, newEnc.String()) {
		t.Fatalf("the refusal of the key replaced says %q", e.Message)
	}
	if a := raw.post(raw.sealedPingTo("echo", newEnc)); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("after the overlap, sealed to the new key: %d %v", a.status, a.reply)
	}
	if !strings.Contains(globex.log.String(), "retired X25519 key file removed") {
		t.Fatal("globex did not log the removal of its key replaced")
	}
	stillServing(t, acme)
}
