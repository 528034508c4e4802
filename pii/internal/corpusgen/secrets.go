package main

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"
)

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64url = alnum + "-_"
	hexLow = "0123456789abcdef"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

func (g *gen) chars(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

// vendor is a token family: its shape, and the variable-name it is usually exported under.
type vendor struct {
	name, env string
	make      func(g *gen, d int) string // d is a length error: 0 for the vendor's exact shape
}

// vendors follow the shapes the vendors document (prefix, alphabet and length of the body).
var vendors = []vendor{
	{"openai-project", "OPENAI_API_KEY", func(g *gen, d int) string {
		return "sk-proj-" + g.chars(b64url, 74+d) + "T3BlbkFJ" + g.chars(b64url, 74)
	}},
	{"openai-svcacct", "OPENAI_API_KEY", func(g *gen, d int) string {
		return "sk-svcacct-" + g.chars(b64url, 74+d) + "T3BlbkFJ" + g.chars(b64url, 74)
	}},
	{"openai-legacy", "OPENAI_API_KEY", func(g *gen, d int) string { return "sk-" + g.chars(alnum, 20+d) + "T3BlbkFJ" + g.chars(alnum, 20) }},
	{"anthropic", "ANTHROPIC_API_KEY", func(g *gen, d int) string { return "sk-ant-api03-" + g.chars(b64url, 93+d) + "AA" }},
	{"anthropic-admin", "ANTHROPIC_ADMIN_KEY", func(g *gen, d int) string { return "sk-ant-admin01-" + g.chars(b64url, 93+d) + "AA" }},
	{"google-oauth", "GOOGLE_ACCESS_TOKEN", func(g *gen, d int) string { return "ya29." + g.chars(b64url, 150+d) }},
	{"google-api", "GOOGLE_API_KEY", func(g *gen, d int) string { return "AIza" + g.chars(b64url, 35+d) }},
	{"github-pat", "GITHUB_TOKEN", func(g *gen, d int) string { return "ghp_" + g.chars(alnum, 36+d) }},
	{"github-oauth", "GH_TOKEN", func(g *gen, d int) string { return "gho_" + g.chars(alnum, 36+d) }},
	{"github-app", "GITHUB_TOKEN", func(g *gen, d int) string { return pick(g, []string{"ghs_", "ghu_", "ghr_"}) + g.chars(alnum, 36+d) }},
	{"github-fine-grained", "GITHUB_TOKEN", func(g *gen, d int) string {
		return "github_pat_11" + g.chars(strings.ToUpper(alnum[:36]), 20) + "_" + g.chars(alnum, 59+d)
	}},
	{"slack-bot", "SLACK_BOT_TOKEN", func(g *gen, d int) string {
		return "xoxb-" + digitStr(g, 12) + "-" + digitStr(g, 13) + "-" + g.chars(alnum, 24+d)
	}},
	{"slack-user", "SLACK_USER_TOKEN", func(g *gen, d int) string {
		return "xoxp-" + digitStr(g, 12) + "-" + digitStr(g, 12) + "-" + digitStr(g, 13) + "-" + g.chars(hexLow, 32+d)
	}},
	{"slack-app", "SLACK_APP_TOKEN", func(g *gen, d int) string {
		return "xapp-1-A" + g.chars(alnum[:36], 10) + "-" + digitStr(g, 13) + "-" + g.chars(hexLow, 64+d)
	}},
	{"slack-webhook", "SLACK_WEBHOOK_URL", func(g *gen, d int) string {
		return "https://hooks.slack.com/services/T" + g.chars(alnum[:36], 10) + "/B" + g.chars(alnum[:36], 10) + "/" + g.chars(alnum, 24+d)
	}},
	{"sendgrid", "SENDGRID_API_KEY", func(g *gen, d int) string { return "SG." + g.chars(b64url, 22) + "." + g.chars(b64url, 43+d) }},
	{"stripe-secret", "STRIPE_SECRET_KEY", func(g *gen, d int) string { return "sk_live_" + g.chars(alnum, 99+d) }},
	{"stripe-restricted", "STRIPE_KEY", func(g *gen, d int) string { return "rk_live_" + g.chars(alnum, 24+d) }},
	{"stripe-webhook", "STRIPE_WEBHOOK_SECRET", func(g *gen, d int) string { return "whsec_" + g.chars(alnum, 32+d) }},
	{"twilio", "TWILIO_API_KEY", func(g *gen, d int) string { return "SK" + g.chars(hexLow, 32+d) }},
	{"aws", "AWS_ACCESS_KEY_ID", func(g *gen, d int) string { return pick(g, []string{"AKIA", "ASIA"}) + g.chars(upper, 16+d) }},
	{"gitlab", "GITLAB_TOKEN", func(g *gen, d int) string { return "glpat-" + g.chars(b64url, 20+d) }},
	{"npm", "NPM_TOKEN", func(g *gen, d int) string { return "npm_" + g.chars(alnum, 36+d) }},
	{"pypi", "PYPI_TOKEN", func(g *gen, d int) string { return "pypi-AgEIcHlwaS5vcmc" + g.chars(b64url, 70+d) }},
	{"huggingface", "HF_TOKEN", func(g *gen, d int) string { return "hf_" + g.chars(alnum[:52], 34+d) }},
	{"groq", "GROQ_API_KEY", func(g *gen, d int) string { return "gsk_" + g.chars(alnum, 52+d) }},
	{"perplexity", "PPLX_API_KEY", func(g *gen, d int) string { return "pplx-" + g.chars(alnum, 48+d) }},
	{"replicate", "REPLICATE_API_TOKEN", func(g *gen, d int) string { return "r8_" + g.chars(alnum, 37+d) }},
	{"mailgun", "MAILGUN_API_KEY", func(g *gen, d int) string { return "key-" + g.chars(hexLow, 32+d) }},
	{"shopify", "SHOPIFY_TOKEN", func(g *gen, d int) string { return "shpat_" + g.chars(hexLow, 32+d) }},
	{"digitalocean", "DIGITALOCEAN_TOKEN", func(g *gen, d int) string { return "dop_v1_" + g.chars(hexLow, 64+d) }},
	{"databricks", "DATABRICKS_TOKEN", func(g *gen, d int) string { return "dapi" + g.chars(hexLow, 32+d) }},
	{"postman", "POSTMAN_API_KEY", func(g *gen, d int) string { return "PMAK-" + g.chars(hexLow, 24) + "-" + g.chars(hexLow, 34+d) }},
	{"doppler", "DOPPLER_TOKEN", func(g *gen, d int) string { return "dp.pt." + g.chars(alnum, 43+d) }},
	{"vault", "VAULT_TOKEN", func(g *gen, d int) string { return "hvs." + g.chars(b64url, 90+d) }},
	{"linear", "LINEAR_API_KEY", func(g *gen, d int) string { return "lin_api_" + g.chars(alnum, 40+d) }},
	{"notion", "NOTION_TOKEN", func(g *gen, d int) string { return "ntn_" + g.chars(alnum, 46+d) }},
	{"grafana", "GRAFANA_TOKEN", func(g *gen, d int) string { return "glsa_" + g.chars(alnum, 32) + "_" + g.chars(hexLow, 8+d) }},
	{"age", "AGE_KEY", func(g *gen, d int) string {
		return "AGE-SECRET-KEY-1" + strings.ToUpper(g.chars("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58+d))
	}},
	{"square", "SQUARE_TOKEN", func(g *gen, d int) string { return "EAAA" + g.chars(b64url, 60+d) }},
	{"telegram", "TELEGRAM_BOT_TOKEN", func(g *gen, d int) string { return digitStr(g, 10) + ":AA" + g.chars(b64url, 33+d) }},
}

// tokenTexts place a token where agents carry one; several give the token no cue at all.
var tokenTexts = []string{
	"export {ENV}={T}",
	"{ENV}={T}",
	"Here is the key you asked for: {T}",
	"use {T} for the staging account",
	"client = Client(api_key=\"{T}\")",
	"curl -H \"Authorization: Bearer {T}\" https://api.example.com/v1/models",
	"The deploy failed; the token in CI is {T}, can you check its scopes?",
	"I rotated it, the new one is {T}",
	"{T}",
	"config:\n  credentials:\n    key: {T}\n",
	"Paste this into the settings page: {T} (valid for 90 days)",
	"docker run -e {ENV}='{T}' app:latest",
	"Token for the integration → {T}",
	"Ich habe den Schlüssel erneuert: {T}",
	"Voici la clé : {T}",
}

var tokenKeys = []string{"api_key", "token", "key", "credential", "auth", "value", "text", "env_value"}

// lengthError is 0 for most rows and a few characters off for the rest: a value with a known
// prefix and a wrong length is still the vendor's secret.
func (g *gen) lengthError() int {
	if g.r.IntN(10) < 7 {
		return 0
	}
	d := 1 + g.r.IntN(8)
	if g.r.IntN(2) == 0 {
		return -d
	}
	return d
}

func genSecrets(g *gen) {
	for i := 0; i < 21*len(vendors); i++ {
		v := vendors[i%len(vendors)]
		tok := v.make(g, g.lengthError())
		if i%4 == 3 {
			k := pick(g, tokenKeys)
			g.json("vendor_secret", true, []string{"api_token"}, pick(g, []any{
				map[string]any{"tool": "http.request", "input": map[string]any{"headers": map[string]any{"X-Api-Key": tok}}},
				map[string]any{"settings": map[string]any{k: tok}},
				map[string]any{"env": []any{v.env + "=" + tok}},
				map[string]any{"message": "connected with " + tok},
			}))
			continue
		}
		g.text("vendor_secret", true, []string{"api_token"}, fill(pick(g, tokenTexts), "{ENV}", v.env, "{T}", tok))
	}
}

var keywordTexts = []string{
	"Authorization: Bearer {T}",
	"token: {T}",
	"secret={T}",
	"X-API-Key: {T}",
	"the session token is {T}",
	"client_secret {T}",
	"Here's the access token: {T}",
	"auth_token = \"{T}\"",
	"my api key is {T}",
	"Le jeton d'accès est {T}",
	"Das Token lautet {T}",
	"el token es {T}",
	"refresh_token={T}&grant_type=refresh_token",
	"Authorization: Token {T}",
	"--header 'x-auth-token: {T}'",
	"Cookie: session={T}; theme=dark",
	"Set-Cookie: sid={T}; Path=/; HttpOnly; Secure",
	"GET /v2/report?access_token={T} HTTP/1.1",
}

func genKeywordTokens(g *gen) {
	for i := 0; i < 450; i++ {
		var tok string
		switch g.r.IntN(4) {
		case 0:
			tok = g.chars(hexLow, 32+8*g.r.IntN(5))
		case 1:
			tok = g.chars(alnum, 24+g.r.IntN(40))
		case 2:
			b := make([]byte, 24+g.r.IntN(24))
			for j := range b {
				b[j] = byte(g.r.IntN(256))
			}
			tok = base64.StdEncoding.EncodeToString(b)
		default:
			tok = g.chars(b64url, 32+g.r.IntN(32))
		}
		if i%5 == 4 {
			k := pick(g, []string{"token", "access_token", "secret", "client_secret", "session", "auth"})
			g.json("keyword_token", true, []string{"secret"}, map[string]any{"request": map[string]any{"auth": map[string]any{k: tok}}})
			continue
		}
		if i%7 == 6 {
			cred := base64.StdEncoding.EncodeToString([]byte(g.fk.Username() + ":" + g.fk.Password(true, true, true, true, false, 14)))
			g.text("keyword_token", true, []string{"password"}, "Authorization: Basic "+cred)
			continue
		}
		g.text("keyword_token", true, []string{"secret"}, fill(pick(g, keywordTexts), "{T}", tok))
	}
}

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return b
}

// privateKeyPEM returns a real private key of a random kind, deterministic from g.
func (g *gen) privateKeyPEM() string {
	switch g.r.IntN(4) {
	case 0:
		k := ed25519.NewKeyFromSeed(g.bytes(32))
		der, _ := x509.MarshalPKCS8PrivateKey(k)
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	case 1:
		k, err := ecdh.P256().NewPrivateKey(g.bytes(32))
		if err != nil {
			return g.privateKeyPEM()
		}
		der, _ := x509.MarshalPKCS8PrivateKey(k)
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	case 2:
		return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: g.rsaKeyDER()}))
	default:
		k, err := ecdh.X25519().NewPrivateKey(g.bytes(32))
		if err != nil {
			return g.privateKeyPEM()
		}
		der, _ := x509.MarshalPKCS8PrivateKey(k)
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
}

// body is the base64 of a PEM block without its BEGIN and END lines.
func body(p string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(p), "\n") {
		if !strings.HasPrefix(l, "-----") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func genPEM(g *gen) {
	texts := []string{
		"Here's the deploy key:\n{K}",
		"{K}",
		"ssh_key: |\n{K}",
		"I think this is the wrong key, can you check?\n\n{K}\nThanks",
	}
	for i := 0; i < 300; i++ {
		k := g.privateKeyPEM()
		switch i % 6 {
		case 0, 1:
			g.text("pem_key", true, []string{"private_key"}, fill(pick(g, texts), "{K}", k))
		case 2:
			g.json("pem_key", true, []string{"private_key"}, map[string]any{"files": map[string]any{"id_deploy": k}})
		case 3:
			// A body without its BEGIN and END lines.
			b := body(k)
			if g.r.IntN(2) == 0 {
				b = strings.ReplaceAll(b, "\n", "")
			}
			g.text("pem_key", true, []string{"private_key"}, fill(pick(g, []string{"key body: {K}", "{K}", "The private key (no header): {K}"}), "{K}", b))
		case 4:
			seed := base64.StdEncoding.EncodeToString(g.bytes(32))
			kind := pick(g, []string{"ed25519:", "x25519:"})
			g.json("pem_key", true, []string{"private_key"}, map[string]any{"identity": map[string]any{"agent": "billing", pick(g, []string{"private_key", "signing_key", "seed"}): kind + seed}})
		default:
			seed := base64.StdEncoding.EncodeToString(g.bytes(32))
			g.text("pem_key", true, []string{"private_key"}, fmt.Sprintf("moltgate identity file for %s: private ed25519:%s", g.fk.AppName(), seed))
		}
	}
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
