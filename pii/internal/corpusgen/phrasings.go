package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
)

// Phrasings held out by template. Everywhere else a row's part is decided by its id, so the
// development and the test part share their templates. Here each template's rows all fall in
// one part: a family's templates are ordered by the SHA-256 of their text and the first half
// goes to the development part, the rest to the test part. A detector worked on from the
// development part's misses has never seen the test part's phrasings.

type phrasing struct {
	family string
	block  bool
	types  []string
	t      string // placeholders: see phraseValues
}

var phrasings = []phrasing{
	{"names_context", true, []string{"name"}, "Quick update: {name} accepted the offer and starts in March."},
	{"names_context", true, []string{"name"}, "Can you find a time next week for {name} and me?"},
	{"names_context", true, []string{"name"}, "Welcome aboard, {name}! Your manager will reach out shortly."},
	{"names_context", true, []string{"name"}, "The complaint was filed by {name} on behalf of her mother."},
	{"names_context", true, []string{"name"}, "{name} left the company in June; reassign her tickets."},
	{"names_context", true, []string{"name"}, "According to {name}, the shipment never arrived."},
	{"names_context", true, []string{"name"}, "Add {name} as a guest on the Friday call."},
	{"names_context", true, []string{"name"}, "Note: {name} prefers to be contacted in the afternoon."},
	{"health", true, []string{"health"}, "{name} has been struggling with {cond} and asked for reduced hours."},
	{"health", true, []string{"health"}, "Heads up, I'm on {med} now, so no alcohol at the team dinner for me."},
	{"health", true, []string{"health"}, "Her GP referred {name} to a specialist for suspected {cond}."},
	{"health", true, []string{"health"}, "Medical leave request: {name}, reason {cond}, expected return in six weeks."},
	{"health", true, []string{"health"}, "{name}'s daughter was hospitalised with {cond} last night."},
	{"health", true, []string{"health"}, "I've had {cond} since I was a teenager, it's under control."},
	{"dob_context", true, []string{"dob"}, "{name} turns 40 soon - she was born {date}."},
	{"dob_context", true, []string{"dob"}, "Please confirm the date of birth on file ({date}) before releasing the records."},
	{"dob_context", true, []string{"dob"}, "Member since 2015, birthday {date}."},
	{"dob_context", true, []string{"dob"}, "Identity check: {name}, born {date}, passed."},
	{"dob_context", true, []string{"dob"}, "The policy holder's D.O.B. is {date}."},
	{"password_prose", true, []string{"password"}, "FYI the admin account's password got changed to {pw} this morning."},
	{"password_prose", true, []string{"password"}, "Wi-Fi for guests: network Office-5G, key {pw}"},
	{"password_prose", true, []string{"password"}, "The zip file is protected, use {pw} to open it."},
	{"password_prose", true, []string{"password"}, "Temporary credentials until Friday - login ops, secret {pw}"},
	{"password_prose", true, []string{"password"}, "El acceso al panel: usuario admin, clave {pw}."},
	{"password_prose", true, []string{"password"}, "Das neue Passwort für den Router lautet jetzt {pw}"},
	{"keyword_token", true, []string{"secret"}, "Here's the bearer I used in Postman: {tok}"},
	{"keyword_token", true, []string{"secret"}, "webhook signing secret -> {tok}"},
	{"keyword_token", true, []string{"secret"}, "The refresh token from the OAuth flow was {tok}, it should still be valid."},
	{"keyword_token", true, []string{"secret"}, "x-api-key={tok}&format=json"},
	{"keyword_token", true, []string{"secret"}, "Use this personal access token for the CI job: {tok}"},
	{"url_credentials", true, []string{"password"}, "The backup script pushes to {url} every night."},
	{"url_credentials", true, []string{"password"}, "Could not reach {url} (connection reset by peer)"},
	{"url_credentials", true, []string{"password"}, "BROKER_URL: \"{url}\""},
	{"url_credentials", true, []string{"password"}, "I pasted {url} into the config, is that right?"},
	{"encoded", true, []string{"email"}, "The user id in the cookie is {b64email}, can you decode it and look them up?"},
	{"encoded", true, []string{"email"}, "Reach the owner at {spelled}."},
	{"encoded", true, []string{"email"}, "<a href=\"mailto:{entemail}\">Email the account manager</a>"},
	{"encoded", true, []string{"card"}, "card_b64={b64card}"},
	{"encoded", true, []string{"email"}, "redirect=https%3A%2F%2Fapp.example.com%2Finvite%3Femail%3D{pctemail}"},
	{"error_text", true, []string{"email"}, "Upstream said: 409 Conflict - account {email} is locked."},
	{"error_text", true, []string{"password"}, "retry 3/3 failed for {url}, giving up"},
	{"error_text", true, []string{"api_token"}, "AuthError('token {vtok} revoked')"},
	{"error_text", true, []string{"phone"}, "Could not deliver the OTP to {phone}: carrier rejected"},
	{"benign_prose", false, nil, "Thanks for the quick turnaround, the numbers look good - let's ship it on {weekday}."},
	{"benign_prose", false, nil, "The draft is in the shared folder; comments by end of day {weekday}, please."},
	{"benign_prose", false, nil, "We moved the retro to {weekday} at {hour}:30 because of the release."},
	{"benign_prose", false, nil, "Traffic grew {pct}% week over week, mostly from the {city} campaign."},
	{"benign_prose", false, nil, "Please rerun the report with the filters from last quarter and send me the CSV."},
	{"benign_health", false, nil, "Open enrolment for the dental and vision plans closes on {weekday}."},
	{"benign_health", false, nil, "The article compares {cond} treatment costs across {pct} countries."},
	{"benign_health", false, nil, "Reminder: flu shots are available in the lobby from 10 to 2."},
	{"benign_health", false, nil, "Our wellness budget covers gym memberships and {cond} screening for staff who want it."},
	{"benign_names", false, nil, "The {city} office is closed for the holiday; {company} handles deliveries."},
	{"benign_names", false, nil, "Benchmark: {company} vs. {company2} on latency and price."},
	{"benign_names", false, nil, "Ship via the {city} depot, then on to {city2}."},
	{"labelled_number", false, nil, "RMA {num} received; replacement ships tomorrow."},
	{"labelled_number", false, nil, "Your booking reference is {num}."},
	{"labelled_number", false, nil, "Serial number {num} is under warranty until 2027."},
	{"labelled_number", false, nil, "Account no. {num} is the supplier's customer number with us, not a bank account."},
	{"bad_checksum", false, nil, "Their IBAN {badiban} keeps failing validation, ask for it again."},
	{"bad_checksum", false, nil, "The card {badcard} was rejected as invalid at checkout."},
	{"benign_secretlike", false, nil, "Set OPENAI_API_KEY in your shell; never paste the value here."},
	{"benign_secretlike", false, nil, "file sha1 {sha} matches the release notes"},
	{"benign_secretlike", false, nil, "token: <insert token>"},
	{"benign_code", false, nil, "if err := db.Ping(ctx); err != nil { return fmt.Errorf(\"ping %s: %w\", host, err) }"},
	{"benign_code", false, nil, "for i in range({hour}):\n    total += weights[i] * values[i]"},
}

func (g *gen) phraseValues() map[string]string {
	v := g.fakeValues()
	email := v["email"]
	v["first"] = strings.Fields(v["name"])[0]
	v["cond"] = pick(g, []string{"diabetes", "epilepsy", "depression", "breast cancer", "multiple sclerosis", "an eating disorder", "HIV", "bipolar disorder", "asthma"})
	v["med"] = pick(g, []string{"sertraline", "insulin", "methotrexate", "lithium", "metformin", "an antidepressant"})
	d := g.fk.PastDate().AddDate(-20-g.r.IntN(50), 0, 0)
	v["date"] = d.Format(pick(g, []string{"2 January 2006", "January 2, 2006", "02/01/2006", "2006-01-02", "01/02/2006"}))
	v["pw"] = g.password()
	v["tok"] = g.chars(b64url, 32+g.r.IntN(24))
	v["vtok"] = pick(g, vendors).make(g, 0)
	v["url"] = g.credURL()
	v["b64email"] = base64.StdEncoding.EncodeToString([]byte(email))
	v["b64card"] = base64.StdEncoding.EncodeToString([]byte(v["card"]))
	v["spelled"] = g.spelled(email)
	v["entemail"] = g.htmlEntities(email)
	v["pctemail"] = strings.ReplaceAll(strings.ReplaceAll(email, "@", "%2540"), ".", ".")
	v["phone"] = v["usphone"]
	v["weekday"] = pick(g, []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"})
	v["hour"] = fmt.Sprint(8 + g.r.IntN(9))
	v["pct"] = fmt.Sprint(2 + g.r.IntN(40))
	v["city"], v["city2"] = g.fk.City(), g.fk.City()
	v["company"], v["company2"] = g.fk.Company(), g.fk.Company()
	v["num"] = g.labelledNumber()
	iban := ""
	for iban == "" || ibanValid(iban) {
		iban = "DE" + fmt.Sprintf("%02d", g.r.IntN(100)) + digitStr(g, 18)
	}
	v["badiban"] = iban
	card := v["card"]
	v["badcard"] = card[:len(card)-1] + fmt.Sprint(otherDigit(g, int(card[len(card)-1]-'0')))
	sum := sha256.Sum256(g.bytes(8))
	v["sha"] = hexOf(sum[:20])
	return v
}

// templateParts assigns each template its part.
func templateParts() map[string]string {
	byFamily := map[string][]string{}
	for _, p := range phrasings {
		byFamily[p.family] = append(byFamily[p.family], p.t)
	}
	parts := map[string]string{}
	for _, ts := range byFamily {
		slices.SortFunc(ts, func(a, b string) int {
			ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
			return bytes.Compare(ha[:], hb[:])
		})
		for i, t := range ts {
			parts[t] = "test"
			if i < len(ts)/2 {
				parts[t] = "dev"
			}
		}
	}
	return parts
}

func genPhrasings(g *gen) {
	parts := templateParts()
	for _, p := range phrasings {
		g.part = parts[p.t]
		for i := 0; i < 24; i++ {
			v := g.phraseValues()
			t := p.t
			for k, x := range v {
				t = strings.ReplaceAll(t, "{"+k+"}", x)
			}
			g.text(p.family, p.block, p.types, t)
		}
	}
	g.part = ""
}
