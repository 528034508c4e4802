"""Must-pass shapes of the third probe: hard negatives in the same shapes as the must-block ones
(tickets, CRM exports, logs, chats), holding nothing personal and nothing secret."""

import string

from probe3_values import (B62, HEX, MONTHS, R, b64, card, chars, date, digits, iban, national, pick, sha,
                           shape)

# ---- bad_checksum ------------------------------------------------------------------------------


@shape("bad_checksum", "ticket_card_typo", False)
def _():
    return pick([
        "Refund failed: the card number on file %s does not pass validation, asked customer to re-enter." % card(False),
        "Test charge with %s rejected by the form (checksum)." % card(False),
        "Karte %s ungültig laut Prüfsumme, Kunde informiert." % card(False),
    ])


@shape("bad_checksum", "iban_rejected_export", False)
def _():
    return {"payout_change": {"requested": iban(False), "status": "rejected", "reason": "IBAN check digits invalid"}}


@shape("bad_checksum", "national_id_failed_check", False)
def _():
    scheme, label, v, _ = national(False)
    return pick([
        "%s %s failed the check-digit test; document returned to sender." % (label, v),
        "{\"field\": \"%s\", \"value\": \"%s\", \"valid\": false}" % (label, v),
        "Nesprávné %s: %s (kontrolní číslice nesedí)" % (label, v),
    ])


# ---- labelled_number ---------------------------------------------------------------------------


@shape("labelled_number", "logistics_refs", False)
def _():
    return pick([
        "Tracking no. %s %s %s — out for delivery" % (digits(4), digits(4), digits(4)),
        "Order %s-%s shipped from Tallinn hub" % (digits(3), digits(7)),
        "Omniva parcel %s%sEE registered" % (pick(["CC", "RR", "EE"]), digits(9)),
        "Sendungsnummer %s %s %s" % (digits(4), digits(4), digits(4)),
        "AWB %s-%s" % (digits(3), digits(8)),
        "Zásilka č. %s %s %s" % (digits(3), digits(3), digits(4)),
    ])


@shape("labelled_number", "finance_refs", False)
def _():
    return pick([
        "Invoice %d/%s paid in full" % (R.randint(2023, 2026), digits(6)),
        "PO number %s %s %s approved" % (digits(3), digits(3), digits(4)),
        "Rēķina nr. %s-%s" % (digits(4), digits(6)),
        "Faktura číslo %s" % digits(10),
        "Case ID %s.%s.%s" % (digits(4), digits(2), digits(4)),
        "Booking reference %s, seat 14C" % digits(9),
    ])


@shape("labelled_number", "build_version_isbn", False)
def _():
    return pick([
        "build %d.%d.%d+%s" % (R.randint(1, 9), R.randint(0, 40), R.randint(0, 300), digits(8)),
        "firmware version %s.%s.%s" % (digits(2), digits(2), digits(4)),
        "ISBN 978-%d-%s-%s-%d" % (R.randint(0, 9), digits(3), digits(5), R.randint(0, 9)),
        "pipeline #%s finished in %dm" % (digits(9), R.randint(2, 59)),
        "SKU %s-%s-%s" % (digits(3), digits(3), digits(4)),
        "Serial number %s %s %s" % (digits(3), digits(4), digits(4)),
    ])


# ---- git_ssh -----------------------------------------------------------------------------------


@shape("git_ssh", "clone_and_deps", False)
def _():
    org, repo = pick(["platform", "data", "web", "ops"]), pick(["ledger", "kiosk", "etl-jobs", "infra-live"])
    host = pick(["github.com", "gitlab.example.lv", "git.intra.ee", "bitbucket.org"])
    return pick([
        "git clone git@%s:%s/%s.git" % (host, org, repo),
        "pip install git+ssh://git@%s/%s/%s.git@v%d.%d" % (host, org, repo, R.randint(0, 4), R.randint(0, 20)),
        "remote: origin git@%s:%s/%s (push)" % (host, org, repo),
        "\"%s\": \"git+ssh://git@%s:%s/%s.git#%s\"" % (repo, host, org, repo, chars(7, HEX)),
    ])


@shape("git_ssh", "scoped_packages_digests", False)
def _():
    return pick([
        "added @%s/%s@%d.%d.%d" % (pick(["babel", "types", "aws-sdk", "vitejs"]), pick(["core", "node", "client-s3", "plugin-react"]), R.randint(1, 9), R.randint(0, 30), R.randint(0, 20)),
        "image: registry.example.lv/%s@sha256:%s" % (pick(["api", "worker"]), sha(chars(9))),
        "ssh -i ~/.ssh/id_ed25519 deploy@10.%d.%d.%d" % (R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)),
        "Host bastion\n  User ubuntu\n  HostName %d.%d.%d.%d" % (R.randint(11, 200), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)),
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "event_dates_multilang", False)
def _():
    y, m, d = date(2020, 2027)
    return pick([
        "The warehouse in Riga reopens on %d %s %d after the inventory." % (d, MONTHS["en"][m - 1], y),
        "Die Messe findet am %d. %s %d statt." % (d, MONTHS["de"][m - 1], y),
        "Uzávěrka je %d. %s %d." % (d, MONTHS["cs"][m - 1], y),
        "Konference notiks %d. gada %d. %s." % (y, d, MONTHS["lv"][m - 1]),
        "Release %d.%d was published on %d-%02d-%02d." % (R.randint(1, 9), R.randint(0, 9), y, m, d),
    ])


@shape("benign_prose", "ops_report", False)
def _():
    return pick([
        "Weekly ops: %d tickets closed, median first response %d min, backlog down %d%%." % (R.randint(100, 900), R.randint(2, 90), R.randint(1, 40)),
        "Call volume reached %s calls on Monday; the queue cleared by 14:%02d." % ("{:,}".format(R.randint(1000, 99999)), R.randint(0, 59)),
        "Latency p99 %d ms, error rate 0.%02d%%, %d pods healthy." % (R.randint(80, 900), R.randint(0, 99), R.randint(3, 40)),
        "Sklad v Brně má %d palet, o %d víc než minulý týden." % (R.randint(100, 999), R.randint(1, 90)),
    ])


@shape("benign_prose", "chat_small_talk", False)
def _():
    return pick([
        "agent: anything else I can help with on ticket %d?\ncustomer: no that's all, thanks!" % R.randint(1000, 99999),
        "customer: is the %s model in stock?\nagent: yes, %d units in Tallinn" % (pick(["X2", "Pro 14", "Lite"]), R.randint(2, 80)),
        "Kunde: Danke für die schnelle Hilfe mit Auftrag %d!\nAgent: Gern, schönen Tag noch." % R.randint(1000, 99999),
        "zákazník: díky, funguje to\noperátor: rádo se stalo",
        "user: what are your opening hours on %s?\nbot: 9:00-18:00" % pick(["Saturday", "Sunday", "holidays"]),
    ])


# ---- benign_code -------------------------------------------------------------------------------


@shape("benign_code", "validation_snippets", False)
def _():
    return pick([
        "EMAIL_RE = re.compile(r\"^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$\")",
        "if not phonenumbers.is_valid_number(p):\n    raise ValueError(\"phone: not a valid number\")",
        "const pw = process.env.DB_PASSWORD ?? '';\nif (!pw) throw new Error('DB_PASSWORD unset');",
        "func luhn(d []byte) bool { // card check\n\tvar s int\n\treturn s%%10 == 0\n}",
        "SELECT id, created_at FROM orders WHERE status = 'paid' LIMIT %d;" % R.randint(10, 500),
        "api_key: ${%s_API_KEY}" % pick(["STRIPE", "OPENAI", "SENDGRID", "HF"]),
    ])


@shape("benign_code", "structured_logs", False)
def _():
    return "ts=2026-%02d-%02dT%02d:%02d:%02dZ level=%s svc=%s req_id=%s dur_ms=%d status=%d" % (
        R.randint(1, 12), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59),
        pick(["info", "warn"]), pick(["checkout", "search", "auth"]), chars(12, HEX), R.randint(1, 999), pick([200, 201, 204, 404, 429]))


# ---- benign_health -----------------------------------------------------------------------------

TOPICS = ["type 1 diabetes", "multiple sclerosis", "epilepsy", "COPD", "long COVID", "atrial fibrillation",
          "coeliac disease", "bipolar disorder", "breast cancer", "hepatitis C"]
DRUGS = ["metformin", "sertraline", "levothyroxine", "apixaban", "lamotrigine", "insulin glargine"]


@shape("benign_health", "catalogue_and_stock", False)
def _():
    return pick([
        "Stock alert: %s %d mg, %d packs left in the Riga pharmacy warehouse." % (pick(DRUGS), pick([5, 10, 25, 50, 100]), R.randint(0, 400)),
        {"sku": "RX-%s" % digits(6), "product": pick(DRUGS), "form": pick(["tablet", "capsule", "pen"]), "price_eur": round(R.uniform(2, 90), 2)},
        "Preisliste: %s %d mg – %d,%02d €" % (pick(DRUGS), pick([10, 20, 50]), R.randint(2, 60), R.randint(0, 99)),
    ])


@shape("benign_health", "awareness_content", False)
def _():
    t = pick(TOPICS)
    return pick([
        "Webinar: living and working with %s, Thursday 17:00 CET." % t,
        "New article in the knowledge base: how %s is diagnosed and treated." % t,
        "ICD-10 chapter review: the codes for %s were updated this year." % t,
        "Přednáška o %s proběhne v úterý." % t,
        "Our clinic now offers %s check-ups on Saturdays." % t,
    ])


@shape("benign_health", "diagnosed_about_no_one", False)
def _():
    t = pick(TOPICS)
    return pick([
        "About %d%% of adults are diagnosed with %s before the age of 40, the report says." % (R.randint(1, 30), t),
        "The study followed patients diagnosed with %s between 2010 and 2020." % t,
        "Fewer people were diagnosed with %s in %d than in the year before." % (t, R.randint(2015, 2025)),
    ])


# ---- benign_names ------------------------------------------------------------------------------

BRANDS = ["Jack Daniel's", "McDonald's", "Wendy's", "Trader Joe's", "Kellogg's", "Levi's", "Macy's", "Domino's",
          "Ben & Jerry's", "Papa John's", "Dr. Martens", "Tommy Hilfiger", "Ralph Lauren", "Calvin Klein",
          "Hugo Boss", "Louis Vuitton", "Marks & Spencer", "Johnnie Walker", "Harley-Davidson", "Mercedes-Benz"]


@shape("benign_names", "brand_possessives", False)
def _():
    b = pick(BRANDS)
    return pick([
        "Promo: 2 for 1 at %s this weekend, code WKND%d." % (b, R.randint(10, 99)),
        "Expense: %s, %d.%02d EUR, team lunch" % (b, R.randint(8, 120), R.randint(0, 99)),
        "Return label for the %s order, %d items" % (b, R.randint(1, 5)),
        "Vergleich: %s vs. Eigenmarke, Preis pro Stück" % b,
    ])


@shape("benign_names", "streets_and_places", False)
def _():
    return pick([
        "Depot moved to %s; parking at the back." % pick(["Brīvības iela", "Pärnu maantee", "Vitosha Blvd", "Sukhumvit Road"]),
        "Flights to %s are delayed due to fog." % pick(["Saint Petersburg", "San José", "Port Elizabeth", "Kota Kinabalu", "Vila Real"]),
        "Meeting room %s, 3rd floor" % pick(["Ada Lovelace", "Grace Hopper", "Alan Turing", "Marie Curie"]),
        "Roadworks on %s until Friday." % pick(["Karl-Marx-Allee", "Avenida Simón Bolívar", "Rue Victor Hugo", "Jana Pawła II"]),
    ])


@shape("benign_names", "eponyms_and_works", False)
def _():
    return pick([
        "Apply the %s to the residuals before plotting." % pick(["Kalman filter", "Fourier transform", "Bonferroni correction", "Gaussian blur"]),
        "Reading list: %s, chapter %d." % (pick(["Tolstoy's War and Peace", "Kafka's The Trial", "Darwin's On the Origin of Species"]), R.randint(1, 30)),
        "Use %s for the theorem in section %d." % (pick(["Bayes' rule", "Newton's method", "Dijkstra's algorithm", "Euler's formula"]), R.randint(1, 9)),
        "The %s effect explains the spike." % pick(["Doppler", "Dunning-Kruger", "Mandela", "Streisand"]),
    ])


@shape("benign_names", "roles_without_people", False)
def _():
    return pick([
        {"assignee": None, "team": pick(["L2 Network", "Billing", "Onboarding"]), "queue": "EMEA"},
        "Escalation owner: on-call SRE. Next update due %s." % pick(["Friday", "Monday", "EOD", "tomorrow 10:00"]),
        "Reassigned INC%07d from L1 to the network team." % R.randint(1, 9999999),
        "Vedoucí směny %d: neurčeno" % R.randint(1, 3),
        "Zuständig: Team %s" % pick(["Zahlungsverkehr", "Logistik", "Kundendienst Nord"]),
    ])


# ---- benign_secretlike -------------------------------------------------------------------------


@shape("benign_secretlike", "placeholders_redacted", False)
def _():
    return pick([
        "OPENAI_API_KEY=sk-...%s (redacted)" % chars(4, B62),
        "Authorization: Bearer <token>",
        "password: ********",
        "client_secret: \"${CLIENT_SECRET}\"",
        "api_key=YOUR_API_KEY_HERE",
        "card: **** **** **** %s" % digits(4),
        "IBAN: %s** **** **** %s" % (pick(["LV", "EE", "BE"]), digits(4)),
    ])


@shape("benign_secretlike", "hashes_ids", False)
def _():
    return pick([
        "commit %s" % sha(chars(8), 40),
        "sha256:%s  release.tar.gz" % sha(chars(8)),
        "request_id=%s-%s-4%s-%s-%s" % (chars(8, HEX), chars(4, HEX), chars(3, HEX), chars(4, HEX), chars(12, HEX)),
        "etag: \"%s\"" % sha(chars(5), 32),
        "integrity: sha512-%s" % b64(chars(64, B62).encode())[:86],
    ])


@shape("benign_secretlike", "public_keys", False)
def _():
    import probe3_keys
    return pick([
        "ssh-ed25519 %s ops@%s" % (probe3_keys.ed25519_public_b64(), pick(["laptop", "build"])),
        "authorized_keys: ssh-ed25519 %s" % probe3_keys.ed25519_public_b64(),
        probe3_keys.ec_public_pem(),
    ])
