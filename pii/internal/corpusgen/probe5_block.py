"""Must-block shapes of the fifth probe: rental and tenancy applications, school and student
records, pharmacy and lab results, courier and delivery notes, contracts and legal notices, agent
scratchpads and chains of thought, function-call arguments with nested objects, HAR captures,
package-registry configs, Helm values and Ansible inventories, GraphQL errors, MIME headers and
folded calendar files, in Dutch, Polish, Turkish, Swedish, Norwegian, Danish, Finnish, Czech,
Filipino, Malay, Hebrew in Latin letters, South African and Irish English and Quebec French."""

import base64
import json
import quopri

from probe5_values import (R, VENDOR_ENV, b64, birth, bsn, card, chars, cpr, digits, email, fodselsnummer, hetu, iban,
                           landline, mykad, password, person, pesel, personnummer, phone, phone_of, pick,
                           private_key_pem, rodne_cislo, shape, MOBILE, PHONE_OF, sin, tckimlik, token, vendor, when, HEX, B62)

# ---- struct_pii --------------------------------------------------------------------------------


@shape("struct_pii", "rental_application_call", True)
def _():
    origin = pick(["nl", "ie", "za", "se", "dk", "qc", "pl"])
    first, last = person(origin)
    country = {"nl": "NL", "ie": "IE", "se": "SE", "dk": "DK", "pl": "PL"}.get(origin, pick(["NL", "IE", "FI"]))
    args = {"listing_id": "L-%s" % digits(6),
            "applicant": {"name": {"given": first, "family": last},
                          "contact": {"email": email(first, last, origin), "mobile": phone_of(origin)},
                          "employment": {"employer": pick(["Philips", "Ørsted", "Kone", "Allegro", "Shoprite", "Desjardins"]),
                                         "net_monthly": R.randint(1800, 7200)}},
            "deposit": {"iban": iban(country), "months": pick([1, 2, 3])},
            "move_in": "2026-%02d-01" % R.randint(1, 12)}
    call = {"id": "call_%s" % chars(24), "type": "function",
            "function": {"name": pick(["submit_rental_application", "huurwoning.aanvraag", "tenancy.apply"]),
                         "arguments": args if R.random() < 0.5 else json.dumps(args, ensure_ascii=False)}}
    return {"tool_calls": [call]}, ["name", "email", "phone", "iban"]


@shape("struct_pii", "school_enrolment_record", True)
def _():
    origin = pick(["fi", "se", "no", "pl", "cz", "nl", "ie"])
    first, last = person(origin)
    pfirst, _ = person(origin)
    lab = {
        "fi": ("Oppilas", "Huoltaja", "Sähköposti", "Puhelin"), "se": ("Elev", "Vårdnadshavare", "E-post", "Mobil"),
        "no": ("Elev", "Foresatt", "E-post", "Mobil"), "pl": ("Uczeń", "Opiekun", "E-mail", "Telefon"),
        "cz": ("Žák", "Zákonný zástupce", "E-mail", "Telefon"), "nl": ("Leerling", "Ouder/verzorger", "E-mail", "Mobiel"),
        "ie": ("Pupil", "Parent/guardian", "Email", "Mobile"),
    }[origin]
    return ("%s: %s %s, %s %d%s\n%s: %s %s\n%s: %s\n%s: %s" % (
        lab[0], first, last, {"fi": "luokka", "se": "klass", "no": "klasse", "pl": "klasa", "cz": "třída", "nl": "groep",
                              "ie": "class"}[origin], R.randint(1, 9), pick("ABC"),
        lab[1], pfirst, last, lab[2], email(pfirst, last, origin), lab[3], phone_of(origin))), ["name", "email", "phone"]


@shape("struct_pii", "courier_delivery_note", True)
def _():
    origin = pick(["pl", "tr", "nl", "cz", "ph", "my", "za"])
    first, last = person(origin)
    note = {
        "pl": "Kurier: paczka dla %s %s, tel. %s, proszę zostawić u sąsiada. Pobranie %d zł, płatność kartą %s.",
        "tr": "Kargo notu: alıcı %s %s, cep %s, kapıda ödeme %d TL, kart %s.",
        "nl": "Bezorgnotitie: pakket voor %s %s, bel %s als er niemand thuis is. Rembours €%d, kaart %s.",
        "cz": "Poznámka kurýra: balík pro %s %s, volat %s, dobírka %d Kč, karta %s.",
        "ph": "Rider note: para kay %s %s, tawagan sa %s pag nasa gate na. COD ₱%d, card %s.",
        "my": "Nota penghantar: bungkusan untuk %s %s, hubungi %s. Bayaran semasa serahan RM%d, kad %s.",
        "za": "Driver note: parcel for %s %s, phone %s before the boom gate. COD R%d, card %s.",
    }[origin]
    return note % (first, last, phone_of(origin), R.randint(40, 900), card()), ["name", "phone", "card"]


# ---- intl_phone --------------------------------------------------------------------------------


@shape("intl_phone", "support_chat_log_speakers", True)
def _():
    origin = pick(["pl", "tr", "se", "fi", "cz", "ph", "my", "il", "ie", "qc", "dk", "no"])
    _, _, ph = phone(PHONE_OF[origin])
    t = "%02d:%02d" % (R.randint(8, 21), R.randint(0, 59))
    line = {
        "pl": "klient: proszę oddzwonić na %s", "tr": "müşteri: beni %s numarasından arayın lütfen",
        "se": "kund: ring mig på %s efter lunch", "fi": "asiakas: soittakaa numeroon %s",
        "cz": "zákazník: zavolejte mi na %s", "ph": "customer: pa-text na lang po sa %s",
        "my": "pelanggan: boleh call saya di %s", "il": "customer: ani zamin ba-%s, tikra li",
        "ie": "customer: ring me on %s so, I'm in the car", "qc": "client: rappelez-moi au %s svp",
        "dk": "kunde: ring på %s i eftermiddag", "no": "kunde: ring meg på %s etter kl. 16",
    }[origin] % ph
    return "[%s] bot: %s\n[%s] %s\n[%s] bot: %s" % (
        t, pick(["How can I help?", "Hoe kan ik helpen?", "Noted.", "Paano kita matutulungan?"]), t, line, t,
        pick(["Thanks, an agent will call you back.", "Dziękuję!", "Tack!", "Merci!"])), ["phone"]


@shape("intl_phone", "letterhead_landline_ext", True)
def _():
    region, s = landline()
    ext = R.randint(100, 4999)
    return pick([
        "Please direct enquiries about your tenancy to the property manager on %s ext. %d." % (s, ext),
        "For the lab results call the ward on %s (Durchwahl %d) between 9 and 12." % (s, ext),
        "Contact: %s, poste %d — demandez le service des admissions." % (s, ext),
        "Bestellingen via %s toestel %d, ook voor retouren." % (s, ext),
        "Reach the claimant's solicitor directly at %s x%d." % (s, ext),
    ]), ["phone"]


# ---- national_id -------------------------------------------------------------------------------


@shape("national_id", "tenancy_screening_ids", True)
def _():
    origin = pick(["nl", "pl", "se", "no", "dk", "fi", "cz", "tr", "qc", "my"])
    first, last = person(origin)
    ident = {
        "nl": ("BSN", bsn()), "pl": ("PESEL", pesel()), "se": ("personnummer", personnummer()),
        "no": ("fødselsnummer", fodselsnummer()), "dk": ("CPR-nr.", cpr()), "fi": ("henkilötunnus", hetu()),
        "cz": ("rodné číslo", rodne_cislo()), "tr": ("T.C. Kimlik No", tckimlik()), "qc": ("NAS", sin()),
        "my": ("No. MyKad", mykad()),
    }[origin]
    return pick([
        "Screening check for applicant %s %s — %s %s — credit OK, no arrears." % (first, last, ident[0], ident[1]),
        {"screening": {"applicant": "%s %s" % (first, last), "id_type": ident[0], "id_value": ident[1], "result": "pass"}},
        "Landlord asked for ID: %s %s, %s: %s. Sent to the agency." % (first, last, ident[0], ident[1]),
    ]), ["name", "national_id"]


@shape("national_id", "student_register_export", True)
def _():
    origin = pick(["se", "no", "dk", "fi", "nl", "pl", "cz", "tr"])
    maker = {"se": personnummer, "no": fodselsnummer, "dk": cpr, "fi": hetu, "nl": bsn, "pl": pesel,
             "cz": rodne_cislo, "tr": tckimlik}[origin]
    # Registers export the number under the scheme's own abbreviation; a column called just "id"
    # would leave the number with nothing to say what it is.
    col = {"se": "personnr", "no": "fødselsnr", "dk": "CPR", "fi": "hetu", "nl": "BSN", "pl": "PESEL", "cz": "RČ",
           "tr": "TCKN"}[origin]
    rows = ["student_ref;%s;year" % col]
    for _ in range(R.randint(2, 4)):
        rows.append("S%s;%s;%d" % (digits(5), maker(), R.randint(1, 9)))
    return "Exported from the school register:\n" + "\n".join(rows), ["national_id"]


# ---- dob_context -------------------------------------------------------------------------------


@shape("dob_context", "lab_result_header", True)
def _():
    origin = pick(["nl", "pl", "tr", "se", "fi", "cz", "dk", "ph", "my", "qc", "no"])
    first, last = person(origin)
    cue = {"nl": "Geboortedatum", "pl": "Data urodzenia", "tr": "Doğum tarihi", "se": "Född", "fi": "Syntymäaika",
           "cz": "Datum narození", "dk": "Født", "ph": "Petsa ng kapanganakan", "my": "Tarikh lahir",
           "qc": "Date de naissance", "no": "Fødselsdato"}[origin]
    return ("%s\nPatient: %s, %s\n%s: %s\nSample %s collected %s\nHb %0.1f g/dL (ref 12.0-16.0)" % (
        pick(["LAB REPORT", "Laboratorium uitslag", "Wynik badania", "Laboratuvar sonucu", "Laboratoriesvar"]),
        last.upper(), first, cue, birth(), digits(8), when(), R.uniform(9, 17))), ["name", "dob"]


@shape("dob_context", "agent_scratchpad_age", True)
def _():
    origin = pick(["ie", "za", "ph", "il", "nl", "fi", "pl"])
    first, last = person(origin)
    return pick([
        "Thought: the caller says she is %s %s, born %s. I should verify the date of birth against the policy before sharing anything.\nAction: lookup_policy" % (first, last, birth()),
        "Reasoning: user %s %s gave DOB %s, which makes them over 18, so the age gate passes.\nNext step: open the account." % (first, last, birth("%d %B %Y")),
        "<scratchpad>Customer = %s %s; b. %s; asked to change the delivery address. Confirm identity first.</scratchpad>" % (first, last, birth()),
    ]), ["name", "dob"]


# ---- names_context -----------------------------------------------------------------------------


@shape("names_context", "contract_parties", True)
def _():
    origin = pick(["nl", "qc", "ie", "za", "pl", "se", "il", "ph"])
    first, last = person(origin)
    n = "%s %s" % (first, last)
    return {
        "nl": "HUUROVEREENKOMST. De ondergetekenden: Stichting Woonzorg, hierna verhuurder, en %s, hierna huurder, verklaren..." % n,
        "qc": "BAIL DE LOGEMENT entre Gestion Immobilière Laval inc. (le locateur) et %s (le locataire), signé à Montréal." % n,
        "ie": "This Tenancy Agreement is made between Dublin Lettings Ltd (the Landlord) and %s (the Tenant) for the premises described below." % n,
        "za": "LEASE AGREEMENT entered into by and between Cape Rentals (Pty) Ltd and %s (\"the Lessee\")." % n,
        "pl": "UMOWA NAJMU zawarta pomiędzy Spółdzielnią Mieszkaniową Ursynów a Panem/Panią %s, zwanym dalej Najemcą." % n,
        "se": "HYRESAVTAL mellan Bostadsbolaget Väst AB (hyresvärd) och %s (hyresgäst) avseende lägenhet nr %s." % (n, digits(4)),
        "il": "Heskem sechirut bein Azorim Nechasim Ltd. (ha-maskir) u-bein %s (ha-socher)." % n,
        "ph": "KASUNDUAN SA PAUPAHAN. Ang kasunduang ito ay sa pagitan ng Ayala Land Leasing at ni %s, ang umuupa." % n,
    }[origin], ["name"]


@shape("names_context", "agent_chain_of_thought", True)
def _():
    origin = pick(["fi", "dk", "no", "cz", "tr", "my", "ie", "za", "qc"])
    first, last = person(origin)
    n = "%s %s" % (first, last)
    return pick([
        "Step 1: The ticket was opened by %s. Step 2: Check whether the refund was already issued. Step 3: Reply in Finnish if needed." % n,
        "I think %s is the person who approved the exception last quarter, so I will ask them before closing." % n,
        "Plan:\n- summarise the complaint from %s\n- draft an apology\n- escalate to tier 2" % n,
        "Observation: search returned one match, %s, in the CRM. Thought: this is probably the same customer as in the e-mail." % n,
    ]), ["name"]


# ---- health ------------------------------------------------------------------------------------


@shape("health", "pharmacy_lab_results", True)
def _():
    origin = pick(["nl", "pl", "tr", "se", "dk", "cz", "ph", "my", "fi", "qc"])
    first, last = person(origin)
    n = "%s %s" % (first, last)
    return {
        "nl": "Apotheek: herhaalrecept metformine 500 mg voor %s (diabetes type 2), klaar om op te halen." % n,
        "pl": "Apteka: %s odbiera insulinę, rozpoznanie cukrzyca typu 1, recepta nr %s." % (n, digits(22)),
        "tr": "Eczane: %s için levotiroksin, tanı hipotiroidi; reçete e-Nabız'da." % n,
        "se": "Apoteket: %s hämtar ut sertralin 50 mg mot depression, recept förnyat." % n,
        "dk": "Apoteket: %s, diagnose astma, salbutamol inhalator udleveret." % n,
        "cz": "Lékárna: %s, diagnóza epilepsie, vydán lamotrigin 100 mg." % n,
        "ph": "Botika: si %s ay may altapresyon, binigyan ng losartan 50 mg." % n,
        "my": "Farmasi: %s, pesakit kencing manis, ubat metformin 850 mg dikeluarkan." % n,
        "fi": "Apteekki: %s, diagnoosi MS-tauti, lääke fingolimodi, resepti uusittu." % n,
        "qc": "Pharmacie: %s, diagnostic de trouble bipolaire, renouvellement du lithium 300 mg." % n,
    }[origin], ["name", "health"]


@shape("health", "school_nurse_note", True)
def _():
    origin = pick(["ie", "za", "nl", "se", "no", "pl", "qc"])
    first, last = person(origin)
    cond = pick([("ADHD", "methylphenidate"), ("type 1 diabetes", "insulin pump"), ("epilepsy", "levetiracetam"),
                 ("severe asthma", "a blue inhaler"), ("anaphylaxis to peanuts", "an EpiPen")])
    return pick([
        "School nurse: %s %s (class %d%s) has %s and carries %s; staff on the trip must know." % (
            first, last, R.randint(1, 6), pick("ABC"), cond[0], cond[1]),
        {"pupil": "%s %s" % (first, last), "medical": {"condition": cond[0], "medication": cond[1]}, "trip_consent": True},
        "Note to teachers: %s %s's parents told us about the %s diagnosis; %s is kept in the office." % (first, last, cond[0], cond[1]),
    ]), ["name", "health"]


# ---- vendor_secret -----------------------------------------------------------------------------


@shape("vendor_secret", "package_registry_configs", True)
def _():
    kind = pick(["npmrc", "pypirc", "docker", "gitlab", "env"])
    if kind == "npmrc":
        return "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=%s\nalways-auth=true" % vendor("npm")[1], ["api_token"]
    if kind == "pypirc":
        return "[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = %s" % vendor("pypi")[1], ["api_token"]
    if kind == "docker":
        return {"auths": {"https://index.docker.io/v1/": {"auth": b64("ci-bot:" + vendor("dockerhub")[1])}}}, ["api_token"]
    if kind == "gitlab":
        return "[[runners]]\n  url = \"https://gitlab.example.org/\"\n  token = \"%s\"" % vendor("gitlab")[1], ["api_token"]
    name, tok = vendor(pick(["huggingface", "replicate", "linear", "supabase", "digitalocean", "grafana", "newrelic", "shopify"]))
    return "%s=%s" % (VENDOR_ENV[name], tok), ["api_token"]


@shape("vendor_secret", "agent_scratchpad_tool_trace", True)
def _():
    name, tok = vendor(pick(["openai_project", "anthropic", "github_fine", "slack_bot", "sendgrid", "stripe_webhook",
                             "twilio", "google_oauth", "atlassian", "huggingface"]))
    return pick([
        "Thought: the env var is empty, but the user pasted their key earlier (%s). I'll pass it directly to the client.\nAction: http_request" % tok,
        "Action Input: {\"url\": \"https://api.vendor.example/v1/items\", \"api_key\": \"%s\"}" % tok,
        "Observation: 401 from the API with key %s... retrying with the same key" % tok,
        "<thinking>The config has %s; use it for the webhook test.</thinking>" % tok,
    ]), ["api_token"]


# ---- url_credentials ---------------------------------------------------------------------------


@shape("url_credentials", "helm_values_inventory", True)
def _():
    pw = pick([password(), chars(6) + pick(["!", "$", "&", "'", "(", "*", ",", ";", "=", "~", "#"]) + chars(6)])
    user = pick(["app", "svc_orders", "grafana", "rabbit", "ops"])
    host = pick(["db-01.internal", "pg.prod.svc.cluster.local", "mq.lan", "10.20.%d.%d" % (R.randint(0, 255), R.randint(1, 254))])
    scheme = pick(["postgresql", "mysql", "amqp", "redis", "mongodb"])
    url = "%s://%s:%s@%s/%s" % (scheme, user, pw, host, pick(["orders", "vhost", "0", "admin"]))
    return pick([
        "# values-prod.yaml\nbackend:\n  replicas: 3\n  env:\n    DATABASE_URL: \"%s\"\n" % url,
        "[db]\ndb-01 ansible_host=10.0.0.5\n\n[db:vars]\nconn_string=%s\n" % url,
        "- name: migrate\n  command: flyway -url=%s migrate\n" % url,
    ]), ["password"]


# ---- password_prose ----------------------------------------------------------------------------


@shape("password_prose", "tenancy_portal_handover", True)
def _():
    pw = password()
    return pick([
        "Je kunt inloggen op het huurdersportaal met je e-mailadres en inlogcode %s; wijzig die bij de eerste keer." % pw,
        "Dostęp do panelu najemcy: login to numer umowy, a hasło startowe %s — zmień je po zalogowaniu." % pw,
        "Kiracı portalına giriş için parolanız %s olarak belirlendi, ilk girişte değiştirin." % pw,
        "Salasanasi asukasportaaliin on %s, vaihda se heti." % pw,
        "Din adgangskode til beboerportalen er %s (midlertidig)." % pw,
        "Passordet ditt til leietakerportalen er satt til %s." % pw,
        "Přístupové heslo do portálu nájemníka je %s, po přihlášení ho změňte." % pw,
        "Ang password mo sa tenant portal ay %s, palitan mo agad pagka-login." % pw,
        "Kata laluan sementara portal penyewa anda ialah %s." % pw,
        "Jou wagwoord vir die huurderportaal is %s, verander dit asseblief." % pw,
        "Votre NIP temporaire pour le portail des locataires est %s, changez-le à la première connexion." % pw,
    ]), ["password"]


@shape("password_prose", "wifi_and_locker_notes", True)
def _():
    pw = password()
    return pick([
        "Welcome pack: the Wi-Fi is %s-Guest and the key is %s, the bins go out on Tuesdays." % (pick(["Fjord", "Maple", "Sampaguita"]), pw),
        "Hey, the pass for the shared Netflix is %s don't change it pls" % pw,
        "Gastnetwerk: wachtwoord %s (staat ook op de koelkast)." % pw,
        "Wifi-lösen till stugan: %s" % pw,
        "Yung login ng admin sa router, pw %s" % pw,
        "Login for the staff laptop is the usual username, pass %s, grand so." % pw,
    ]), ["password"]


# ---- keyword_token -----------------------------------------------------------------------------


@shape("keyword_token", "har_headers_name_value", True)
def _():
    tok = token(R.randint(32, 64), pick([B62, HEX, B62 + "-_."]))
    name, value = pick([("Authorization", "Bearer " + tok), ("X-Auth-Token", tok), ("Cookie", "session=%s; lang=nl" % tok),
                        ("X-Api-Key", tok), ("Proxy-Authorization", "Bearer " + tok)])
    return {"log": {"entries": [{"request": {"method": pick(["GET", "POST"]),
                                             "url": "https://%s/api/v%d/%s" % (pick(["portal.example.nl", "api.example.pl", "app.example.fi"]), R.randint(1, 3), pick(["leases", "orders", "students"])),
                                             "headers": [{"name": "Accept", "value": "application/json"}, {"name": name, "value": value}]},
                                 "response": {"status": 200}}]}}, ["secret"]


# ---- pem_key -----------------------------------------------------------------------------------


@shape("pem_key", "write_file_tool_call", True)
def _():
    pem = private_key_pem()
    path = pick(["~/.ssh/id_deploy", "certs/tls.key", "/etc/ssl/private/portal.key", "secrets/jwt-signing.pem"])
    return pick([
        {"tool": "write_file", "arguments": {"path": path, "mode": "0600", "content": pem}},
        {"function_call": {"name": "fs.write", "arguments": json.dumps({"path": path, "content": pem})}},
        {"steps": [{"run": "mkdir -p certs"}, {"write": {"file": path, "lines": pem.strip().split("\n")}}]},
    ]), ["private_key"]


# ---- encoded -----------------------------------------------------------------------------------


@shape("encoded", "mime_encoded_headers", True)
def _():
    origin = pick(["pl", "cz", "tr", "se", "fi", "dk", "nl", "qc"])
    first, last = person(origin)
    addr = "%s %s <%s>" % (first, last, email(first, last, origin))
    how = pick(["B", "Q"])
    if how == "B":
        enc = "=?UTF-8?B?%s?=" % base64.b64encode(addr.encode()).decode()
    else:
        enc = "=?UTF-8?Q?%s?=" % quopri.encodestring(addr.encode(), header=True).decode().replace("\n", "")
    return "From: %s\nTo: lettings@example.org\nSubject: =?UTF-8?B?%s?=\n" % (
        enc, base64.b64encode(pick(["Wniosek o najem", "Dotaz k bytu", "Ansökan", "Aanvraag"]).encode()).decode()), ["name", "email"]


@shape("encoded", "ics_folded_lines", True)
def _():
    origin = pick(["nl", "no", "fi", "ie", "za", "il", "my"])
    first, last = person(origin)
    mail = email(first, last, origin)
    line = "ATTENDEE;CN=%s %s;ROLE=REQ-PARTICIPANT:mailto:%s" % (first, last, mail)
    cut = R.randint(len(line) - len(mail) + 2, len(line) - 3)
    folded = line[:cut] + "\r\n " + line[cut:]
    return ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:%s\r\n%s\r\nDTSTART:2026%02d%02dT%02d0000Z\r\nEND:VEVENT\r\nEND:VCALENDAR" % (
        pick(["Bezichtiging", "Viewing", "Oppfølging", "Tapaaminen"]), folded, R.randint(1, 12), R.randint(1, 28), R.randint(8, 17))), ["name", "email"]


# ---- split_json --------------------------------------------------------------------------------


@shape("split_json", "form_fields_name_value", True)
def _():
    origin = pick(["pl", "nl", "tr", "cz", "se", "ph", "my", "za"])
    first, last = person(origin)
    kind = pick(["phone", "email", "iban"])
    if kind == "phone":
        region, n, _ = phone(PHONE_OF[origin])
        fields = [{"name": "phone_country", "value": "+" + MOBILE[region][0]},
                  {"name": "phone_number", "value": " ".join([n[:3], n[3:6], n[6:]])}]
    elif kind == "email":
        local, domain = email(first, last, origin).split("@")
        fields = [{"name": "email_local", "value": local}, {"name": "email_domain", "value": domain}]
    else:
        s = iban(PHONE_OF[origin] if PHONE_OF[origin] in ("PL", "NL", "TR", "CZ", "SE") else "NL").replace(" ", "")
        k = R.randint(8, len(s) - 6)
        fields = [{"name": "iban_part1", "value": s[:k]}, {"name": "iban_part2", "value": s[k:]}]
    return {"form": pick(["rental-application", "enrolment", "delivery-address"]), "fields": fields}, [kind]


# ---- error_text --------------------------------------------------------------------------------


@shape("error_text", "graphql_error_variables", True)
def _():
    origin = pick(["nl", "pl", "tr", "fi", "dk", "cz", "ph", "my", "ie", "qc"])
    first, last = person(origin)
    kind = pick(["email", "phone", "card"])
    val = {"email": email(first, last, origin), "phone": phone_of(origin), "card": card()}[kind]
    msg, types = pick([("Variable \"$input\" got invalid value %s; expected a unique %s." % (json.dumps(val), kind), [kind]),
                       ("Duplicate %s %s for tenant %s %s" % (kind, val, first, last), [kind, "name"])])
    return {"errors": [{"message": msg, "path": ["createApplicant"], "extensions": {"code": "BAD_USER_INPUT"}}],
            "data": None}, types
