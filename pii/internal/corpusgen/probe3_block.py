"""Must-block shapes of the third probe: what agents carry in tool results, support tickets, CRM
exports, log lines and chat transcripts, in several languages, with personal data or a secret in it."""

import json
import string

from probe3_values import (B62, HEX, MONTHS, R, address, b64, card, chars, date, digits, email, iban,
                           name, national, password, person, phone, pick, shape, vendor_token)
import probe3_keys

# ---- struct_pii --------------------------------------------------------------------------------


@shape("struct_pii", "crm_export_rows", True)
def _():
    rows = []
    types = set()
    for _ in range(R.randint(2, 4)):
        first, last = person()
        _, ph = phone(style=pick(["intl", "compact"]))
        rows.append({"Account Owner": "Sales EMEA", "First": first, "Last": last, "Primary Email": email(first, last),
                     "Mobile": ph, "Stage": pick(["Lead", "Qualified", "Won"])})
        types |= {"name", "email", "phone"}
    return {"tool": "crm.export", "format": "records", "records": rows}, sorted(types)


@shape("struct_pii", "ticket_refund_card", True)
def _():
    first, last = person()
    c = card()
    return ("Ticket #%d | Priority: %s\nFrom: %s\n\nHi team, I was charged twice for order %d. "
            "Please refund to the card I used, %s, exp %02d/%d. Thanks, %s" %
            (R.randint(40000, 99999), pick(["normal", "high"]), email(first, last), R.randint(100000, 999999),
             c, R.randint(1, 12), R.randint(27, 31), first)), ["card", "email", "name"]


@shape("struct_pii", "shipping_label_log", True)
def _():
    first, last = person()
    loc = pick(["lv_LV", "et_EE", "en_TH", "tw_GH"])
    return ("%s INFO labeler: created label carrier=%s recipient=\"%s %s\" addr=\"%s\" notify=%s" %
            ("2026-%02d-%02dT%02d:%02d:%02dZ" % (R.randint(1, 12), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59)),
             pick(["omniva", "dpd", "kerry", "dhl"]), first, last, address(loc), email(first, last))), ["address", "name", "email"]


@shape("struct_pii", "payout_iban_chat", True)
def _():
    first, last = person()
    i = iban()
    return pick([
        "%s: can you switch my payouts to %s? account holder %s %s" % (first.lower(), i, first, last),
        "Payout details updated by agent. Beneficiary: %s %s, IBAN %s, reason: customer request" % (first, last, i),
        "[bot] New beneficiary %s %s / %s awaiting 4-eyes approval" % (last.upper(), first, i),
    ]), ["iban", "name"]


# ---- intl_phone --------------------------------------------------------------------------------


@shape("intl_phone", "ticket_callback", True)
def _():
    first, _ = person()
    _, ph = phone(style=pick(["intl", "natl", "dash", "paren", "zerozero"]))
    return pick([
        "Customer asked for a callback on %s after 5pm, re: delayed delivery" % ph,
        "Callback requested. Number: %s. Topic: invoice dispute" % ph,
        "pls call back %s — line was cut" % ph,
        "Rückruf erbeten unter %s wegen der Lieferung" % ph,
        "Prosím zavolejte zpět na %s kvůli reklamaci" % ph,
        "Lūdzu, piezvaniet uz %s par rēķinu" % ph,
    ])


@shape("intl_phone", "whatsapp_export", True)
def _():
    first, last = person()
    _, ph = phone(style=pick(["intl", "dash", "spacedcc", "dots"]))
    return "[%02d/%02d/2026, %02d:%02d:%02d] %s: %s" % (
        R.randint(1, 28), R.randint(1, 12), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59), first,
        pick(["my new number is %s", "write me on %s instead", "%s is the one with signal", "use %s from now on"]) % ph)


@shape("intl_phone", "cjk_contact", True)
def _():
    region = pick(["HK", "SG", "TH", "VN", "PH", "MY"])
    _, ph = phone(region, style=pick(["intl", "natl", "compact", "dash"]))
    return pick(["请致电%s联系我", "聯絡電話%s，謝謝", "客户留言：回电%s", "携帯番号は%sです", "連絡先：%s（平日のみ）",
                 "手机%s，周末也可以", "如有问题请拨打%s"]).replace("%s", ph)


@shape("intl_phone", "contact_json_fields", True)
def _():
    region, ph = phone(style=pick(["intl", "natl", "dash", "dots", "zerozero", "spacedcc"]))
    return {"contact": {"channel": "phone", "region": region, "value": ph, "verified": R.random() < 0.5}}


# ---- national_id -------------------------------------------------------------------------------


@shape("national_id", "kyc_tool_result", True)
def _():
    scheme, label, v, typ = national()
    return {"kyc": {"status": pick(["pending", "needs_review"]), "document": label, "number": v,
                    "country": scheme.upper()}}, [typ]


@shape("national_id", "agent_note_prose", True)
def _():
    scheme, label, v, typ = national()
    return pick([
        "Verified caller with %s %s before changing the address." % (label, v),
        "client gave their %s (%s) over chat, stored in the case" % (label, v),
        "Nach Prüfung: %s %s stimmt mit dem Ausweis überein." % (label, v),
        "Ověřeno: %s %s." % (label, v),
    ]), [typ]


# ---- dob_context -------------------------------------------------------------------------------


@shape("dob_context", "intake_form_multilang", True)
def _():
    y, m, d = date()
    lang = pick(list(MONTHS))
    mon = MONTHS[lang][m - 1]
    return {"en": "Date of birth: %d %s %d" % (d, mon, y), "de": "Geburtsdatum: %d. %s %d" % (d, mon, y),
            "cs": "Datum narození: %d. %s %d" % (d, mon, y), "lv": "Dzimšanas datums: %d. gada %d. %s" % (y, d, mon),
            "nl": "Geboortedatum: %d %s %d" % (d, mon, y), "sv": "Födelsedatum: %d %s %d" % (d, mon, y),
            "pl": "Data urodzenia: %d %s %d r." % (d, mon, y)}[lang]


@shape("dob_context", "crm_birthday_field", True)
def _():
    first, last = person()
    y, m, d = date()
    k = pick(["birthDate", "dob", "date_of_birth", "geburtsdatum", "born"])
    v = pick(["%d-%02d-%02d" % (y, m, d), "%02d/%02d/%d" % (d, m, y), "%02d.%02d.%d" % (d, m, y)])
    return {"contact": {"displayName": "%s %s" % (first, last), k: v, "segment": "retail"}}, ["dob", "name"]


@shape("dob_context", "chat_age_check", True)
def _():
    y, m, d = date(1950, 2007)
    mon = MONTHS["en"][m - 1]
    return pick([
        "agent: to verify, can you confirm your birthday?\ncustomer: %s %d, %d" % (mon, d, y),
        "user: I was born %d %s %d, why does the form say I'm underage?" % (d, mon, y),
        "customer: born on the %dth of %s %d if that helps" % (d, mon, y),
        "Kunde: ich bin am %02d.%02d.%d geboren, bitte korrigieren" % (d, m, y),
        "zákazník: narodila jsem se %d. %d. %d" % (d, m, y),
    ])


# ---- names_context -----------------------------------------------------------------------------


@shape("names_context", "ticket_assignment", True)
def _():
    return pick([
        "Reassigned INC%07d from L1 to %s (network team)." % (R.randint(1, 9999999), name()),
        "Escalation owner: %s. Next update due Friday." % name(),
        "Assignee changed: unassigned -> %s" % name(),
        "Handing this over to %s, who covers the Baltics accounts." % name(),
    ]), ["name"]


@shape("names_context", "lowercase_no_cue", True)
def _():
    f, l = person()
    n = ("%s %s" % (f, l)).lower()
    return pick([
        "%s still hasn't returned the loaner laptop" % n,
        "ok so %s says the invoice was paid twice" % n,
        "fwd from %s: contract attached" % n,
        "%s and i will take the onsite on tuesday" % n,
        "lunch w/ %s moved to 1pm" % n,
    ]), ["name"]


@shape("names_context", "german_subject", True)
def _():
    f, l = person()
    n = "%s %s" % (f, l)
    return pick([
        "Gestern hat %s angerufen und nach dem Stand der Reklamation gefragt." % n,
        "%s hat den Vertrag noch nicht unterschrieben." % n,
        "Laut %s ist die Lieferung unvollständig angekommen." % n,
        "Heute Morgen meldete sich %s wegen der doppelten Abbuchung." % n,
        "Frau %s bittet um Rückruf." % l,
        "%s war bis Freitag krankgeschrieben und ist jetzt wieder erreichbar." % n,
    ]), ["name"]


@shape("names_context", "czech_subject", True)
def _():
    f, l = person()
    n = "%s %s" % (f, l)
    return pick([
        "Včera volal %s kvůli faktuře za říjen." % n,
        "%s poslal podepsanou smlouvu až dnes." % n,
        "Podle %s zásilka dorazila poškozená." % n,
        "%s se ptá, kdy dostane vrácené peníze." % n,
        "%s žádá o zpětné zavolání." % n,
    ]), ["name"]


@shape("names_context", "chat_transcript_speakers", True)
def _():
    a, b = name(), name()
    return "%s: hi, is the order shipped?\n%s: checking now\n%s: ok thx\n%s: yes, out for delivery" % (a, b, a, b), ["name"]


# ---- health ------------------------------------------------------------------------------------

CONDITIONS = ["type 1 diabetes", "multiple sclerosis", "bipolar disorder", "Crohn's disease", "epilepsy",
              "hepatitis C", "major depressive disorder", "rheumatoid arthritis", "schizophrenia", "COPD",
              "endometriosis", "ADHD", "anorexia nervosa", "Parkinson's disease", "lupus", "coeliac disease",
              "chronic kidney disease", "PTSD", "atrial fibrillation", "breast cancer", "long COVID",
              "obstructive sleep apnoea", "HIV", "generalised anxiety disorder", "ulcerative colitis"]
MEDS = ["sertraline", "metformin", "levothyroxine", "adalimumab", "lithium", "methotrexate", "insulin glargine",
        "quetiapine", "tenofovir", "apixaban", "fluoxetine", "lamotrigine", "buprenorphine", "olanzapine",
        "escitalopram", "mesalazine", "tamoxifen", "valproate"]


@shape("health", "diagnosed_mid_sentence", True)
def _():
    c = pick(CONDITIONS)
    who = pick(["she", "he", "my husband", "my daughter", "the customer", "our tenant", "my colleague"])
    return pick([
        "Refund approved as a goodwill gesture since %s was diagnosed with %s in March and could not travel." % (who, c),
        "Not sure it matters but %s was diagnosed with %s last year, so deliveries before noon are hard." % (who, c),
        "The booking was cancelled because %s was diagnosed with %s two weeks before departure." % (who, c),
        "I'm writing because %s was recently diagnosed with %s and we need to change the plan." % (who, c),
    ]), ["health"]


@shape("health", "claim_tool_result", True)
def _():
    first, last = person()
    return {"claim": {"member": "%s %s" % (first, last), "icd_text": pick(CONDITIONS), "rx": pick(MEDS) + " %d mg" % pick([5, 10, 20, 50, 100, 200]),
                      "amount": round(R.uniform(20, 900), 2)}}, ["health", "name"]


@shape("health", "chat_multilang", True)
def _():
    m = pick(MEDS)
    return pick([
        "Moje maminka bere %s a potřebuje recept prodloužit." % m,
        "Meine Frau nimmt seit Jahren %s, die Lieferung darf nicht ausfallen." % m,
        "Mana meita lieto %s, lūdzu, nosūtiet zāles ātrāk." % m,
        "Mijn vader gebruikt %s en de apotheek heeft het niet op voorraad." % m,
        "I take %s every morning, so please don't delay the parcel again." % m,
        "Ik heb %s, daarom kan ik niet naar de afspraak komen." % pick(CONDITIONS),
    ]), ["health"]


# ---- vendor_secret -----------------------------------------------------------------------------


@shape("vendor_secret", "agent_tool_env", True)
def _():
    v, t = vendor_token()
    return {"tool_result": {"cmd": "printenv", "stdout": "HOME=/home/app\nPATH=/usr/bin\n%s_TOKEN=%s\nTZ=UTC\n" % (v.upper(), t)}}, ["api_token"]


@shape("vendor_secret", "pasted_in_ticket", True)
def _():
    v, t = vendor_token()
    return pick([
        "Integration broke after rotation. Here is the new key so you can test: %s" % t,
        "the token we use is %s, is it expired?" % t,
        "Der Schlüssel lautet %s — bitte nicht weitergeben." % t,
    ]), ["api_token"]


@shape("vendor_secret", "log_line_header", True)
def _():
    v, t = vendor_token()
    return "level=debug msg=\"outbound request\" host=api.%s.example upstream_auth=%s retry=%d" % (v, t, R.randint(0, 3)), ["api_token"]


# ---- url_credentials ---------------------------------------------------------------------------


def pw_url_safe():
    return pick([password(), chars(10, B62) + pick(["!", "$", "*", "~", ";", "="]) + chars(4, B62)])


@shape("url_credentials", "git_remote_token", True)
def _():
    user = pick(["deploy", "ci-bot", "oauth2", "x-access-token", "svc_build"])
    return pick([
        "remote: origin https://%s:%s@git.%s.lv/platform/api.git (fetch)" % (user, pw_url_safe(), pick(["corp", "intra"])),
        "git clone https://%s:%s@code.example.ee/%s.git" % (user, pw_url_safe(), pick(["infra", "web", "etl"])),
        "Cloning into 'svc'... fatal: https://%s:%s@bitbucket.example.com/scm/ops/svc.git/info/refs not valid" % (user, pw_url_safe()),
    ]), ["password"]


@shape("url_credentials", "broker_dsn_in_error", True)
def _():
    scheme = pick(["amqps", "redis", "mongodb+srv", "postgresql", "mysql", "sftp", "ldaps", "nats"])
    user = pick(["app", "svc_ledger", "admin", "etl", "reporter"])
    return "%s: dial %s://%s:%s@%s:%d failed: connection refused" % (
        pick(["ERROR", "panic", "Traceback (most recent call last)"]), scheme, user, pw_url_safe(),
        pick(["db-1.internal", "10.4.%d.%d" % (R.randint(0, 255), R.randint(1, 254)), "mq.prod.lan"]), R.randint(1024, 65000)), ["password"]


# ---- password_prose ----------------------------------------------------------------------------


@shape("password_prose", "chat_many_languages", True)
def _():
    p = password()
    return pick([
        "parole ir %s, nomaini pēc pirmās pieslēgšanās" % p, "Ajutine parool on %s" % p,
        "heslo je %s, změň si ho" % p, "tymczasowe hasło: %s" % p, "het wachtwoord is %s" % p,
        "lösenordet är %s" % p, "geçici şifre %s" % p, "the new pw is %s (change it)" % p,
        "паролата е %s" % p, "Passwort für den Testzugang lautet %s" % p,
    ]), ["password"]


@shape("password_prose", "support_reset_note", True)
def _():
    return "Reset done for %s. Temp password %s given over phone, must change at next login." % (
        pick(["the warehouse kiosk", "user jlapsa", "the front desk account", "the shared inbox"]), password()), ["password"]


@shape("password_prose", "netrc_and_cli", True)
def _():
    p = password()
    return pick([
        "machine api.%s.lv login svc password %s" % (pick(["corp", "bank", "shop"]), p),
        "$ mysql -u reporting -p'%s' -h 10.0.0.%d" % (p, R.randint(2, 250)),
        "sshpass -p '%s' ssh ops@bastion" % p,
        "docker login -u ci -p %s registry.example.lv" % p,
    ]), ["password"]


# ---- keyword_token -----------------------------------------------------------------------------


@shape("keyword_token", "http_headers", True)
def _():
    tok = pick([chars(40, B62), chars(32, HEX), chars(48, B62 + "-_")])
    return pick([
        "GET /v2/orders HTTP/1.1\nHost: api.example.lv\nX-Api-Key: %s\nAccept: */*" % tok,
        "curl -H 'Authorization: Token %s' https://api.example.ee/v1/me" % tok,
        "Set-Cookie: session_id=%s; Path=/; HttpOnly" % tok,
        "> x-auth-token: %s" % tok,
    ]), ["secret"]


@shape("keyword_token", "config_secret_keys", True)
def _():
    tok = pick([chars(32, B62), chars(64, HEX), b64(chars(30, B62))])
    k = pick(["client_secret", "signing_secret", "webhook_secret", "SECRET_KEY_BASE", "jwtSecret", "hmac_key"])
    return pick(["%s = \"%s\"" % (k, tok), "%s: %s" % (k, tok), "{\"%s\": \"%s\"}" % (k, tok), "export %s=%s" % (k.upper(), tok)]), ["secret"]


# ---- pem_key -----------------------------------------------------------------------------------


@shape("pem_key", "openssh_in_yaml", True)
def _():
    pem = probe3_keys.openssh_ed25519()
    body = "\n".join("    " + l for l in pem.splitlines())
    return "deploy:\n  host: %s\n  ssh_private_key: |\n%s\n" % (pick(["bastion.lv", "10.2.0.4", "build-1"]), body), ["private_key"]


@shape("pem_key", "ec_key_flattened_chat", True)
def _():
    pem = probe3_keys.ec_pem()
    return "%s %s" % (pick(["here's the key:", "use this one", "key for the vpn ->"]), " ".join(pem.splitlines())), ["private_key"]


# ---- encoded -----------------------------------------------------------------------------------


@shape("encoded", "query_string_log", True)
def _():
    first, last = person()
    e = email(first, last)
    _, ph = phone(style="intl")
    from urllib.parse import quote
    return "GET /subscribe?src=footer&email=%s&tel=%s&lang=lv 302" % (quote(e, safe=""), quote(ph, safe="")), ["email", "phone"]


@shape("encoded", "base64url_payload", True)
def _():
    first, last = person()
    doc = json.dumps({"sub": R.randint(1000, 99999), "mail": email(first, last), "name": "%s %s" % (first, last)})
    return pick(["state=%s" % b64(doc, url=True), "data:application/json;base64,%s" % b64(doc),
                 "X-Forwarded-User: %s" % b64(doc)]), ["email", "name"]


@shape("encoded", "quoted_printable_mail", True)
def _():
    first, last = person()
    e = email(first, last).replace("@", "=40").replace(".", "=2E", 1)
    return "Content-Transfer-Encoding: quoted-printable\n\nReply-To: %s=0AThanks=2C %s" % (e, first), ["email"]


# ---- split_json --------------------------------------------------------------------------------


@shape("split_json", "card_in_parts", True)
def _():
    c = card().replace(" ", "").replace("-", "")
    parts = [c[i:i + 4] for i in range(0, len(c), 4)]
    return pick([{"pan_parts": parts, "exp": "%02d/%d" % (R.randint(1, 12), R.randint(27, 31))},
                 {"card": {"p%d" % i: p for i, p in enumerate(parts)}}]), ["card"]


@shape("split_json", "email_and_phone_fields", True)
def _():
    first, last = person()
    e = email(first, last)
    local, host = e.split("@")
    region, ph = phone(style="intl")
    cc, rest = ph.split(" ", 1)
    return pick([({"mailbox": local, "at": "@", "domain": host}, ["email"]),
                 ({"dial": {"country_code": cc, "subscriber": rest}}, ["phone"]),
                 ({"to": [local, "@", host], "cc": []}, ["email"])])


# ---- error_text --------------------------------------------------------------------------------


@shape("error_text", "db_constraint", True)
def _():
    first, last = person()
    e = email(first, last)
    _, ph = phone(style="compact")
    return pick([
        ('ERROR: duplicate key value violates unique constraint "users_email_key"\nDETAIL: Key (email)=(%s) already exists.' % e, ["email"]),
        ("IntegrityError (1062, \"Duplicate entry '%s' for key 'uniq_phone'\")" % ph, ["phone"]),
        ("ValidationError: 1 validation error for Customer\nemail\n  value is not a valid email address: the domain of %r has no MX" % e, ["email"]),
    ])


@shape("error_text", "payment_exception", True)
def _():
    c = card()
    i = iban()
    return pick([
        ("CardError: card %s was declined (do_not_honor) at charge ch_%s" % (c, chars(14, B62)), ["card"]),
        ("SepaMandateError: IBAN %s rejected by bank: account closed" % i, ["iban"]),
        ("Traceback (most recent call last):\n  File \"pay.py\", line %d, in refund\nValueError: cannot refund to %s" % (R.randint(20, 400), c), ["card"]),
    ])
