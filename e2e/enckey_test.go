package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// sealedPingTo is a ping of p's target's agent, sealed to the X25519 key
// enc of the target gateway outside a session.
func (p *rawPeer) sealedPingTo(agent string, enc keys.X25519Public) []byte {
	p.t.Helper()
	b, err := crypto.SealMessage(p.codec, p.pingOf(agent), p.agent.Signing, crypto.NewBox(p.agent.Encryption, 0), enc)
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

// directoryEncKeys is the encryption keys o's directory lists for
// agent@org.
func directoryEncKeys(t *testing.T, o *org, org, agent string) []string {
	t.Helper()
	var ks []string
	for _, a := range directoryListed(t, o, org, agent) {
		ks = append(ks, a.EncryptionKey)
	}
	return ks
}

// TestEncKeyRotatedWithoutRestart: globex's X25519 key turns over with
// its org key while acme's agent calls globex's and globex's calls
// acme's, and neither gateway restarts. The handover names the new key
// before globex uses it; once globex switches, acme's pin and peer file of
// globex name it, and globex's agent is published with it. No call fails
// in either direction, the ones in flight at the rotation included. An
// envelope sealed to the old key outside a session opens until the
// overlap ends and is refused after it, E_AUTH_FAILED naming the keys;
// one sealed to the new key opens throughout.
func TestEncKeyRotatedWithoutRestart(t *testing.T) {
	acme, globex, toGlobex, ctx := warmPair(t, 4*time.Minute)
	toAcme := globex.client()
	if _, _, err := call(ctx, toAcme, "echo", "client@acme", "echo", `{"text":"warm up"}`); err != nil {
		t.Fatal(err)
	}
	raw := newRawPeer(t, acme, globex, "raw")
	old, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	oldEnc := old.Encryption.Public()
	if a := raw.post(raw.sealedPingTo("echo", oldEnc)); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("before the rotation, sealed to globex's key: %d %v", a.status, a.reply)
	}
	pid := globex.cmd.Process.Pid

	there, back := startCallingFrom(ctx, toGlobex, "client", "echo@globex"), startCallingFrom(ctx, toAcme, "echo", "client@acme")
	slowThere := slowCallFrom(t, ctx, acme.client(), "client", "echo@globex", 4000)
	slowBack := slowCallFrom(t, ctx, globex.client(), "echo", "client@acme", 4000)
	const overlap = 40 * time.Second
	out := mg(t, "key", "rotate", "--dir", globex.dir, "--overlap", overlap.String())
	rotated := time.Now()
	nw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	newEnc := nw.Encryption.Public()
	if newEnc.Equal(oldEnc) || !strings.Contains(out, "X25519 encryption key rotated with it: "+oldEnc.String()+" -> "+newEnc.String()) {
		t.Fatalf("key rotate did not turn the X25519 key over:\n%s", out)
	}

	waitFor(t, 30*time.Second, "globex never switched to its new keys", func() bool {
		return strings.Contains(globex.log.String(), `"new_enc_key":"`+newEnc.String()+`"`)
	})
	// acme had the handover, naming the new X25519 key, before globex
	// used it.
	if p := pinOf(t, acme, "globex"); !(p.Next != nil && p.Next.EncKey.Equal(newEnc)) && !p.EncKey.Equal(newEnc) {
		t.Fatalf("acme's pin of globex when globex switched: %+v", p)
	}
	if time.Since(rotated) >= overlap {
		t.Fatalf("globex switched %v after the rotation, after the overlap of %v", time.Since(rotated), overlap)
	}
	// During the overlap an envelope sealed to either key opens; globex
	// answers from the new one.
	for _, enc := range []keys.X25519Public{oldEnc, newEnc} {
		a := raw.post(raw.sealedPingTo("echo", enc))
		if a.status != http.StatusOK || a.reply.Op != wire.OpPong || !a.reply.From.EncKey.Equal(newEnc) {
			t.Fatalf("during the overlap, sealed to %s: %d %v", enc, a.status, a.reply)
		}
	}
	if time.Since(rotated) >= overlap {
		t.Fatal("the overlap ended before the envelopes sealed during it were answered; nothing was shown")
	}
	for what, ch := range map[string]<-chan error{"acme to globex": slowThere, "globex to acme": slowBack} {
		if err := <-ch; err != nil {
			t.Fatalf("the call %s in flight at the rotation: %v", what, err)
		}
	}
	// acme seals to the new key from its peer file once globex presented
	// its new org key; globex's agent is published with the new key.
	waitFor(t, 30*time.Second, "acme's peer file of globex never named the new X25519 key", func() bool {
		return peerFileOf(t, acme, "globex")["enc_key"] == newEnc.String()
	})
	waitFor(t, 30*time.Second, "globex's agent was not published with the new X25519 key", func() bool {
		ks := directoryEncKeys(t, globex, "globex", "echo")
		return len(ks) == 1 && ks[0] == newEnc.String()
	})
	n, m := there.succeeded(), back.succeeded()
	waitFor(t, 30*time.Second, "calls stopped after globex switched", func() bool { return there.succeeded() >= n+5 && back.succeeded() >= m+5 })

	// After the overlap, the old key is refused, the new one opens.
	waitFor(t, overlap+40*time.Second, "acme kept globex's old keys after the overlap", func() bool {
		p := pinOf(t, acme, "globex")
		return time.Since(rotated) > overlap && p.Key.Equal(nw.Signing.Public()) && p.EncKey.Equal(newEnc) && p.Previous == nil && p.Next == nil
	})
	if globex.doc, err = gateway.ParsePeerDoc([]byte(mg(t, "peer", "export", "--dir", globex.dir))); err != nil {
		t.Fatal(err)
	}
	if !globex.doc.EncKey.Equal(newEnc) {
		t.Fatalf("globex's peer document names %s, want the new X25519 key", globex.doc.EncKey)
	}
	a := raw.post(raw.sealedPingTo("echo", oldEnc))
	wantRefusal(t, "after the overlap, sealed to the old X25519 key", a, wire.ErrAuthFailed)
	if e := a.reply.Payload.(*wire.ErrorPayload); !strings.Contains(e.Message, "could not be opened") || !strings.Contains(e.Message, newEnc.String()) || !strings.Contains(e.Message, "refused since") {
		t.Fatalf("the refusal of the old X25519 key says %q", e.Message)
	}
	if a := raw.post(raw.sealedPingTo("echo", newEnc)); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("after the overlap, sealed to the new key: %d %v", a.status, a.reply)
	}
	n, m = there.succeeded(), back.succeeded()
	waitFor(t, 30*time.Second, "calls stopped after the overlap", func() bool { return there.succeeded() >= n+5 && back.succeeded() >= m+5 })
	for what, cl := range map[string]*caller{"acme to globex": there, "globex to acme": back} {
		ok, failed := cl.end()
		if len(failed) > 0 {
			t.Fatalf("%d of %d calls %s failed across the rotation, the first: %v", len(failed), ok+len(failed), what, failed[0])
		}
		t.Logf("%d calls %s across the rotation of globex's X25519 key, none failed", ok, what)
	}
	if globex.cmd.Process.Pid != pid || strings.Count(globex.log.String(), `"msg":"gateway serving"`) != 1 {
		t.Fatal("globex restarted")
	}
	stillServing(t, acme)
}
