package main

import (
	"net/url"
	"strings"
)

// specials are the characters a password holds that break naive URL parsing.
const specials = "!$&'(*,;=~#+%@:/?[]"

// password returns a password with at least one special character.
func (g *gen) password() string {
	switch g.r.IntN(4) {
	case 0:
		return g.fk.Password(true, true, true, true, false, 10+g.r.IntN(10))
	case 1:
		w := g.fk.Word()
		return strings.ToUpper(w[:1]) + w[1:] + digitStr(g, 2+g.r.IntN(3)) + string(specials[g.r.IntN(len(specials))])
	case 2:
		return g.chars(alnum, 6+g.r.IntN(6)) + string(specials[g.r.IntN(14)]) + g.chars(alnum, 4+g.r.IntN(6))
	default:
		var b strings.Builder
		for i := 0; i < 12+g.r.IntN(8); i++ {
			if g.r.IntN(3) == 0 {
				b.WriteByte(specials[g.r.IntN(len(specials))])
			} else {
				b.WriteByte(alnum[g.r.IntN(len(alnum))])
			}
		}
		return b.String()
	}
}

// urlTexts carry a URL or DSN in requests, replies and error texts.
var urlTexts = []string{
	"DATABASE_URL={U}",
	"Connect with {U} and run the migration.",
	"Error: connect ECONNREFUSED {U}",
	"psql \"{U}\" -c 'select 1'",
	"The staging DSN is {U}",
	"failed to dial {U}: i/o timeout",
	"Here you go: {U}",
	"redis client error: NOAUTH at {U}",
	"{U}",
	"Endpoint updated to {U} - restart the worker.",
	"spring.datasource.url={U}",
	"[database]\nurl = \"{U}\"",
	"sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect, url={U}",
}

var schemes = []struct{ scheme, host, port, path string }{
	{"postgres", "db.internal", "5432", "/orders"},
	{"postgresql", "pg-prod.eu-west-1.rds.amazonaws.com", "5432", "/app?sslmode=require"},
	{"mysql", "mysql.example.net", "3306", "/shop"},
	{"mongodb+srv", "cluster0.ab1cd.mongodb.net", "", "/test?retryWrites=true"},
	{"mongodb", "mongo-1.internal", "27017", "/admin"},
	{"redis", "cache.internal", "6379", "/0"},
	{"rediss", "redis-12345.c1.cloud.redislabs.com", "12345", ""},
	{"amqp", "rabbit.internal", "5672", "/vhost"},
	{"https", "registry.example.com", "", "/v2/"},
	{"ftp", "files.example.org", "21", "/incoming"},
	{"smtp", "smtp.mailhost.com", "587", ""},
	{"sqlserver", "mssql.internal", "1433", "?database=erp"},
}

func (g *gen) credURL() string {
	s := pick(g, schemes)
	user := pick(g, []string{"admin", "app", "postgres", "root", g.fk.Username(), "svc_billing", "deploy"})
	pw := g.password()
	hostport := s.host
	if s.port != "" {
		hostport += ":" + s.port
	}
	switch g.r.IntN(3) {
	case 0:
		// As written by hand: the password's characters as they are, but for those that would
		// end the user information ('@', '/', '?', ':' and brackets), which no one can write raw.
		pw = strings.Map(func(r rune) rune {
			if strings.ContainsRune("@/?:[]", r) {
				return '!'
			}
			return r
		}, pw)
		return s.scheme + "://" + user + ":" + pw + "@" + hostport + s.path
	case 1:
		return s.scheme + "://" + user + ":" + url.QueryEscape(pw) + "@" + hostport + s.path
	default:
		u := url.URL{Scheme: s.scheme, User: url.UserPassword(user, pw), Host: hostport}
		return u.String() + s.path
	}
}

// connStrings are the other forms of a connection string with a password.
func (g *gen) connString() string {
	pw := g.password()
	switch g.r.IntN(4) {
	case 0:
		return "Server=tcp:sql.example.net,1433;Database=erp;User Id=app;Password=" + pw + ";Encrypt=true"
	case 1:
		return "jdbc:postgresql://db.internal:5432/orders?user=app&password=" + url.QueryEscape(pw)
	case 2:
		return "host=db.internal port=5432 dbname=orders user=app password='" + strings.ReplaceAll(pw, "'", `\'`) + "'"
	default:
		return "redis://:" + url.QueryEscape(pw) + "@cache.internal:6379/0"
	}
}

// proseTexts state a password in six languages, with and without ':' or '='.
var proseTexts = []string{
	"my password is {P}",
	"The password for the staging box is {P}",
	"use {P} as the password",
	"password {P}",
	"pwd: {P}",
	"login with admin / {P}",
	"the wifi password is {P}",
	"I reset it to {P} - please change it after the first login.",
	"Credentials: user deploy, pass {P}",
	"mein Passwort ist {P}",
	"Das Kennwort lautet {P}",
	"Passwort: {P}",
	"Zugangsdaten: Benutzer admin, Kennwort {P}",
	"mon mot de passe est {P}",
	"Le mot de passe : {P}",
	"identifiant admin, mot de passe {P}",
	"mi contraseña es {P}",
	"la contraseña del servidor es {P}",
	"usuario root y contraseña {P}",
	"la mia password è {P}",
	"la parola d'ordine è {P}",
	"Password del database: {P}",
	"minha senha é {P}",
	"a senha do servidor é {P}",
	"senha={P}",
	"curl -u admin:{P} https://jenkins.internal/api/json",
	"ssh in as root, the password is still {P}",
	"New hire onboarding: laptop login is jdoe / {P}",
}

func genCredentials(g *gen) {
	for i := 0; i < 480; i++ {
		u := g.credURL()
		if i%5 == 4 {
			u = g.connString()
		}
		if i%4 == 3 {
			g.json("url_credentials", true, []string{"password"}, pick(g, []any{
				map[string]any{"datasource": map[string]any{"url": u}},
				map[string]any{"tool": "sql.query", "input": map[string]any{"dsn": u, "query": "select count(*) from orders"}},
				map[string]any{"error": map[string]any{"message": "dial failed: " + u}},
			}))
			continue
		}
		g.text("url_credentials", true, []string{"password"}, fill(pick(g, urlTexts), "{U}", u))
	}
	for i := 0; i < 500; i++ {
		pw := g.password()
		if i%6 == 5 {
			g.json("password_prose", true, []string{"password"}, map[string]any{"message": fill(pick(g, proseTexts), "{P}", pw), "channel": "ops"})
			continue
		}
		g.text("password_prose", true, []string{"password"}, fill(pick(g, proseTexts), "{P}", pw))
	}
}
