"""Must-block shapes of the sixth probe: function-calling arguments holding arrays of records,
spreadsheet ranges as arrays, OCR'd forms with broken spacing, e-mail threads with quoted replies,
chat exports, insurance claims, prescriptions with dosages, summaries and translation tasks that
restate a person's details, names in appositions, possessives and after titles, framework logs,
Jupyter outputs, docker run, JDBC URLs, git's credential store and kubeconfig files, in Catalan,
Icelandic, Welsh, Maltese, Albanian, Serbian, Luxembourgish, Georgian, Amharic in Latin letters,
Ghanaian English, Jordanian, Ecuadorian and Costa Rican Spanish, and Hebrew, Persian, Arabic,
Nepali and Thai in their own scripts."""

import base64
import json
import urllib.parse

from probe6_values import (IDS, LATIN, MONTHS, MOBILE, PHONE_OF, R, b64, birth, card, chars, digits, email, full, iban,
                           national, password, person, phone, phone_of, pick, private_key_pem, shape, token, vendor, when,
                           HEX, B62, URLSAFE)

# Origins whose names the shapes below put after titles and under sign-offs: every origin, in
# Latin letters and in their own scripts.
ORIGINS_TITLED = ["ca", "is", "cy", "mt", "al", "rs", "lu", "ge", "et", "gh", "jo", "ec", "cr", "he", "fa", "ar", "ne", "th"]

# ---- struct_pii --------------------------------------------------------------------------------


@shape("struct_pii", "function_args_record_array", True)
def _():
    recs = []
    types = set()
    for _ in range(R.randint(2, 4)):
        origin = pick(LATIN)
        first, last = person(origin)
        rec = {"full_name": full(first, last), "email": email(first, last, origin)}
        types.update(["name", "email"])
        if R.random() < 0.6:
            rec["mobile"] = phone_of(origin)
            types.add("phone")
        recs.append(rec)
    args = {"list_id": "aud_%s" % chars(10), "records": recs, "upsert_on": "email"}
    call = pick([
        {"type": "tool_use", "id": "toolu_%s" % chars(22), "name": "crm_bulk_upsert", "input": args},
        {"role": "assistant", "tool_calls": [{"id": "call_%s" % chars(20), "type": "function",
                                              "function": {"name": "contacts.import", "arguments": json.dumps(args, ensure_ascii=False)}}]},
        {"functionCall": {"name": "addAttendees", "args": {"event": "evt-%s" % digits(5), "attendees": recs}}},
    ])
    return call, sorted(types)


@shape("struct_pii", "spreadsheet_values_array", True)
def _():
    origin = pick(["ca", "is", "cy", "mt", "al", "rs", "lu", "ec", "cr"])
    head = {"ca": ["Nom", "Correu", "Telèfon"], "is": ["Nafn", "Netfang", "Sími"], "cy": ["Enw", "E-bost", "Ffôn"],
            "mt": ["Isem", "Email", "Mowbajl"], "al": ["Emri", "Email", "Celular"], "rs": ["Ime i prezime", "Imejl", "Mobilni"],
            "lu": ["Numm", "E-Mail", "Handy"], "ec": ["Nombre", "Correo", "Celular"], "cr": ["Nombre", "Correo", "Teléfono"]}[origin]
    rows = [head]
    for _ in range(R.randint(2, 4)):
        first, last = person(origin)
        rows.append([full(first, last), email(first, last, origin), phone_of(origin)])
    return {"range": "%s!A1:C%d" % (pick(["Full1", "Inscripcions", "Skráning", "Sheet1"]), len(rows)), "majorDimension": "ROWS",
            "values": rows}, ["name", "email", "phone"]


@shape("struct_pii", "ocr_form_broken_spacing", True)
def _():
    origin = pick(["ca", "mt", "al", "rs", "lu", "gh", "et", "ec", "cr"])
    first, last = person(origin)
    mail = email(first, last, origin)
    local, host = mail.split("@")
    mail_ocr = pick(["%s @ %s" % (local, host), "%s@ %s" % (local, host.replace(".", " .", 1)), "%s @%s" % (local, host)])
    ph = phone_of(origin)
    lab = pick([("N ame", "E-ma il", "Te l."), ("NAME :", "EMAIL :", "PHONE :"), ("Nom i cognoms", "Adreça electrò nica", "Telè fon"),
                ("Nombre y ape llidos", "Corre o", "Ce lular")])
    spaced = " ".join(full(first, last))
    name_ocr = pick([full(first, last), full(first, last).upper(), spaced])
    return ("[OCR page 1/2, confidence 0.%d]\n%s %s\n%s %s\n%s %s\nSignature: ________  Date: %s" % (
        R.randint(61, 94), lab[0], name_ocr, lab[1], mail_ocr, lab[2], ph, when())), ["name", "email", "phone"]


# ---- intl_phone --------------------------------------------------------------------------------


@shape("intl_phone", "email_thread_quoted_reply", True)
def _():
    region = pick(sorted(MOBILE))
    _, _, ph = phone(region)
    first, last = person(pick(LATIN))
    line = pick([
        "Call me on %s if the courier can't find the gate." % ph,
        "My new mobile is %s, please update your records." % ph,
        "Podeu trucar-me al %s a partir de les 5." % ph,
        "Hringdu í mig í síma %s." % ph,
        "Ffoniwch fi ar %s os oes problem." % ph,
        "Ċempilli fuq %s." % ph,
        "Më telefononi në %s." % ph,
        "Pozovite me na %s posle 17h." % ph,
        "Llámame al %s cuando llegues." % ph,
    ])
    return ("Re: %s\n\n%s\n\n> On %s, %s <%s> wrote:\n> %s\n>> Could you send a number we can reach you at?" % (
        pick(["delivery", "booking #%s" % digits(5), "viewing on Friday"]), line, when(), pick(["Support", "Reception"]),
        pick(["support@example.org", "desk@example.net"]), pick(["Thanks, noted.", "We'll confirm by phone."]))), ["phone"]


@shape("intl_phone", "chat_export_messages", True)
def _():
    region = pick(sorted(MOBILE))
    _, _, ph = phone(region)
    msg = pick(["new number: %s" % ph, "text me at %s" % ph, "%s ← my whatsapp" % ph, "ok call %s" % ph,
                "nuevo número %s" % ph, "símanúmerið mitt er %s" % ph, "numri im: %s" % ph])
    return {"name": pick(["Family", "Flat 3B", "Volunteers 2026", "Football dads"]), "type": "private_group",
            "messages": [{"id": R.randint(1000, 99999), "type": "message", "date": "2026-%02d-%02dT%02d:%02d:00" % (
                R.randint(1, 12), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59)), "from": pick(["you", "member"]),
                "text": msg}]}, ["phone"]


# ---- national_id -------------------------------------------------------------------------------


@shape("national_id", "insurance_claim_ids", True)
def _():
    scheme = pick(sorted(IDS))
    label, val = national(scheme)
    origin = {"ec": "ec", "ar": "ec", "ar_dni": "cr", "cl": "cr"}.get(scheme, pick(LATIN))
    first, last = person(origin)
    return pick([
        {"claim": {"number": "CLM-%s" % digits(8), "claimant": {"name": full(first, last), "id_document": {"type": label, "number": val}},
                   "amount": R.randint(80, 9000)}},
        "Claim CLM-%s lodged by %s (%s %s) for water damage; adjuster visit on %s." % (digits(8), full(first, last), label, val, when()),
        "Reclamación %s: asegurado %s, %s %s, siniestro del %s." % (digits(7), full(first, last), label, val, when()),
    ]), ["name", "national_id"]


@shape("national_id", "translation_task_ids", True)
def _():
    scheme = pick(sorted(IDS))
    label, val = national(scheme)
    first, last = person(pick(LATIN))
    n = full(first, last)
    # The sentence to translate is in the language of the scheme's country.
    src = {
        "be": "Le %s de Mme %s est le %s." % (label, last, val),
        "at": "Der Versicherte %s, %s %s, wohnt seit 2019 in Graz." % (n, label, val),
        "ch": "Die versicherte Person %s (%s %s) hat die Adresse gewechselt." % (n, label, val),
        "cl": "El titular %s presentó su %s %s." % (n, label, val),
        "ec": "La afiliada %s, %s %s, solicita el reembolso." % (n, label, val),
        "ar": "El contribuyente %s, %s %s, adeuda dos cuotas." % (n, label, val),
        "ar_dni": "El inquilino %s, %s %s, firmó el contrato." % (n, label, val),
        "hr": "Podnositelj %s, %s: %s." % (n, label, val),
        "ua": "Заявник %s, %s %s." % (n, label, val),
    }[scheme]
    return {"task": "translate", "target_language": pick(["en", "de", "es", "fr"]), "text": src}, ["name", "national_id"]


# ---- dob_context -------------------------------------------------------------------------------


@shape("dob_context", "summary_restating_person", True)
def _():
    lang = pick(["en", "ca", "is", "cy", "mt", "al", "rs"])
    origin = lang if lang != "en" else pick(LATIN)
    first, last = person(origin)
    n = full(first, last)
    b = birth(lang=lang)
    return {
        "en": "Summary: the applicant, %s (born %s), is asking to move the appointment; no other changes." % (n, b),
        "ca": "Resum: la sol·licitant, %s, nascuda el %s, demana canviar la cita." % (n, b),
        "is": "Samantekt: umsækjandi er %s, fædd %s, og óskar eftir nýjum tíma." % (n, b),
        "cy": "Crynodeb: mae'r ymgeisydd, %s (ganwyd %s), am newid yr apwyntiad." % (n, b),
        "mt": "Sommarju: l-applikant, %s, imwieled fl-%s, irid ibiddel l-appuntament." % (n, b),
        "al": "Përmbledhje: aplikanti %s, i lindur më %s, kërkon ndryshimin e takimit." % (n, b),
        "rs": "Rezime: podnosilac zahteva %s, rođen %s, traži promenu termina." % (n, b),
    }[lang], ["name", "dob"]


@shape("dob_context", "jupyter_dataframe_output", True)
def _():
    cols = pick([("name", "date_of_birth"), ("patient", "dob"), ("nom", "data_naixement"), ("nafn", "fæðingardagur")])
    lines = ["   %-22s %s    city" % cols]
    for i in range(R.randint(2, 4)):
        origin = pick(LATIN)
        first, last = person(origin)
        lines.append("%d  %-22s %s  %s" % (i, full(first, last), birth("%Y-%m-%d"), pick(["Girona", "Akureyri", "Cardiff", "Mdina", "Durrës", "Novi Sad"])))
    return {"cell_type": "code", "execution_count": R.randint(3, 40), "source": ["df.head()"],
            "outputs": [{"output_type": "execute_result", "data": {"text/plain": lines}}]}, ["name", "dob"]


# ---- names_context -----------------------------------------------------------------------------


@shape("names_context", "apposition_possessive", True)
def _():
    origin = pick(LATIN)
    first, last = person(origin)
    n = full(first, last)
    return pick([
        "Our client, %s, asked us to hold the booking until Monday." % n,
        "%s's flight was moved to the afternoon, so the pickup changes too." % n,
        "I spoke with the tenant, %s, about the leak in the bathroom." % n,
        "Please forward this to my colleague %s, who handles the renewals." % n,
        "The new hire, %s, starts on the %s; order a laptop." % (n, when()),
        "La nostra clienta, %s, vol anul·lar la reserva." % n,
        "Forward the minutes to %s's assistant before the board meeting." % n,
        "Vinsamlegast hafðu samband við %s, sem sér um málið." % n,
        "Mi vecina, %s, me dejó las llaves." % n,
    ]), ["name"]


@shape("names_context", "titles_many_languages", True)
def _():
    origin = pick(ORIGINS_TITLED)
    first, last = person(origin)
    n = full(first, last)
    title = {
        "ca": pick(["Sr.", "Sra.", "la senyora", "el senyor"]), "is": pick(["Frú", "Herra"]), "cy": pick(["Mr", "Mrs", "Ms", "Dr"]),
        "mt": pick(["Is-Sur", "Is-Sinjura"]), "al": pick(["Z.", "Znj."]), "rs": pick(["g.", "gđa", "gospodin"]),
        "lu": pick(["Här", "Madame"]), "ge": pick(["ბატონი", "ქალბატონი"]), "et": pick(["Ato", "Weyzero"]),
        "gh": pick(["Mr.", "Madam", "Nana"]), "jo": pick(["Mr.", "Ms.", "Eng."]), "ec": pick(["Sr.", "Lcda.", "Ing."]),
        "cr": pick(["Don", "Doña", "Licda."]), "he": pick(["מר", "גב'"]), "fa": pick(["آقای", "خانم"]),
        "ar": pick(["السيد", "السيدة"]), "ne": pick(["श्री", "श्रीमती"]), "th": pick(["คุณ", "นาย", "นางสาว"]),
    }[origin]
    sep = "" if origin == "th" else " "
    who = "%s%s%s" % (title, sep, n)
    return pick([
        "Meeting notes: %s agreed to send the revised quote by Thursday." % who,
        "Minutes — present: %s, the finance lead and two guests." % who,
        "%s will join the call from the branch office." % who,
        "Action item for %s: confirm the venue." % who,
    ]), ["name"]


@shape("names_context", "email_sign_off", True)
def _():
    origin = pick(ORIGINS_TITLED)
    first, last = person(origin)
    close = pick(["Best regards,", "Salutacions,", "Kveðja,", "Cofion,", "Sellimiet,", "Përshëndetje,", "Srdačan pozdrav,",
                  "Saludos cordiales,", "Cheers,", "Thanks,"])
    body = pick(["The documents are attached; let me know if anything is missing.",
                 "I'll be out of the office until Monday.",
                 "Could we move our call to 3 pm?",
                 "Gràcies per la resposta ràpida."])
    return "Hi all,\n\n%s\n\n%s\n%s" % (body, close, full(first, last)), ["name"]

# ---- health ------------------------------------------------------------------------------------


@shape("health", "insurance_claim_diagnosis", True)
def _():
    origin = pick(LATIN)
    first, last = person(origin)
    dx = pick([("F32.1", "moderate depressive episode"), ("E11.9", "type 2 diabetes mellitus"), ("C50.9", "breast cancer"),
               ("G35", "multiple sclerosis"), ("F41.1", "generalised anxiety disorder"), ("B20", "HIV disease"),
               ("M05.9", "rheumatoid arthritis"), ("F10.2", "alcohol dependence")])
    return pick([
        {"claim_id": "HC-%s" % digits(9), "member": full(first, last), "diagnosis": {"icd10": dx[0], "description": dx[1]},
         "provider": pick(["Clínica Girona", "Landspítali", "Ysbyty Gwynedd", "Mater Dei"]), "status": "pending review"},
        "Pre-authorisation request for %s: diagnosis %s (%s), %d sessions of therapy requested." % (full(first, last), dx[1], dx[0], R.randint(6, 20)),
        "Claim denied for member %s — the policy excludes pre-existing %s (ICD-10 %s)." % (full(first, last), dx[1], dx[0]),
    ]), ["name", "health"]


@shape("health", "medication_dosage_instructions", True)
def _():
    origin = pick(ORIGINS_TITLED)
    first, last = person(origin)
    med = pick(["sertraline 100 mg once daily", "methotrexate 15 mg weekly", "lithium carbonate 400 mg twice daily",
                "insulin glargine 22 units at night", "tenofovir/emtricitabine one tablet daily", "olanzapine 10 mg at bedtime",
                "levodopa/carbidopa 100/25 three times a day", "buprenorphine 8 mg sublingual daily"])
    return pick([
        "Rx for %s: %s, 30 days, 2 repeats." % (full(first, last), med),
        "Dispense to %s — %s. Counsel on side effects." % (full(first, last), med),
        "Reminder for %s: take %s; next review in 6 weeks." % (full(first, last), med),
        {"patient": full(first, last), "prescription": {"drug": med.split(" ")[0], "sig": med}},
    ]), ["name", "health"]


# ---- vendor_secret -----------------------------------------------------------------------------


@shape("vendor_secret", "config_files_new_vendors", True)
def _():
    name, env, tok = vendor()
    return pick([
        "%s=%s" % (env, tok),
        "[default]\n%s = %s\n" % (env.lower(), tok),
        "services:\n  app:\n    environment:\n      - %s=%s\n" % (env, tok),
        "export %s='%s'" % (env, tok),
        {"secrets": {env: tok}},
        "docker run -d -e %s=%s ghcr.io/acme/worker:2.3" % (env, tok),
    ]), ["api_token"]


@shape("vendor_secret", "jupyter_env_printout", True)
def _():
    name, env, tok = vendor()
    out = pick([
        ["environ({'HOME': '/home/jovyan', 'LANG': 'C.UTF-8', '%s': '%s', 'SHELL': '/bin/bash'})" % (env, tok)],
        ["'%s'" % tok],
        ["token loaded: %s\n" % tok],
    ])
    kind = "execute_result" if out[0].startswith(("environ", "'")) else "stream"
    o = {"output_type": kind}
    if kind == "stream":
        o.update({"name": "stdout", "text": out})
    else:
        o.update({"data": {"text/plain": out}, "execution_count": R.randint(1, 30)})
    return {"cells": [{"cell_type": "code", "source": [pick(["os.environ", "os.getenv('%s')" % env, "print('token loaded:', tok)"])],
                       "outputs": [o]}], "nbformat": 4}, ["api_token"]


# ---- url_credentials ---------------------------------------------------------------------------


@shape("url_credentials", "jdbc_and_credential_store", True)
def _():
    user = pick(["app_rw", "etl", "reporting", "svc-billing", "jenkins"])
    pw = password()
    enc = urllib.parse.quote(pw, safe="")
    host = pick(["db.prod.internal", "10.%d.%d.%d" % (R.randint(0, 255), R.randint(0, 255), R.randint(1, 254)), "sql-02.corp"])
    return pick([
        "spring.datasource.url=jdbc:postgresql://%s:5432/orders?user=%s&password=%s&sslmode=require" % (host, user, enc),
        "jdbc:mysql://%s:%s@%s:3306/shop?useSSL=true" % (user, enc, host),
        "jdbc:sqlserver://%s:1433;databaseName=hr;user=%s;password=%s;encrypt=true" % (host, user, pw.replace(";", "")),
        "https://%s:%s@git.example.org\n" % (user, enc),  # ~/.git-credentials
        "$ cat ~/.git-credentials\nhttps://%s:%s@bitbucket.example.com" % (user, enc),
        "smb://%s:%s@fileserver/share/reports" % (user, enc),
    ]), ["password"]


# ---- password_prose ----------------------------------------------------------------------------


@shape("password_prose", "email_thread_password", True)
def _():
    pw = password()
    lang = pick(["en", "ca", "is", "cy", "mt", "al", "rs", "es", "lu"])
    line = {
        "en": "The temporary password for the shared mailbox is %s, change it on first login." % pw,
        "ca": "La contrasenya provisional és %s; canvia-la quan entris." % pw,
        "is": "Lykilorðið er %s, breyttu því strax." % pw,
        "cy": "Y cyfrinair dros dro yw %s." % pw,
        "mt": "Il-password temporanja hi %s." % pw,
        "al": "Fjalëkalimi i përkohshëm është %s." % pw,
        "rs": "Privremena lozinka je %s, promenite je odmah." % pw,
        "es": "La clave de acceso al portal es %s." % pw,
        "lu": "D'Passwuert ass %s, w.e.g. änneren." % pw,
    }[lang]
    return "%s\n\n> On %s IT Helpdesk wrote:\n> Your account has been reset.\n> Reply if you need the new credentials." % (
        line, when()), ["password"]


@shape("password_prose", "docker_and_cli_flags", True)
def _():
    pw = password()
    q = "'%s'" % pw if any(c in pw for c in "!$&*#^=+?") else pw
    return pick([
        "docker run -d --name pg -e POSTGRES_PASSWORD=%s -p 5432:5432 postgres:16" % q,
        "docker run -e MYSQL_ROOT_PASSWORD=%s mysql:8" % q,
        "mysql -h db.internal -u root -p%s orders < dump.sql" % q,
        "redis-cli -h cache.internal -a %s ping" % q,
        "psql \"host=db.internal user=etl password=%s dbname=dw\"" % pw.replace('"', ""),
        "curl -u admin:%s https://jenkins.internal/api/json" % q,
    ]), ["password"]


# ---- keyword_token -----------------------------------------------------------------------------


@shape("keyword_token", "kubeconfig_and_framework_logs", True)
def _():
    tok = token(R.randint(32, 64), pick([B62, HEX, URLSAFE]))
    return pick([
        "apiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n    token: %s\n" % tok,
        "Started POST \"/api/v2/orders\" for 10.0.3.7\n  Parameters: {\"order\"=>{\"sku\"=>\"A-%s\"}, \"access_token\"=>\"%s\"}" % (digits(4), tok),
        "DEBUG o.s.web.client.RestTemplate - HTTP GET https://api.example.com/v1/items, headers=[Authorization:\"Bearer %s\"]" % tok,
        "[2026-03-%02d 10:%02d:11] production.INFO: webhook received {\"signature_secret\":\"%s\"}" % (R.randint(1, 28), R.randint(0, 59), tok),
        "INFO:httpx:HTTP Request: GET https://api.example.com/v1/me?api_key=%s \"HTTP/1.1 200 OK\"" % tok,
    ]), ["secret"]


# ---- pem_key -----------------------------------------------------------------------------------


@shape("pem_key", "kubeconfig_client_key_data", True)
def _():
    pem = private_key_pem()
    return pick([
        "users:\n- name: admin\n  user:\n    client-certificate-data: %s\n    client-key-data: %s\n" % (
            b64("-----BEGIN CERTIFICATE-----\n" + chars(64, B62 + "+/") + "\n-----END CERTIFICATE-----\n"), b64(pem)),
        {"cells": [{"cell_type": "code", "source": ["print(open('id_ed25519').read())"],
                    "outputs": [{"output_type": "stream", "name": "stdout", "text": pem.splitlines(True)}]}]},
        "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: %s\n" % b64(pem),
    ]), ["private_key"]


# ---- encoded -----------------------------------------------------------------------------------


@shape("encoded", "encoded_tool_arguments", True)
def _():
    origin = pick(LATIN)
    first, last = person(origin)
    mail = email(first, last, origin)
    ph = phone_of(origin)
    how = pick(["b64json", "form", "b64url", "double"])
    if how == "b64json":
        return {"tool": "send_invite", "args_b64": b64(json.dumps({"name": full(first, last), "email": mail}, ensure_ascii=False))}, ["name", "email"]
    if how == "form":
        return "POST /subscribe HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\n%s" % urllib.parse.urlencode(
            {"name": full(first, last), "email": mail, "phone": ph}), ["name", "email", "phone"]
    if how == "b64url":
        return "https://links.example.com/track?u=%s" % base64.urlsafe_b64encode(mail.encode()).decode().rstrip("="), ["email"]
    return "redirect=%s" % urllib.parse.quote(urllib.parse.quote("mailto:" + mail, safe=""), safe=""), ["email"]


# ---- split_json --------------------------------------------------------------------------------


@shape("split_json", "values_split_across_cells", True)
def _():
    origin = pick([o for o in LATIN if o in PHONE_OF])
    first, last = person(origin)
    kind = pick(["phone", "email", "card", "iban"])
    if kind == "phone":
        region, n, _ = phone(PHONE_OF[origin])
        k = R.randint(2, len(n) - 3)
        cells = ["+" + MOBILE[region][0], n[:k], n[k:]]
    elif kind == "email":
        local, host = email(first, last, origin).split("@")
        cells = [local, "@", host] if R.random() < 0.5 else [local + "@", host]
    elif kind == "card":
        c = card().replace(" ", "").replace("-", "")
        cells = [c[i:i + 4] for i in range(0, 16, 4)]
    else:
        s = iban(PHONE_OF[origin] if PHONE_OF[origin] in ("IS", "MT", "AL", "RS", "LU", "GE", "JO", "CR") else "MT").replace(" ", "")
        cells = [s[i:i + 4] for i in range(0, len(s), 4)]
    return pick([
        {"values": [["field", "part"]] + [[kind, c] for c in cells]},
        {"row": {"cells": [{"v": c} for c in cells]}, "label": kind},
        {"fragments": cells, "join": ""},
    ]), [kind]


# ---- error_text --------------------------------------------------------------------------------


@shape("error_text", "framework_error_logs", True)
def _():
    origin = pick(LATIN)
    first, last = person(origin)
    kind = pick(["email", "phone", "card"])
    val = {"email": email(first, last, origin), "phone": phone_of(origin), "card": card()}[kind]
    return pick([
        "django.db.utils.IntegrityError: duplicate key value violates unique constraint \"accounts_user_%s_key\"\nDETAIL:  Key (%s)=(%s) already exists." % (kind, kind, val),
        "ActiveRecord::RecordInvalid: Validation failed: %s %s has already been taken" % (kind.capitalize(), val),
        "Illuminate\\Database\\QueryException: SQLSTATE[23000]: Integrity constraint violation: 1062 Duplicate entry '%s' for key 'users_%s_unique'" % (val, kind),
        "System.ArgumentException: The value '%s' is not a valid %s. (Parameter '%s')" % (val, kind, kind),
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for Customer\n%s\n  Value error, unsupported %s [input_value='%s', input_type=str]" % (kind, kind, val),
    ]), [kind]


@shape("error_text", "traceback_locals_person", True)
def _():
    origin = pick(LATIN)
    first, last = person(origin)
    mail = email(first, last, origin)
    return pick([
        "Traceback (most recent call last):\n  File \"billing.py\", line %d, in charge\n    raise PaymentError(customer)\nPaymentError: card declined for customer={'name': '%s', 'email': '%s'}" % (
            R.randint(20, 400), full(first, last), mail),
        "panic: send failed: smtp: 550 5.1.1 <%s>: recipient address rejected: user %s unknown\n\ngoroutine 1 [running]:\nmain.notify()" % (mail, full(first, last)),
        "java.lang.IllegalStateException: profile incomplete for %s <%s>\n\tat com.acme.crm.Profile.check(Profile.java:%d)" % (full(first, last), mail, R.randint(20, 300)),
    ]), ["name", "email"]
