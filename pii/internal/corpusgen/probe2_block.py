"""The second probe's must-block shapes: each function makes one row; @shape runs it PER times."""

import json
import urllib.parse

from probe2_values import *  # noqa: F401,F403


# ---- struct_pii ------------------------------------------------------------------------------

@shape("struct_pii", "csv_export", True)
def _():
    rows = []
    for _ in range(R.randint(2, 4)):
        n = full_name()
        rows.append("%d,%s,%s,%s" % (R.randint(1000, 9999), n.replace(",", ""), email_of(n), pick(["active", "churned", "trial"])))
    return {"tool": pick(["sheets.read_range", "db.export_csv", "files.read"]),
            "result": {"mime": "text/csv", "content": "id,full_name,email,status\n" + "\n".join(rows) + "\n"}}, ["email", "name"]


@shape("struct_pii", "sql_insert", True)
def _():
    n = full_name()
    c = card()
    kind = pick(["email", "card"])
    if kind == "email":
        return ("INSERT INTO customers (id, display_name, email, created_at) VALUES (%d, '%s', '%s', '%s');"
                % (R.randint(1, 99999), n.replace("'", "''"), email_of(n), ts())), ["email", "name"]
    return ("INSERT INTO payments (order_id, pan, exp, amount_cents) VALUES ('%s', '%s', '%02d/%02d', %d);"
            % ("PO-%d" % R.randint(10000, 99999), c, R.randint(1, 12), R.randint(27, 32), R.randint(100, 99999))), ["card"]


@shape("struct_pii", "email_signature", True)
def _():
    loc = pick(LATIN)
    n = full_name(loc)
    _, nat, intl = phone()
    return ("%s\n\n%s\n%s | %s\n%s\nm: %s\n%s" % (
        pick(["Thanks for the quick turnaround, see attached.", "Tack för hjälpen!", "Díky, ozvu se zítra.",
              "Teşekkürler, yarın görüşürüz.", "Obrigado, fico a aguardar."]),
        pick(["Best,", "Med vänlig hälsning,", "S pozdravem,", "Saygılarımla,", "Cumprimentos,", "--"]),
        n, pick(["Head of Procurement", "Account Manager", "Senior Buyer", "CTO"]), fk(loc).company(),
        intl, email_of(n))), ["email", "name", "phone"]


@shape("struct_pii", "records_array", True)
def _():
    recs = []
    for _ in range(R.randint(1, 3)):
        loc = pick(ADDRESS_LOCALES)
        recs.append({"customer_no": "C%06d" % R.randint(1, 999999), "ship_to": {"name": full_name(loc), "address": address(loc)},
                     "items": R.randint(1, 5)})
    return {"tool": "warehouse.pending_shipments", "result": {"count": len(recs), "records": recs}}, ["address", "name"]


@shape("struct_pii", "allcaps_careless", True)
def _():
    n = full_name()
    e = email_of(n)
    c = card()
    return pick([
        ("PLS UPDATE MY EMAIL TO %s ASAP THE OLD ONE IS DEAD" % e.upper(), ["email"]),
        ("customer %s wants receipt resent to %s thx" % (n.lower(), e), ["email", "name"]),
        ("CARD ON FILE %s EXPIRED CHARGE THIS ONE INSTEAD %s" % (card_spaced(card()), card_spaced(c)), ["card"]),
        ("pay with %s cvv %03d" % (c, R.randint(100, 999)), ["card"]),
    ])


@shape("struct_pii", "iban_xml", True)
def _():
    ib = iban()
    return ("<CdtTrfTxInf><Amt><InstdAmt Ccy=\"EUR\">%d.%02d</InstdAmt></Amt><Cdtr><Nm>%s</Nm></Cdtr>"
            "<CdtrAcct><Id><IBAN>%s</IBAN></Id></CdtrAcct><RmtInf><Ustrd>%s</Ustrd></RmtInf></CdtTrfTxInf>"
            % (R.randint(10, 9000), R.randint(0, 99), full_name(), ib, "INV %d" % R.randint(1000, 99999))), ["iban", "name"]


# ---- intl_phone ------------------------------------------------------------------------------

@shape("intl_phone", "vcard", True)
def _():
    loc = pick(LATIN)
    n = full_name(loc)
    cc, nat, intl = phone()
    return {"attachment": {"filename": "contact.vcf", "text": "BEGIN:VCARD\nVERSION:3.0\nFN:%s\nTEL;TYPE=CELL:%s\nEND:VCARD\n" % (n, pick([intl, intl.replace(" ", ""), nat]))}}, ["name", "phone"]


@shape("intl_phone", "careless_sms", True)
def _():
    cc, nat, intl = phone()
    d = intl.replace(" ", "").replace("-", "")
    form = pick([
        lambda: d,
        lambda: "(" + d[:3] + ") " + ".".join([d[3:6], d[6:9], d[9:]]),
        lambda: "00" + d[1:],
        lambda: nat.replace(" ", ".").replace("-", "."),
        lambda: nat.replace(" ", ""),
    ])()
    say = {"SE": "ring mig på %s", "NO": "ring meg på %s", "DK": "ring til mig på %s", "FI": "soita %s kiitos",
           "PL": "numer do mnie %s", "CZ": "zavolejte mi na %s", "PT": "liga-me para o %s", "CH": "ruf mi a uf %s",
           "AT": "ruf mich an unter %s", "MX": "mi cel es %s mandame whats", "KR": "연락처 %s 로 전화주세요",
           "TR": "bana %s numarasından ulaşın", "NZ": "pls call bck on %s after 5", "HU": "hívj a %s számon"}[cc]
    return say % form, ["phone"]


@shape("intl_phone", "wa_link", True)
def _():
    cc, nat, intl = phone()
    d = intl.replace(" ", "").replace("-", "").lstrip("+")
    return pick([
        "[Chat on WhatsApp](https://wa.me/%s)" % d,
        "<a href=\"tel:+%s\">Call the site manager</a>" % d,
        "Reach the driver: https://api.whatsapp.com/send?phone=%s&text=hi" % d,
    ]), ["phone"]


@shape("intl_phone", "json_contact_fields", True)
def _():
    cc, nat, intl = phone()
    return {"contact": {"region": cc, pick(["mobile", "cell", "gsm", "handy", "tel"]): pick([nat, intl]),
                        "preferred_channel": pick(["sms", "call", "whatsapp"])}}, ["phone"]


# ---- national_id -----------------------------------------------------------------------------

@shape("national_id", "ini_record", True)
def _():
    label, v, typ = national()
    n = full_name()
    key = {"DNI": "dni", "NIE": "nie", "PESEL": "pesel", "Steuer-ID": "steuer_id", "TFN": "tfn",
           "Medicare card": "medicare_no", "NI number": "ni_number"}[label]
    return "[employee]\nname = %s\n%s = %s\ncost_center = CC-%d\n" % (n, key, v, R.randint(100, 999)), [typ, "name"]


@shape("national_id", "lowercase_chat", True)
def _():
    label, v, typ = national()
    return pick(["my %s is %s if u need it", "ok here %s: %s", "%s %s dont share pls",
                 "numer %s to %s", "el %s es %s"]) % (label.lower(), v.lower()), [typ]


@shape("national_id", "tool_args", True)
def _():
    label, v, typ = national()
    country = {"DNI": "ES", "NIE": "ES", "PESEL": "PL", "Steuer-ID": "DE", "TFN": "AU", "Medicare card": "AU", "NI number": "GB"}[label]
    return {"tool": "kyc.verify", "args": {"document_type": label, "document_number": v, "country": country}}, [typ]


# ---- dob_context -----------------------------------------------------------------------------

@shape("dob_context", "sql_patient", True)
def _():
    y, m, d = R.randint(1940, 2008), R.randint(1, 12), R.randint(1, 28)
    return ("INSERT INTO patients (mrn, full_name, birth_date) VALUES ('%s', '%s', '%04d-%02d-%02d');"
            % ("M%07d" % R.randint(0, 9999999), full_name().replace("'", "''"), y, m, d)), ["dob", "name"]


@shape("dob_context", "multiscript_prose", True)
def _():
    y, m, d = R.randint(1940, 2008), R.randint(1, 12), R.randint(1, 28)
    return pick([
        "Född %04d-%02d-%02d enligt passet." % (y, m, d),
        "Urodzony %02d.%02d.%04d w Krakowie." % (d, m, y),
        "Дата рождения: %02d.%02d.%04d" % (d, m, y),
        "생년월일: %04d년 %d월 %d일" % (y, m, d),
        "Doğum tarihi %02d/%02d/%04d" % (d, m, y),
        "Syntynyt %d.%d.%04d" % (d, m, y),
        "Datum narození: %d. %d. %04d" % (d, m, y),
        "Születési dátum: %04d. %02d. %02d." % (y, m, d),
        "Ημερομηνία γέννησης: %02d/%02d/%04d" % (d, m, y),
    ]), ["dob"]


@shape("dob_context", "yaml_profile", True)
def _():
    y, m, d = R.randint(1940, 2008), R.randint(1, 12), R.randint(1, 28)
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    val = pick(["%04d-%02d-%02d" % (y, m, d), "%d %s %04d" % (d, months[m - 1], y), "%02d/%02d/%02d" % (m, d, y % 100)])
    return "member:\n  handle: %s\n  born: %s\n  plan: %s\n" % (chars(8, string.ascii_lowercase), val, pick(["family", "solo"])), ["dob"]


# ---- names_context ---------------------------------------------------------------------------

@shape("names_context", "signoff_only", True)
def _():
    loc = pick(LATIN)
    return "%s\n\n%s\n%s\n%s" % (
        pick(["I've reviewed the contract and left comments on clause 4.", "Attached is the revised quote.",
              "Jag har skickat över underlaget.", "Posílám upravenou nabídku."]),
        pick(["Kind regards,", "Cheers,", "Hälsningar,", "S pozdravem,", "Un saludo,"]), full_name(loc),
        pick(["Procurement", "Legal Ops", "Field Service", ""])), ["name"]


@shape("names_context", "markdown_owner", True)
def _():
    rows = "\n".join("| %s | %s | %s |" % (pick(["fix login", "migrate db", "Q3 report", "vendor audit", "onboarding"]),
                                          full_name(), pick(["open", "done", "blocked"])) for _ in range(R.randint(1, 3)))
    return "| task | owner | status |\n|---|---|---|\n" + rows, ["name"]


@shape("names_context", "lowercase_mention", True)
def _():
    n = full_name().lower()
    return pick(["talked to %s yesterday and she is fine with the new price",
                 "can u ask %s if the shipment left",
                 "%s called again about the refund, 3rd time",
                 "pinged %s on slack no answer yet"]) % n, ["name"]


@shape("names_context", "approval_json", True)
def _():
    loc = pick(LATIN + SCRIPTS)
    return {"approval": {"request_id": "AR-%d" % R.randint(1000, 99999), pick(["approved_by", "requested_by", "assignee", "reviewer"]): full_name(loc),
                         "decision": pick(["approved", "rejected"]), "at": ts()}}, ["name"]


@shape("names_context", "script_names", True)
def _():
    loc = pick(SCRIPTS)
    n = full_name(loc)
    return {"ru_RU": "Клиент %s просит перезвонить.", "uk_UA": "Звернувся %s щодо замовлення.",
            "el_GR": "Ο πελάτης %s ζήτησε επιστροφή χρημάτων.", "ko_KR": "%s 고객님이 환불을 요청하셨습니다.",
            "zh_TW": "客戶%s要求退款。"}[loc] % n, ["name"]


# ---- health ----------------------------------------------------------------------------------

RX = [("atorvastatin 20 mg", "hyperlipidaemia"), ("levothyroxine 50 mcg", "hypothyroidism"),
      ("fluoxetine 20 mg", "depression"), ("adalimumab 40 mg", "psoriatic arthritis"),
      ("emtricitabine/tenofovir", "HIV PrEP"), ("methylphenidate 10 mg", "ADHD"),
      ("apixaban 5 mg", "atrial fibrillation"), ("pregabalin 75 mg", "fibromyalgia"),
      ("buprenorphine", "opioid use disorder"), ("letrozole 2.5 mg", "breast cancer"),
      ("mesalazine 800 mg", "ulcerative colitis"), ("olanzapine 10 mg", "schizophrenia")]


@shape("health", "pharmacy_order", True)
def _():
    drug, why = pick(RX)
    return {"rx_order": {"patient_ref": "P-%d" % R.randint(10000, 99999), "patient_name": full_name(),
                         "drug": drug, "indication": why, "refills": R.randint(0, 5)}}, ["health", "name"]


@shape("health", "sick_note_multilang", True)
def _():
    n = full_name()
    return pick([
        "Hej, %s är sjukskriven resten av veckan på grund av utmattningssyndrom." % n,
        "%s je v pracovní neschopnosti kvůli výhřezu ploténky." % n,
        "%s ist wegen einer Lungenentzündung bis Freitag krankgeschrieben." % n,
        "%s raporlu, migren ataklari yüzünden iki gün gelemeyecek." % n,
        "%s está de baixa médica por depressão." % n,
        "FYI %s is out, her chemo for lymphoma got moved to Tuesday." % n,
    ]), ["health", "name"]


@shape("health", "careless_abbrev", True)
def _():
    return pick([
        "fyi my son was dx w/ %s last wk and is on %s now" % pick([("adhd", "ritalin"), ("t1d", "insulin"), ("epilepsy", "keppra"), ("asthma", "ventolin")]),
        "hubby has %s, cant do the night shift pls" % pick(["ms", "copd", "afib", "crohns"]),
        "im %s+ since %d, need the clinic that does prep refills" % (pick(["hiv", "hep c"]), R.randint(2005, 2024)),
        "mum's dementia got worse, shes on %s now" % pick(["donepezil", "memantine", "rivastigmine"]),
    ]), ["health"]


# ---- vendor_secret ---------------------------------------------------------------------------

@shape("vendor_secret", "hcl_tfvars", True)
def _():
    v, k, typ = vendor_key()
    return ("provider \"%s\" {\n  region = \"%s\"\n  %s = \"%s\"\n}\n" % (v.lower(), pick(["eu-north-1", "fra1", "us-east"]),
                                                                     pick(["token", "api_key", "credentials"]), k)), [typ]


@shape("vendor_secret", "python_snippet", True)
def _():
    v, k, typ = vendor_key()
    return pick([
        "```python\nclient = Client(api_key=\"%s\")\nprint(client.models.list())\n```",
        "so i did `headers = {'auth': '%s'}` and still 401??",
        "import requests\nr = requests.get(URL, headers={\"X-Key\": \"%s\"})\n",
    ]) % k, [typ]


@shape("vendor_secret", "json_config_array", True)
def _():
    items = []
    types = []
    for _ in range(R.randint(1, 3)):
        v, k, typ = vendor_key()
        items.append({"provider": v, "credential": k, "enabled": True})
        types.append(typ)
    return {"integrations": items, "version": R.randint(1, 9)}, types


@shape("vendor_secret", "ci_log", True)
def _():
    v, k, typ = vendor_key()
    return ("##[group]Run ./deploy.sh\n+ export PUBLISH_CRED=%s\n+ ./deploy.sh --env prod\nDeploying build %d...\n##[endgroup]"
            % (k, R.randint(100, 9999))), [typ]


# ---- url_credentials -------------------------------------------------------------------------

def dsn_pw():
    return chars(R.randint(5, 9)) + pick(["!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", "~", "%", "^", "#", "@"]) + chars(R.randint(3, 6))


@shape("url_credentials", "jdbc_odbc", True)
def _():
    pw = dsn_pw()
    u = pick(["sa", "app_rw", "etl", "reporting"])
    return pick([
        "jdbc:postgresql://db-%d.internal:5432/sales?user=%s&password=%s&ssl=true" % (R.randint(1, 9), u, urllib.parse.quote(pw, safe="")),
        "Server=tcp:sql%d.corp.local,1433;Database=erp;User Id=%s;Password=%s;Encrypt=True;" % (R.randint(1, 9), u, pw.replace(";", "")),
        "jdbc:mysql://%s:%s@10.1.%d.%d:3306/shop" % (u, urllib.parse.quote(pw, safe=""), R.randint(0, 9), R.randint(2, 250)),
        "Driver={ODBC Driver 18};Server=mssql;Uid=%s;Pwd=%s;" % (u, pw.replace(";", "")),
    ]), ["password"]


@shape("url_credentials", "proxy_export", True)
def _():
    pw = dsn_pw()
    u = pick(["proxyuser", "jdoe", "svc-egress", "build"])
    return pick(["export https_proxy=http://%s:%s@proxy.corp:3128", "HTTP_PROXY=\"http://%s:%s@10.0.0.5:8080\" pip install -r req.txt",
                 "git config --global http.proxy http://%s:%s@squid:3128"]) % (u, urllib.parse.quote(pw, safe="")), ["password"]


@shape("url_credentials", "broker_urls_json", True)
def _():
    pw = dsn_pw()
    scheme = pick(["amqps", "nats", "kafka+sasl", "rediss", "ftp", "sftp", "smtp", "ldap"])
    return {"services": {"queue": {"url": "%s://%s:%s@%s:%d/" % (scheme, pick(["guest2", "worker", "svc"]), urllib.parse.quote(pw, safe=""),
                                                            pick(["mq.internal", "broker-0", "mail.corp"]), R.randint(1000, 9999))},
                         "timeout_s": 30}}, ["password"]


# ---- password_prose --------------------------------------------------------------------------

@shape("password_prose", "many_languages", True)
def _():
    pw = password()
    return pick(["lösenordet är %s", "hasło do wifi: %s", "heslo je %s", "şifre: %s", "пароль: %s",
                 "wachtwoord is %s", "パスワードは %s です", "密码是%s", "비밀번호는 %s 입니다", "salasana on %s",
                 "jelszó: %s", "senha nova %s"]) % pw, ["password"]


@shape("password_prose", "ini_yaml_file", True)
def _():
    pw = password()
    return pick([
        "[database]\nhost = db01\nuser = app\npasswd = %s\n",
        "smtp:\n  host: mail.corp\n  user: alerts\n  pass: %s\n",
        "[ftp]\nlogin=upload\npwd=%s\n",
        "ldap_bind_dn: cn=svc,dc=corp\nldap_bind_pw: %s\n",
    ]) % pw, ["password"]


@shape("password_prose", "cli_history", True)
def _():
    pw = password().replace("'", "")
    return {"tool": "shell.history", "lines": [pick(["ls -la", "cd /srv/app", "git pull"]), pick([
        "mysql -u root -p%s shop" % pw,
        "sshpass -p '%s' ssh deploy@10.0.3.4" % pw,
        "psql \"host=db user=app password=%s\"" % pw,
        "htpasswd -b .htpasswd admin '%s'" % pw,
    ]), "exit"]}, ["password"]


@shape("password_prose", "chat_answer", True)
def _():
    pw = password()
    h, m = R.randint(8, 18), R.randint(0, 50)
    return ("[%02d:%02d] ops: what's the login for the staging box?\n[%02d:%02d] dev: %s\n"
            % (h, m, h, m + R.randint(1, 9),
               pick(["root / %s", "user admin pass %s", "admin:%s", "pw %s (same as last time)"]) % pw)), ["password"]


# ---- keyword_token ---------------------------------------------------------------------------

@shape("keyword_token", "raw_http", True)
def _():
    t = pick([token_hex(R.choice([32, 40, 64])), chars(R.choice([32, 43, 48]), ALNUM + "-_")])
    hdr = pick(["Cookie: sessionid=%s; theme=dark" % t, "X-Auth-Token: %s" % t, "Authorization: Token %s" % t,
                "Proxy-Authorization: Basic %s" % b64("%s:%s" % (pick(["jdoe", "svc"]), password())),
                "X-Session: %s" % t])
    return ("POST /api/v3/orders HTTP/1.1\nHost: shop.internal\nContent-Type: application/json\n%s\nContent-Length: %d\n\n{\"sku\":\"%s\"}"
            % (hdr, R.randint(20, 90), chars(6, string.ascii_uppercase))), ["secret"]


@shape("keyword_token", "ws_init", True)
def _():
    return {"type": "connection_init", "payload": {pick(["authToken", "accessToken", "sessionKey", "clientSecret"]): chars(R.choice([36, 40, 48, 64]), ALNUM + "-_"),
                                                   "client": "web-%d" % R.randint(1, 9)}}, ["secret"]


@shape("keyword_token", "jwt_bearer", True)
def _():
    n = full_name()
    jwt = jwt_with({"sub": str(R.randint(10000, 99999)), "name": n, "iat": R.randint(1700000000, 1790000000)})
    return pick(["Authorization: Bearer %s", "token=%s", "the jwt is %s, it expires in an hour"]) % jwt, ["secret"]


# ---- pem_key ---------------------------------------------------------------------------------

@shape("pem_key", "escaped_in_json_string", True)
def _():
    k = private_pem()
    return {"secret_manager": {"name": "projects/%d/secrets/signing" % R.randint(1000, 9999),
                               "payload": {"data": json.dumps({"key": k})}}}, ["private_key"]


@shape("pem_key", "lines_array", True)
def _():
    k = private_pem().strip().split("\n")
    return {"file": pick(["id_ed25519", "server.key", "tls.key"]), "lines": k}, ["private_key"]


@shape("pem_key", "openssh_in_chat", True)
def _():
    return pick(["cat ~/.ssh/id_ed25519 gives:\n%s", "key for the bastion, dont lose it\n%s", "Här är nyckeln:\n%s"]) % private_pem(), ["private_key"]


# ---- encoded ---------------------------------------------------------------------------------

@shape("encoded", "form_urlencoded", True)
def _():
    n = full_name()
    e = email_of(n)
    c = card()
    return pick([
        ("POST /signup\nContent-Type: application/x-www-form-urlencoded\n\nname=%s&email=%s&plan=pro" % (urllib.parse.quote_plus(n), urllib.parse.quote_plus(e)), ["email", "name"]),
        ("cb?payment=%s&amount=12.00" % urllib.parse.quote("card=%s exp=%02d/%02d" % (c, R.randint(1, 12), R.randint(27, 31))), ["card"]),
    ])


@shape("encoded", "jwt_payload_pii", True)
def _():
    n = full_name()
    jwt = jwt_with({"email": email_of(n), "given_name": n.split()[0], "exp": R.randint(1700000000, 1790000000)})
    return {"debug": {"id_token": jwt}}, ["email", "secret"]


@shape("encoded", "homoglyph_email", True)
def _():
    e = email_of(full_name())
    return pick(["reply to %s", "contact: %s", "email %s for access"]) % homoglyph(e), ["email"]


@shape("encoded", "bracket_at_dot", True)
def _():
    e = email_of(full_name())
    local, host = e.split("@")
    h = host.replace(".", pick([" [dot] ", "(dot)", " DOT ", "{.}"]))
    return pick(["write me: %s%s%s", "mail %s%s%s"]) % (local, pick([" [at] ", "(at)", " AT ", "{at}", " (@) "]), h), ["email"]


@shape("encoded", "spaced_letters", True)
def _():
    c = card()
    e = email_of(full_name())
    return pick([
        ("c a r d : " + " ".join(c), ["card"]),
        ("e-mail: " + " ".join(e), ["email"]),
        ("card " + "-".join(c), ["card"]),
    ])


@shape("encoded", "b32_hex_blob", True)
def _():
    n = full_name()
    e = email_of(n)
    ib = iban()
    return pick([
        ({"blob": b32(e), "enc": "base32"}, ["email"]),
        ({"blob": ib.encode().hex(), "enc": "hex"}, ["iban"]),
        ({"blob": b64(json.dumps({"email": e, "name": n})), "enc": "b64"}, ["email", "name"]),
    ])


@shape("encoded", "unicode_escape", True)
def _():
    e = email_of(full_name())
    local, host = e.split("@")
    return pick(["{\"to\":\"%s\\u0040%s\"}", "to=%s&#64;%s", "%s&commat;%s"]) % (local, host), ["email"]


@shape("encoded", "leet_password", True)
def _():
    pw = password()
    return pick(["p4ssw0rd: %s", "P@$$W0RD = %s", "pa55word is %s", "l0gin pw %s"]) % pw, ["password"]


# ---- split_json ------------------------------------------------------------------------------

@shape("split_json", "phone_parts", True)
def _():
    cc, nat, intl = phone()
    code, rest = intl.split(" ", 1)
    parts = rest.replace("-", " ").split(" ")
    return {"contact": {"country_code": code, "area": parts[0], "number": "".join(parts[1:]),
                        "ext": None}}, ["phone"]


@shape("split_json", "key_halves", True)
def _():
    v, k, typ = vendor_key()
    cut = R.randint(6, max(7, len(k) // 2))
    return pick([
        {"cfg": {"token_prefix": k[:cut], "token_suffix": k[cut:]}},
        {"parts": [k[:cut], k[cut:]], "join": ""},
        {"a": {"b": k[:cut]}, "c": [{"d": k[cut:]}]},
    ]), [typ]


@shape("split_json", "iban_fields", True)
def _():
    ib = iban()
    return {"beneficiary": {"name": full_name(), "account": {"country": ib[:2], "check_digits": ib[2:4], "bban": ib[4:]}}}, ["iban", "name"]


@shape("split_json", "email_nested", True)
def _():
    e = email_of(full_name())
    local, host = e.split("@")
    return pick([
        {"user": {"mailbox": local}, "org": {"mail_domain": host}},
        {"recipients": [{"local_part": local, "domain_part": host}]},
        {"to": [local, host], "sep": "@"},
    ]), ["email"]


# ---- error_text ------------------------------------------------------------------------------

@shape("error_text", "python_traceback", True)
def _():
    n = full_name()
    e = email_of(n)
    c = card()
    v, k, typ = vendor_key()
    msg, types = pick([
        ("ValueError: charge declined for card %s" % c, ["card"]),
        ("KeyError: '%s'" % e, ["email"]),
        ("requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.partner.io/v2/search?q=x&key=%s" % k, [typ]),
        ("IntegrityError: duplicate key value violates unique constraint \"users_email_key\"\nDETAIL:  Key (email)=(%s) already exists." % e, ["email"]),
    ])
    return ("Traceback (most recent call last):\n  File \"/app/worker.py\", line %d, in run\n    handle(job)\n  File \"/app/jobs.py\", line %d, in handle\n    raise\n%s"
            % (R.randint(10, 400), R.randint(10, 400), msg)), types


@shape("error_text", "java_exception", True)
def _():
    label, v, typ = national()
    _, nat, intl = phone()
    msg, types = pick([
        ("java.lang.IllegalStateException: duplicate %s %s for employee %d" % (label, v, R.randint(1, 9999)), [typ]),
        ("com.acme.sms.DeliveryException: recipient %s unreachable (code 21614)" % intl, ["phone"]),
    ])
    return {"level": "ERROR", "logger": "com.acme.Worker", "message": msg,
            "stack": ["at com.acme.Worker.run(Worker.java:%d)" % R.randint(10, 500), "at java.base/java.lang.Thread.run(Thread.java:1583)"]}, types


@shape("error_text", "agent_tool_error", True)
def _():
    n = full_name()
    e = email_of(n)
    ib = iban()
    pw = password()
    msg, types = pick([
        ("tool send_email failed: mailbox %s does not exist" % e, ["email"]),
        ("transfer rejected: beneficiary account %s is closed" % iban_spaced(ib), ["iban"]),
        ("login failed for user 'svc' with password '%s' (attempt 3/3)" % pw, ["password"]),
        ("lookup failed: no customer named %s in region EU" % n, ["name"]),
    ])
    return {"error": {"code": pick(["TOOL_FAILED", "E_UPSTREAM", "400"]), "detail": msg}}, types
