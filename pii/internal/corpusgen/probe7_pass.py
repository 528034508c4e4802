"""Must-pass shapes of the seventh probe: the same kinds of message as probe7_block.py with nothing
personal and no secret in them (identifiers that fail their checks, order and shipment numbers that
open with zeros, result grids of counts and amounts, git remotes in Dockerfiles and diffs, chats
about work, Dockerfiles and units whose secrets are references, SOAP and protobuf messages about
products, guidelines about no patient, things named for people, placeholders, digests and public
keys)."""

import json

from probe7_values import (HEX, R, broken_national, chars, digits, pick, public_key_pem, shape, stamp, uuid, when)


# ---- bad_checksum ------------------------------------------------------------------------------


@shape("bad_checksum", "soap_ids_failing_check", False)
def _():
    scheme = pick(["lt", "is", "si", "gb"])
    label, val = broken_national(scheme)
    tag = {"lt": "asmensKodas", "is": "kennitala", "si": "emso", "gb": "nhsNumber"}[scheme]
    return ('<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>'
            '<reg:ValidateResponse xmlns:reg="urn:example:registry:v2"><reg:%s>%s</reg:%s><reg:valid>false</reg:valid>'
            '<reg:reason>checksum mismatch</reg:reason></reg:ValidateResponse></soapenv:Body></soapenv:Envelope>' % (tag, val, tag))


# ---- labelled_number ---------------------------------------------------------------------------


@shape("labelled_number", "order_numbers_leading_zeros", False)
def _():
    order = "00" + digits(8)
    return pick([
        "Order %s shipped, parcel %s" % (order, "00" + digits(18)),
        json.dumps({"tool": "get_order", "result": {"order_no": order, "status": pick(["packed", "shipped", "delivered"]), "items": R.randint(1, 9)}}),
        "Užsakymas Nr. %s išsiųstas %s" % (order, when()),
        "Naročilo %s je pripravljeno za prevzem" % order,
        "<Order><Number>%s</Number><Total currency=\"EUR\">%d.%02d</Total></Order>" % (order, R.randint(5, 900), R.randint(0, 99)),
        "Facture n° %s — échéance %s" % (order, when()),
    ])


@shape("labelled_number", "sql_grid_counts_amounts", False)
def _():
    rows = [[pick(["Vilnius", "Ljubljana", "Kyiv", "Dakar", "La Paz", "Asunción"]), R.randint(1, 99999), "%d.%02d" % (R.randint(100, 9999999), R.randint(0, 99)),
             digits(10)] for _ in range(R.randint(2, 5))]
    head = ["city", "orders", "revenue_eur", "batch_no"]
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(4)]
    line = lambda r: " " + " | ".join(str(c).ljust(w[i]) for i, c in enumerate(r))
    return "SELECT city, count(*), sum(total), max(batch) FROM orders GROUP BY city;\n%s\n%s\n%s\n(%d rows)" % (
        line(head), "-" + "-+-".join("-" * x for x in w) + "-", "\n".join(line(r) for r in rows), len(rows))


# ---- git_ssh -----------------------------------------------------------------------------------


@shape("git_ssh", "dockerfile_and_diff_remotes", False)
def _():
    host = pick(["github.com", "gitlab.com", "bitbucket.org", "git.example.lt", "ssh.dev.azure.com"])
    repo = "%s/%s.git" % (pick(["platform", "data-eng", "mobile"]), pick(["infra", "protos", "shared-ui", "etl"]))
    return pick([
        "FROM alpine/git\nRUN --mount=type=ssh git clone git@%s:%s /src\n" % (host, repo),
        "--- a/.gitmodules\n+++ b/.gitmodules\n@@ -1,3 +1,3 @@\n [submodule \"protos\"]\n-\turl = https://%s/%s\n+\turl = git@%s:%s\n" % (host, repo, host, repo),
        "[Service]\nExecStartPre=/usr/bin/git -C /srv/app pull git@%s:%s main\n" % (host, repo),
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "mixed_language_chat_no_person", False)
def _():
    return pick([
        "deploy'as baigtas, rytoj 9:30 retro — ok?",
        "build je spet rdeč, nekdo je pozabil posodobiti lockfile",
        "реліз переносимо на %s, чекаємо на QA" % when(),
        "la réunion est décalée à 14h, salle %d" % R.randint(100, 450),
        "el servidor de pruebas se reinicia cada %d minutos, ya abrí un ticket" % R.randint(5, 60),
        "ok so the invoice batch of %d rows went through, only %d failed" % (R.randint(100, 9000), R.randint(0, 20)),
        "hai să mutăm standup-ul la 10, prea multe ședințe azi",
    ])


# ---- benign_code -------------------------------------------------------------------------------


@shape("benign_code", "dockerfile_systemd_no_secret", False)
def _():
    return pick([
        "FROM node:22-alpine\nENV NODE_ENV=production PORT=%d\nARG BUILD_SHA\nENV API_KEY_FILE=/run/secrets/api_key\nCMD [\"node\", \"server.js\"]\n" % R.randint(3000, 9000),
        "[Service]\nEnvironment=GOMAXPROCS=2\nEnvironment=TOKEN_PATH=%%d/token\nLoadCredential=token:/etc/app/token\nExecStart=/usr/local/bin/app --port %d\n" % R.randint(3000, 9000),
        "$ printenv | sort\nHOME=/home/app\nLANG=C.UTF-8\nPORT=%d\nSECRET_NAME=prod/app/db\nVAULT_ADDR=https://vault.internal:8200\n" % R.randint(3000, 9000),
    ])


@shape("benign_code", "protobuf_soap_products", False)
def _():
    sku = "SKU-%s-%s" % (chars(3, "ABCDEFGHJKLMNPQRSTUVWXYZ"), digits(5))
    return pick([
        "# proto-message: Product\nsku: \"%s\"\ntitle: \"%s\"\nprice { currency_code: \"EUR\" units: %d nanos: %d }\nstock: %d\n" % (
            sku, pick(["Termosas 0,5 l", "Planinska palica", "Чашка керамічна"]), R.randint(1, 200), R.randint(0, 99) * 10000000, R.randint(0, 500)),
        "<soap:Envelope xmlns:soap=\"http://www.w3.org/2003/05/soap-envelope\"><soap:Body><GetStockResponse><sku>%s</sku><qty>%d</qty>"
        "<warehouse>%s</warehouse></GetStockResponse></soap:Body></soap:Envelope>" % (sku, R.randint(0, 900), pick(["KUN-1", "LJU-2", "LWO-3"])),
    ])


# ---- benign_health -----------------------------------------------------------------------------


@shape("benign_health", "guidelines_and_catalogue", False)
def _():
    return pick([
        "OBR|1||%s|%s^HbA1c panel^L|||%s" % (digits(6), digits(5), digits(12)),
        "Guideline update: adults with type 2 diabetes should have HbA1c checked every %d months." % pick([3, 6]),
        "Pakuotės lapelis: vartoti po %d tabletę %d kartus per dieną; nevartoti nėštumo metu." % (R.randint(1, 2), R.randint(1, 3)),
        "Kampanja: brezplačno presejanje za raka dojke za ženske med 50 in 69 letom.",
        "Тиждень обізнаності про депресію: лінія підтримки працює цілодобово.",
        "Le dépistage de la tuberculose est gratuit dans les centres de santé jusqu'au %s." % when(),
    ])


# ---- benign_names ------------------------------------------------------------------------------


@shape("benign_names", "eponyms_in_commits_and_places", False)
def _():
    return pick([
        "perf: replace %s with %s for the route planner" % (pick(["Bellman-Ford", "Floyd-Warshall"]), pick(["Dijkstra", "A* with Manhattan heuristic"])),
        "feat: fuzzy match with Levenshtein distance ≤ %d" % R.randint(1, 3),
        "fix: Kalman filter diverged when GPS dropped out",
        "Delivery hub moved to Gedimino prospektas %d, Vilnius" % R.randint(1, 60),
        "Meet at Prešernov trg by the statue",
        "Warehouse on Avenida Mariscal López, Asunción",
        "the stop near Léopold Sédar Senghor airport is closed",
        "docs: explain the Bayes estimator and Newton–Raphson step",
    ])


# ---- benign_secretlike -------------------------------------------------------------------------


@shape("benign_secretlike", "env_printout_placeholders", False)
def _():
    return pick([
        "$ printenv | grep -i token\nGITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}\nNPM_TOKEN=<redacted>\n",
        "ENV HEROKU_API_KEY=changeme\nENV TAVILY_API_KEY=your-api-key-here\n",
        "Environment=\"TS_AUTHKEY=%%(ENV_TS_AUTHKEY)s\"\nEnvironment=TELEGRAM_BOT_TOKEN=xxxxxxxx:XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\n",
        "FROM python:3.12-slim@sha256:%s\nLABEL org.opencontainers.image.revision=%s\n" % (chars(64, HEX), chars(40, HEX)),
        "INVOCATION_ID=%s\nJOURNAL_STREAM=8:%d\nSYSTEMD_EXEC_PID=%d\n" % (chars(32, HEX), R.randint(10000, 99999), R.randint(100, 9999)),
    ])


@shape("benign_secretlike", "storage_ids_and_public_keys", False)
def _():
    return pick([
        json.dumps({"localStorage": {"deviceId": uuid(), "ab_bucket": chars(8, HEX), "etag": "W/\"%s\"" % chars(27, HEX), "lastSync": stamp()}}),
        "index %s..%s 100644\n--- a/public/app.%s.js\n+++ b/public/app.%s.js\n" % (chars(7, HEX), chars(7, HEX), chars(8, HEX), chars(8, HEX)),
        "-- signing key published for verifiers --\n%s" % public_key_pem(),
        "X-Request-Id: %s\nX-Trace-Id: %s\n" % (uuid(), chars(32, HEX)),
    ])
