package wire

import (
	"strings"
	"testing"
)

func TestEnvelopeForms(t *testing.T) {
	c := NewCodec(Limits{})
	m := msg("query", validPayloads[OpQuery], "int")

	bare, err := c.DecodeEnvelope([]byte(m))
	if err != nil || !bare.Bare || bare.Message == nil || bare.Message.Raw() == nil {
		t.Fatalf("bare: %+v %v", bare, err)
	}
	plain, err := c.DecodeEnvelope([]byte(`{"moltspeak":"0.1","envelope":{"encrypted":false,"compressed":false,"encoding":"utf-8"},"message":` + m + `}`))
	if err != nil || plain.Bare || plain.Encrypted || plain.Message.To.Agent != "bob" {
		t.Fatalf("plain: %+v %v", plain, err)
	}
	sealed := string(AppendSealed(nil, bare.Message.From.EncKey, make([]byte, 24), make([]byte, 40)))
	// The sender key in AppendSealed above is zero (the message has no
	// enc_key), which must be refused as a low-order key.
	_, err = c.DecodeEnvelope([]byte(sealed))
	wantErr(t, err, ErrInvalidParam, "envelope.sender_public")

	good := `{"moltspeak":"0.1","envelope":{"encrypted":true,"algorithm":"x25519-xsalsa20-poly1305","sender_public":"` + testEnc + `","nonce":"base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},"ciphertext":"base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`
	env, err := c.DecodeEnvelope([]byte(good))
	if err != nil || !env.Encrypted || len(env.Nonce) != 24 || len(env.Ciphertext) != 24 {
		t.Fatalf("sealed: %+v %v", env, err)
	}
	cases := []struct {
		name, in string
		code     Code
		field    string
	}{
		{"version", strings.Replace(good, `"moltspeak":"0.1"`, `"moltspeak":"9"`, 1), ErrVersion, "moltspeak"},
		{"no header", `{"moltspeak":"0.1","message":` + m + `}`, ErrMissingField, "envelope"},
		{"unknown member", strings.Replace(good, `"ciphertext"`, `"junk":1,"ciphertext"`, 1), ErrSchema, "junk"},
		{"algorithm", strings.Replace(good, "x25519-xsalsa20-poly1305", "rot13", 1), ErrInvalidParam, "envelope.algorithm"},
		{"short nonce", strings.Replace(good, `"base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`, `"base64:AAAA"}`, 1), ErrInvalidParam, "envelope.nonce"},
		{"no prefix", strings.Replace(good, `"ciphertext":"base64:`, `"ciphertext":"`, 1), ErrInvalidParam, "ciphertext"},
		{"short ciphertext", strings.Replace(good, `"ciphertext":"base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"`, `"ciphertext":"base64:AAAA"`, 1), ErrInvalidParam, "ciphertext"},
		{"clear and sealed", strings.Replace(good, `"ciphertext"`, `"message":`+m+`,"ciphertext"`, 1), ErrSchema, "message"},
		{"inner message error path", `{"moltspeak":"0.1","envelope":{},"message":` + strings.Replace(m, `"cls":"int"`, `"cls":"x"`, 1) + `}`, ErrInvalidParam, "message.cls"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.DecodeEnvelope([]byte(tc.in))
			wantErr(t, err, tc.code, tc.field)
		})
	}
}
