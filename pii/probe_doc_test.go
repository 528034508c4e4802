package pii

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// probeBefore is testdata/corpus/probe_before.json: the probe's figures measured once, before any
// detector was changed for it, as [blocked, rows] per family ("overall block", "overall pass" and
// the families), over all its rows and over its test part.
type probeBefore struct {
	Date     string `json:"date"`
	Commit   string `json:"commit"`
	Families map[string]struct {
		All  [2]int `json:"all"`
		Test [2]int `json:"test"`
	} `json:"families"`
}

// probeSection renders the section of docs/pii-accuracy.md on the probe: its figures before the
// detectors were changed for it beside the figures now.
func probeSection(rows []corpusRow, blocked []bool) string {
	var before probeBefore
	if !readProbeBefore("probe", &before) {
		return ""
	}
	var s strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&s, format, a...) }
	p("## A fresh probe\n\n")
	p("The corpus's test part shares its sentence templates with the development part, so it says little about\n")
	p("text in shapes nobody wrote a template for. The probe (testdata/corpus/probe.jsonl, source `probe`,\n")
	p("pii/internal/corpusgen/probe_rows.py) was written apart from the other generators, without reading\n")
	p("their templates: agents' tool-call payloads and text as they come in real traffic (CRM records, support\n")
	p("tickets, calendar invites, invoices, shipping updates, HR and intake forms, chat transcripts, log lines,\n")
	p("stack traces, SQL errors, YAML/TOML/.env, curl, Kubernetes secrets, notebook output, Markdown tables) in\n")
	p("English, German, French, Spanish, Italian, Portuguese, Dutch, Japanese and Chinese, written carelessly\n")
	p("(keys pasted in prose, a temporary password in a note, a card in a refund description) and with hostile\n")
	p("intent (zero-width characters, full-width digits, leetspeak around key words, spaced digits, reversed\n")
	p("text, JSON nested in strings, base64 of JSON), beside hard negatives of the same shapes. Each of its\n")
	p("%d shapes has at least 20 generated rows; its rows are split by hash of id as the other sources are,\n", probeShapes(rows, "probe/"))
	p("and its test part counts in the tables above.\n\n")
	p("It was first scored on %s at commit %s, before any detector was changed for it: that is the\n", before.Date, before.Commit)
	p("figure of how the detectors generalise. Before that, the probe's own labels were checked against its\n")
	p("misses, and rows whose label was wrong were made again (an \"invalid\" SSN that is a valid ITIN, a\n")
	p("product named for a person). The detectors were then worked on from the development part's misses\n")
	p("only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe/", before))
	p("`go test ./pii -run TestProbe -v` prints the figures per shape and lists the development part's misses.\n\n")
	var before2 probeBefore
	if !readProbeBefore("probe2", &before2) {
		return s.String()
	}
	p("## A second probe\n\n")
	p("Once the detectors had been worked on from the first probe's development part, its test part no longer\n")
	p("said how they meet shapes nobody tuned them on. The second probe (testdata/corpus/probe2.jsonl, source\n")
	p("`probe2`, pii/internal/corpusgen/probe2_rows.py) was written apart from the corpus generators and from\n")
	p("the first probe, in shapes neither uses: CSV inside a tool result, SQL inserts and DDL, raw HTTP requests\n")
	p("and headers, vCards and WhatsApp links, SEPA XML, INI and YAML files, shell history, CI logs, Terraform,\n")
	p("JWTs, WebSocket frames, e-mail signatures, Markdown tables, Python and Java stack traces; people from\n")
	p("Faker locales neither uses (Nordic, Czech, Hungarian, Romanian, Turkish, Portuguese, Mexican, Swiss,\n")
	p("Austrian, Croatian, Slovene, Lithuanian, Indonesian, New Zealand, and Russian, Ukrainian, Greek, Korean\n")
	p("and Taiwanese in their own scripts); phone numbers of fourteen other regions; DNI, NIE, PESEL,\n")
	p("Steuer-ID, TFN, Medicare and NI numbers; LLM and developer-tool vendors the first did not use; real\n")
	p("private keys derived from seeded bytes; careless writing (ALL CAPS, names in lower case, abbreviations)\n")
	p("and hostile writing (homoglyphs, \"[at]\"/\"{.}\" spelling, spaced letters, base32, hex, unicode escapes,\n")
	p("values split across nested fields), beside hard negatives of the same shapes (masked values, public\n")
	p("identifiers, lockfile hashes, documentation placeholders, eponyms and brands). Each of its %d shapes\n", probeShapes(rows, "probe2/"))
	p("has %d generated rows, split by hash of id; its test part counts in the tables above.\n\n", 24)
	p("It was scored on %s at commit %s, before any detector was changed for it. The detectors were then\n", before2.Date, before2.Commit)
	p("worked on from families of its development part's misses only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe2/", before2))
	var before3 probeBefore
	if !readProbeBefore("probe3", &before3) {
		return s.String()
	}
	p("## A third probe\n\n")
	p("Once the detectors had been worked on from the second probe's development part as well, a third\n")
	p("probe (testdata/corpus/probe3.jsonl, source `probe3`, pii/internal/corpusgen/probe3_rows.py) was\n")
	p("written apart from the corpus generators and from both probes, sharing with them only the code that\n")
	p("numbers and splits rows: agents' tool results, support tickets, CRM exports, log lines and chat\n")
	p("transcripts in English, German, Czech, Latvian, Estonian, Dutch, Swedish, Polish, Bulgarian, Turkish,\n")
	p("Chinese and Japanese; people from Faker locales none of the others uses (Latvian, Estonian, Thai in\n")
	p("Latin letters, Ghanaian); mobile numbers of 22 regions none uses, checked against libphonenumber's\n")
	p("metadata and written with \" - \" between groups, a spaced-out country code, dots, a leading 00 and\n")
	p("straight after Chinese or Japanese characters; names in lower case with no cue and as the subject of\n")
	p("German and Czech sentences; \"was diagnosed with\" in the middle of a sentence; Estonian, Latvian,\n")
	p("Israeli, South African, Irish and Thai identifiers beside new layouts of known ones; Amex, JCB,\n")
	p("UnionPay and Discover cards; IBANs of eleven other countries; other vendors; OpenSSH and SEC 1\n")
	p("private keys; quoted-printable, base64url and query strings; beside hard negatives of the same\n")
	p("shapes (brands named for people such as \"Jack Daniel's\", streets and rooms named for people,\n")
	p("eponyms, health words about no one, dates of events, masked and placeholder values, public keys).\n")
	p("Each of its %d shapes has %d generated rows, split by hash of id; its test part counts in the tables\n", probeShapes(rows, "probe3/"), 26)
	p("above.\n\n")
	p("It was scored on %s at commit %s, before any detector was changed for it: the \"before\" columns are\n", before3.Date, before3.Commit)
	p("the honest measure of how the gate meets text it has never seen. Before that, its labels were checked\n")
	p("against its misses, and one kind of hard negative whose label hung on a policy the corpus does not\n")
	p("take was made again (a depot's street with a house number, an address by the gate's rules, now\n")
	p("without one). The detectors are then worked on from families of its development part's misses\n")
	p("only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe3/", before3))
	var before4 probeBefore
	if !readProbeBefore("probe4", &before4) {
		return s.String()
	}
	p("## A fourth probe\n\n")
	p("Once the detectors had been worked on from the third probe's development part as well, a fourth probe\n")
	p("(testdata/corpus/probe4.jsonl, source `probe4`, pii/internal/corpusgen/probe4_rows.py) was written\n")
	p("apart from the corpus generators and from the three probes, sharing with them only the code that\n")
	p("numbers and splits rows: agents' tool calls and results, e-mails drafted by agents, meeting notes, HR,\n")
	p("insurance and bank workflows (Pix transfers, policy inserts, payroll tables), travel bookings, medical\n")
	p("scheduling, code review comments, stack traces and logs, in Brazilian Portuguese, Italian, Latin\n")
	p("American Spanish, Romanian, Hungarian, Greek in Latin letters, Korean, Vietnamese, Indonesian,\n")
	p("Swahili, Indian, Nigerian and Kenyan English; people from name lists written for it (Vietnamese,\n")
	p("Nigerian, Kenyan, Korean, Indian, Romanian and Arabic names in Latin letters) and from Faker locales;\n")
	p("mobile numbers of sixteen regions as people there write them (Indonesia, Egypt, Saudi Arabia, Morocco,\n")
	p("Pakistan, Bangladesh, Peru, Uruguay, Tanzania, Uganda, Sri Lanka...), checked against libphonenumber's\n")
	p("metadata; CPF, Aadhaar, PAN, CNP, codice fiscale, Korean RRN and CURP computed with python-stdnum; Elo,\n")
	p("Hipercard, RuPay, Verve, Mir and Troy cards; IBANs of Brazil, Egypt, Saudi Arabia, Pakistan and others;\n")
	p("tokens of LLM providers and developer tools (OpenRouter, Groq, Perplexity, xAI, LangSmith, Pinecone,\n")
	p("...); keys derived from seeded bytes; written carelessly or to get a value past a gate (values split\n")
	p("across fields, base64 in data URLs, double percent-encoding, HTML entities, \\u and \\x escapes, Markdown\n")
	p("tables, CSV, YAML, XML, SQL inserts, URLs), beside hard negatives of the same shapes (identifiers that\n")
	p("fail their checks, booking, shipping, invoice and tax references, Nota Fiscal access keys and boleto\n")
	p("lines, places named for people, masked values, placeholders, digests, public keys). Each of its %d shapes\n", probeShapes(rows, "probe4/"))
	p("has %d generated rows, split by hash of id; its test part counts in the tables above.\n\n", 24)
	p("Its labels were checked against its development part's misses before it was scored, and four kinds of\n")
	p("row were made again: a phone number split into fields took its country code from the written number's\n")
	p("first digits (a generator bug: \"+61\" before a Peruvian number); health figures in aggregate put a\n")
	p("condition under a `diagnosi`/`condition` key, which the gate's policy blocks on its own (the condition\n")
	p("now names a campaign or a guideline's title); an M-Pesa \"account\" number, which is a customer's account\n")
	p("with the biller, became a merchant's till number; and Korean RRNs were taken out of the identifiers\n")
	p("that fail their check, since numbers issued from October 2020 carry no check digit and one that fails it\n")
	p("may still be someone's. It was then scored on %s at commit %s, before any detector was changed for\n", before4.Date, before4.Commit)
	p("it: the \"before\" columns are the honest measure of how the gate meets text it has never seen. The\n")
	p("detectors are then worked on from families of its development part's misses only. Rows blocked,\n")
	p("before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe4/", before4))
	var before5 probeBefore
	if !readProbeBefore("probe5", &before5) {
		return s.String()
	}
	p("## A fifth probe\n\n")
	p("Once the detectors had been worked on from the fourth probe's development part as well, a fifth probe\n")
	p("(testdata/corpus/apart/probe5.jsonl, source `probe5`, pii/internal/corpusgen/probe5_rows.py) was\n")
	p("written apart from the corpus generators and from the four probes, sharing with them only the code\n")
	p("that numbers and splits rows, in message kinds none of them uses: rental and tenancy applications sent\n")
	p("as function calls with nested arguments, school registers and enrolment records, pharmacy and lab\n")
	p("results, courier and delivery notes, leases and contracts naming their parties, agents' scratchpads\n")
	p("and chains of thought (\"Thought: ... Action: ...\"), HAR captures whose headers are name/value pairs,\n")
	p(".npmrc, .pypirc, Docker and GitLab runner configs, Helm values and Ansible inventories, GraphQL errors\n")
	p("echoing their variables, MIME encoded-word headers and calendar files with folded lines, and form\n")
	p("fields serialised as name/value arrays; in Dutch, Polish, Turkish, Swedish, Norwegian, Danish,\n")
	p("Finnish, Czech, Filipino, Malay, Hebrew in Latin letters, South African and Irish English and Quebec\n")
	p("French; people from name lists written for it (Filipino, Malay, Irish, South African, Israeli and\n")
	p("Quebec names) and from Faker locales; mobile numbers of fourteen regions and landlines with extensions\n")
	p("of Japan, France, Australia, China and India, every one checked against libphonenumber's metadata;\n")
	p("BSN, PESEL, personnummer, fødselsnummer, CPR, HETU, rodné číslo, TC kimlik, SIN and MyKad valid by\n")
	p("python-stdnum; package-registry, hosting and LLM vendors' tokens (npm, PyPI, Docker Hub, GitLab,\n")
	p("Hugging Face, Replicate, Linear, Supabase, DigitalOcean, Grafana, New Relic, Atlassian, OpenAI project,\n")
	p("Anthropic, GitHub fine-grained, Slack, SendGrid, Stripe webhook, Twilio, Google OAuth); keys derived\n")
	p("from seeded bytes; beside hard negatives of the same shapes (identifiers that fail their checks,\n")
	p("courier, locker, lab and course references, IaC module sources over git+ssh, listings and school\n")
	p("notices, scratchpads about no one, function calls without people, lab reference ranges, places and\n")
	p("prizes named for people, contracts naming only roles, placeholders, digests and public keys). Each of\n")
	p("its %d shapes has %d generated rows, split by hash of id.\n\n", probeShapes(rows, "probe5/"), 24)
	p("Its labels were checked against its development part's misses before it was scored, and one kind of\n")
	p("row was made again: a school register exported identifiers under a column called \"id\" or \"nr\",\n")
	p("which says nothing of what the number is, and the gate blocks an 11-digit number that passes a\n")
	p("checksum only where something names its scheme (one in eleven numbers passes a mod-11 check); the\n")
	p("column now carries the scheme's own abbreviation (personnr, fødselsnr, CPR, hetu, BSN, PESEL, RČ,\n")
	p("TCKN), as registers export it. Two generator bugs were fixed as well: a class's word was drawn from\n")
	p("any language rather than the record's, and OpenSSH private keys carried the random check integer\n")
	p("that format opens with, so the rows changed from run to run. It was then scored on %s at commit\n", before5.Date)
	p("%s, before any detector was changed for it: the \"before\" columns are the honest measure of how the\n", before5.Commit)
	p("gate meets text it has never seen.\n\n")
	p("Its test part is not in the tables above (probe_apart_test.go). Added to them at that commit, it put\n")
	p("names_context under its target (test part 0.9004 -> 0.8931) and benign_names over its floor (0.0246\n")
	p("-> 0.0322), while recall overall stayed at 0.9710 and false blocks overall at 0.0086; floors are not\n")
	p("lowered to let a corpus in, so the probe is scored here and by TestProbe only until its test part no\n")
	p("longer does so. The detectors are then worked on from families of its development part's misses\n")
	p("only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe5/", before5))
	var before6 probeBefore
	if !readProbeBefore("probe6", &before6) {
		return s.String()
	}
	p("## A sixth probe\n\n")
	p("Once the detectors had been worked on from the fifth probe's development part as well, a sixth probe\n")
	p("(testdata/corpus/apart/probe6.jsonl, source `probe6`, pii/internal/corpusgen/probe6_rows.py) was\n")
	p("written apart from the corpus generators and from the five probes, sharing with them only the code\n")
	p("that numbers and splits rows, in message kinds none of them uses: function-calling arguments holding\n")
	p("arrays of records (Anthropic tool_use, OpenAI tool_calls with arguments as a string, Gemini\n")
	p("functionCall), spreadsheet ranges as arrays of rows, OCR'd forms with broken spacing, e-mail threads\n")
	p("with quoted replies and sign-offs, chat exports, insurance claims with ICD-10 codes, prescriptions with\n")
	p("dosages, summaries and translation tasks that restate a person's details, names in appositions,\n")
	p("possessives and after titles in eighteen languages, error logs of Django, Rails, Laravel, .NET,\n")
	p("pydantic, Go and Java, Jupyter outputs, docker run, JDBC URLs, git's credential store and kubeconfig\n")
	p("files; in Catalan, Icelandic, Welsh, Maltese, Albanian, Serbian, Luxembourgish and Latin American\n")
	p("Spanish, and Hebrew, Persian, Arabic, Nepali and Thai in their own scripts; people from name lists\n")
	p("written for it and from Faker locales no other generator uses; mobile numbers of sixteen regions no\n")
	p("other generator uses (Iceland, Malta, Albania, Serbia, Iran, in Persian digits too, Nepal, Luxembourg,\n")
	p("Georgia, Ethiopia, Ghana, Jordan, Qatar, Taiwan, Ecuador, Costa Rica, Kazakhstan), every one checked\n")
	p("against libphonenumber's metadata; Belgian national register numbers, OIB, RUT, AHV, Ecuadorian\n")
	p("cédula, SVNR, CUIT and CUIL, DNI and RNOKPP valid by python-stdnum; tokens of 24 vendors none uses\n")
	p("(Sentry, Mapbox, Netlify, PlanetScale, Pulumi, Terraform Cloud, RubyGems, NuGet, Airtable, Figma,\n")
	p("...); keys and certificates derived from seeded bytes; beside hard negatives of the same shapes\n")
	p("(identifiers that fail their checks, claim, policy and NDC references, number columns of a sheet,\n")
	p("git configuration, threads and translation tasks about no one, framework logs and run flags without\n")
	p("secrets, policy and drug leaflets, places and prizes named for people, titles without a name,\n")
	p("placeholders in the same configs, digests, UUIDs, certificates and public keys). Each of its %d shapes\n", probeShapes(rows, "probe6/"))
	p("has %d generated rows, split by hash of id.\n\n", 24)
	p("Its labels were checked against its development part's misses before it was scored, and one\n")
	p("generator bug was fixed: Faker's Arabic list of female given names holds a heading (\"names of girls\n")
	p("and their meanings:\"), which had been drawn as a name. It was then scored on %s at commit %s,\n", before6.Date, before6.Commit)
	p("before any detector was changed for it: the \"before\" columns are the honest measure of how the gate\n")
	p("meets text it has never seen. Like the fifth, it is kept apart from the tables above\n")
	p("(probe_apart_test.go). The detectors were then worked on from families of its development part's\n")
	p("misses only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe6/", before6))
	var before7 probeBefore
	if !readProbeBefore("probe7", &before7) {
		return s.String()
	}
	p("## A seventh probe\n\n")
	p("Once the detectors had been worked on from the sixth probe's development part as well, a seventh probe\n")
	p("(testdata/corpus/apart/probe7.jsonl, source `probe7`, pii/internal/corpusgen/probe7_rows.py) was\n")
	p("written apart from the corpus generators and from the six probes, sharing with them only the code\n")
	p("that numbers and splits rows, in message kinds none of them uses: SQL result grids, browser storage\n")
	p("dumps (localStorage, cookies, sessionStorage), protobuf text format, voicemail transcriptions with\n")
	p("the fillers speech leaves in them, Slack and Microsoft Teams message exports, contact fields holding a\n")
	p("country code and then the whole national number in one run (\"+49 15194322326\"), SOAP envelopes,\n")
	p("OCR'd identity cards, diff hunks, patches and commit messages, HL7 v2 messages, Dockerfiles, systemd\n")
	p("units, environment printouts and crash reports; in Lithuanian, Slovene, Ukrainian, Romanian, West\n")
	p("African French and the Spanish of Bolivia, Paraguay, Panama and Guatemala, mixed with English; people\n")
	p("from name lists of twenty origins written for it and from Faker's Palestinian Arabic locale; mobile\n")
	p("numbers of eighteen regions no other generator uses (Slovenia, Lithuania, Ukraine, Moldova, Armenia,\n")
	p("Azerbaijan, Uzbekistan, Mongolia, Cambodia, Senegal, Cameroon, Côte d'Ivoire, Tunisia, Algeria,\n")
	p("Bolivia, Paraguay, Panama, Guatemala), every one checked against libphonenumber's metadata; asmens\n")
	p("kodas, kennitala, EMŠO, NHS numbers and Peruvian CUI valid by python-stdnum; tokens of 17 vendors none\n")
	p("uses (Heroku, Clojars, Square, Duffel, Brevo, Jina, Tavily, Fireworks, NVIDIA, Frame.io, GitLab\n")
	p("runners, Slack refresh tokens, Grafana Cloud, Tailscale, PostHog, Telegram bots, Mailchimp); X25519,\n")
	p("Ed448, P-384 and P-521 keys derived from seeded bytes; beside hard negatives of the same shapes\n")
	p("(identifiers that fail their checks, order numbers that open with 00, result grids of counts and\n")
	p("amounts, git remotes in Dockerfiles and diffs, chats about work, units and Dockerfiles whose secrets\n")
	p("are references, product messages, guidelines about no patient, eponyms and places named for people,\n")
	p("placeholders, digests and public keys). Each of its %d shapes has %d generated rows, split by hash of\n", probeShapes(rows, "probe7/"), 24)
	p("id.\n\n")
	p("Its labels were checked against its development part's misses before it was scored, and one\n")
	p("generator bug was fixed: a Slack message's row carried no type. It was then scored on %s at commit\n", before7.Date)
	p("%s, before any detector was changed for it: the \"before\" columns are the honest measure of how the\n", before7.Commit)
	p("gate meets text it has never seen. Like the fifth and sixth, it is kept apart from the tables above\n")
	p("(probe_apart_test.go). The detectors were then worked on from families of its development part's\n")
	p("misses only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe7/", before7))
	var before8 probeBefore
	if !readProbeBefore("probe8", &before8) {
		return s.String()
	}
	p("## An eighth probe\n\n")
	p("Once the detectors had been worked on from the seventh probe's development part as well, an eighth\n")
	p("probe (testdata/corpus/apart/probe8.jsonl, source `probe8`, pii/internal/corpusgen/probe8_rows.py) was\n")
	p("written apart from the corpus generators and from the seven probes, sharing with them only the code\n")
	p("that numbers and splits rows, in what agents of different organisations exchange about business: CRM\n")
	p("and ticketing results as GraphQL and OData responses, payroll records, travel bookings (PNRs, the\n")
	p("contact lines of a reservation, passports and loyalty numbers), card statements, clinical referrals\n")
	p("and insurance claims, school and tenancy tables, calendar invites and vCards, Markdown and HTML\n")
	p("tables, meeting minutes, support threads, planning scratchpads and thinking blocks that quote a user,\n")
	p("summaries that paraphrase a patient, and vendor tokens in config blobs, HTTP headers and tool\n")
	p("arguments; in Slovak, Croatian, Macedonian, Russian, Georgian, Armenian, Bengali, Tamil, Amharic,\n")
	p("Kinyarwanda, Afrikaans, Basque, Galician, Central American and Venezuelan Spanish, Jamaican English,\n")
	p("Mauritian French and Mozambican Portuguese, in five scripts no other generator uses (Georgian,\n")
	p("Armenian, Bengali, Tamil, Ethiopic) and Cyrillic; people from name lists of 28 origins written for it;\n")
	p("mobile numbers of twenty regions no other generator uses (Russia, Belarus, Kyrgyzstan, North\n")
	p("Macedonia, Croatia, Montenegro, Cyprus, Lebanon, Kuwait, Oman, Rwanda, Zambia, Mozambique, Botswana,\n")
	p("Mauritius, Honduras, El Salvador, Nicaragua, Venezuela, Jamaica), every one checked against\n")
	p("libphonenumber's metadata; Russian INN, Dominican cédula, Mauritian national ID, New Zealand IRD\n")
	p("numbers, Slovak rodné číslo, Cuban carné de identidad and Pakistani CNIC valid by python-stdnum;\n")
	p("tokens of fourteen vendors none uses (Langfuse, Honeycomb, Neon, HubSpot, Cerebras, Voyage, Firecrawl,\n")
	p("Browserbase, E2B, Helicone, Axiom, Mollie, Paddle, Zilliz) and Datadog, New Relic, Qdrant and\n")
	p("Weaviate keys under their header names; secp256k1, P-256 and brainpool keys derived from seeded\n")
	p("bytes; beside hard negatives of the same shapes (identifiers and cards that fail their checks,\n")
	p("booking codes, flight and ticket numbers, invoices, SKUs and tracking numbers in tables, git remotes\n")
	p("in plans, minutes about work, GraphQL and OData schemas, guidelines and policy terms about no\n")
	p("patient, places and prizes named for people, ids of LLM, payment and vector-store objects,\n")
	p("placeholders, references and digests). Each of its %d shapes has %d generated rows, split by hash\n", probeShapes(rows, "probe8/"), 24)
	p("of id.\n\n")
	p("Its labels were checked against its development part's misses before it was scored, and one\n")
	p("generator bug was fixed: hard negatives naming places for people gave a street and a house number,\n")
	p("an address the corpus labels as personal (an order's ship_to) in a family that must pass; they now\n")
	p("name the street alone. It was then scored on %s at commit %s, before any detector was changed\n", before8.Date, before8.Commit)
	p("for it: the \"before\" columns are the honest measure of how the gate meets text it has never\n")
	p("seen. Like the fifth to seventh, it is kept apart from the tables above (probe_apart_test.go). The\n")
	p("detectors were then worked on from families of its development part's misses only. Rows blocked,\n")
	p("before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe8/", before8))
	p("%s", probe9Section(rows, blocked))
	var before10 probeBefore
	if !readProbeBefore("probe10", &before10) {
		return s.String()
	}
	p("## A tenth probe\n\n")
	p("Names, dates of birth and health in context were the weakest families on text the gate had never\n")
	p("seen, and the earlier probes hold them mostly in structured shapes. A tenth probe\n")
	p("(testdata/corpus/apart/probe10.jsonl, source `probe10`, pii/internal/corpusgen/probe10_rows.py) was\n")
	p("written apart from the corpus generators and the earlier probes, sharing with them only the code\n")
	p("that numbers and splits rows, on people in narrative prose and notes, identified by name, date of\n")
	p("birth or health in context rather than by a structured identifier: case notes, referral letters, HR\n")
	p("incident reports, biographies, notices of living people, reviews and testimonials, diary entries, an\n")
	p("assistant's memory notes (\"their daughter Mia has asthma\"), chat in lower case, minutes and action\n")
	p("items; in English, German, French, Spanish, Portuguese, Italian, Dutch, Polish, Swedish, Hungarian,\n")
	p("Vietnamese, Indonesian and Turkish; names transliterated from Arabic, Russian, Bulgarian, Georgian,\n")
	p("Chinese (pinyin), Korean, Japanese (romaji), Hindi, Yoruba and Amharic, names with particles (van\n")
	p("der, de la, bin, ibn, al-, O', Mc), family names first (Hungarian, Vietnamese, Chinese, Korean,\n")
	p("Japanese), initials, nicknames and single given names; conditions and medicines in the prose of\n")
	p("those languages and dates of birth written in many ways; and a shape of each other family in the\n")
	p("same kinds of text; beside hard negatives of the same shapes (eponyms, brands, places, works and\n")
	p("institutions named for people, roles without names, drug leaflets, guidelines and clinic notices\n")
	p("about no one, dates that are not dates of birth, memory notes about preferences, identifiers that\n")
	p("fail their checks, placeholders and public keys). Each of its %d shapes has %d generated rows,\n", probeShapes(rows, "probe10/"), 24)
	p("split by hash of id.\n\n")
	p("Its labels were checked against its development part's misses before it was scored, and two\n")
	p("generator bugs were fixed: Georgian names came out of the transliteration in lower case with\n")
	p("backticks, and given names and surnames were drawn without their gender. It was then scored on %s\n", before10.Date)
	p("at commit %s, before any detector was changed for it: the \"before\" columns are the honest measure\n", before10.Commit)
	p("of how the gate meets such text. Like the fifth to eighth, it is kept apart from the tables above\n")
	p("(probe_apart_test.go). The detectors were then worked on from families of its development part's\n")
	p("misses only. Rows blocked, before and now:\n\n")
	p("%s", probeTable(rows, blocked, "probe10/", before10))
	return s.String()
}

func readProbeBefore(name string, before *probeBefore) bool {
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", name+"_before.json"))
	return err == nil && json.Unmarshal(b, before) == nil
}

// probeTable renders one probe's figures before any detector was changed for it beside the
// figures now, and the shapes still short of their family's target.
func probeTable(rows []corpusRow, blocked []bool, prefix string, before probeBefore) string {
	now := map[string][2][2]int{} // key → [all, test] → [blocked, rows]
	for i, r := range rows {
		if !strings.HasPrefix(r.Source, prefix) {
			continue
		}
		all := "overall block"
		if !r.MustBlock {
			all = "overall pass"
		}
		for _, k := range []string{all, r.Family} {
			c := now[k]
			for part := 0; part < 2; part++ {
				if part == 1 && r.Split != "test" {
					continue
				}
				c[part][1]++
				if blocked[i] {
					c[part][0]++
				}
			}
			now[k] = c
		}
	}
	var s strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&s, format, a...) }
	p("| family | must | rows | before | now | test part before | test part now |\n|---|---|---|---|---|---|---|\n")
	for _, k := range append([]string{"overall block", "overall pass"}, append(append([]string{}, blockFamilies...), passFamilies...)...) {
		bf, ok := before.Families[k]
		c := now[k]
		if !ok || c[0][1] == 0 {
			continue
		}
		name, must := k, "block"
		if strings.HasPrefix(k, "overall ") {
			name, must = "overall", strings.TrimPrefix(k, "overall ")
		} else if !slices.Contains(blockFamilies, k) {
			must = "pass"
		}
		p("| %s | %s | %d | %s | %s | %s | %s |\n", name, must, c[0][1], frac(bf.All[0], bf.All[1]), frac(c[0][0], c[0][1]),
			frac(bf.Test[0], bf.Test[1]), frac(c[1][0], c[1][1]))
	}
	p("\nThe shapes still short of their family's target (at least %.2f blocked, at most %.2f for hard\n", targetFamilyRecall, targetFalseBlock)
	p("negatives), over all their rows:\n\n")
	var short []string
	shapes := map[string][2]int{}
	for i, r := range rows {
		if strings.HasPrefix(r.Source, prefix) {
			c := shapes[r.Family+" "+r.Source]
			c[1]++
			if blocked[i] {
				c[0]++
			}
			shapes[r.Family+" "+r.Source] = c
		}
	}
	for k, c := range shapes {
		fam, _, _ := strings.Cut(k, " ")
		v := float64(c[0]) / float64(c[1])
		if slices.Contains(blockFamilies, fam) && v < targetFamilyRecall || !slices.Contains(blockFamilies, fam) && v > targetFalseBlock {
			short = append(short, fmt.Sprintf("- %s (%s): %s", strings.TrimPrefix(k[len(fam)+1:], prefix), fam, frac(c[0], c[1])))
		}
	}
	slices.Sort(short)
	if len(short) == 0 {
		short = []string{"None."}
	}
	p("%s\n\n", strings.Join(short, "\n"))
	return s.String()
}

func probeShapes(rows []corpusRow, prefix string) int {
	seen := map[string]bool{}
	for _, r := range rows {
		if strings.HasPrefix(r.Source, prefix) {
			seen[r.Family+" "+r.Source] = true
		}
	}
	return len(seen)
}
