package handshake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const goldenPath = "testdata/handshake-v1.golden"

// goldenRun performs the deterministic handshake of the golden file and
// returns its lines, in order.
func goldenRun(t *testing.T) [][2]string {
	t.Helper()
	ctx := context.Background()
	c := newCast(t)
	ci, cr := fixedPair(c)
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	var lines [][2]string
	add := func(k string, v []byte) { lines = append(lines, [2]string{k, string(v)}) }
	addHex := func(k string, v []byte) { add(k, []byte(hex.EncodeToString(v))) }
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	hello, err := in.writeHello()
	check(err)
	ack, err := re.readHello(ctx, mustEnv(t, hello))
	check(err)
	verify, err := in.readHelloAck(ctx, ack)
	check(err)
	th1 := re.th.sum()
	vr, err := re.readVerify(ctx, mustEnv(t, verify))
	check(err)
	ephI, ephR := in.eph.Bytes(), in.ackP.EphemeralKey
	est, si, err := in.readVerifyResponse(ctx, vr)
	check(err)
	sr, err := re.readEstablished(ctx, mustEnv(t, est))
	check(err)
	if si.ID() != sr.ID() {
		t.Fatal("sessions differ")
	}

	th := newTranscript()
	for _, m := range [][]byte{hello, ack} {
		th.add(m)
	}
	if th.sum() != th1 {
		t.Fatal("transcript hash 1 differs")
	}
	th.add(verify)
	th2 := th.sum()
	th.add(vr)
	th3 := th.sum()
	priv, err := keysFromBytes(ephI)
	check(err)
	ss, err := priv.ECDH(ephR)
	check(err)
	ir, ri, err := sessionKeys(priv, ephR, th3)
	check(err)
	estEnv := mustEnv(t, est)
	aead, _ := chacha20poly1305.New(ir)
	pt, err := aead.Open(nil, nonce(0), estEnv.Ciphertext, wire.AppendSessionHeader(nil, estEnv.SessionID, 0))
	check(err)

	add("hello", hello)
	add("hello_ack", ack)
	add("verify", verify)
	add("verify_response", vr)
	add("session_established", est)
	add("session_established_plaintext", pt)
	addHex("transcript_hash_1", th1[:])
	addHex("transcript_hash_2", th2[:])
	addHex("transcript_hash_3", th3[:])
	addHex("initiator_ephemeral_private", ephI)
	addHex("shared_secret", ss)
	addHex("key_initiator_to_responder", ir)
	addHex("key_responder_to_initiator", ri)
	return lines
}

const goldenHeader = `# moltgate handshake v1: a known-answer transcript (see README).
# Regenerate with: go test ./handshake -run TestGoldenTranscript -update
`

func TestGoldenTranscript(t *testing.T) {
	lines := goldenRun(t)
	var buf bytes.Buffer
	buf.WriteString(goldenHeader)
	for _, l := range lines {
		fmt.Fprintf(&buf, "%s %s\n", l[0], l[1])
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		got := strings.Split(buf.String(), "\n")
		for i, w := range strings.Split(string(want), "\n") {
			if i >= len(got) || got[i] != w {
				t.Fatalf("line %d differs from %s:\n got %.200s\nwant %.200s", i+1, goldenPath, at(got, i), w)
			}
		}
		t.Fatalf("%s differs (run with -update if the change is intended)", goldenPath)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// TestGoldenKnownAnswers checks the golden file against the construction as
// docs/protocol.md states it, without the state machines: transcript
// hashes, both proofs, the key schedule and the sealing of
// session_established.
func TestGoldenKnownAnswers(t *testing.T) {
	f, err := os.Open(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" && l[0] != '#' {
			k, val, _ := strings.Cut(l, " ")
			v[k] = val
		}
	}
	unhex := func(k string) []byte {
		b, err := hex.DecodeString(v[k])
		if err != nil || len(b) != 32 {
			t.Fatalf("%s: %v", k, err)
		}
		return b
	}
	codec := wire.NewCodec(wire.Limits{})
	msg := func(k string) *wire.Message {
		m, err := codec.Decode([]byte(v[k]))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if err := crypto.Verify(m); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return m
	}
	hello, ack, verify, vr := msg("hello"), msg("hello_ack"), msg("verify"), msg("verify_response")

	// TH = SHA-256(label 0x00 || u32be len || message ...)
	th := newTranscript()
	for i, k := range []string{"hello", "hello_ack", "verify", "verify_response"} {
		th.add([]byte(v[k]))
		if i >= 1 {
			sum := th.sum()
			if !bytes.Equal(sum[:], unhex(fmt.Sprintf("transcript_hash_%d", i))) {
				t.Fatalf("transcript hash %d", i)
			}
		}
	}
	th1, th2 := [32]byte(unhex("transcript_hash_1")), [32]byte(unhex("transcript_hash_2"))
	vp, vrp := verify.Payload.(*wire.VerifyPayload), vr.Payload.(*wire.VerifyResponsePayload)
	if !checkProof(vp.Proof, initiatorProof, th1, ack.Payload.(*wire.HelloPayload).Challenge, hello.From, ack.From) {
		t.Fatal("initiator's proof")
	}
	if !checkProof(vrp.Proof, responderProof, th2, vp.Challenge, ack.From, hello.From) {
		t.Fatal("responder's proof")
	}

	priv, err := keysFromBytes(unhex("initiator_ephemeral_private"))
	if err != nil {
		t.Fatal(err)
	}
	if priv.Public() != hello.Payload.(*wire.HelloPayload).EphemeralKey {
		t.Fatal("ephemeral key")
	}
	ir, ri, err := sessionKeys(priv, ack.Payload.(*wire.HelloPayload).EphemeralKey, [32]byte(unhex("transcript_hash_3")))
	if err != nil || !bytes.Equal(ir, unhex("key_initiator_to_responder")) || !bytes.Equal(ri, unhex("key_responder_to_initiator")) {
		t.Fatal("session keys")
	}
	env, err := codec.DecodeEnvelope([]byte(v["session_established"]))
	if err != nil {
		t.Fatal(err)
	}
	aead, _ := chacha20poly1305.New(ir)
	var n [12]byte
	n[11] = byte(env.Counter) // counter 0: twelve zero bytes
	pt, err := aead.Open(nil, n[:], env.Ciphertext,
		[]byte(`{"algorithm":"session-chacha20-poly1305","counter":0,"encrypted":true,"session":"`+vrp.SessionID+`"}`))
	if err != nil || string(pt) != v["session_established_plaintext"] {
		t.Fatalf("session_established does not open as documented: %v", err)
	}
	est := msg("session_established_plaintext")
	if est.Payload.(*wire.SessionEstablishedPayload).SessionID != vrp.SessionID || est.Re != vr.ID {
		t.Fatal("session_established names another session")
	}
}
