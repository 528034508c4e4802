package directory_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

var update = flag.Bool("update", false, "rewrite the known-answer files in testdata")

// attestationVector is testdata/attestation.json.
type attestationVector struct {
	Comment      string             `json:"comment"`
	Seed         string             `json:"seed"` // the registry key's seed, base64:
	Registry     string             `json:"registry"`
	Attested     directory.Attested `json:"attested"`
	SigningBytes string             `json:"signing_bytes"`
	Signature    string             `json:"signature"`
}

func TestAttestationKnownAnswer(t *testing.T) {
	path := filepath.Join("testdata", "attestation.json")
	var v attestationVector
	if *update {
		seed := make([]byte, 32)
		for i := range seed {
			seed[i] = byte(i)
		}
		v = attestationVector{
			Comment:  "registry attestation: signature by the registry key (Ed25519 seed below) over signing_bytes",
			Seed:     keys.EncodeBytes(seed),
			Registry: "acme",
			Attested: directory.Attested{
				AgentID: "calendar-bot", Org: "acme",
				PublicKey:     "ed25519:A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=",
				EncryptionKey: "x25519:jqYWQv9M3TFnYdATRjhn3LeJrrALy1ttnKagUr0XSmo=",
				Endpoint:      "https://gw.acme.example/moltspeak/v0.1/message",
				Capabilities:  []string{"calendar.schedule", "calendar.check"},
				RegisteredAt:  1800000000000, ExpiresAt: 1800086400000,
			},
		}
		k, err := keys.Ed25519FromSeed(seed)
		if err != nil {
			t.Fatal(err)
		}
		v.SigningBytes = string(v.Attested.SigningBytes(v.Registry))
		v.Signature = directory.Attest(&v.Attested, v.Registry, k).Signature.String()
		b, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	seed, err := keys.DecodeBytes(v.Seed, 32)
	if err != nil {
		t.Fatal(err)
	}
	k, err := keys.Ed25519FromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"agent_id":"calendar-bot","capabilities":["calendar.schedule","calendar.check"],` +
		`"encryption_key":"x25519:jqYWQv9M3TFnYdATRjhn3LeJrrALy1ttnKagUr0XSmo=",` +
		`"endpoint":"https://gw.acme.example/moltspeak/v0.1/message","expires_at":1800086400000,"org":"acme",` +
		`"public_key":"ed25519:A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=","registered_at":1800000000000,` +
		`"registry":"acme","type":"moltgate.registry-attestation.v1"}`
	if got := string(v.Attested.SigningBytes(v.Registry)); got != v.SigningBytes || got != want {
		t.Fatalf("signing bytes\n got %s\nfile %s\nwant %s", got, v.SigningBytes, want)
	}
	if got := directory.Attest(&v.Attested, v.Registry, k).Signature.String(); got != v.Signature {
		t.Fatalf("signature %s, want %s", got, v.Signature)
	}
	// Without an encryption key the member is left out, not empty.
	a := v.Attested
	a.EncryptionKey = ""
	if s := string(a.SigningBytes("acme")); strings.Contains(s, "encryption_key") {
		t.Fatalf("empty encryption_key signed: %s", s)
	}
}

func TestVerifyAttestationRefusesForgeries(t *testing.T) {
	e := newRegistryEnv(t, false)
	bot := e.acme.agent(t, "bot")
	pr := profile("echo.text", "echo.more")
	e.mustRegister(bot, e.create(e.acme, bot, pr))
	rec, err := e.reg.Lookup(t.Context(), directory.ID{Agent: "bot", Org: "acme"}, directory.Viewer{})
	if err != nil {
		t.Fatal(err)
	}
	good := recordValue(t, rec)
	now := e.clock.Now()
	if _, err := directory.VerifyAttestation(good, "acme", orgKey(e.acme), now); err != nil {
		t.Fatalf("genuine record: %v", err)
	}
	// Every attested field altered, one at a time.
	other := e.acme.agent(t, "x")
	alter := map[string]wire.Value{
		"agent_id":       wire.StringValue("bot2"),
		"org":            wire.StringValue("globex"),
		"public_key":     wire.StringValue(other.Signing.Public().String()),
		"encryption_key": wire.StringValue(other.Encryption.Public().String()),
		"endpoint":       wire.StringValue("https://attacker.example/moltspeak/v0.1/message"),
		"capabilities":   wire.ArrayValue(wire.StringValue("echo.more"), wire.StringValue("echo.text")),
		"registered_at":  wire.IntValue(rec.RegisteredAt - 1),
		"expires_at":     wire.IntValue(rec.ExpiresAt + 3600000),
	}
	for f, v := range alter {
		if _, err := directory.VerifyAttestation(good.With(f, v), "acme", orgKey(e.acme), now); err == nil {
			t.Errorf("altered %s accepted", f)
		} else {
			wantCode(t, err, wire.ErrSignature, "")
		}
	}
	// Removing the encryption key is an alteration too.
	if _, err := directory.VerifyAttestation(good.Without("encryption_key"), "acme", orgKey(e.acme), now); err == nil {
		t.Error("record without its encryption key accepted")
	}
	// Wrong types.
	if _, err := directory.VerifyAttestation(good.With("expires_at", wire.StringValue("1")), "acme", orgKey(e.acme), now); err == nil {
		t.Error("string expires_at accepted")
	}
	// The information around the attested fields may change freely.
	if _, err := directory.VerifyAttestation(good.With("name", wire.StringValue("renamed")), "acme", orgKey(e.acme), now); err != nil {
		t.Errorf("unattested name: %v", err)
	}
	att := good.Get("attestation")
	// A signature by another key, even one naming itself in "key".
	forged := directory.Attest(&directory.Attested{}, "acme", e.globex.gateway.Signing)
	fa, _ := wire.ValueOf(forged)
	for name, v := range map[string]wire.Value{
		"other key's signature": good.With("attestation", att.With("signature", fa.Get("signature")).With("key", fa.Get("key"))),
		"other registry":        good.With("attestation", att.With("registry", wire.StringValue("globex"))),
		"no attestation":        good.Without("attestation"),
		"bad type":              good.With("attestation", att.With("type", wire.StringValue("x"))),
		"garbled signature":     good.With("attestation", att.With("signature", wire.StringValue("ed25519:AAAA"))),
	} {
		_, err := directory.VerifyAttestation(v, "acme", orgKey(e.acme), now)
		if err == nil {
			t.Errorf("%s accepted", name)
			continue
		}
		wantCode(t, err, wire.ErrSignature, "")
	}
	// The genuine record with globex's key, or as globex's registry.
	if _, err := directory.VerifyAttestation(good, "acme", orgKey(e.globex), now); err == nil {
		t.Error("verified with another registry's key")
	}
	if _, err := directory.VerifyAttestation(good, "globex", orgKey(e.acme), now); err == nil {
		t.Error("verified as another registry")
	}
	// Every byte of the signature matters.
	sig := []byte(rec.Attestation.Signature.String())
	for i := len("ed25519:"); i < len(sig)-2; i++ {
		b := append([]byte(nil), sig...)
		b[i] ^= 0x01
		if b[i] == '=' || !isB64(b[i]) {
			continue
		}
		if _, err := directory.VerifyAttestation(good.With("attestation", att.With("signature", wire.StringValue(string(b)))), "acme", orgKey(e.acme), now); err == nil {
			t.Fatalf("signature with byte %d flipped accepted", i)
		}
	}
	// An attestation of an expired registration is refused.
	_, err = directory.VerifyAttestation(good, "acme", orgKey(e.acme), time.UnixMilli(rec.ExpiresAt))
	wantCode(t, err, wire.ErrRegistrationExpired, "expires_at")
}

func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}
