"""Must-block shapes of the seventh probe: SQL result grids, browser storage dumps, protobuf text
format, transcribed voicemail, Slack and Teams exports, numbers written as the country code and one
run of digits, SOAP envelopes, OCR'd ID cards, diff hunks and commit messages, HL7 v2 messages,
Dockerfiles, systemd units, environment printouts, crash reports and patches, in Lithuanian,
Slovene, Ukrainian, Romanian of Moldova, French of West Africa, Spanish of Bolivia, Paraguay,
Panama, Guatemala and the Dominican Republic, Arabic, and English mixed with them."""

import base64
import json

from probe7_values import (B62, HEX, LATIN, R, URLSAFE, b64, birth, card, chars, digits, email, full, iban, national,
                           password, person, phone, phone_long_run, phone_of, pick, private_key_pem, shape, stamp, token,
                           uuid, vendor, when)

# ---- struct_pii --------------------------------------------------------------------------------


def _grid(head, rows):
    """A psql-style result grid."""
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: " " + " | ".join(str(c).ljust(w[i]) for i, c in enumerate(r))
    out = [line(head), "-" + "-+-".join("-" * x for x in w) + "-"]
    out += [line(r) for r in rows]
    out.append("(%d row%s)" % (len(rows), "" if len(rows) == 1 else "s"))
    return "\n".join(out)


@shape("struct_pii", "sql_result_grid", True)
def _():
    rows = []
    for _ in range(R.randint(1, 4)):
        o = pick(LATIN)
        f, l = person(o)
        rows.append([R.randint(1000, 99999), full(f, l), email(f, l, o), phone_of(o)])
    q = pick(["SELECT id, full_name, email, mobile FROM customers WHERE created_at > now() - interval '1 day';",
              "select id, name, mail, tel from klientai where miestas = 'Kaunas';",
              "SELECT u.id, u.display_name, u.email, p.phone FROM users u JOIN profiles p USING (id) LIMIT 4;"])
    return "%s\n%s" % (q, _grid(["id", "name", "email", "phone"], rows)), ["name", "email", "phone"]


@shape("struct_pii", "browser_storage_dump", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    prof = {"displayName": full(f, l), "email": email(f, l, o), "tel": phone_of(o), "locale": pick(["lt-LT", "sl-SI", "uk-UA", "fr-SN", "es-BO"])}
    store = {"localStorage": {"theme": "dark", "cart_v2": json.dumps({"items": R.randint(1, 5)}), "auth.profile": json.dumps(prof, ensure_ascii=False),
                              "lastSeen": stamp()},
             "origin": pick(["https://shop.example.lt", "https://app.example.si", "https://portal.example.com.bo"])}
    return pick([
        "> Object.entries(localStorage)\n" + json.dumps(list(store["localStorage"].items()), ensure_ascii=False),
        json.dumps(store, ensure_ascii=False, indent=1),
    ]), ["name", "email", "phone"]


@shape("struct_pii", "protobuf_text_format", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    return ("# proto-file: crm/v1/contact.proto\n# proto-message: Contact\ncontact_id: %d\ndisplay_name: \"%s\"\n"
            "emails { address: \"%s\" primary: true }\nphones { number: \"%s\" kind: MOBILE }\n"
            "address { locality: \"%s\" country_code: \"%s\" }\n" % (
                R.randint(10 ** 6, 10 ** 7), full(f, l), email(f, l, o), phone_of(o),
                pick(["Šiauliai", "Maribor", "Lviv", "Thiès", "Cochabamba", "Encarnación"]), o.upper()[:2])), ["name", "email", "phone"]


# ---- intl_phone --------------------------------------------------------------------------------


@shape("intl_phone", "voicemail_transcript", True)
def _():
    region, n, s = phone()
    filler = pick(["uh", "um", "eh", "ehm"])
    parts = s.split(" ")
    if len(parts) > 2 and R.random() < 0.5:
        k = R.randint(1, len(parts) - 1)
        s = " ".join(parts[:k] + [filler] + parts[k:])
    lead = pick(["Hi, it's about the flat on Žirmūnų, please call me back on %s, thanks",
                 "Dober dan, pokličite me nazaj na %s, hvala",
                 "Добрий день, передзвоніть мені на %s будь ласка",
                 "Bonjour, rappelez-moi au %s s'il vous plaît",
                 "Hola, le habla por lo del pedido, mi número es %s",
                 "hey so my number changed it's %s okay bye"])
    return {"voicemail": {"from": "unknown", "duration_s": R.randint(8, 70), "received": stamp(),
                          "transcription": {"text": lead % s, "confidence": round(R.uniform(0.6, 0.95), 2), "engine": pick(["asr-v3", "whisper-large"])}}}, ["phone"]


@shape("intl_phone", "slack_teams_export", True)
def _():
    _, _, s = phone()
    text = pick(["can u ping the courier, his mob is %s", "ось мій новий номер %s, пишіть у вайбер", "mano naujas nr. %s",
                 "moja nova številka: %s", "mon numéro wave c'est %s", "mi cel %s, escríbeme por whatsapp",
                 "reach me on %s while I'm in Yerevan"]) % s
    if R.random() < 0.5:
        return {"type": "message", "user": "U0" + chars(8, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), "ts": "%d.%06d" % (R.randint(1.7e9, 1.8e9), R.randint(0, 999999)),
                "text": text, "blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}]}]}, ["phone"]
    return {"@odata.type": "#microsoft.graph.chatMessage", "id": str(R.randint(10 ** 12, 10 ** 13)), "createdDateTime": stamp(),
            "body": {"contentType": "html", "content": "<p>%s</p>" % text}, "from": {"user": {"id": uuid()}}}, ["phone"]


@shape("intl_phone", "country_code_long_run", True)
def _():
    s = phone_long_run()
    return pick([
        "contact form submitted: phone=%s, consent=yes" % s,
        json.dumps({"tool": "update_lead", "arguments": {"lead_id": "L-%s" % digits(6), "phone": s}}),
        "Kunde bittet um Rückruf unter %s (ab 16 Uhr)" % s,
        "<Contact><Mobile>%s</Mobile></Contact>" % s,
        "lead.phone changed: '' -> '%s'" % s,
    ]), ["phone"]


# ---- national_id -------------------------------------------------------------------------------


@shape("national_id", "soap_envelope", True)
def _():
    scheme = pick(["lt", "is", "si", "gb", "pe"])
    label, val = national(scheme)
    tag = {"lt": "asmensKodas", "is": "kennitala", "si": "emso", "gb": "nhsNumber", "pe": "numeroDocumento"}[scheme]
    return ('<?xml version="1.0"?>\n<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
            'xmlns:reg="urn:example:registry:v2">\n <soapenv:Header/>\n <soapenv:Body>\n  <reg:LookupPerson>\n'
            '   <reg:%s>%s</reg:%s>\n   <reg:purpose>%s</reg:purpose>\n  </reg:LookupPerson>\n </soapenv:Body>\n</soapenv:Envelope>' % (
                tag, val, tag, pick(["KYC", "eligibility", "referral"]))), ["national_id"]


@shape("national_id", "ocr_id_card_screenshot", True)
def _():
    scheme = pick(["lt", "is", "si", "pe"])
    label, val = national(scheme)
    o = {"lt": "lt", "is": "lt", "si": "sl", "pe": "bo"}[scheme]
    f, l = person(o)
    card_lines = {"lt": "LIETUVOS RESPUBLIKA / REPUBLIC OF LITHUANIA\nASMENS TAPATYBĖS KORTELĖ\nPavardė/Surname %s\nVardas/Given name %s\nAsmens kodas/Personal code %s" % (l.upper(), f.upper(), val),
                  "is": "ÍSLAND / ICELAND\nNafn / Name %s %s\nKennitala %s" % (f.upper(), l.upper(), val),
                  "si": "REPUBLIKA SLOVENIJA\nOSEBNA IZKAZNICA\nPriimek %s Ime %s\nEMŠO %s" % (l.upper(), f.upper(), val),
                  "pe": "REPÚBLICA DEL PERÚ\nDOCUMENTO NACIONAL DE IDENTIDAD\nDNI %s\nApellidos %s Nombres %s" % (val, l.upper(), f.upper())}[scheme]
    return "[screenshot.png — text extracted]\n%s\n[end of extracted text]" % card_lines, ["national_id", "name"]


# ---- dob_context -------------------------------------------------------------------------------


@shape("dob_context", "diff_hunk_fixture", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    d = birth()
    return ("commit %s\nAuthor: dev <dev@example.com>\n\n    seed: add the customer from ticket #%s to reproduce the bug\n\n"
            "--- a/fixtures/customers.yaml\n+++ b/fixtures/customers.yaml\n@@ -%d,3 +%d,6 @@\n   status: active\n"
            "+- name: %s\n+  date_of_birth: %s\n+  status: pending\n" % (
                chars(40, HEX), digits(5), R.randint(10, 90), R.randint(10, 90), full(f, l), d)), ["name", "dob"]


@shape("dob_context", "mixed_language_chat_birth", True)
def _():
    lang = pick(["lt", "sl", "uk", "ro", "fr", "es"])
    o = {"lt": "lt", "sl": "sl", "uk": "uk_cyr", "ro": "md", "fr": "sn", "es": "py"}[lang]
    f, l = person(o)
    d = birth(lang)
    line = {"lt": "ok so %s gimė %s, įrašyk į formą", "sl": "%s je rojen %s, prosim dopolni", "uk": "%s народилася %s, внеси в анкету",
            "ro": "%s s-a născut pe %s, completează te rog", "fr": "%s est née le %s, tu peux mettre à jour ?",
            "es": "%s nació el %s, actualizalo porfa"}[lang] % (full(f, l), d)
    return "[%s] %s: %s" % (stamp()[11:16], pick(["ops", "hr-bot", "mika"]), line), ["name", "dob"]


# ---- names_context -----------------------------------------------------------------------------


@shape("names_context", "meeting_transcript_speakers", True)
def _():
    o1, o2 = pick(LATIN), pick(LATIN)
    a, b = person(o1), person(o2)
    lines = ["[00:%02d:%02d] %s: %s" % (R.randint(0, 59), R.randint(0, 59), full(*a), pick(["Let's start with the renewal.", "Can everyone hear me?"])),
             "[00:%02d:%02d] %s: %s" % (R.randint(0, 59), R.randint(0, 59), full(*b), pick(["I spoke to the landlord yesterday.", "I'll send the draft tonight."]))]
    return "Teams meeting transcript — %s\n%s" % (when(), "\n".join(lines)), ["name"]


@shape("names_context", "commit_message_person", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    return pick([
        "fix(billing): refund was sent to the wrong account for %s\n\nShe called support twice; see ticket %s." % (full(f, l), digits(6)),
        "hotfix: unblock login for %s (locked out after password reset)" % full(f, l),
        "chore: remove %s's home address from the demo seed, she asked us to" % full(f, l),
        "revert \"merge accounts\" — %s and her brother share a device\n" % full(f, l),
    ]), ["name"]


# ---- health ------------------------------------------------------------------------------------


@shape("health", "hl7_v2_message", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    dx = pick([("E11.9", "Type 2 diabetes mellitus without complications"), ("F32.1", "Moderate depressive episode"),
               ("C50.911", "Malignant neoplasm of right female breast"), ("B20", "HIV disease"), ("J45.40", "Moderate persistent asthma"),
               ("G40.909", "Epilepsy, unspecified"), ("F10.20", "Alcohol dependence, uncomplicated")])
    d = birth().replace("-", "").replace(".", "").replace("/", "")
    return ("MSH|^~\\&|LAB|CLINIC|EHR|HOSP|%s||ADT^A08|%s|P|2.5\rPID|1||%s^^^MRN||%s^%s||%s|%s\rDG1|1||%s^%s^I10||%s|F" % (
        digits(12), digits(8), digits(7), l.upper(), f.upper(), d, pick("MF"), dx[0], dx[1], digits(8))), ["name", "health"]


@shape("health", "chat_sick_note_mixed", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    cond = pick(["chemo for lymphoma", "dialysis three times a week", "treatment for bipolar disorder", "rehab for opioid addiction",
                 "радіотерапію після операції на щитовидці", "chemoterapiją dėl leukemijos", "zdravljenje depresije",
                 "un traitement contre la tuberculose", "tratamiento por VIH"])
    return pick([
        "fyi %s won't be in this week — %s. pls don't mention it in the standup" % (full(f, l), cond),
        "heads up: %s is doing %s, can we move her deadline?" % (full(f, l), cond),
        "%s (accounts) — %s, HR knows" % (full(f, l), cond),
    ]), ["name", "health"]


# ---- vendor_secret -----------------------------------------------------------------------------


@shape("vendor_secret", "dockerfile_env", True)
def _():
    _, env, tok = vendor()
    return ("FROM %s\nWORKDIR /app\nCOPY . .\n%s %s=%s\nRUN %s\nCMD [\"%s\"]\n" % (
        pick(["python:3.12-slim", "node:22-alpine", "eclipse-temurin:21-jre", "golang:1.23"]), pick(["ENV", "ARG"]), env,
        pick([tok, '"%s"' % tok]), pick(["pip install -r requirements.txt", "npm ci --omit=dev", "go build -o /bin/app ./cmd/app"]),
        pick(["python", "node", "/bin/app"]))), ["secret"]


@shape("vendor_secret", "systemd_unit_environment", True)
def _():
    _, env, tok = vendor()
    return ("# /etc/systemd/system/%s.service\n[Unit]\nDescription=%s\nAfter=network-online.target\n\n[Service]\n"
            "Environment=\"%s=%s\"\nEnvironment=LOG_LEVEL=info\nExecStart=/usr/local/bin/%s\nRestart=on-failure\n\n[Install]\nWantedBy=multi-user.target\n" % (
                pick(["notifier", "uploader", "bridge"]), pick(["Notification relay", "Media uploader", "Bot bridge"]), env, tok,
                pick(["notifier", "uploader", "bridge"]))), ["secret"]


# ---- url_credentials ---------------------------------------------------------------------------


@shape("url_credentials", "env_printout_urls", True)
def _():
    user = pick(["app", "svc_orders", "admin", "report_ro", "vilnius_etl"])
    pw = pick([token(R.randint(12, 24)), password().replace("@", "%40").replace("#", "%23").replace("/", "%2F").replace(":", "%3A").replace("?", "%3F")])
    url = pick(["amqps://%s:%s@mq.internal:5671/%%2Fprod", "mongodb+srv://%s:%s@cluster0.%s.mongodb.net/app?retryWrites=true",
                "ldaps://%s:%s@ldap.corp.example:636", "sftp://%s:%s@files.partner.example:22/in", "redis://%s:%s@10.0.%d.%d:6379/0",
                "mssql://%s:%s@sql01:1433/erp"])
    n = url.count("%s")
    if n == 3:
        url = url % (user, pw, chars(5, "abcdefghijklmnopqrstuvwxyz0123456789"))
    elif "10.0" in url:
        url = url % (user, pw, R.randint(0, 255), R.randint(1, 254))
    else:
        url = url % (user, pw)
    env = pick(["BROKER_URL", "MONGO_URI", "LDAP_URL", "SFTP_TARGET", "CACHE_URL", "ERP_DSN"])
    return "$ printenv | sort\nHOME=/home/app\nHOSTNAME=%s\n%s=%s\nPATH=/usr/local/bin:/usr/bin\nTZ=UTC\n" % (
        chars(12, HEX), env, url), ["url_credentials"]


# ---- password_prose ----------------------------------------------------------------------------


@shape("password_prose", "mixed_language_chat_password", True)
def _():
    pw = password()
    return pick([
        "пароль від роутера: %s (не кажи нікому)" % pw,
        "slaptažodis į admin panelę yra %s" % pw,
        "geslo za wifi je %s btw" % pw,
        "le mot de passe du compte orange money c'est %s" % pw,
        "la contraseña del correo es %s, cámbiala después" % pw,
        "the vpn pass is %s — i'll rotate it friday" % pw,
        "parola de la contul de bancă e %s" % pw,
    ]), ["password"]


@shape("password_prose", "tool_call_login_args", True)
def _():
    pw = password()
    user = pick(["rasa.k", "matej_n", "admin", "oksana.sh", "wilma.m"])
    return pick([
        {"tool_calls": [{"function": {"name": "browser.fill_login", "arguments": json.dumps({"username": user, "password": pw})}}]},
        {"action": "ssh_exec", "input": {"host": "10.2.%d.%d" % (R.randint(0, 255), R.randint(1, 254)), "user": user, "pass": pw, "cmd": "uptime"}},
        {"step": 3, "thought": "the user gave me their login, I'll use it", "tool": "portal_login", "args": {"login": user, "pwd": pw}},
    ]), ["password"]


# ---- keyword_token -----------------------------------------------------------------------------


@shape("keyword_token", "crash_report_headers", True)
def _():
    tok = token(R.randint(32, 48), pick([B62, HEX, URLSAFE]))
    hdr = pick(["Authorization: Bearer %s", "X-Api-Key: %s", "X-Auth-Token: %s", "Cookie: sessionid=%s", "X-Session-Secret: %s"]) % tok
    return ("*** Crash report ***\nApp: %s %d.%d.%d (build %s)\nSignal: SIGSEGV at 0x%s\nLast request:\n  POST /api/v2/sync HTTP/1.1\n  Host: api.example.net\n  %s\n"
            "Thread 0 crashed:\n 0  libapp.so  0x%s sync_flush + %d\n" % (
                pick(["Kasa", "Nakupi", "Dostavka"]), R.randint(1, 9), R.randint(0, 20), R.randint(0, 99), digits(5), chars(12, HEX), hdr,
                chars(12, HEX), R.randint(4, 400))), ["secret"]


# ---- pem_key -----------------------------------------------------------------------------------


@shape("pem_key", "patch_adding_key", True)
def _():
    pem = private_key_pem().strip().split("\n")
    path = pick(["deploy/keys/edge.pem", "config/tls/client.key", "secrets/signing.key"])
    return ("diff --git a/%s b/%s\nnew file mode 100600\nindex 0000000..%s\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n%s\n" % (
        path, path, chars(7, HEX), path, len(pem), "\n".join("+" + x for x in pem))), ["private_key"]


# ---- encoded -----------------------------------------------------------------------------------


@shape("encoded", "storage_base64_profile", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    inner = json.dumps({"name": full(f, l), "email": email(f, l, o), "phone": phone_of(o)}, ensure_ascii=False)
    enc = pick([b64(inner), base64.urlsafe_b64encode(inner.encode()).decode().rstrip("=")])
    return pick([
        "document.cookie\n'_ga=GA1.2.%s.%s; profile=%s; lang=lt'" % (digits(9), digits(10), enc),
        json.dumps({"sessionStorage": {"checkout.contact": enc, "step": "2"}}),
        "Set-Cookie: u=%s; Path=/; Secure; SameSite=Lax" % enc,
    ]), ["name", "email", "phone"]


# ---- split_json --------------------------------------------------------------------------------


@shape("split_json", "protobuf_json_split_fields", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    mail = email(f, l, o)
    local, host = mail.split("@")
    ib = iban().replace(" ", "")
    if R.random() < 0.5:
        return {"payer": {"givenName": f, "familyName": l, "emailLocalPart": local, "emailDomain": host}}, ["email", "name"]
    chunks = [ib[i:i + 4] for i in range(0, len(ib), 4)]
    return {"sepaForm": {"holder": full(f, l), "ibanGroups": chunks, "bic": pick(["HABALT22", "LJBASI2X", "PBANUA2X"])}}, ["iban", "name"]


# ---- error_text --------------------------------------------------------------------------------


@shape("error_text", "crash_report_exception_values", True)
def _():
    o = pick(LATIN)
    f, l = person(o)
    mail = email(f, l, o)
    ph = phone_of(o)
    return pick([
        ("Exception in thread \"worker-3\" java.lang.IllegalStateException: duplicate contact %s <%s>\n\tat lt.example.crm.Merge.apply(Merge.java:%d)" % (
            full(f, l), mail, R.randint(20, 400)), ["name", "email"]),
        ("panic: send sms: provider rejected %s: insufficient balance\n\ngoroutine %d [running]:\nmain.notify(...)" % (ph, R.randint(1, 90)), ["phone"]),
        ("Traceback (most recent call last):\n  File \"sync.py\", line %d, in push\nValueError: contact %s has invalid email %s" % (
            R.randint(10, 300), full(f, l), mail), ["name", "email"]),
        ("SQLSTATE[23505]: Unique violation: Key (email)=(%s) already exists." % mail, ["email"]),
    ])
