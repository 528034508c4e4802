"""The probe's must-block shapes: each function makes one row; @shape runs it PER times."""

import json

from probe_values import *  # noqa: F401,F403


# ---- struct_pii ------------------------------------------------------------------------------

@shape("struct_pii", "crm_record", True)
def _():
    loc = pick(LOCALES)
    first, last, mail = person(loc)
    rec = {"object": "contact", "id": "003" + rand_chars(15), "owner_id": R.randint(1000, 9999),
           "properties": {"firstname": first, "lastname": last, "email": mail,
                          "lifecyclestage": pick(["lead", "customer", "opportunity"]),
                          "hs_lead_status": pick(["NEW", "OPEN", "IN_PROGRESS"])},
           "updated_at": ts()}
    if R.random() < 0.5:
        rec["properties"]["mobilephone"] = phone()[1]
    return {"tool": pick(["crm.upsert_contact", "hubspot_create", "salesforce.update"]), "args": rec}, ["email", "name"]


@shape("struct_pii", "refund_note", True)
def _():
    c = card()
    c = pick([c, group4(c), group4(c, "-")])
    note = pick([
        "Customer asked for a refund of {amt} EUR, original charge on card {c}, please reverse asap",
        "refund ok'd — card used was {c} (exp {m}/{y}), ticket #{t}",
        "Rückerstattung {amt} € auf Karte {c} veranlasst, Bestellung {o}",
        "Remboursement de {amt} € sur la carte {c} demandé par le client",
        "Reembolso de {amt} € a la tarjeta {c}; pedido {o}",
    ]).format(amt="%d.%02d" % (R.randint(5, 900), R.randint(0, 99)), c=c, m=R.randint(1, 12),
              y=R.randint(27, 31), t=R.randint(10000, 99999), o=order_no())
    return {"refund": {"order_id": order_no(), "amount": R.randint(5, 900), "description": note}}, ["card"]


@shape("struct_pii", "invoice_iban", True)
def _():
    f = fk(pick(["de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL"]))
    ib = iban()
    ib_s = pick([ib, " ".join(ib[i:i + 4] for i in range(0, len(ib), 4))])
    return pick([
        "| Field | Value |\n|---|---|\n| Invoice | INV-%d |\n| Payee | %s |\n| IBAN | %s |\n| Due | 2026-%02d-%02d |"
        % (R.randint(1000, 99999), f.company(), ib_s, R.randint(1, 12), R.randint(1, 28)),
        "Please wire the outstanding %d.00 to %s, IBAN %s, reference INV-%d."
        % (R.randint(100, 9000), f.company(), ib_s, R.randint(1000, 99999)),
    ]), ["iban"]


@shape("struct_pii", "yaml_customer", True)
def _():
    first, last, mail = person()
    addr = fk(pick(["en_US", "en_GB", "de_DE", "fr_FR"])).address().replace("\n", ", ")
    return ("customer:\n  id: %d\n  contact_email: %s\n  billing_address: \"%s\"\n  tier: %s\n"
            % (R.randint(10000, 99999), mail, addr, pick(["gold", "basic", "pro"]))), ["email", "address"]


@shape("struct_pii", "log_line", True)
def _():
    first, last, mail = person()
    return "%s %s %s %s" % (ts(), pick(["INFO", "WARN", "DEBUG"]), pick(["auth", "mailer", "billing"]), pick([
        "login succeeded user=%s ip=10.%d.%d.%d" % (mail, R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)),
        "sent password reset to <%s> (template=reset_v2)" % mail,
        "bounce from %s: 550 mailbox unavailable" % mail,
    ])), ["email"]


# ---- intl_phone ------------------------------------------------------------------------------

@shape("intl_phone", "shipping_update", True)
def _():
    cc, ph = phone()
    msg = {
        "FR": "Votre colis arrive demain. Le livreur vous appellera au %s.",
        "DE": "Ihr Paket kommt morgen. Der Fahrer ruft Sie unter %s an.",
        "JP": "お荷物は明日お届け予定です。配達員から %s にお電話します。",
        "AU": "Your parcel is out for delivery; the driver will ring %s on arrival.",
        "IN": "Your order is out for delivery. Delivery partner will call %s.",
        "CN": "您的包裹明天送达，快递员将致电 %s。",
        "IT": "Il pacco arriva domani, il corriere chiamerà il %s.",
        "ES": "Su pedido llega mañana; el repartidor llamará al %s.",
        "NL": "Je pakket komt morgen, de bezorger belt naar %s.",
        "BR": "Seu pedido chega amanhã, o entregador vai ligar para %s.",
        "GB": "Your parcel arrives tomorrow; the courier will call %s.",
    }[cc] % ph
    return {"channel": "sms", "to_region": cc, "body": msg}, ["phone"]


@shape("intl_phone", "calendar_invite", True)
def _():
    cc, ph = phone()
    return {"summary": pick(["Quarterly review", "Site visit", "Kick-off", "Vendor call"]),
            "start": ts(), "duration_min": R.choice([30, 45, 60]),
            "location": pick(["Dial-in: ", "Tel. ", "Phone bridge "]) + ph,
            "conference": {"type": "pstn"}}, ["phone"]


@shape("intl_phone", "spaced_digits", True)
def _():
    cc, ph = phone()
    spaced = " ".join(c for c in ph if c != " ")
    return pick(["call me on %s", "my number: %s", "ring %s after 6"]) % spaced, ["phone"]


# ---- national_id -----------------------------------------------------------------------------

@shape("national_id", "hr_form", True)
def _():
    kind, label, v, typ = national()
    first, last, mail = person()
    return {"form": "onboarding", "employee": {"given_name": first, "family_name": last,
            kind + "_number": v, "start_date": "2027-%02d-01" % R.randint(1, 12)}}, [typ, "name"]


@shape("national_id", "careless_note", True)
def _():
    kind, label, v, typ = national()
    return pick(["Note to self: the applicant's %s is %s, verify before Friday.",
                 "FYI %s %s (from the scanned form)",
                 "%s: %s — copied from the ticket"]) % (label, v), [typ]


# ---- dob_context -----------------------------------------------------------------------------

@shape("dob_context", "intake_form", True)
def _():
    y, m, d = dob()
    key = pick(["date_of_birth", "dob", "birthDate", "geburtsdatum", "date_naissance", "fecha_nacimiento"])
    val = pick(["%04d-%02d-%02d" % (y, m, d), "%02d/%02d/%04d" % (d, m, y), "%02d.%02d.%04d" % (d, m, y)])
    return {"intake": {"mrn": "MRN" + rand_chars(7, "0123456789"), key: val,
                       "visit_reason": pick(["annual check", "follow-up", "vaccination"])}}, ["dob"]


@shape("dob_context", "prose_multilang", True)
def _():
    y, m, d = dob()
    return pick([
        "Der Antragsteller ist am %02d.%02d.%04d geboren." % (d, m, y),
        "Elle est née le %02d/%02d/%04d à Lyon." % (d, m, y),
        "El titular nació el %02d/%02d/%04d." % (d, m, y),
        "Il cliente è nato il %02d/%02d/%04d." % (d, m, y),
        "Ele nasceu em %02d/%02d/%04d." % (d, m, y),
        "生年月日：%04d年%d月%d日" % (y, m, d),
        "He was born on %s %d, %04d, per the passport scan." % (["January", "March", "May", "July", "October", "December"][m % 6], d, y),
        "Geboortedatum: %02d-%02d-%04d" % (d, m, y),
    ]), ["dob"]


# ---- names_context ---------------------------------------------------------------------------

@shape("names_context", "support_ticket", True)
def _():
    loc = pick(LOCALES)
    f = fk(loc)
    n = "%s %s" % (f.first_name(), f.last_name())
    return {"ticket": {"id": R.randint(100000, 999999), "subject": pick(["Login problem", "Refund", "Delivery late"]),
                       "body": pick(["Customer %s says the app logs her out every time.",
                                     "Escalated by %s from the Hamburg branch, needs a callback.",
                                     "%s reported the invoice total is wrong again.",
                                     "Spoke with %s today; she wants the order cancelled."]) % n}}, ["name"]


@shape("names_context", "calendar_attendees", True)
def _():
    names = ["%s %s" % (fk().first_name(), fk().last_name()) for _ in range(R.randint(1, 3))]
    return {"event": {"title": pick(["1:1", "Performance review", "Interview loop", "Dentist"]),
                      "organizer": names[0], "attendees": names[1:] or [names[0]], "start": ts()}}, ["name"]


@shape("names_context", "self_intro_multilang", True)
def _():
    loc = pick(["de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL", "en_GB"])
    f = fk(loc)
    n = "%s %s" % (f.first_name(), f.last_name())
    return {"de_DE": "Hallo, ich heiße %s und habe eine Frage zu meiner Bestellung.",
            "fr_FR": "Bonjour, je m'appelle %s et j'ai un souci avec ma commande.",
            "es_ES": "Hola, me llamo %s y tengo un problema con mi pedido.",
            "it_IT": "Buongiorno, mi chiamo %s e ho un problema con l'ordine.",
            "pt_BR": "Olá, meu nome é %s e tenho uma dúvida sobre o pedido.",
            "nl_NL": "Hallo, mijn naam is %s en ik heb een vraag over mijn bestelling.",
            "en_GB": "Hi, this is %s, I'm chasing up my order."}[loc] % n, ["name"]


@shape("names_context", "chat_transcript", True)
def _():
    f = fk(pick(LOCALES))
    n = "%s %s" % (f.first_name(), f.last_name())
    return ("[%02d:%02d] agent: Can I have the account holder's full name?\n[%02d:%02d] user: it's %s\n"
            "[%02d:%02d] agent: Thanks, looking it up." % (R.randint(8, 18), R.randint(0, 59), R.randint(8, 18),
                                                           R.randint(0, 59), n, R.randint(8, 18), R.randint(0, 59))), ["name"]


# ---- health ----------------------------------------------------------------------------------

CONDITIONS = ["type 2 diabetes", "asthma", "hypertension", "major depressive disorder", "epilepsy",
              "HIV", "breast cancer", "COPD", "bipolar disorder", "rheumatoid arthritis", "hepatitis C",
              "multiple sclerosis", "schizophrenia", "Crohn's disease"]
MEDS = ["metformin", "insulin glargine", "salbutamol", "lisinopril", "sertraline", "levetiracetam",
        "tenofovir", "tamoxifen", "methotrexate", "lithium", "quetiapine", "warfarin"]


@shape("health", "intake_form", True)
def _():
    first, last, mail = person()
    return {"patient": {"name": "%s %s" % (first, last), "conditions": R.sample(CONDITIONS, R.randint(1, 2)),
                        "current_medications": [pick(MEDS) + " %d mg" % R.choice([5, 10, 20, 500])],
                        "allergies": pick(["penicillin", "none known", "latex"])}}, ["health", "name"]


@shape("health", "careless_note", True)
def _():
    return pick([
        "reminder: %s (room %d) needs her %s at 8pm, she was diagnosed with %s last spring" % (fk().first_name(), R.randint(1, 40), pick(MEDS), pick(CONDITIONS)),
        "My husband has %s and takes %s daily, can the trip insurance cover that?" % (pick(CONDITIONS), pick(MEDS)),
        "Mein Vater hat %s und nimmt %s." % (pick(CONDITIONS), pick(MEDS)),
        "Ma fille souffre de %s depuis deux ans." % pick(["asthme", "diabète", "épilepsie", "dépression"]),
        "Mi madre tiene %s y toma %s." % (pick(["diabetes", "asma", "epilepsia", "hipertensión"]), pick(MEDS)),
        "I was diagnosed with %s in %d and I'm on %s." % (pick(CONDITIONS), R.randint(2001, 2025), pick(MEDS)),
    ]), ["health"]


# ---- vendor_secret ---------------------------------------------------------------------------

@shape("vendor_secret", "prose_paste", True)
def _():
    v, k, typ = vendor_key()
    return pick(["here's the %s key so you can test: %s — rotate it after",
                 "use %s creds %s for the staging run",
                 "Hier der %s-Schlüssel: %s (nicht weitergeben)",
                 "voici la clé %s : %s"]) % (v, k), [typ]


@shape("vendor_secret", "dotenv", True)
def _():
    v, k, typ = vendor_key()
    var = {"OpenAI": "OPENAI_API_KEY", "Anthropic": "ANTHROPIC_API_KEY", "GitHub": "GH_TOKEN", "Slack": "SLACK_BOT_TOKEN",
           "Stripe": "STRIPE_SECRET", "AWS": "AWS_ACCESS_KEY_ID", "SendGrid": "SENDGRID_API_KEY", "Google": "GOOGLE_API_KEY",
           "Hugging Face": "HF_TOKEN", "GitLab": "GITLAB_TOKEN", "Twilio": "TWILIO_API_KEY"}[v]
    return "# .env\nNODE_ENV=production\nPORT=%d\n%s=%s\nLOG_LEVEL=info\n" % (R.choice([3000, 8080, 5000]), var, k), [typ]


@shape("vendor_secret", "k8s_secret", True)
def _():
    v, k, typ = vendor_key()
    return ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s-creds\ntype: Opaque\ndata:\n  token: %s\n"
            % (v.lower().replace(" ", "-"), b64(k))), [typ]


@shape("vendor_secret", "curl", True)
def _():
    v, k, typ = vendor_key()
    return {"tool": "shell", "command": "curl -sS https://api.%s.com/v1/items -H 'Authorization: Bearer %s' -H 'Content-Type: application/json'"
            % (v.lower().replace(" ", ""), k)}, [typ]


@shape("vendor_secret", "notebook_output", True)
def _():
    v, k, typ = vendor_key()
    return {"cell_type": "code", "execution_count": R.randint(1, 40), "source": ["import os\n", "os.environ\n"],
            "outputs": [{"output_type": "execute_result", "data": {"text/plain": [
                "environ({'HOME': '/home/jovyan', 'SHELL': '/bin/bash', 'API_KEY': '%s', 'LANG': 'C.UTF-8'})" % k]}}]}, [typ]


# ---- url_credentials -------------------------------------------------------------------------

def dsn():
    pw = dsn_password()
    user = pick(["app", "admin", "svc_orders", "postgres", "deploy"])
    host = pick(["db.internal", "10.0.%d.%d" % (R.randint(0, 9), R.randint(2, 250)), "pg-prod-1.eu-west-1.rds.amazonaws.com", "redis-cache"])
    scheme = pick(["postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp"])
    enc = pick([pw, urllib.parse.quote(pw, safe="")])
    return "%s://%s:%s@%s/%s" % (scheme, user, enc, host, pick(["orders", "app", "0", "prod"]))


@shape("url_credentials", "orm_error", True)
def _():
    return pick([
        "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect to server: Connection refused\n  (Background on this error at: https://sqlalche.me/e/14/e3q8) url=%s",
        "Error: P1001: Can't reach database server at `%s`",
        "django.db.utils.OperationalError: connection to %s failed: timeout expired",
    ]) % dsn(), ["password"]


@shape("url_credentials", "compose_yaml", True)
def _():
    return ("services:\n  api:\n    image: ghcr.io/acme/api:%d.%d\n    environment:\n      - DATABASE_URL=%s\n      - LOG_LEVEL=info\n"
            % (R.randint(1, 9), R.randint(0, 30), dsn())), ["password"]


@shape("url_credentials", "git_remote", True)
def _():
    user = pick(["ci-bot", "jdoe", "oauth2", "x-access-token"])
    return "git clone https://%s:%s@%s/%s/%s.git" % (user, pick([dsn_password(), "ghp_" + rand_chars(36), rand_chars(20)]),
                                                   pick(["github.com", "gitlab.example.org", "bitbucket.org"]),
                                                   pick(["acme", "platform"]), pick(["api", "infra", "web"])), ["password"]


# ---- password_prose --------------------------------------------------------------------------

@shape("password_prose", "temporary_note", True)
def _():
    pw = password()
    return pick([
        "I temporarily set the admin password to %s until IT resets it.",
        "for now the wifi pass is %s, will change monday",
        "Das Passwort für den Testzugang lautet vorübergehend %s.",
        "Le mot de passe provisoire est %s, à changer à la première connexion.",
        "La contraseña temporal es %s, cámbiala al entrar.",
        "La password provvisoria è %s.",
        "A senha temporária é %s.",
        "Het tijdelijke wachtwoord is %s.",
    ]) % pw, ["password"]


@shape("password_prose", "toml_config", True)
def _():
    return ("[database]\nhost = \"db.internal\"\nport = 5432\nuser = \"%s\"\npassword = \"%s\"\n\n[cache]\nttl = %d\n"
            % (pick(["app", "orders", "reporting"]), password(), R.choice([60, 300, 900]))), ["password"]


@shape("password_prose", "chat_transcript", True)
def _():
    pw = password()
    return {"messages": [{"role": "user", "content": "can you log into the router for me?"},
                         {"role": "assistant", "content": "Sure, what are the credentials?"},
                         {"role": "user", "content": pick(["user admin, pw %s", "admin / %s", "login is admin and the password %s"]) % pw}]}, ["password"]


# ---- keyword_token ---------------------------------------------------------------------------

@shape("keyword_token", "http_log", True)
def _():
    tok = token(R.choice([32, 40, 48, 64]))
    return "%s DEBUG http: > GET /v2/orders HTTP/1.1\n> Host: api.partner.io\n> Authorization: Bearer %s\n> Accept: */*" % (ts(), tok), ["secret"]


@shape("keyword_token", "json_session", True)
def _():
    return {"result": {"user_id": R.randint(1000, 99999), pick(["session_token", "access_token", "refresh_token", "api_secret"]): token(R.choice([32, 43, 64])),
                       "expires_in": 3600}}, ["secret"]


@shape("keyword_token", "x_api_key", True)
def _():
    return "curl -X POST https://hooks.partner.net/ingest -H \"X-Api-Key: %s\" -d @payload.json" % token(R.choice([32, 40])), ["secret"]


# ---- pem_key ---------------------------------------------------------------------------------

def ed25519_pem():
    der = bytes.fromhex("302e020100300506032b657004220420") + bytes(R.getrandbits(8) for _ in range(32))
    return "-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n" % base64.b64encode(der).decode()


def ec_pem():
    der = bytes.fromhex("30310201010420") + bytes(R.getrandbits(8) for _ in range(32)) + bytes.fromhex("a00a06082a8648ce3d030107")
    body = base64.b64encode(der).decode()
    return "-----BEGIN EC PRIVATE KEY-----\n%s\n-----END EC PRIVATE KEY-----\n" % body


def key_pem():
    return pick([ed25519_pem, ec_pem])()


@shape("pem_key", "service_account", True)
def _():
    return {"type": "service_account", "project_id": "proj-%d" % R.randint(1000, 9999),
            "private_key_id": rand_chars(40, "0123456789abcdef"), "private_key": key_pem(),
            "client_email": "svc-%d@proj.iam.gserviceaccount.com" % R.randint(1, 99)}, ["private_key"]


@shape("pem_key", "k8s_tls_secret", True)
def _():
    return ("apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: ingress-tls\ndata:\n  tls.crt: %s\n  tls.key: %s\n"
            % (b64("-----BEGIN CERTIFICATE-----\nMIIB" + rand_chars(60) + "\n-----END CERTIFICATE-----\n"), b64(key_pem()))), ["private_key"]


@shape("pem_key", "pasted_in_chat", True)
def _():
    return pick(["here is the deploy key, add it to the runner:\n%s", "Schlüssel für den Server:\n%s"]) % key_pem(), ["private_key"]


# ---- encoded ---------------------------------------------------------------------------------

@shape("encoded", "base64_json", True)
def _():
    first, last, mail = person()
    inner = json.dumps({"email": mail, "plan": pick(["pro", "free"])})
    return {"event": "signup", "data": b64(inner)}, ["email"]


@shape("encoded", "zero_width", True)
def _():
    first, last, mail = person()
    return "contact: " + zero_width(mail), ["email"]


@shape("encoded", "fullwidth_card", True)
def _():
    return "card on file " + fullwidth(group4(card())), ["card"]


@shape("encoded", "percent_query", True)
def _():
    first, last, mail = person()
    return "GET /unsubscribe?u=%s&list=news HTTP/1.1" % urllib.parse.quote(mail, safe=""), ["email"]


@shape("encoded", "hex_email", True)
def _():
    first, last, mail = person()
    return {"trace": {"user_hex": binascii.hexlify(mail.encode()).decode()}}, ["email"]


@shape("encoded", "leet_keyword", True)
def _():
    return pick(["p4ssw0rd: %s", "P@ssw0rd = %s", "passw0rd -> %s", "pa$$word: %s"]) % password(), ["password"]


@shape("encoded", "reversed_email", True)
def _():
    first, last, mail = person()
    return "reverse this to get my address: " + mail[::-1], ["email"]


# ---- split_json ------------------------------------------------------------------------------

@shape("split_json", "card_groups", True)
def _():
    c = card()
    return {"payment": {"pan_parts": [c[0:4], c[4:8], c[8:12], c[12:16]], "exp": "%02d/%d" % (R.randint(1, 12), R.randint(27, 31))}}, ["card"]


@shape("split_json", "email_fields", True)
def _():
    first, last, mail = person()
    local, dom = mail.split("@")
    return {"contact": {"mailbox": local, "at": "@", "host": dom}}, ["email"]


@shape("split_json", "nested_json_string", True)
def _():
    first, last, mail = person()
    inner = json.dumps({"user": {"email": mail, "phone": phone()[1]}})
    return {"tool_result": json.dumps({"status": "ok", "body": inner})}, ["email", "phone"]


# ---- error_text ------------------------------------------------------------------------------

@shape("error_text", "sql_unique", True)
def _():
    first, last, mail = person()
    return ("ERROR:  duplicate key value violates unique constraint \"users_email_key\"\n"
            "DETAIL:  Key (email)=(%s) already exists.\nSTATEMENT:  INSERT INTO users (email, name) VALUES ($1, $2)" % mail), ["email"]


@shape("error_text", "stack_trace", True)
def _():
    v, k, typ = vendor_key()
    return ("Traceback (most recent call last):\n  File \"/app/client.py\", line %d, in call\n    resp.raise_for_status()\n"
            "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.vendor.io/v1/run?key=%s" % (R.randint(10, 300), k)), [typ]


@shape("error_text", "validation_error", True)
def _():
    c = card()
    return {"error": {"code": "invalid_request", "message": "card %s was declined: insufficient funds" % group4(c),
                      "param": "source"}}, ["card"]
