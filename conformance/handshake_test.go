package conformance

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// TestKnownAnswers holds the suite's own handshake construction (transcript
// hash, proofs, key schedule, session envelopes) to the known-answer
// handshake of docs/protocol.md.
func TestKnownAnswers(t *testing.T) {
	f, err := os.Open("testdata/handshake-v1.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && !strings.HasPrefix(k, "#") {
			g[k] = []byte(v)
		}
	}
	unhex := func(k string) []byte {
		b, err := hex.DecodeString(string(g[k]))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return b
	}
	hello, ack, verify, vr := g["hello"], g["hello_ack"], g["verify"], g["verify_response"]
	for i, want := range []struct {
		name string
		msgs [][]byte
	}{
		{"transcript_hash_1", [][]byte{hello, ack}},
		{"transcript_hash_2", [][]byte{hello, ack, verify}},
		{"transcript_hash_3", [][]byte{hello, ack, verify, vr}},
	} {
		if th := transcriptHash(want.msgs...); !bytes.Equal(th[:], unhex(want.name)) {
			t.Errorf("TH%d = %x, want %s", i+1, th, g[want.name])
		}
	}
	helloT, ackT, verifyT, vrT := parseTree(hello), parseTree(ack), parseTree(verify), parseTree(vr)
	alice, gw := senderOf(helloT), senderOf(ackT)
	proof := func(m wire.Value) keys.Signature {
		s, _ := get(m, "p.proof").Str()
		sig, err := keys.ParseSignature(s)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	th1, th2, th3 := transcriptHash(hello, ack), transcriptHash(hello, ack, verify), transcriptHash(hello, ack, verify, vr)
	if !alice.Key.Verify(statement(initiatorLabel, th1, bytes32(ackT, "p.challenge"), alice, gw), proof(verifyT)) {
		t.Error("the initiator's proof does not verify over the statement built here")
	}
	if !gw.Key.Verify(statement(responderLabel, th2, bytes32(verifyT, "p.challenge"), gw, alice), proof(vrT)) {
		t.Error("the responder's proof does not verify over the statement built here")
	}
	eph, err := keys.X25519FromBytes(unhex("initiator_ephemeral_private"))
	if err != nil {
		t.Fatal(err)
	}
	ek, _ := get(ackT, "p.ephemeral_key").Str()
	peer, err := keys.ParseX25519Public(ek)
	if err != nil {
		t.Fatal(err)
	}
	ir, ri, err := sessionKeys(eph, peer, th3)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ir, unhex("key_initiator_to_responder")) || !bytes.Equal(ri, unhex("key_responder_to_initiator")) {
		t.Errorf("session keys %x, %x; want %s, %s", ir, ri, g["key_initiator_to_responder"], g["key_responder_to_initiator"])
	}
	sid, _ := get(vrT, "p.session_id").Str()
	if env := sealWith(ir, sid, 0, g["session_established_plaintext"]); !bytes.Equal(env, g["session_established"]) {
		t.Errorf("session_established sealed here:\n%s\nwant\n%s", env, g["session_established"])
	}
	// The responder's direction opens what it seals.
	s := &session{id: sid, seal: ri, opn: ri}
	e, err := wire.NewCodec(wire.Limits{}).DecodeEnvelope(s.sealNext(g["session_established_plaintext"]))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.open(e); err != nil || m.Op != wire.OpSessionEstablished {
		t.Fatalf("open: %v %v", m, err)
	}
}
