package pii

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// pwChars are the bytes people put in passwords, the URL-unsafe ones included.
const pwChars = alnum + "!$&'()*,;=~#@%+?[]:/"

// TestURLCredentials: passwords of any of those bytes, raw or percent-encoded, in the userinfo
// of URLs of many schemes, in key=value, ODBC and JDBC connection strings, written in prose,
// JSON, logs and error texts, are found; the finding covers the password.
func TestURLCredentials(t *testing.T) {
	s := mustNew(t, nil)
	r := rand.New(rand.NewPCG(3, 14))
	schemes := []string{"postgres", "postgresql", "mysql", "mongodb+srv", "mongodb", "redis", "rediss", "amqp",
		"https", "ftp", "sqlserver", "jdbc:postgresql"}
	forms := []func(user, pw string) string{
		func(u, p string) string {
			return schemes[r.IntN(len(schemes))] + "://" + u + ":" + p + "@db-" + randTok(r, hexLower, 4) + ".internal:5432/app"
		},
		func(u, p string) string {
			return schemes[r.IntN(len(schemes))] + "://" + u + ":" + url.QueryEscape(p) + "@cache.example.net/0"
		},
		func(u, p string) string {
			return "host=db.internal port=5432 user=" + u + " password='" + strings.ReplaceAll(p, "'", `\'`) + "'"
		},
		func(u, p string) string {
			return "Server=tcp:sql.example.net,1433;Database=erp;User Id=" + u + ";Password=" + strings.ReplaceAll(p, ";", "") + ";Encrypt=true"
		},
		func(u, p string) string {
			return "jdbc:mysql://db.internal:3306/shop?user=" + u + "&password=" + url.QueryEscape(p) + "&useSSL=true"
		},
		func(u, p string) string {
			return "jdbc:oracle:thin:" + u + "/" + strings.ReplaceAll(p, "@", "") + "@db.internal:1521:orcl"
		},
	}
	wraps := []func(string) string{
		func(v string) string { return v },
		func(v string) string { return "DATABASE_URL=" + v },
		func(v string) string { return "Connect with " + v + " and run the migration." },
		func(v string) string { return "Error: connect ECONNREFUSED " + v },
		func(v string) string {
			b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "dial failed: " + v}})
			return string(b)
		},
	}
	n, miss := 0, 0
	for k := 0; k < 40; k++ {
		user := []string{"app", "deploy", "svc_billing", "root", "CharlieRuiz"}[r.IntN(5)]
		pw := randTok(r, alnum, 3) + randTok(r, pwChars, 6+r.IntN(10)) + randTok(r, alnum, 2)
		for _, f := range forms {
			for _, w := range wraps {
				text := w(f(user, pw))
				n++
				fs := s.ScanText(text)
				if !Summarize(fs).Secret {
					if miss++; miss <= 5 {
						t.Errorf("not found: %q", text)
					}
				}
			}
		}
	}
	if miss > 0 {
		t.Errorf("%d of %d missed", miss, n)
	}
}

// TestURLCredentialNegatives: URLs without a password, templates and placeholders, and e-mail
// addresses in URLs are no credentials.
func TestURLCredentialNegatives(t *testing.T) {
	s := mustNew(t, nil)
	for _, text := range []string{
		"postgres://app@db.internal:5432/orders",
		"postgres://app:${DB_PASSWORD}@db.internal:5432/orders",
		"redis://:<password>@cache.internal:6379/0",
		"mysql://root:password@localhost/test",
		"amqp://guest:****@rabbit.internal:5672/",
		"see https://example.com/docs for help, or write to me: ops at example dot com",
		"ssh git@github.com:moltgate/moltgate.git",
		"Server=tcp:sql.example.net;User Id=app;Password=%PASSWORD%;",
		"password = os.environ[\"APP_PASSWORD\"]",
		"connect(host=h, password=get_password())",
	} {
		for _, f := range s.ScanText(text) {
			if f.Type.Class() == ClassSecret {
				t.Errorf("%q: %v", text, f)
			}
		}
	}
}

func TestTemplated(t *testing.T) {
	for v, want := range map[string]bool{
		"${DB_PASSWORD}": true, "$DB_PASSWORD": true, "%DB_PASSWORD%": true, "<password>": true,
		"[password]": true, "{password}": true, "{{ .Values.db.password }}": true, "$(cat /run/pw)": true,
		"eyJhbGciOiJIUzI1NiJ9.<payload>.<signature>": true,
		"Xk9#mP2$vL7q": false, "p]@(U]3?6w2hzC9": false, "%40r6OkQ3H9F1.3": false, "$ecr3t!x": false,
	} {
		if got := templated(v); got != want {
			t.Errorf("templated(%q) = %v", v, got)
		}
	}
}

// TestURLCredentialPaths: a URL with a password as a JSON member name, an array item or a
// nested value is found, and the finding's path names the member by its position, never by
// the name that holds the password.
func TestURLCredentialPaths(t *testing.T) {
	s := mustNew(t, nil)
	for _, doc := range []string{
		`{"postgres://app:Xk9#mP2!@db.internal/x": 1}`,
		`{"cfg":{"mysql://root:p@ss;w0rd@db/x":"on"}}`,
		`{"a":["redis://:S3cr3t!x@cache:6379"]}`,
		`{"error":{"message":"dial failed: amqp://svc:Mine270&@rabbit.internal:5672/vhost"}}`,
	} {
		fs, err := s.ScanJSON("p", []byte(doc))
		if err != nil || !Summarize(fs).Secret {
			t.Errorf("%s: %v %v", doc, fs, err)
		}
		for _, f := range fs {
			for _, pw := range []string{"Xk9", "p@ss", "S3cr3t", "Mine270", "://"} {
				if strings.Contains(f.Path, pw) {
					t.Errorf("%s: path %q echoes the credential", doc, f.Path)
				}
			}
		}
	}
}
