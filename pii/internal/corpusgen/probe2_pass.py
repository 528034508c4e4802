"""The second probe's must-pass shapes: hard negatives in the shapes of its must-block rows."""

import json
import urllib.parse

from probe2_values import *  # noqa: F401,F403


# ---- bad_checksum ----------------------------------------------------------------------------

@shape("bad_checksum", "ini_record_bad", False)
def _():
    label, v, _ = national(False)
    key = {"DNI": "dni", "NIE": "nie", "PESEL": "pesel", "Steuer-ID": "steuer_id", "TFN": "tfn",
           "Medicare card": "medicare_no", "NI number": "ni_number"}[label]
    return "[import_errors]\nrow = %d\n%s = %s\nreason = checksum\n" % (R.randint(2, 900), key, v)


@shape("bad_checksum", "sql_bad_luhn", False)
def _():
    return ("INSERT INTO rejected_pans (batch, pan, reason) VALUES ('B%d', '%s', 'luhn');"
            % (R.randint(100, 999), card(False)))


@shape("bad_checksum", "iban_xml_bad", False)
def _():
    return ("<CdtTrfTxInf><Cdtr><Nm>%s</Nm></Cdtr><CdtrAcct><Id><IBAN>%s</IBAN></Id></CdtrAcct>"
            "<RjctRsn>AC01 IncorrectAccountNumber</RjctRsn></CdtTrfTxInf>" % (fk(pick(ADDRESS_LOCALES)).company(), iban(False)))


@shape("bad_checksum", "kyc_args_bad", False)
def _():
    label, v, _ = national(False)
    return {"tool": "kyc.verify", "result": {"document_type": label, "document_number": v,
                                             "valid": False, "reason": "check digit mismatch"}}


# ---- labelled_number -------------------------------------------------------------------------

@shape("labelled_number", "erp_csv", False)
def _():
    rows = "\n".join("%s,%s,LOT%s,%d" % ("%s-%s" % (chars(3, string.ascii_uppercase), digits(5)), ean13(), digits(8), R.randint(1, 500))
                     for _ in range(R.randint(2, 4)))
    return {"tool": "erp.export", "result": {"content": "sku,ean,lot,qty\n" + rows}}


@shape("labelled_number", "flight_booking", False)
def _():
    return pick([
        "Booking %s confirmed. Flight %s%d on 2027-%02d-%02d, seat %d%s, e-ticket %s-%s." % (
            chars(6, string.ascii_uppercase + string.digits), pick(["SK", "LH", "TK", "LO", "OK", "TP"]), R.randint(100, 2999),
            R.randint(1, 12), R.randint(1, 28), R.randint(1, 40), R.choice("ABCDEF"), digits(3), digits(10)),
        "PNR %s / ticket no. %s / baggage tag %s" % (chars(6, string.ascii_uppercase), digits(13), "0" + digits(9)),
    ])


@shape("labelled_number", "telemetry_log", False)
def _():
    return ("ts=%d level=info svc=%s pid=%d req_id=%s bytes=%d dur_ms=%d upstream=10.%d.%d.%d:%d"
            % (R.randint(1700000000000, 1790000000000), pick(["api", "billing", "search"]), R.randint(100, 99999), uuid4(),
               R.randint(100, 10**9), R.randint(1, 9000), R.randint(0, 255), R.randint(0, 255), R.randint(1, 254), R.randint(1024, 65535)))


@shape("labelled_number", "careless_order_sms", False)
def _():
    return pick(["ur order %s shipped, tracking %s", "ref nr %s pls quote it when u call",
                 "zamówienie nr %s wysłane, paczka %s", "objednávka č. %s, faktura %s",
                 "sipariş no %s kargoya verildi, takip %s", "customer no. %s invoice %s"]).replace("%s", "{}").format(
        digits(R.choice([9, 10])), digits(R.choice([10, 12, 20])))


@shape("labelled_number", "invoice_fields", False)
def _():
    return {"invoice": {"number": "%d-%s" % (R.randint(2020, 2027), digits(6)), "customer_no": digits(8),
                        "po_number": "45" + digits(8), "gtin": ean13(), "total": "%d.%02d" % (R.randint(1, 9999), R.randint(0, 99)),
                        "vat_id": pick(["SE", "FI", "PL", "CZ"]) + digits(10)}}


# ---- git_ssh ---------------------------------------------------------------------------------

@shape("git_ssh", "gitmodules_sshconfig", False)
def _():
    host = pick(["github.com", "gitlab.com", "bitbucket.org", "git.corp.internal", "codeberg.org"])
    org, repo = pick(["platform", "infra", "mobile", "data"]), pick(["libfoo", "proto", "charts", "terraform-modules"])
    return pick([
        "[submodule \"vendor/%s\"]\n\tpath = vendor/%s\n\turl = git@%s:%s/%s.git\n" % (repo, repo, host, org, repo),
        "Host %s\n  HostName %s\n  User git\n  IdentityFile ~/.ssh/id_ed25519\n" % (host.split(".")[0], host),
        "Cloning into '%s'...\ngit clone ssh://git@%s:2222/%s/%s.git\n" % (repo, host, org, repo),
        "fatal: Could not read from remote repository git@%s:%s/%s.git\nPlease make sure you have the correct access rights" % (host, org, repo),
    ])


@shape("git_ssh", "package_git_deps", False)
def _():
    host = pick(["github.com", "gitlab.com", "bitbucket.org"])
    org, repo = chars(6, string.ascii_lowercase), pick(["ui-kit", "shared", "proto", "sdk"])
    return pick([
        {"dependencies": {repo: "git+ssh://git@%s:%s/%s.git#v%d.%d.%d" % (host, org, repo, R.randint(0, 5), R.randint(0, 20), R.randint(0, 9))}},
        {"requirements": ["requests==2.32.3", "%s @ git+ssh://git@%s/%s/%s.git@main" % (repo, host, org, repo)]},
        {"remote": {"origin": "git@%s:%s/%s.git" % (host, org, repo), "branch": "main"}},
    ])


# ---- benign_prose ----------------------------------------------------------------------------

@shape("benign_prose", "multiscript_news", False)
def _():
    return pick([
        "Vädret i Umeå: %d grader och snö under eftermiddagen." % R.randint(-20, 5),
        "Sparta vyhrála %d:%d a postoupila do finále." % (R.randint(0, 6), R.randint(0, 6)),
        "İstanbul'da metro hattı %d dakika gecikmeli çalışıyor." % R.randint(5, 40),
        "В Москве ожидается до %d мм осадков." % R.randint(1, 30),
        "서울 지하철 %d호선 운행이 %d분 지연되고 있습니다." % (R.randint(1, 9), R.randint(5, 30)),
        "Στην Αθήνα η θερμοκρασία θα φτάσει τους %d βαθμούς." % R.randint(20, 42),
        "Helsingin keskustassa on %d uutta pyöräpysäkkiä." % R.randint(3, 90),
        "台北今天最高溫%d度，午後有雷陣雨。" % R.randint(25, 36),
    ])


@shape("benign_prose", "caps_brand_chat", False)
def _():
    return pick([
        "LOL THE NEW PIXEL %d IS %d EUR NO WAY" % (R.randint(9, 12), R.randint(600, 1400)),
        "omg volvo ex%d range is like %d km now" % (R.choice([30, 40, 90]), R.randint(300, 600)),
        "ANYONE KNOW IF IKEA BILLY FITS %d CM" % R.randint(60, 240),
        "skoda octavia or seat leon?? budget %dk" % R.randint(15, 40),
        "meeting moved to %d:%02d, room %s, bring the spotify numbers" % (R.randint(8, 17), R.choice([0, 15, 30, 45]), pick(["Oslo", "Tampere", "Brno"])),
    ])


@shape("benign_prose", "team_signature", False)
def _():
    loc = pick(ADDRESS_LOCALES)
    return "%s\n\n%s\n%s\n%s" % (pick(["Your ticket has been closed.", "Ditt ärende är avslutat.", "Váš požadavek byl vyřízen."]),
                                 pick(["Best regards,", "Med vänlig hälsning,", "S pozdravem,"]),
                                 pick(["Customer Care", "The Billing Team", "Kundservice", "Zákaznická podpora"]),
                                 pick(["Nordlys AB", "Kovo Praha a.s.", "Atlas Logistics Oy", "Hedberg Group"]))


@shape("benign_prose", "markdown_status", False)
def _():
    rows = "\n".join("| %s | %s | %s |" % (pick(["eu-north-1", "ap-northeast-2", "us-east-2", "sa-east-1"]), "v%d.%d.%d" % (R.randint(1, 4), R.randint(0, 30), R.randint(0, 9)),
                                          pick(["healthy", "degraded", "maintenance"])) for _ in range(R.randint(2, 4)))
    return "| region | version | status |\n|---|---|---|\n" + rows


# ---- benign_code -----------------------------------------------------------------------------

@shape("benign_code", "sql_ddl", False)
def _():
    return pick([
        "CREATE TABLE users (\n  id BIGSERIAL PRIMARY KEY,\n  email TEXT NOT NULL UNIQUE,\n  password_hash TEXT NOT NULL,\n  date_of_birth DATE,\n  phone VARCHAR(%d)\n);" % R.choice([20, 32]),
        "SELECT id, email FROM customers WHERE email = $1 AND deleted_at IS NULL LIMIT %d;" % R.randint(1, 100),
        "ALTER TABLE employees ADD COLUMN ssn CHAR(11), ADD COLUMN iban VARCHAR(34);",
        "UPDATE accounts SET password = crypt($2, gen_salt('bf')) WHERE id = $1;",
    ])


@shape("benign_code", "ci_refs", False)
def _():
    return pick([
        "env:\n  OPENROUTER_API_KEY: ${{ secrets.OPENROUTER_API_KEY }}\n  DB_PASSWORD: ${{ secrets.DB_PASSWORD }}\n",
        "resource \"aws_db_instance\" \"main\" {\n  username = \"app\"\n  password = var.db_password\n}\n",
        "token = os.environ[\"GROQ_API_KEY\"]\nclient = Client(api_key=token)\n",
        "vault kv get -field=password secret/data/prod/db%d\n" % R.randint(1, 9),
        "api_key: \"{{ .Values.apiKey }}\"\npassword: \"{{ required \\\"password\\\" .Values.password }}\"\n",
    ])


@shape("benign_code", "raw_http_benign", False)
def _():
    return ("GET /api/v2/orders/%d/items?page=%d HTTP/1.1\nHost: shop.internal\nAccept: application/json\n"
            "User-Agent: agent-runtime/%d.%d\nX-Request-Id: %s\nCookie: theme=dark; lang=%s\n\n"
            % (R.randint(1000, 99999), R.randint(1, 20), R.randint(1, 3), R.randint(0, 20), uuid4(), pick(["sv", "cs", "tr", "pt"])))


@shape("benign_code", "traceback_benign", False)
def _():
    return ("Traceback (most recent call last):\n  File \"/app/worker.py\", line %d, in run\n    n = int(row[%d])\n"
            "%s" % (R.randint(10, 400), R.randint(0, 9), pick([
                "ValueError: invalid literal for int() with base 10: 'N/A'",
                "KeyError: 'customer_email'",
                "TimeoutError: upstream did not answer in %d ms" % R.randint(100, 9000),
                "psycopg2.OperationalError: FATAL: password authentication failed for user \"app\"",
            ])))


@shape("benign_code", "ini_benign", False)
def _():
    return pick([
        "[server]\nport = %d\ntimeout = %d\nlog_level = info\n" % (R.randint(1024, 9999), R.randint(5, 120)),
        "[auth]\npassword_min_length = %d\npassword_expiry_days = %d\nlockout_after = 5\n" % (R.randint(8, 16), R.randint(30, 365)),
        "db:\n  host: postgres\n  user: app\n  password: ${DB_PASSWORD}\n",
        "[smtp]\nhost = mail.corp\nuser = alerts\npassword =\n",
    ])


@shape("benign_code", "cli_history_benign", False)
def _():
    return {"tool": "shell.history", "lines": [pick([
        "ssh deploy@10.0.%d.%d" % (R.randint(0, 9), R.randint(2, 250)),
        "mysql -u root -p shop",
        "echo \"$CR_PAT\" | docker login ghcr.io -u ci --password-stdin",
        "passwd %s" % pick(["deploy", "backup"]),
        "psql \"host=db user=app\"",
    ]), "history | grep kubectl", "exit"]}


# ---- benign_health ---------------------------------------------------------------------------

@shape("benign_health", "trial_registry", False)
def _():
    drug, why = pick([("semaglutide", "obesity"), ("lecanemab", "early Alzheimer's disease"), ("tirzepatide", "type 2 diabetes"),
                      ("dupilumab", "atopic dermatitis"), ("psilocybin", "treatment-resistant depression"), ("lenacapavir", "HIV prevention")])
    return {"trial": {"id": "NCT0%s" % digits(7), "title": "A Phase %d Study of %s in Adults With %s" % (R.randint(1, 3), drug, why),
                      "enrolment": R.randint(40, 4000), "status": pick(["Recruiting", "Completed", "Active, not recruiting"])}}


@shape("benign_health", "public_health_multilang", False)
def _():
    return pick([
        "Diabetes typ 2 drabbar omkring %d %% av vuxna i Sverige." % R.randint(4, 9),
        "Chřipková epidemie: %d nemocných na 100 000 obyvatel." % R.randint(800, 2500),
        "Türkiye'de hipertansiyon yaygınlığı yüzde %d." % R.randint(20, 35),
        "Депрессия — одна из главных причин инвалидности, по данным ВОЗ.",
        "Η εποχική γρίπη κορυφώνεται τον %s." % pick(["Ιανουάριο", "Φεβρουάριο"]),
        "Asthma rates in Auckland rose %d %% after the fires." % R.randint(2, 15),
    ])


RX_CATALOG = [("atorvastatin 20 mg", "hyperlipidaemia"), ("levothyroxine 50 mcg", "hypothyroidism"),
              ("fluoxetine 20 mg", "depression"), ("adalimumab 40 mg pen", "rheumatoid arthritis"),
              ("salbutamol inhaler", "asthma"), ("metformin 500 mg", "type 2 diabetes")]


@shape("benign_health", "pharmacy_catalog", False)
def _():
    drug, why = pick(RX_CATALOG)
    return {"product": {"name": drug, "pack_size": R.choice([28, 30, 56, 90]), "price": "%d.%02d" % (R.randint(2, 300), R.randint(0, 99)),
                        "indication": why, "atc": pick(["C10AA05", "H03AA01", "N06AB03", "L04AB04"]), "in_stock": R.random() < 0.7}}


# ---- benign_names ----------------------------------------------------------------------------

@shape("benign_names", "eponyms", False)
def _():
    return pick([
        "Route planning uses Dijkstra's algorithm with a Fibonacci heap; update priors with Bayes' theorem.",
        "Lunch menu: Caesar salad, Eggs Benedict, Beef Wellington, %d kr." % R.randint(90, 200),
        "The Nobel Prize lecture is at %d:00 in the Alfred Nobel hall." % R.randint(9, 17),
        "Gauss elimination and the Fourier transform, week %d." % R.randint(1, 14),
        "Parkinson's law: work expands to fill the time; see also Murphy's law.",
        "Sort with a Levenshtein distance under %d." % R.randint(1, 5),
    ])


@shape("benign_names", "brands_places", False)
def _():
    return pick([
        "Return label for the Tommy Hilfiger jacket and the Hugo Boss belt, order total %d EUR." % R.randint(50, 400),
        "Store pickup on Karl Johans gate in Oslo, opens at %d." % R.randint(8, 11),
        "The Louis Vuitton pop-up moved to Václavské náměstí.",
        "Ship %d cases of Jack Daniel's to the Mercedes-Benz Arena kiosk." % R.randint(1, 30),
        "Meet at the Tim Hortons by Victoria Station at %d." % R.randint(7, 11),
        "Ordered a Calvin Klein shirt and a Ralph Lauren cap, size %s." % pick(["S", "M", "L"]),
    ])


@shape("benign_names", "role_json", False)
def _():
    return {"approval": {"request_id": "AR-%d" % R.randint(1000, 99999),
                         pick(["approved_by", "requested_by", "assignee", "reviewer"]): pick(["Finance Team", "unassigned", "@platform-oncall", "Procurement Bot", "Legal Ops", "N/A"]),
                         "decision": pick(["approved", "rejected"]), "at": ts()}}


@shape("benign_names", "script_orgs", False)
def _():
    return pick([
        "Поставка для «Газпром нефть» задерживается на %d дней." % R.randint(1, 9),
        "삼성전자 서울 본사 회의실 %d층" % R.randint(2, 40),
        "台積電新竹廠今天停電%d分鐘。" % R.randint(5, 60),
        "Η Ολυμπιακή Αεροπορία ακύρωσε %d πτήσεις." % R.randint(1, 20),
        "Укрзалізниця призначила %d додаткових поїздів." % R.randint(2, 15),
    ])


# ---- benign_secretlike -----------------------------------------------------------------------

@shape("benign_secretlike", "doc_placeholders", False)
def _():
    return pick([
        "export OPENROUTER_API_KEY=sk-or-v1-...  # paste your key here",
        "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE",
        "GH_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        "Authorization: Bearer <YOUR_TOKEN>",
        "password: <redacted>",
        "TWINE_PASSWORD=pypi-<your-token>",
        "curl -H \"X-Api-Key: $API_KEY\" https://api.example.com/v1/ping",
        "STRIPE_KEY=sk_live_********************",
    ])


@shape("benign_secretlike", "lockfile_hashes", False)
def _():
    return pick([
        {"node_modules/%s" % pick(["left-pad", "ms", "debug", "chalk"]): {"version": "%d.%d.%d" % (R.randint(0, 5), R.randint(0, 20), R.randint(0, 9)),
                                                                          "integrity": "sha512-" + base64.b64encode(bytes(R.getrandbits(8) for _ in range(64))).decode()}},
        "golang.org/x/%s v0.%d.0 h1:%s" % (pick(["net", "text", "sys"]), R.randint(10, 40), base64.b64encode(bytes(R.getrandbits(8) for _ in range(32))).decode()),
        "image: registry.corp/app@sha256:%s" % token_hex(64),
        "commit %s\nMerge: %s %s" % (token_hex(40), token_hex(7), token_hex(7)),
    ])


@shape("benign_secretlike", "public_keys", False)
def _():
    return pick([
        lambda: "Our signing key:\n" + public_pem(),
        lambda: "recipient: age1" + chars(58, "023456789acdefghjklmnpqrstuvwxyz"),
        lambda: "[Peer]\nPublicKey = %s\nAllowedIPs = 10.8.0.%d/32\n" % (base64.b64encode(bytes(R.getrandbits(8) for _ in range(32))).decode(), R.randint(2, 250)),
    ])()


@shape("benign_secretlike", "masked_values", False)
def _():
    c = card()
    e = email_of(full_name())
    ib = iban()
    return pick([
        "card ending ****-****-****-%s charged" % c[-4:],
        "sent code to %s***@%s" % (e[0], e.split("@")[1]),
        "IBAN %s **** **** %s on file" % (ib[:4], ib[-4:]),
        "phone +46 ** *** ** %s verified" % digits(2),
        "token sk-or-v1-****%s revoked" % token_hex(4),
        "SSN XXX-XX-%s" % digits(4),
    ])


@shape("benign_secretlike", "public_ids", False)
def _():
    return {"event": {"id": "evt_" + chars(24), "customer": "cus_" + chars(14), "payment_intent": "pi_" + chars(24),
                      "price": "price_" + chars(24), "slack_channel": "C0" + chars(8, string.ascii_uppercase + string.digits),
                      "traceparent": "00-%s-%s-01" % (token_hex(32), token_hex(16)), "k8s_uid": uuid4(), "ulid": ulid()}}


@shape("benign_secretlike", "encoded_benign", False)
def _():
    return pick([
        {"next_cursor": b64(json.dumps({"page": R.randint(2, 90), "sort": "asc"}))},
        "GET /search?q=%s&size=%d" % (urllib.parse.quote(pick(["red shoes", "café au lait", "vinterjacka dam"])), R.randint(36, 46)),
        {"etag": "\"%s\"" % token_hex(32), "digest": "sha-256=" + base64.b64encode(bytes(R.getrandbits(8) for _ in range(32))).decode()},
        "ipv6 2001:db8:%x::%x, mac ignored, color #%s" % (R.randint(1, 65535), R.randint(1, 65535), token_hex(6)),
    ])
