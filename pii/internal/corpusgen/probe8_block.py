"""Must-block shapes of the eighth probe: what agents of different organisations exchange about
business (CRM and ticketing tool results as GraphQL and OData, HR and payroll records, travel
bookings, bank and card statements, insurance and clinical referrals, school and tenancy records,
calendar invites and vCards, Markdown and HTML tables, meeting minutes, support threads, planning
scratchpads that quote a user, summaries that paraphrase a person), in Slovak, Croatian,
Macedonian, Russian, Georgian, Armenian, Bengali, Tamil, Amharic, Kinyarwanda, Afrikaans, Basque,
Galician, the Spanish of Honduras, El Salvador, Nicaragua and Venezuela, Jamaican English, the
French of Mauritius and the Portuguese of Mozambique."""

import base64
import json
from urllib.parse import quote

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from probe8_values import (B62, HEX, LATIN, R, birth, card, chars, digits, email, full, latin_person, national, passport,
                           password, person, phone, phone_of, phone_parts, pick, pnr, shape, stamp, uuid, vendor, when)

# ---- struct_pii --------------------------------------------------------------------------------


@shape("struct_pii", "crm_graphql_contact", True)
def _():
    f, l, o = latin_person()
    contact = {"id": "gid://crm/Contact/%s" % digits(9), "firstName": f, "lastName": l, "email": email(f, l, o),
               "mobilePhone": phone_of(o), "lifecycleStage": pick(["lead", "customer", "opportunity"]),
               "owner": {"team": pick(["EMEA inbound", "LATAM", "Caribbean desk"])}}
    return pick([
        {"data": {"contact": contact}, "extensions": {"cost": {"requestedQueryCost": R.randint(3, 40)}}},
        {"data": {"searchContacts": {"edges": [{"node": contact, "cursor": chars(16, B62)}], "pageInfo": {"hasNextPage": False}}}},
        {"tool_result": {"name": "crm.get_contact", "content": json.dumps({"data": {"contact": contact}}, ensure_ascii=False)}},
    ]), ["name", "email", "phone"]


@shape("struct_pii", "vcard_and_ics_invite", True)
def _():
    f, l, o = latin_person()
    mail, ph = email(f, l, o), phone_of(o)
    if R.random() < 0.5:
        return ("BEGIN:VCARD\r\nVERSION:%s\r\nFN:%s\r\nN:%s;%s;;;\r\nTEL;TYPE=cell:%s\r\nEMAIL;TYPE=home:%s\r\n"
                "NOTE:%s\r\nEND:VCARD\r\n" % (pick(["3.0", "4.0"]), full(f, l), l, f, ph, mail,
                                              pick(["met at the Kigali fair", "tenant, flat 4B", "parent of a pupil in 3.A"]))), ["name", "email", "phone"]
    return ("BEGIN:VCALENDAR\r\nPRODID:-//Example//Scheduler//EN\r\nBEGIN:VEVENT\r\nUID:%s\r\nDTSTART:20260%d%02dT%02d0000Z\r\n"
            "SUMMARY:%s\r\nORGANIZER;CN=Front desk:mailto:frontdesk@example.org\r\nATTENDEE;CN=\"%s\";ROLE=REQ-PARTICIPANT:mailto:%s\r\n"
            "DESCRIPTION:Call if late: %s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n" % (
                uuid(), R.randint(1, 9), R.randint(1, 28), R.randint(7, 17), pick(["Viewing — flat 12", "Parent-teacher meeting", "Onboarding"]),
                full(f, l), mail, ph)), ["name", "email", "phone"]


@shape("struct_pii", "bank_card_statement", True)
def _():
    f, l, o = latin_person()
    c = card()
    lines = "\n".join("%s  %-28s %8.2f" % (when(), pick(["SPAR Bratislava", "Konzum Split", "Pick n Pay", "Supermaxi", "Carrefour Beirut"]),
                                           R.uniform(2, 400)) for _ in range(R.randint(2, 4)))
    return pick([
        ("CARD STATEMENT\nCardholder: %s\nCard number: %s\nPeriod: %s – %s\n\n%s\n" % (full(f, l).upper(), c, when(), when(), lines), ["name", "card"]),
        ("| Datum | Popis | Suma |\n|---|---|---|\n%s\n\nKarta %s, držiteľ %s" % (
            "\n".join("| %s | %s | %.2f EUR |" % (when(), pick(["Nákup", "Výber z bankomatu"]), R.uniform(5, 300)) for _ in range(2)), c, full(f, l)), ["name", "card"]),
        ({"tool": "bank.dispute_transaction", "arguments": {"card_number": c.replace(" ", ""), "cardholder": full(f, l),
                                                            "amount": round(R.uniform(5, 900), 2), "reason": "not recognised"}}, ["name", "card"]),
    ])


@shape("struct_pii", "travel_booking_passenger", True)
def _():
    f, l, o = latin_person()
    pp = passport()
    loyalty = "%s %s" % (pick(["Miles&Smiles", "ShebaMiles", "Flying Blue", "ConnectMiles", "Skywards"]), digits(pick([9, 10])))
    seg = "%s %d %s" % (pick(["ET", "WB", "CM", "MK", "ME"]), R.randint(100, 999), pick(["ADD-KGL", "PTY-TGU", "MRU-JNB", "BEY-KWI"]))
    return pick([
        {"pnr": pnr(), "passengers": [{"surname": l.upper(), "given_names": f.upper(), "passport": {"number": pp, "expiry": "20%d-%02d-%02d" % (
            R.randint(27, 35), R.randint(1, 12), R.randint(1, 28))}, "loyalty": loyalty}], "segments": [seg]},
        "Booking %s confirmed for %s %s. Passport no. %s on file; frequent flyer %s. Flight %s." % (pnr(), f, l, pp, loyalty, seg),
        "| PNR | Passenger | Passport | Loyalty |\n|---|---|---|---|\n| %s | %s/%s | %s | %s |" % (pnr(), l.upper(), f.upper(), pp, loyalty),
    ]), ["name", "passport"]


# ---- intl_phone --------------------------------------------------------------------------------

_CALLBACK = {
    "sk": "Dobrý deň, prosím zavolajte mi späť na %s, ďakujem.",
    "hr": "Poštovani, molim da me nazovete na %s nakon 15 h.",
    "mk": "Ве молам јавете ми се на %s.",
    "ru": "Перезвоните мне, пожалуйста, по номеру %s.",
    "ka": "გთხოვთ დამირეკოთ ნომერზე %s",
    "hy": "Խնդրում եմ զանգահարել %s համարով",
    "bn": "অনুগ্রহ করে আমাকে %s নম্বরে কল করুন",
    "ta": "தயவுசெய்து என்னை %s என்ற எண்ணில் அழைக்கவும்",
    "am": "እባክዎ በ%s ይደውሉልኝ",
    "rw": "Mwaramutse, munhamagare kuri %s murakoze",
    "af": "Bel my asseblief terug by %s, dankie.",
    "eu": "Mesedez, deitu iezadazu %s zenbakira.",
    "gl": "Por favor, chámeme ao %s pola tarde.",
    "es": "Buenas, me puede llamar al %s? es sobre el pedido",
    "jm": "Mi number change, call mi pon %s",
    "fr": "Bonjour, pouvez-vous me rappeler au %s ? Merci",
    "pt": "Bom dia, liguem-me para o %s por favor.",
}


@shape("intl_phone", "support_thread_callback", True)
def _():
    lang = pick(sorted(_CALLBACK))
    _, s = phone()
    msgs = [{"author": "customer", "at": stamp(), "body": _CALLBACK[lang] % s},
            {"author": "agent", "at": stamp(), "body": pick(["Noted, passing to tier 2.", "Thanks, a colleague will call.", "Ticket updated."])}]
    return pick([
        {"ticket": {"id": R.randint(10000, 999999), "subject": pick(["Billing", "Delivery", "Account access"]), "comments": msgs}},
        "#%d  %s\n> %s\n\n%s" % (R.randint(10000, 99999), stamp(), msgs[0]["body"], msgs[1]["body"]),
    ]), ["phone"]


@shape("intl_phone", "travel_pnr_contact", True)
def _():
    region, cc, n, s = phone_parts()
    seg = "%s%d Y %s %s HK1 %02d%02d %02d%02d" % (pick(["WB", "ME", "CM", "AV", "KQ", "ET"]), R.randint(100, 999), pick(["12OCT", "03MAR", "27JUL"]),
                                                 pick(["KGLNBO", "BEYDXB", "TGUPTY", "MRUJNB", "MPMJNB"]), R.randint(5, 22), R.randint(0, 59),
                                                 R.randint(5, 22), R.randint(0, 59))
    return pick([
        "RP/%s/%s\n  1  %s\n  2 AP %s-M\n  3 TK OK%s/%s" % (pick(["KGLRW2100", "BEYME08AA", "TGUHN2101"]), pnr(), seg, s,
                                                         pick(["15MAY", "02JUN"]), pick(["KGLRW2100", "BEYME08AA"])),
        {"booking": {"pnr": pnr(), "contacts": [{"type": "mobile", "value": s}], "segments": [{"flight": seg.split(" ")[0]}]}},
        "%s\n  SSR CTCM %s HK1/%s%s" % (seg, seg[:2], cc, n),
    ]), ["phone"]


# ---- national_id -------------------------------------------------------------------------------


@shape("national_id", "payroll_odata_record", True)
def _():
    scheme, label, val = national()
    o = {"ru": "ru_lat", "do": "hn", "mu": "mu", "nz": "jm", "sk": "sk", "cu": "ve", "pk": "bn_lat"}[scheme]
    f, l = person(o)
    field = {"ru": "INN", "do": "Cedula", "mu": "NationalIdentityCardNo", "nz": "IRDNumber", "sk": "RodneCislo", "cu": "CarneIdentidad",
             "pk": "CNIC"}[scheme]
    rec = {"@odata.etag": "W/\"%s\"" % digits(10), "EmployeeID": "E%s" % digits(5), "DisplayName": full(f, l), field: val,
           "PayGroup": pick(["MONTHLY", "BIWEEKLY"]), "GrossPay": round(R.uniform(800, 9000), 2)}
    return pick([
        {"@odata.context": "https://hr.example.com/odata/v4/$metadata#Employees", "value": [rec]},
        "Payroll run %s — %s (%s: %s) gross %.2f" % (when(), full(f, l), label, val, rec["GrossPay"]),
    ]), ["national_id", "name"]


@shape("national_id", "tenancy_school_table", True)
def _():
    scheme, label, val = national()
    o = {"ru": "ru", "do": "hn", "mu": "mu", "nz": "jm", "sk": "sk", "cu": "ve", "pk": "bn_lat"}[scheme]
    f, l = person(o)
    if R.random() < 0.5:
        return ("| Tenant | %s | Unit | Lease start |\n|---|---|---|---|\n| %s | %s | %s | %s |\n" % (
            label, full(f, l), val, pick(["4B", "12", "Flat 3"]), when())), ["national_id", "name"]
    return ("<table><tr><th>Pupil</th><th>%s</th><th>Class</th></tr><tr><td>%s</td><td>%s</td><td>%s</td></tr></table>" % (
        label, full(f, l), val, pick(["3.A", "VII-b", "Grade 5"]))), ["national_id", "name"]


# ---- dob_context -------------------------------------------------------------------------------

_BORN = {
    "sk": ("sk", "Žiak %s, narodený %s, nastupuje do 1. ročníka."),
    "hr": ("hr", "Učenica %s, rođena %s, upisuje se u 5. razred."),
    "mk": ("mk", "%s, роден на %s, е запишан во прво одделение."),
    "ka": ("ka", "მოსწავლე %s, დაბადების თარიღი: %s"),
    "eu": ("eu", "%s ikaslea %s jaio zen."),
    "gl": ("gl", "%s naceu o %s e matricúlase en 1º da ESO."),
    "af": ("af", "Leerder %s, gebore %s, skryf in vir graad 8."),
    "en": (None, "Applicant %s (date of birth %s) has applied for the two-bed flat."),
}


@shape("dob_context", "school_tenancy_enrolment", True)
def _():
    key = pick(sorted(_BORN))
    lang, line = _BORN[key]
    o = {"sk": "sk", "hr": "hr", "mk": "mk", "ka": "ka", "eu": "eu", "gl": "gl", "af": "af", "en": pick(LATIN)}[key]
    f, l = person(o)
    text = line % (full(f, l), birth(lang))
    return pick([text, {"enrolment": {"note": text, "status": "pending documents"}}]), ["name", "dob"]


# ---- names_context -----------------------------------------------------------------------------

_MINUTES = {
    "en": ("Minutes — %s\nPresent: %s, %s\nApologies: none\nAction: %s to send the revised quote by Friday.",),
    "sk": ("Zápisnica — %s\nPrítomní: %s, %s\nÚloha: %s pošle upravenú ponuku do piatku.",),
    "hr": ("Zapisnik — %s\nNazočni: %s, %s\nZadatak: %s šalje izmijenjenu ponudu do petka.",),
    "ru": ("Протокол — %s\nПрисутствовали: %s, %s\nПоручение: %s подготовит договор к пятнице.",),
    "af": ("Notule — %s\nTeenwoordig: %s, %s\nAksie: %s stuur die hersiene kwotasie teen Vrydag.",),
    "gl": ("Acta — %s\nAsistentes: %s, %s\nTarefa: %s envía o orzamento revisado o venres.",),
}


@shape("names_context", "meeting_minutes_attendees", True)
def _():
    lang = pick(sorted(_MINUTES))
    origin = {"en": None, "sk": "sk", "hr": "hr", "ru": "ru", "af": "af", "gl": "gl"}[lang]
    a, b = person(origin or pick(LATIN)), person(origin or pick(LATIN))
    return _MINUTES[lang][0] % (when(), full(*a), full(*b), full(*a)), ["name"]


_SCRATCH = [
    "Thought: the user, {n}, wants the refund sent to a new account. I should verify identity before calling payments.refund.",
    "Plan:\n1. Look up {n} in the CRM\n2. Check the open ticket\n3. Draft a reply\nUser said: \"I'm {n} and I never got the parcel\"",
    "<thinking>{n} is asking to move the viewing to Thursday; the landlord agent must confirm.</thinking>",
    "Scratchpad: quoting the user — \"this is {n}, I booked the wrong date\". Next: call bookings.change.",
    "Мысль: пользователь {n} просит перенести встречу. Сначала проверю календарь.",
    "Myšlienka: používateľ {n} chce zmeniť adresu doručenia.",
    "ფიქრი: მომხმარებელი {n} ითხოვს თანხის დაბრუნებას.",
    "চিন্তা: ব্যবহারকারী {n} রিফান্ড চাইছেন।",
    "சிந்தனை: பயனர் {n} பணத்தைத் திரும்பக் கேட்கிறார்.",
]


@shape("names_context", "agent_scratchpad_quotes_user", True)
def _():
    i = R.randrange(len(_SCRATCH))
    origin = {4: "ru", 5: "sk", 6: "ka", 7: "bn", 8: "ta"}.get(i) or pick(LATIN)
    text = _SCRATCH[i].format(n=full(*person(origin)))
    return pick([text, {"type": "thinking", "thinking": text}]), ["name"]


# ---- health ------------------------------------------------------------------------------------

_REFERRAL = {
    "en": "Referral: {n}, {age}, seen today with {c}. Please assess for {t}.",
    "sk": "Odporúčanie: {n} ({age} r.) — diagnóza: {c}. Prosím o vyšetrenie.",
    "hr": "Uputnica: {n}, {age} god., dijagnoza {c}, upućuje se specijalistu.",
    "ru": "Направление: {n}, {age} лет, диагноз: {c}. Прошу консультацию.",
    "af": "Verwysing: {n} ({age}) is gediagnoseer met {c}; verwys vir {t}.",
    "eu": "Deribazioa: {n}, {age} urte, diagnostikoa: {c}.",
    "gl": "Derivación: {n}, de {age} anos, diagnosticada de {c}.",
    "es": "Referencia: {n}, {age} años, con diagnóstico de {c}; se refiere a {t}.",
}
_COND = {
    "en": [("type 2 diabetes", "endocrinology"), ("major depressive disorder", "psychiatry"), ("breast cancer", "oncology"), ("HIV", "infectious diseases")],
    "sk": [("cukrovka 2. typu", ""), ("depresia", ""), ("rakovina prsníka", ""), ("HIV", "")],
    "hr": [("šećerna bolest tipa 2", ""), ("depresija", ""), ("rak dojke", ""), ("epilepsija", "")],
    "ru": [("сахарный диабет 2 типа", ""), ("депрессия", ""), ("рак молочной железы", ""), ("ВИЧ-инфекция", "")],
    "af": [("tipe 2-diabetes", "endokrinologie"), ("depressie", "psigiatrie"), ("borskanker", "onkologie"), ("MIV", "kliniek")],
    "eu": [("2 motako diabetesa", ""), ("depresioa", ""), ("bularreko minbizia", ""), ("epilepsia", "")],
    "gl": [("diabetes tipo 2", ""), ("depresión maior", ""), ("cancro de mama", ""), ("epilepsia", "")],
    "es": [("diabetes tipo 2", "endocrinología"), ("trastorno depresivo mayor", "psiquiatría"), ("cáncer de mama", "oncología"), ("VIH", "infectología")],
}


@shape("health", "clinical_referral_insurance", True)
def _():
    lang = pick(sorted(_REFERRAL))
    origin = {"en": pick(["jm", "mu", "af"]), "sk": "sk", "hr": "hr", "ru": "ru", "af": "af", "eu": "eu", "gl": "gl",
              "es": pick(["hn", "sv", "ni", "ve"])}[lang]
    c, t = pick(_COND[lang])
    text = _REFERRAL[lang].format(n=full(*person(origin)), age=R.randint(19, 88), c=c, t=t or "review")
    return pick([
        text,
        {"claim": {"id": "CLM-%s" % digits(8), "member_note": text, "status": "pre-authorisation"}},
    ]), ["name", "health"]


_PARAPHRASE = [
    "Summary: {n}, a {age}-year-old {job} from {town}, was diagnosed with {c} last spring and is on sick leave until {d}.",
    "In short — the patient ({n}, {age}, a {job} in {town}) has {c}; the insurer wants the discharge letter.",
    "{n} is a {age}-year-old {job} from {town} who told the agent about being treated for {c}.",
    "Recap for the handover: {n} ({age}), {job}, lives in {town}; ongoing therapy for {c}.",
]


@shape("health", "summary_paraphrases_patient", True)
def _():
    f, l, o = latin_person()
    text = pick(_PARAPHRASE).format(n=full(f, l), age=R.randint(24, 79),
                                    job=pick(["teacher", "nurse", "bus driver", "accountant", "fisherman", "shop owner"]),
                                    town=pick(["Košice", "Rijeka", "Bilbao", "Lugo", "Stellenbosch", "Kigali", "Curepipe", "Beira", "Tegucigalpa", "Maracaibo"]),
                                    c=pick(["bipolar disorder", "stage II colon cancer", "multiple sclerosis", "HIV", "alcohol dependence", "type 1 diabetes", "schizophrenia"]),
                                    d=when())
    return pick([text, {"summary": text, "source": "support thread %s" % digits(6)}]), ["name", "health"]


# ---- vendor_secret -----------------------------------------------------------------------------


@shape("vendor_secret", "agent_config_blob", True)
def _():
    name, env, header, tok = vendor()
    return pick([
        "# litellm / gateway config\nmodel_list:\n  - model_name: default\n    litellm_params:\n      model: openai/gpt-4o-mini\nenvironment_variables:\n  %s: \"%s\"\n" % (env, tok),
        json.dumps({"mcpServers": {name: {"command": "npx", "args": ["-y", "@%s/mcp" % name], "env": {env: tok}}}}, indent=2),
        "[tool.%s]\nendpoint = \"https://api.%s.example\"\napi_key = \"%s\"\n" % (name, name, tok),
        "%s=%s\n" % (env, tok),
    ]), ["api_token"]


@shape("vendor_secret", "tool_call_http_headers", True)
def _():
    name, env, header, tok = vendor()
    if header.endswith("Basic"):
        hv = "Basic " + base64.b64encode(("pk-lf-%s:%s" % (uuid(), tok)).encode()).decode()
        hname = "Authorization"
    elif ":" in header:
        hname, scheme = header.split(": ")
        hv = "%s %s" % (scheme, tok)
    else:
        hname, hv = header, tok
    return pick([
        {"type": "tool_use", "name": "http_request", "input": {"method": "POST", "url": "https://api.%s.example/v1/query" % name,
                                                               "headers": {hname: hv, "Content-Type": "application/json"}}},
        "curl -s https://api.%s.example/v1/ -H '%s: %s'" % (name, hname, hv),
        {"function": {"name": "fetch", "arguments": json.dumps({"url": "https://api.%s.example/" % name, "headers": {hname: hv}})}},
    ]), ["api_token"]


# ---- url_credentials ---------------------------------------------------------------------------


@shape("url_credentials", "vector_db_and_queue_urls", True)
def _():
    user = pick(["admin", "default", "svc_agent", "root", "app"])
    pw = password()
    pw_url = quote(pw, safe="")
    url = pick([
        "https://%s:%s@%s.eu-central.aws.cloud.qdrant.io:6333" % (user, pw_url, chars(8, HEX)),
        "clickhouse://%s:%s@%s.clickhouse.cloud:9440/default?secure=true" % (user, pw_url, chars(6, "abcdefghijklmnop")),
        "rediss://default:%s@%s.upstash.io:6379" % (pw_url, pick(["eu1-bright-owl", "apn1-calm-yak"])),
        "amqps://%s:%s@%s.rmq.cloudamqp.com/%s" % (user, pw_url, pick(["rat", "goose", "kangaroo"]), user),
        "http://%s:%s@milvus.internal:19530" % (user, pw_url),
    ])
    return pick([
        {"tool": "vectorstore.connect", "arguments": {"uri": url, "collection": "tickets"}},
        "VECTOR_DB_URL=%s" % url,
        "connecting to %s ... ok" % url,
    ]), ["password"]


# ---- password_prose ----------------------------------------------------------------------------

_PW = {
    "sk": "Dočasné heslo k portálu je {p}, po prihlásení si ho zmeňte.",
    "hr": "Privremena lozinka za portal: {p} — promijenite je nakon prijave.",
    "mk": "Привремената лозинка е {p}",
    "ru": "Временный пароль от кабинета: {p}",
    "ka": "დროებითი პაროლი: {p}",
    "hy": "Ժամանակավոր գաղտնաբառը՝ {p}",
    "bn": "আপনার অস্থায়ী পাসওয়ার্ড: {p}",
    "ta": "உங்கள் தற்காலிக கடவுச்சொல்: {p}",
    "am": "ጊዜያዊ የይለፍ ቃልዎ፦ {p}",
    "rw": "Ijambo banga ry'agateganyo ni {p}",
    "af": "Jou tydelike wagwoord is {p}",
    "eu": "Aldi baterako pasahitza: {p}",
    "gl": "O contrasinal temporal é {p}",
    "es": "Tu contraseña temporal es {p}, cámbiala al entrar",
}


@shape("password_prose", "support_thread_password", True)
def _():
    lang = pick(sorted(_PW))
    text = _PW[lang].format(p=password())
    return pick([
        text,
        {"ticket": {"id": R.randint(1000, 99999), "public_reply": text, "channel": pick(["email", "whatsapp", "web"])}},
        "> %s\n\nThanks, logged in." % text,
    ]), ["password"]


# ---- keyword_token -----------------------------------------------------------------------------


@shape("keyword_token", "observability_keys_in_headers", True)
def _():
    return pick([
        "curl -X POST https://api.datadoghq.eu/api/v2/logs -H 'DD-API-KEY: %s' -d @batch.json" % chars(32, HEX),
        {"exporter": {"otlp": {"endpoint": "https://otlp.eu01.nr-data.net", "headers": {"api-key": chars(40, HEX)}}}},
        "QDRANT__SERVICE__API_KEY=%s" % chars(36, B62),
        {"tool_use": {"name": "weaviate.search", "input": {"cluster": "https://%s.weaviate.network" % chars(10, "abcdefghijklmnopqrstuvwxyz0123456789"),
                                                          "auth": {"api_key": chars(40, B62)}}}},
        "DD_APP_KEY: %s\nDD_SITE: datadoghq.eu\n" % chars(40, HEX),
        "zilliz:\n  uri: https://in03-%s.serverless.gcp-us-west1.cloud.zilliz.com\n  token: %s\n" % (chars(16, HEX), chars(104, HEX)),
    ]), ["secret"]


# ---- pem_key -----------------------------------------------------------------------------------


def _ec_key():
    curve = pick([ec.SECP256K1(), ec.SECP256R1(), ec.BrainpoolP256R1()])
    k = ec.derive_private_key(int(chars(60, HEX), 16) + 1, curve)
    fmt = pick([serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.TraditionalOpenSSL])
    return k.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()


@shape("pem_key", "pem_in_tool_arguments", True)
def _():
    pem = _ec_key()
    return pick([
        {"type": "function", "function": {"name": "sign_payload", "arguments": json.dumps({"key_pem": pem, "alg": "ES256"})}},
        "mutation { rotateSigningKey(input: {privateKey: %s}) { ok } }" % json.dumps(pem),
        "<pre>%s</pre>" % pem.replace("\n", "<br>"),
        {"vault_export": {"path": "kv/payments/signing", "data": {"private_key": pem}}},
    ]), ["private_key"]


# ---- encoded -----------------------------------------------------------------------------------


@shape("encoded", "base64_vcard_ics_attachment", True)
def _():
    f, l, o = latin_person()
    mail, ph = email(f, l, o), phone_of(o)
    inner = pick([
        "BEGIN:VCARD\nVERSION:3.0\nFN:%s\nTEL:%s\nEMAIL:%s\nEND:VCARD\n" % (full(f, l), ph, mail),
        "name,email,mobile\n%s,%s,%s\n" % (full(f, l), mail, ph),
    ])
    enc = base64.b64encode(inner.encode()).decode()
    return pick([
        {"attachments": [{"filename": pick(["contact.vcf", "guests.csv"]), "mimeType": pick(["text/vcard", "text/csv"]), "content_b64": enc}]},
        "data:text/vcard;base64,%s" % enc,
        "Content-Type: text/vcard; name=contact.vcf\r\nContent-Transfer-Encoding: base64\r\n\r\n%s" % "\r\n".join(enc[i:i + 76] for i in range(0, len(enc), 76)),
    ]), ["name", "email", "phone"]


# ---- split_json --------------------------------------------------------------------------------


@shape("split_json", "odata_fields_split", True)
def _():
    f, l, o = latin_person()
    region, s = phone()
    mail = email(f, l, o)
    local, host = mail.split("@")
    c = card().replace(" ", "").replace("-", "")
    return pick([
        ({"Contact": {"GivenName": f, "Surname": l, "Phone": {"CountryPrefix": s.split(" ")[0] if s.startswith("+") else "", "Number": s.split(" ", 1)[-1] if s.startswith("+") else s}}}, ["name", "phone"]),
        ({"data": {"updateGuest": {"guest": {"mailbox": local, "mailDomain": host, "firstName": f, "lastName": l}}}}, ["name", "email"]),
        ({"payment": {"pan_parts": [c[0:4], c[4:8], c[8:12], c[12:16]], "holder": full(f, l), "exp": "%02d/%d" % (R.randint(1, 12), R.randint(27, 31))}}, ["name", "card"]),
    ])


# ---- error_text --------------------------------------------------------------------------------


@shape("error_text", "graphql_odata_errors", True)
def _():
    f, l, o = latin_person()
    mail, ph = email(f, l, o), phone_of(o)
    return pick([
        ({"errors": [{"message": "Variable \"$input\" got invalid value \"%s\" at \"input.email\"; Expected type \"Email\"." % mail,
                      "extensions": {"code": "BAD_USER_INPUT"}}]}, ["email"]),
        ({"error": {"code": "BadRequest", "message": "The property 'MobilePhone' value '%s' for contact '%s' failed validation." % (ph, full(f, l))}}, ["phone", "name"]),
        ("HTTP 409 Conflict: a guest with the e-mail %s already holds booking %s" % (mail, pnr()), ["email"]),
        ("Ошибка: клиент %s <%s> уже существует (duplicate key)" % (full(f, l), mail), ["name", "email"]),
    ])
