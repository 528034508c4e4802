package main

import (
	"crypto/ed25519"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"
)

// labelTexts name what a number is; none of them is a phone number or a personal identifier.
var labelTexts = []string{
	"Order #{N} has shipped.",
	"Your order number is {N}.",
	"SKU {N} is out of stock in the {city} warehouse.",
	"Invoice {N} is overdue by 12 days.",
	"Tracking number: {N}",
	"Track your parcel with {N} on the carrier's site.",
	"Build {N} passed all checks.",
	"Reference: {N}",
	"PO {N} approved by procurement.",
	"Case number {N} was closed.",
	"ticket {N}: printer on floor 3 jams",
	"Shipment ID {N}, 4 pallets",
	"Part no. {N} replaces the discontinued model.",
	"Bestellnummer {N}",
	"Numéro de commande : {N}",
	"Rechnungsnummer: {N}",
	"número de pedido {N}",
	"Transaction {N} settled.",
}

func (g *gen) labelledNumber() string {
	switch g.r.IntN(7) {
	case 0:
		return digitStr(g, 9+g.r.IntN(4))
	case 1:
		d := digitStr(g, 10)
		return d[:3] + " " + d[3:6] + " " + d[6:]
	case 2:
		d := digitStr(g, 10)
		return d[:3] + "-" + d[3:6] + "-" + d[6:]
	case 3:
		return "1Z" + g.chars("ABCDEFGHJKLMNPRSTVWXYZ0123456789", 16)
	case 4:
		return fmt.Sprintf("%d-%06d", 2020+g.r.IntN(7), g.r.IntN(1000000))
	case 5:
		d := digitStr(g, 11)
		return "0" + d[:2] + " " + d[2:6] + " " + d[6:]
	default:
		return digitStr(g, 12+g.r.IntN(10))
	}
}

// isbn13 returns a valid ISBN-13, hyphenated.
func (g *gen) isbn13() string {
	b := "978" + digitStr(g, 9)
	s := 0
	for i, d := range digitsOf(b) {
		if i%2 == 1 {
			d *= 3
		}
		s += d
	}
	b += fmt.Sprint((10 - s%10) % 10)
	return b[:3] + "-" + b[3:4] + "-" + b[4:8] + "-" + b[8:12] + "-" + b[12:]
}

func genLabelled(g *gen) {
	for i := 0; i < 900; i++ {
		city := g.fk.City()
		switch i % 8 {
		case 6:
			g.text("labelled_number", false, nil, fill(pick(g, []string{"ISBN {N}", "Book: {T}, ISBN {N}", "ISBN-13: {N}"}), "{N}", g.isbn13(), "{T}", g.fk.Book().Title))
		case 7:
			v := fmt.Sprintf("%d.%d.%d.%d", 1+g.r.IntN(20), g.r.IntN(10), 10000+g.r.IntN(20000), g.r.IntN(5000))
			g.text("labelled_number", false, nil, fill(pick(g, []string{"version {N}", "Upgraded to build {N}.", "Windows {N} is required"}), "{N}", v))
		case 5:
			k := pick(g, []string{"order_id", "sku", "invoice_number", "tracking_number", "build", "po_number"})
			g.json("labelled_number", false, nil, map[string]any{"item": map[string]any{k: g.labelledNumber(), "qty": 1 + g.r.IntN(9)}})
		default:
			g.text("labelled_number", false, nil, fill(pick(g, labelTexts), "{N}", g.labelledNumber(), "{city}", city))
		}
	}
}

func genGit(g *gen) {
	hosts := []string{"github.com", "gitlab.com", "bitbucket.org", "git.example.com", "ssh.dev.azure.com", "gitea.internal"}
	texts := []string{
		"git clone {R}",
		"git remote add origin {R}",
		"Cloning into 'repo'... from {R}",
		"fatal: Could not read from remote repository {R}. Please make sure you have the correct access rights.",
		"Set the submodule URL to {R}",
		"url = {R}",
		"pip install git+ssh://{R2}@v1.{N}.0",
		"\"dependencies\": {\"lib\": \"git+ssh://{R2}#v2.{N}\"}",
		"scp build.tar.gz deploy@{H}:/srv/releases/",
		"ssh://git@{H}:2222/{P}.git",
	}
	for i := 0; i < 440; i++ {
		h := pick(g, hosts)
		path := strings.ToLower(strings.ReplaceAll(g.fk.Username(), " ", "")) + "/" + strings.ToLower(strings.ReplaceAll(g.fk.AppName(), " ", "-"))
		r := "git@" + h + ":" + path + ".git"
		r2 := "git@" + h + "/" + path + ".git"
		t := fill(pick(g, texts), "{R}", r, "{R2}", r2, "{H}", h, "{P}", path, "{N}", fmt.Sprint(g.r.IntN(30)))
		if i%5 == 4 {
			g.json("git_ssh", false, nil, map[string]any{"repo": map[string]any{"ssh_url": r, "default_branch": "main"}})
			continue
		}
		g.text("git_ssh", false, nil, t)
	}
}

func genCode(g *gen) {
	f := g.fk
	mk := []func() string{
		func() string {
			return fmt.Sprintf("func (s *%sStore) Get(ctx context.Context, id int64) (*%s, error) {\n\trow := s.db.QueryRowContext(ctx, \"select name from %s where id = $1\", id)\n\treturn scan(row)\n}", title(f.Noun()), title(f.Noun()), f.Noun()+"s")
		},
		func() string {
			return fmt.Sprintf("%s INFO  request_id=%s method=GET path=/v1/%s status=200 latency_ms=%d bytes=%d",
				f.Date().Format("2006-01-02T15:04:05Z"), f.UUID(), f.Noun(), f.Number(1, 900), f.Number(100, 90000))
		},
		func() string {
			return fmt.Sprintf("password = os.environ[\"%s_PASSWORD\"]\nclient = connect(host=\"%s\", password=password)", strings.ToUpper(f.Noun()), f.DomainName())
		},
		func() string {
			return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n        - image: registry.example.com/%s:%d.%d.%d", f.Noun(), f.Number(1, 9), f.Noun(), f.Number(1, 5), f.Number(0, 20), f.Number(0, 9))
		},
		func() string {
			return fmt.Sprintf("SELECT id, status, created_at FROM orders WHERE customer_id = %d AND total > %d.%02d ORDER BY created_at DESC LIMIT %d;", f.Number(1000, 99999), f.Number(1, 999), f.Number(0, 99), f.Number(10, 100))
		},
		func() string {
			return fmt.Sprintf("  File \"/app/%s.py\", line %d, in %s\n    result = handler(event)\nTypeError: unsupported operand type(s) for +: 'int' and 'NoneType'", f.Noun(), f.Number(10, 500), f.Verb())
		},
		func() string {
			return fmt.Sprintf("const api = new Client({ apiKey: process.env.%s_API_KEY, timeoutMs: %d });", strings.ToUpper(f.Noun()), f.Number(1000, 30000))
		},
		func() string {
			return fmt.Sprintf("WARN pool: %d of %d connections busy, waiting %dms (host=10.%d.%d.%d:5432 db=%s)", f.Number(1, 50), 50, f.Number(1, 900), f.Number(0, 255), f.Number(0, 255), f.Number(0, 255), f.Noun())
		},
		func() string {
			return fmt.Sprintf("DB_PASSWORD=${DB_PASSWORD:?set it in the vault}\nAPI_TOKEN=$(vault kv get -field=token secret/%s)", f.Noun())
		},
		func() string {
			return fmt.Sprintf("commit %x\nAuthor: release-bot\n\n    bump %s to %d.%d.%d", sha1.Sum([]byte(f.Word())), f.Noun(), f.Number(1, 9), f.Number(0, 20), f.Number(0, 30))
		},
	}
	for i := 0; i < 700; i++ {
		if i%5 == 4 {
			g.json("benign_code", false, nil, map[string]any{"tool": "code.run", "input": map[string]any{"language": "go", "source": pick(g, mk)()}})
			continue
		}
		g.text("benign_code", false, nil, pick(g, mk)())
	}
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// healthTopics are health words in text about no one in particular.
var healthTopics = []string{"diabetes", "asthma", "hypertension", "depression", "HIV", "cancer", "epilepsy", "COVID-19",
	"influenza", "migraine", "arthritis", "Alzheimer's disease", "malaria", "obesity", "insulin", "metformin",
	"ibuprofen", "chemotherapy", "vaccination", "mental health"}

var benignHealthTexts = []string{
	"The {T} clinic on the second floor opens at 9 am.",
	"{T} affects millions of adults worldwide, according to the WHO report.",
	"Draft a blog post about new research on {T}.",
	"Our app adds a {T} awareness banner in November.",
	"The grant funds three {T} research positions.",
	"Translate the leaflet 'Living with {T}' into Spanish.",
	"Stock alert: {T} test kits below reorder level (SKU HK-{N}).",
	"The ICD-10 mapping table for {T} needs review before the release.",
	"Summarise the article: '{T} rates rose 4% in 2023.'",
	"Schedule the webinar on workplace {T} policies for Tuesday.",
	"The pharmacy chain reports higher demand for {T} this winter.",
	"Course module 4 covers the epidemiology of {T}.",
}

func genBenignHealth(g *gen) {
	for i := 0; i < 600; i++ {
		t := pick(g, healthTopics)
		if i%4 == 3 {
			g.json("benign_health", false, nil, pick(g, []any{
				map[string]any{"topic": t, "articles": g.r.IntN(40)},
				map[string]any{"schema": map[string]any{"fields": []any{"patient_id", "diagnosis", "medication"}, "version": 3}},
				map[string]any{"catalog": map[string]any{"category": "health", "product": t + " guide", "price": 19.9}},
			}))
			continue
		}
		g.text("benign_health", false, nil, fill(pick(g, benignHealthTexts), "{T}", t, "{N}", digitStr(g, 4)))
	}
}

// genSecretLike writes what looks like a secret and is not one: placeholders, hashes, ids and
// public keys.
func genSecretLike(g *gen) {
	placeholders := []string{"sk-...", "YOUR_API_KEY", "<redacted>", "sk-proj-XXXXXXXXXXXXXXXX", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"${OPENAI_API_KEY}", "********", "<your-token-here>", "[REDACTED]", "xoxb-your-token", "changeme", "{{ secrets.API_KEY }}",
		"sk_test_...", "AKIA****************", "<password>", "REPLACE_ME", "AKIAIOSFODNN7EXAMPLE", "sk-ant-...",
		"xoxb-***", "ghp_<your token>", "eyJhbGciOiJIUzI1NiJ9.<payload>.<signature>", "$API_KEY", "%API_TOKEN%", "null"}
	phTexts := []string{"export OPENAI_API_KEY={X}", "Set api_key to {X} in the config.", "Authorization: Bearer {X}", "password: {X}",
		"token={X}", "Replace {X} with your own key.", "The key was {X} in the logs, as expected."}
	for i := 0; i < 900; i++ {
		switch i % 7 {
		case 0, 1:
			g.text("benign_secretlike", false, nil, fill(pick(g, phTexts), "{X}", pick(g, placeholders)))
		case 2:
			h := sha256.Sum256(g.bytes(16))
			g.text("benign_secretlike", false, nil, fill(pick(g, []string{"sha256: {H}", "checksum {H} verified", "image digest sha256:{H}", "etag \"{H}\""}), "{H}", hexOf(h[:])))
		case 3:
			g.text("benign_secretlike", false, nil, fill(pick(g, []string{"request {U} failed, retrying", "trace_id={U}", "Created job {U}."}), "{U}", g.fk.UUID()))
		case 4:
			pub := ed25519.NewKeyFromSeed(g.bytes(32)).Public().(ed25519.PublicKey)
			der, _ := x509.MarshalPKIXPublicKey(pub)
			p := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
			if g.r.IntN(2) == 0 {
				p = "ssh-ed25519 " + base64.StdEncoding.EncodeToString(append([]byte("\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20"), pub...)) + " deploy"
			}
			g.text("benign_secretlike", false, nil, "Add this public key to the allow list:\n"+p)
		case 5:
			pub := ed25519.NewKeyFromSeed(g.bytes(32)).Public().(ed25519.PublicKey)
			g.json("benign_secretlike", false, nil, map[string]any{"agent": map[string]any{"name": "billing", "public_key": "ed25519:" + base64.StdEncoding.EncodeToString(pub)}})
		default:
			sum := sha256.Sum256(g.bytes(8))
			g.text("benign_secretlike", false, nil, fill(pick(g, []string{"\"integrity\": \"sha512-{B}\"", "commit {C}", "git checkout {C7}", "cache key {B}"}),
				"{B}", base64.StdEncoding.EncodeToString(sum[:]), "{C}", hexOf(sum[:20]), "{C7}", hexOf(sum[:4])[:7]))
		}
	}
}
