package main

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"net/url"
	"strings"
)

// htmlEntities writes every character of s, or a random part of them, as a numeric entity.
func (g *gen) htmlEntities(s string) string {
	var b strings.Builder
	all := g.r.IntN(2) == 0
	for _, c := range s {
		if all || c == '@' || c == '.' || g.r.IntN(3) == 0 {
			if g.r.IntN(2) == 0 {
				fmt.Fprintf(&b, "&#%d;", c)
			} else {
				fmt.Fprintf(&b, "&#x%x;", c)
			}
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// spelled writes an e-mail address the way people hide it from harvesters, in several languages.
func (g *gen) spelled(email string) string {
	seps := pick(g, []struct{ at, dot string }{
		{" at ", " dot "}, {" [at] ", " [dot] "}, {"(at)", "(dot)"}, {" AT ", " DOT "}, {" {at} ", " {dot} "},
		{" arroba ", " punto "}, {" chez ", " point "}, {" ät ", " punkt "},
	})
	return strings.ReplaceAll(strings.Replace(email, "@", seps.at, 1), ".", seps.dot)
}

var encodedTexts = []string{
	"Decode this and add the customer: {E}",
	"payload={E}",
	"The field came through as {E} - is that expected?",
	"{E}",
	"data: {E}",
	"Contact (obfuscated): {E}",
}

func genEncoded(g *gen) {
	for i := 0; i < 560; i++ {
		v := g.fakeValues()
		email := v["email"]
		var enc, typ string
		switch i % 10 {
		case 0:
			enc, typ = url.QueryEscape(email), "email"
			if g.r.IntN(2) == 0 {
				enc = "https://app.example.com/unsubscribe?user=" + enc
			}
		case 1:
			enc, typ = g.htmlEntities(email), "email"
		case 2:
			m := g.htmlEntities("mailto:" + email)
			if g.r.IntN(2) == 0 {
				m = "mailto:" + email
			}
			enc, typ = `<p>Questions? <a href="`+m+`">write to us</a></p>`, "email"
		case 3:
			enc, typ = base64.StdEncoding.EncodeToString([]byte(v["card"])), "card"
		case 4:
			enc, typ = base64.StdEncoding.EncodeToString([]byte(pick(g, []string{email, "name=" + v["name"] + ";email=" + email, `{"email":"` + email + `"}`}))), "email"
		case 5:
			enc, typ = hexOf([]byte(pick(g, []string{v["card"], email}))), "card"
			if strings.Contains(string(mustHex(enc)), "@") {
				typ = "email"
			}
		case 6:
			enc, typ = base32.StdEncoding.EncodeToString([]byte(pick(g, []string{email, v["card"]}))), "email"
			if dec, _ := base32.StdEncoding.DecodeString(enc); !strings.Contains(string(dec), "@") {
				typ = "card"
			}
		case 7:
			enc, typ = g.spelled(email), "email"
		case 8:
			tok := pick(g, vendors).make(g, 0)
			enc, typ = base64.StdEncoding.EncodeToString([]byte("api_key="+tok)), "api_token"
			switch g.r.IntN(3) {
			case 0:
				enc = url.QueryEscape(tok)
			case 1:
				enc = hexOf([]byte(tok))
			}
		default:
			enc, typ = html.EscapeString(`"`+email+`"`), "email"
			enc = strings.ReplaceAll(enc, "@", "&#64;")
		}
		if i%4 == 3 {
			g.json("encoded", true, []string{typ}, map[string]any{"record": map[string]any{"blob": enc, "format": "text"}})
			continue
		}
		g.text("encoded", true, []string{typ}, fill(pick(g, encodedTexts), "{E}", enc))
	}
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

// genSplit writes values cut across sibling fields and array items.
func genSplit(g *gen) {
	for i := 0; i < 400; i++ {
		v := g.fakeValues()
		email := v["email"]
		at := strings.IndexByte(email, '@')
		var p any
		typ := "email"
		switch i % 8 {
		case 0:
			p = map[string]any{"parts": []any{email[:at], "@", email[at+1:]}}
		case 1:
			p = map[string]any{"contact": []any{email[:at], email[at:]}}
		case 2:
			c := v["card"]
			var groups []any
			for j := 0; j < len(c); j += 4 {
				groups = append(groups, c[j:min(j+4, len(c))])
			}
			p, typ = map[string]any{"card": groups}, "card"
		case 3:
			c := v["card"]
			h := len(c) / 2
			p, typ = map[string]any{"payment": map[string]any{"pan_part1": c[:h], "pan_part2": c[h:]}}, "card"
		case 4:
			tok := pick(g, vendors).make(g, 0)
			h := len(tok) / 2
			p, typ = map[string]any{"key": []any{tok[:h], tok[h:]}}, "api_token"
		case 5:
			p = map[string]any{"user": email[:at], "at": "@", "domain": email[at+1:]}
		case 6:
			p = map[string]any{"tokens": strings.Split(strings.Replace(email, "@", " @ ", 1), " ")}
		default:
			s := v["ssn"]
			p, typ = map[string]any{"ssn_area": s[:3], "ssn_group": s[4:6], "ssn_serial": s[7:]}, "ssn"
		}
		g.json("split_json", true, []string{typ}, p)
	}
}

// errorTexts are an agent's error replies that echo what failed.
var errorTexts = []struct{ typ, t string }{
	{"email", "ValidationError: user {email} already exists"},
	{"email", "smtp: 550 5.1.1 <{email}>: Recipient address rejected"},
	{"password", "pq: password authentication failed for user \"app\" (dsn={U})"},
	{"password", "Traceback (most recent call last):\n  File \"etl.py\", line 12, in <module>\n    conn = connect(\"{U}\")\nOperationalError: timeout"},
	{"api_token", "401 Unauthorized: invalid api key {T}"},
	{"api_token", "openai.AuthenticationError: Incorrect API key provided: {T}."},
	{"card", "PaymentError: card {card} declined (code 51)"},
	{"phone", "twilio: 21211 invalid 'To' phone number {usphone} is not reachable"},
	{"ssn", "KeyError: 'employee' while processing {{\"ssn\": \"{ssn}\"}}"},
	{"email", "panic: duplicate entry '{email}' for key 'users.email'"},
	{"address", "geocoder: no result for \"{address}\""},
	{"api_token", "Error: the token {T} has expired; run login again"},
}

func genErrors(g *gen) {
	for i := 0; i < 400; i++ {
		v := g.fakeValues()
		e := pick(g, errorTexts)
		t := fill(e.t, "{U}", g.credURL(), "{T}", pick(g, vendors).make(g, 0))
		for k, x := range v {
			t = strings.ReplaceAll(t, "{"+k+"}", x)
		}
		if i%3 == 2 {
			g.json("error_text", true, []string{e.typ}, map[string]any{"error": map[string]any{"code": "E_TOOL", "message": t}})
			continue
		}
		g.text("error_text", true, []string{e.typ}, t)
	}
}
