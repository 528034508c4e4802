package pii

import (
	"fmt"
	"strings"
)

// probe9Section renders the section of docs/pii-accuracy.md on the ninth probe, once its before
// figures exist.
func probe9Section(rows []corpusRow, blocked []bool) string {
	var before probeBefore
	if !readProbeBefore("probe9", &before) {
		return ""
	}
	var s strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&s, format, a...) }
	p("## A ninth probe\n\n")
	p("The earlier probes write what agents carry in the ordinary course of their work; the hostile\n")
	p("rewritings below rewrite the corpus's own rows. A ninth probe (testdata/corpus/apart/probe9.jsonl,\n")
	p("source `probe9`, pii/internal/corpusgen/probe9_rows.py) was written apart from both and from the\n")
	p("corpus generators, sharing with them only the code that numbers and splits rows, in what a careless\n")
	p("or hostile agent writes: debug dumps of objects (Python repr, Delve, irb, console.log, var_dump),\n")
	p("tool arguments, shell history and one-liners (export, setx, docker login, gh secret set, mysql -p,\n")
	p("mysqldump, sshpass, curl -u, PGPASSWORD, psql, mongosh, redis-cli, git clone with a token), stack\n")
	p("traces and exceptions carrying request bodies, dotfiles and configuration files (TOML, INI, HCL,\n")
	p(".properties, .npmrc, .pypirc, .netrc, .docker/config.json, gh and glab hosts, ~/.aws/credentials),\n")
	p("Terraform state, Postman, HAR and Insomnia exports, cookies and JWTs; and values written to get past\n")
	p("a gate in ways the rewritings do not use: digits of other scripts (Arabic-Indic, Devanagari, Bengali,\n")
	p("Thai, Tamil, Khmer, full-width, mathematical bold), number words of seven languages, digits between\n")
	p("emoji or words, zero-width and direction marks inside identifiers and tokens, values reversed, in\n")
	p("ROT13, Caesar-shifted, letter by letter or in base32 with the text saying so, two layers of encoding\n")
	p("(base64 of base64, hex of base64, percent-encoded base64 in a query string, data: URIs, JSON in XML\n")
	p("in JSON, quoted-printable), C, octal, JavaScript and CSS escapes and HTML's named references, values\n")
	p("spread over a chat's messages or over indexed pieces. People come from name lists of nineteen origins\n")
	p("none uses, mobile numbers from fifteen regions' plans (every one checked against libphonenumber's\n")
	p("metadata), identifiers (SSN, BSN, PESEL, DNI, CPF, Aadhaar, NIR, Steuer-ID, SIN, HETU) valid by\n")
	p("python-stdnum; every must-block row keeps its value so that a person reading it gets it back. Beside\n")
	p("them are hard negatives of the same shapes: identifiers, cards and IBANs that fail their checks,\n")
	p("disguised the same ways; order and ticket numbers in other scripts and in words; git remotes in\n")
	p("shell history; talk of encodings with no value; configurations and one-liners whose secrets are\n")
	p("references or placeholders; health words in code; eponyms in stack traces; digests, UUIDs, vendors'\n")
	p("documented example keys, base64 and hex of harmless text, public keys. Each of its %d shapes has %d\n", probeShapes(rows, "probe9/"), 24)
	p("generated rows, split by hash of id.\n\n")
	p("Its labels were checked against its development part's misses before it was scored, and one\n")
	p("generator bug was fixed: escapes of one syntax had been written inside another's (CSS escapes in a\n")
	p("printf), which no reader would decode; each is now written where its syntax is read. It was then\n")
	p("scored on %s at commit %s, before any detector was changed for it: the \"before\" columns are the\n", before.Date, before.Commit)
	p("honest measure of how the gate meets such text. Like the fifth to seventh, it is kept apart from the\n")
	p("tables above (probe_apart_test.go). The detectors were then worked on from families of its\n")
	p("development part's misses only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe9/", before))
	return s.String()
}
