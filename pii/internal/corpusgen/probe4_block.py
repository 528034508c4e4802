"""Must-block shapes of the fourth probe: agents' tool calls and results, drafted e-mails, meeting
notes, HR, insurance and bank workflows, travel bookings, medical scheduling, code review comments,
stack traces and logs, in Brazilian Portuguese, Italian, Latin American Spanish, Romanian,
Hungarian, Greek in Latin letters, Korean, Vietnamese, Indonesian, Indian, Nigerian and Kenyan
English and Arabic names in Latin letters; written carelessly, or with intent to get a value past a
gate (split, encoded, reworded, in Markdown tables, CSV, YAML, XML, SQL and URLs)."""

import json
import urllib.parse

from probe4_values import (B62, HEXL, PHONES_SEEN, PLANS, R, VENDOR_ENV, aadhaar, b64, birth, card, chars, cnp, codice_fiscale, cpf,
                           curp, digits, email, full, iban, kr_rrn, pan, password, person, phone, phone_of, pick,
                           private_key_pem, shape, token, vendor, when)

# ---- struct_pii --------------------------------------------------------------------------------


@shape("struct_pii", "pix_transfer_tool_call", True)
def _():
    first, last = person("br")
    key_kind = pick(["email", "telefone"])
    key = email(first, last, "br") if key_kind == "email" else phone("BR")[1]
    args = {"valor": "%d,%02d" % (R.randint(20, 9000), R.randint(0, 99)), "favorecido": "%s %s" % (first, last),
            "chave_pix": key, "tipo_chave": key_kind, "descricao": pick(["aluguel", "reembolso jantar", "freela"])}
    return {"tool_call": {"name": "banco.pix.enviar", "arguments": json.dumps(args, ensure_ascii=False)}}, \
        ["name", "email" if key_kind == "email" else "phone"]


@shape("struct_pii", "travel_booking_yaml", True)
def _():
    origin = pick(["it", "mx", "gr", "ko", "in", "ar"])
    first, last = person(origin)
    return ("booking:\n  pnr: %s\n  route: %s\n  passenger:\n    name: %s/%s %s\n    email: %s\n    mobile: \"%s\"\n"
            "  payment:\n    card: %s\n    holder: %s\n" % (
                chars(6, "ABCDEFGHJKLMNPQRSTUVWXYZ"), pick(["FCO-GRU", "MEX-BOG", "ATH-ICN", "DEL-DXB", "CAI-JED"]),
                last.upper(), first.upper(), pick(["MR", "MS", "MRS"]), email(first, last, origin),
                phone_of(origin), card(), full(first, last, origin).upper())), ["name", "email", "phone", "card"]


@shape("struct_pii", "hr_markdown_table", True)
def _():
    origin = pick(["ro", "hu", "id", "vi", "ke"])
    head = {"ro": "| Nume | E-mail | Telefon | IBAN |", "hu": "| Név | E-mail | Telefon | Bankszámla |",
            "id": "| Nama | Email | No. HP | Rekening |", "vi": "| Họ tên | Email | Điện thoại | Tài khoản |",
            "ke": "| Name | Email | M-Pesa number | Bank account |"}[origin]
    lines = [pick(["Payroll onboarding, batch %d:" % R.randint(3, 40), "Karyawan baru / new hires:", ""]), head,
             "|---|---|---|---|"]
    for _ in range(R.randint(2, 4)):
        first, last = person(origin)
        lines.append("| %s | %s | %s | %s |" % (full(first, last, origin), email(first, last, origin), phone_of(origin),
                                               iban(pick(["RO", "HU"])) if origin in ("ro", "hu") else digits(R.randint(10, 13))))
    return "\n".join(lines).strip(), ["name", "email", "phone"]


@shape("struct_pii", "insurance_sql_insert", True)
def _():
    origin = pick(["id", "br", "it", "ng"])
    first, last = person(origin)
    table = pick(["pemegang_polis", "segurados", "assicurati", "policyholders"])
    return ("INSERT INTO %s (id, nama_lengkap, email, telepon, premi) VALUES (%d, '%s', '%s', '%s', %d.%02d);" % (
        table, R.randint(1000, 99999), full(first, last, origin).replace("'", "''"), email(first, last, origin),
        phone_of(origin), R.randint(100, 9000), R.randint(0, 99))), ["name", "email", "phone"]


# ---- intl_phone --------------------------------------------------------------------------------


@shape("intl_phone", "drafted_email_callback", True)
def _():
    region, ph = phone(pick(["NG", "KE", "UG", "TZ", "PK", "BD", "LK", "EG", "SA", "MA"]))
    return pick([
        "Subject: Re: your claim\n\nDear customer,\nour adjuster will call you on %s tomorrow between 10am and noon. "
        "Kindly keep the line free.\nRegards,\nClaims desk" % ph,
        "Hello, please flash me on %s when the driver reaches the gate, I'm in a meeting. Thanks" % ph,
        "Good day, I tried calling but the number kept failing. You can reach me on whatsapp %s, it's my only line now." % ph,
        "FYI the landlord says to text him directly on %s about the deposit." % ph,
    ]), ["phone"]


@shape("intl_phone", "contacts_csv_tool_result", True)
def _():
    rows = ["contact_id,role,mobile,preferred_channel"]
    for _ in range(R.randint(2, 5)):
        _, ph = phone(pick(["ID", "PE", "UY", "PK", "BD", "EG", "BR", "VN"]))
        if "," in ph:
            ph = '"%s"' % ph
        rows.append("%d,%s,%s,%s" % (R.randint(100, 9999), pick(["tenant", "driver", "patient", "owner"]), ph,
                                     pick(["sms", "whatsapp", "call"])))
    return {"tool": "crm.contacts.export", "format": "csv", "data": "\n".join(rows)}, ["phone"]


@shape("intl_phone", "xml_sms_gateway", True)
def _():
    region, ph = phone(pick(["ID", "VN", "KR", "BR", "MA", "SA", "LK", "UG"]))
    return ('<?xml version="1.0"?>\n<sms><destino>%s</destino><mensagem>Seu código de retirada é %d</mensagem>'
            '<remetente>LOJA</remetente></sms>' % (ph, R.randint(1000, 9999))), ["phone"]


# ---- national_id -------------------------------------------------------------------------------


@shape("national_id", "kyc_multischeme_prose", True)
def _():
    kind = pick(["cpf", "aadhaar", "pan", "cnp", "cf", "rrn", "curp"])
    if kind == "cpf":
        first, last = person("br")
        return "Cliente %s enviou o CPF %s para validação do cadastro, favor conferir com o documento." % (first, cpf()), ["national_id", "name"]
    if kind == "aadhaar":
        first, last = person("in")
        return "Hi team, %s has shared Aadhaar no. %s for the eKYC, kindly do the needful and update status." % (first, aadhaar()), ["national_id", "name"]
    if kind == "pan":
        first, last = person("in")
        return "PAN of the applicant: %s (%s %s). Form 16 attached, please verify before disbursal." % (pan(), first, last), ["national_id", "name"]
    if kind == "cnp":
        first, last = person("ro")
        return "Bună, pentru contract am nevoie de CNP-ul lui %s %s: %s. Mulțumesc!" % (first, last, cnp()), ["national_id", "name"]
    if kind == "cf":
        first, last = person("it")
        return "Il codice fiscale del sig. %s è %s, lo inserisco nella pratica di rimborso." % (last, codice_fiscale(last, first)), ["national_id", "name"]
    if kind == "rrn":
        first, last = person("ko")
        return "Resident registration number for %s: %s — needed for the hospital insurance form." % (full(first, last, "ko"), kr_rrn()), ["national_id", "name"]
    first, last = person("mx")
    return "Hola, te paso la CURP de %s %s: %s para el alta en el IMSS." % (first, last, curp(first, last)), ["national_id", "name"]


@shape("national_id", "identifier_under_local_key", True)
def _():
    kind = pick(["cpf", "aadhaar", "cnp", "cf", "rrn"])
    first, last = person({"cpf": "br", "aadhaar": "in", "cnp": "ro", "cf": "it", "rrn": "ko"}[kind])
    val = {"cpf": lambda: cpf(), "aadhaar": lambda: aadhaar(), "cnp": lambda: cnp(),
           "cf": lambda: codice_fiscale(last, first), "rrn": lambda: kr_rrn()}[kind]()
    key = pick({"cpf": ["cpf", "nr_documento", "documento"], "aadhaar": ["uid_no", "aadhaar_number", "uidNumber"],
                "cnp": ["cnp", "cod_numeric_personal"], "cf": ["codiceFiscale", "cod_fisc"],
                "rrn": ["jumin_no", "rrn"]}[kind])
    return {"result": {"status": "ok", "customer": {"id": R.randint(10000, 99999), key: val,
                                                   "segment": pick(["retail", "sme"])}}}, ["national_id"]


# ---- dob_context -------------------------------------------------------------------------------


@shape("dob_context", "clinic_scheduling_multilang", True)
def _():
    origin = pick(["br", "it", "mx", "ro", "hu", "id", "vi", "gr"])
    first, last = person(origin)
    y, m, d = birth()
    n = full(first, last, origin)
    return {
        "br": "Agendamento confirmado: %s, data de nascimento %02d/%02d/%d, retorno com a dermatologista dia 14 às 9h." % (n, d, m, y),
        "it": "Prenotazione visita per %s, nato il %d/%d/%d, ambulatorio 3, ore 11:20." % (n, d, m, y),
        "mx": "Cita agendada para %s (fecha de nacimiento: %02d-%02d-%d), consultorio 5, lunes 8:30." % (n, d, m, y),
        "ro": "Programare pentru %s, data nașterii %02d.%02d.%d, cabinetul de ortopedie, joi la 10." % (n, d, m, y),
        "hu": "Időpont: %s, születési idő: %d. %02d. %02d., fogászat, kedd 14:00." % (n, y, m, d),
        "id": "Jadwal kontrol untuk %s, tanggal lahir %02d-%02d-%d, poli anak, Rabu jam 09.00." % (n, d, m, y),
        "vi": "Lịch khám cho %s, ngày sinh %02d/%02d/%d, phòng 204, thứ Năm 8 giờ." % (n, d, m, y),
        "gr": "Rantevou gia ton/tin %s, imerominia gennisis %02d/%02d/%d, Triti stis 12:00." % (n, d, m, y),
    }[origin], ["name", "dob"]


@shape("dob_context", "insurance_quote_fields", True)
def _():
    origin = pick(["br", "it", "mx", "id", "hu"])
    first, last = person(origin)
    y, m, d = birth()
    key = {"br": "dataNascimento", "it": "data_di_nascita", "mx": "fechaNacimiento", "id": "tgl_lahir",
           "hu": "szuletesi_datum"}[origin]
    val = pick(["%d-%02d-%02d" % (y, m, d), "%02d/%02d/%d" % (d, m, y)])
    return {"quote_request": {"product": pick(["auto", "vida", "viaggio", "kesehatan"]), "insured": {
        "nome": full(first, last, origin), key: val}, "term_months": pick([6, 12, 24])}}, ["name", "dob"]


@shape("dob_context", "age_proof_chat", True)
def _():
    origin = pick(["ng", "ke", "in", "ar"])
    first, last = person(origin)
    y, m, d = birth()
    months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]
    return pick([
        "My son %s %s was born on %d %s %d, the school is asking for proof before admission." % (first, last, d, months[m - 1], y),
        "For the pension form: %s %s, DOB %02d/%02d/%d, retired last year." % (first, last, d, m, y),
        "Bro the bank wants my birthday again 🙄 it's %s %d, %d. Name on account %s %s." % (months[m - 1], d, y, first, last),
    ]), ["name", "dob"]


# ---- names_context -----------------------------------------------------------------------------


@shape("names_context", "meeting_action_items", True)
def _():
    origin = pick(["ng", "ke", "vi", "ar", "ko", "in", "ro", "gr"])
    first, last = person(origin)
    return pick([
        "Action items from standup:\n- %s to follow up with the vendor on the SLA draft\n- ops to rotate the on-call calendar" % full(first, last, origin),
        "Minutes, %s sync: %s raised the budget overrun; decision deferred to next week." % (pick(["Q3", "infra", "pricing"]), full(first, last, origin)),
        "Attendees: platform team, %s (finance). Notes: migrate invoices by Friday." % full(first, last, origin),
    ]), ["name"]


@shape("names_context", "code_review_comment", True)
def _():
    origin = pick(["vi", "ko", "in", "ng", "ar", "hu", "id"])
    first, last = person(origin)
    n = full(first, last, origin)
    return pick([
        "review: nit — per %s's comment on the last PR we should not retry on 4xx. Otherwise LGTM." % n,
        "Co-authored-by: %s\n\nfix(queue): drain before shutdown" % n,
        "> suggested by %s\nI'd rather keep the mutex here, the benchmark showed no gain." % n,
        "Blocking: please loop in %s before merging, they own the billing schema." % n,
    ]), ["name"]


# ---- health ------------------------------------------------------------------------------------


@shape("health", "clinic_note_multilang", True)
def _():
    origin = pick(["br", "it", "mx", "ro", "id", "in"])
    first, last = person(origin)
    n = full(first, last, origin)
    return {
        "br": "Paciente %s, diabetes tipo 2, em uso de metformina 850 mg; remarcar retorno com endocrinologista." % n,
        "it": "%s, paziente in terapia con levotiroxina per ipotiroidismo, chiede lo spostamento della visita." % n,
        "mx": "%s tiene diagnóstico de depresión mayor y toma sertralina 50 mg, pide cita con su psiquiatra." % n,
        "ro": "Pacientul %s, diagnosticat cu hipertensiune arterială, tratament cu amlodipină, reprogramare." % n,
        "id": "Pasien %s, riwayat asma, pakai salbutamol inhaler, minta jadwal ulang ke dokter paru." % n,
        "in": "Patient %s is on insulin for type 1 diabetes, kindly shift the follow-up to Monday." % n,
    }[origin], ["name", "health"]


@shape("health", "claim_under_local_keys", True)
def _():
    origin = pick(["it", "ro", "br", "hu", "gr"])
    first, last = person(origin)
    key, cond = {
        "it": ("diagnosi", pick(["sclerosi multipla", "carcinoma mammario", "artrite reumatoide"])),
        "ro": ("diagnostic", pick(["diabet zaharat tip 2", "ciroză hepatică", "epilepsie"])),
        "br": ("diagnostico", pick(["hepatite C", "transtorno bipolar", "insuficiência renal crônica"])),
        "hu": ("diagnozis", pick(["szklerózis multiplex", "cukorbetegség", "asztma"])),
        "gr": ("diagnosi", pick(["diabetes mellitus typou 2", "HIV", "schizophrenia"])),
    }[origin]
    return {"claim": {"no": "CL-%s" % digits(7), "insured": full(first, last, origin), key: cond,
                      "amount": R.randint(100, 20000)}}, ["name", "health"]


# ---- vendor_secret -----------------------------------------------------------------------------


@shape("vendor_secret", "agent_tool_call_env", True)
def _():
    v, tok = vendor()
    env = VENDOR_ENV[v]
    return pick([
        {"tool_call": {"name": "shell.exec", "arguments": json.dumps({"cmd": "export %s=%s && python run_eval.py" % (env, tok)})}},
        {"tool_call": {"name": "secrets.put", "arguments": {"path": "ci/%s" % env.lower(), "value": tok}}},
        "| variable | value |\n|---|---|\n| %s | `%s` |\n| REGION | sa-east-1 |" % (env, tok),
        "<config><param name=\"%s\">%s</param><param name=\"timeout\">30</param></config>" % (env.lower(), tok),
    ]), ["api_token"]


@shape("vendor_secret", "stack_trace_config_dump", True)
def _():
    v, tok = vendor()
    return pick([
        "Traceback (most recent call last):\n  File \"agent/llm.py\", line %d, in complete\n    resp = client.post(url, headers=h)\n"
        "httpx.HTTPStatusError: 401 Unauthorized for key %s\n" % (R.randint(20, 400), tok),
        "Exception in thread \"main\" java.lang.IllegalStateException: Settings{endpoint=https://api.example.net, apiKey=%s, retries=3}\n"
        "\tat com.acme.llm.Client.<init>(Client.java:%d)" % (tok, R.randint(20, 400)),
        "panic: provider config invalid: &{Name:%s Key:%s Timeout:30s}\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:%d" % (v, tok, R.randint(10, 200)),
    ]), ["api_token"]


# ---- url_credentials ---------------------------------------------------------------------------


def pw_url():
    return pick([password(), chars(6) + pick("!$&'(*,;=~") + chars(5) + pick("!$&*;=~#")])


@shape("url_credentials", "dsn_in_yaml_and_sql", True)
def _():
    user = pick(["app", "svc_pedidos", "fatturazione", "admin", "replica"])
    pw = pw_url()
    scheme, port = pick([("postgresql", 5432), ("mysql", 3306), ("mongodb+srv", None), ("amqps", 5671), ("rediss", 6380)])
    host = pick(["db-sp1.internal", "cluster0.ab12c.mongodb.net", "rabbit.prod.local", "cache.jkt.internal"])
    enc = pick([pw, urllib.parse.quote(pw, safe="")])
    url = "%s://%s:%s@%s%s/%s" % (scheme, user, enc, host, ":%d" % port if port else "", pick(["core", "orders", "main"]))
    return pick([
        "datasource:\n  url: %s\n  pool: 10\n" % url,
        "-- conexão usada pelo job de conciliação\nSELECT dblink_connect('%s');" % url,
        "DATABASE_URL=\"%s\" ./manage.py migrate" % url,
    ]), ["password"]


@shape("url_credentials", "webhook_url_basic_auth", True)
def _():
    user = pick(["hooks", "integracao", "partner", "zapier"])
    pw = pw_url()
    return pick([
        {"webhook": {"target": "https://%s:%s@hooks.%s/v2/events" % (user, urllib.parse.quote(pw, safe=""), pick(["lojas.com.br", "shop.co.id", "negozio.it"])), "events": ["order.paid"]}},
        "Agent: I registered the callback as https://%s:%s@api.partner.%s/notify, tell me if it fails." % (user, pw, pick(["ro", "hu", "mx"])),
    ]), ["password"]


# ---- password_prose ----------------------------------------------------------------------------


@shape("password_prose", "new_languages", True)
def _():
    pw = password()
    return pick([
        "Oi! A senha do wifi do escritório é %s, não passa pra ninguém." % pw,
        "La password dell'account amministratore è %s, cambiala dopo il primo accesso." % pw,
        "Parola pentru contul de test este %s — te rog s-o schimbi." % pw,
        "A jelszó a szerverhez: %s (ideiglenes)." % pw,
        "Kata sandi email kantor kamu sekarang %s ya, segera diganti." % pw,
        "Mật khẩu tài khoản là %s, nhớ đổi sau khi đăng nhập." % pw,
        "비밀번호는 %s 입니다. 로그인 후 변경해 주세요." % pw,
        "Boss, login ka password %s hai, please change kar dena." % pw,
        "Nenosiri ya akaunti ni %s, tafadhali ibadilishe." % pw,
        "O kodikos einai %s, allaxe ton otan boreseis." % pw,
        "La contraseña del portal de proveedores quedó como %s, avisame si no entra." % pw,
    ]), ["password"]


@shape("password_prose", "hr_onboarding_email", True)
def _():
    origin = pick(["ng", "ke", "in", "br", "it"])
    first, last = person(origin)
    pw = password()
    return ("Subject: Welcome aboard!\n\nHi %s,\n\nYour laptop is ready. Log in with username %s and the temporary "
            "password %s. You will be asked to change it on first login.\n\nPeople Ops" % (
                first, (first[:1] + last).lower().replace(" ", ""), pw)), ["password", "name"]


# ---- keyword_token -----------------------------------------------------------------------------


@shape("keyword_token", "log_and_header_tokens", True)
def _():
    tok = token(R.randint(32, 64), pick([B62, HEXL, B62 + "-_"]))
    return pick([
        "%s DEBUG http: > GET /v1/apolices HTTP/1.1\n> X-Api-Key: %s\n> Accept: application/json" % (when(), tok),
        "%s INFO auth: refreshed session_token=%s ttl=3600" % (when(), tok),
        "curl -s https://api.parceiro.com.br/v3/boletos -H 'Authorization: Bearer %s'" % tok,
        "level=warn msg=\"retrying\" client_secret=%s attempt=2" % tok,
    ]), ["secret"]


@shape("keyword_token", "config_files_local_words", True)
def _():
    tok = token(R.randint(28, 48), pick([B62, HEXL]))
    return pick([
        "[integracao]\nchave_secreta = %s\nurl = https://erp.local/api\n" % tok,
        "gateway:\n  token_accesso: %s\n  timeout: 15s\n" % tok,
        "<appSettings><add key=\"ClientSecret\" value=\"%s\" /></appSettings>" % tok,
        "SECRET_KEY_BASE=%s\nRAILS_ENV=production" % tok,
    ]), ["secret"]


# ---- pem_key -----------------------------------------------------------------------------------


@shape("pem_key", "key_in_markdown_and_json", True)
def _():
    pem = private_key_pem()
    return pick([
        "Here is the key the deploy needs, paste it in the vault:\n```\n%s```" % pem,
        {"tool_result": {"file": "certs/%s.key" % pick(["api", "mtls", "signer"]), "content": pem}},
        "tls:\n  key: |\n" + "".join("    " + l + "\n" for l in pem.strip().split("\n")),
    ]), ["private_key"]


@shape("pem_key", "key_body_flattened", True)
def _():
    pem = private_key_pem(pick(["p256", "p384", "ed25519"]))
    body = "".join(l for l in pem.strip().split("\n") if not l.startswith("-----"))
    return pick([
        "signing_key=%s" % body,
        "{\"kid\":\"%s\",\"private_pem\":\"%s\"}" % (chars(8, HEXL), pem.replace("\n", "\\n")),
        "chave privada (sem cabeçalho): %s" % body,
    ]), ["private_key"]


# ---- encoded -----------------------------------------------------------------------------------


@shape("encoded", "data_url_and_base64_json", True)
def _():
    origin = pick(["br", "id", "ng", "vi", "it"])
    first, last = person(origin)
    inner = json.dumps({"nome": full(first, last, origin), "email": email(first, last, origin), "cartao": card(spaced=False)}, ensure_ascii=False)
    return pick([
        "attachment: data:application/json;base64,%s" % b64(inner),
        {"tool_result": {"encoding": "base64", "body": b64(inner)}},
    ]), ["email", "card", "name"]


@shape("encoded", "redirect_url_percent_and_entities", True)
def _():
    origin = pick(["br", "mx", "ro", "hu", "ke"])
    first, last = person(origin)
    em = email(first, last, origin)
    ph = phone_of(origin)
    return pick([
        "https://login.exemplo.com.br/callback?next=%s" % urllib.parse.quote("/perfil?email=%s&tel=%s" % (em, ph), safe=""),
        "<p>Contato: <a href=\"mailto:%s\">%s</a></p>" % ("".join("&#%d;" % ord(c) for c in em), "".join("&#x%x;" % ord(c) for c in em)),
        "track?u=%s" % urllib.parse.quote(urllib.parse.quote(em, safe=""), safe=""),
    ]), ["email"]


@shape("encoded", "hex_and_escaped_values", True)
def _():
    origin = pick(["gr", "ko", "in", "ar"])
    first, last = person(origin)
    em = email(first, last, origin)
    c = card(spaced=False)
    return pick([
        ("payload_hex=%s" % em.encode().hex(), ["email"]),
        ("debug: card=%s" % "".join("\\u%04x" % ord(x) for x in c), ["card"]),
        ("msg=\"%s\"" % "".join("\\x%02x" % b for b in em.encode()), ["email"]),
    ])


# ---- split_json --------------------------------------------------------------------------------


@shape("split_json", "phone_and_email_in_parts", True)
def _():
    origin = pick(["br", "id", "ng", "in", "mx"])
    first, last = person(origin)
    em = email(first, last, origin)
    user, host = em.split("@")
    region = {"br": "BR", "id": "ID", "ng": "NG", "in": "PK", "mx": "PE"}[origin]
    cc, gen, _ = PLANS[region]
    nsn = gen()
    PHONES_SEEN.append((region, "+%s%s" % (cc, nsn)))
    return pick([
        ({"contato": {"usuario": user, "dominio": host}, "obs": "montar o e-mail com usuario@dominio"}, ["email"]),
        ({"phone": {"cc": "+" + cc, "rest": [nsn[:3], nsn[3:6], nsn[6:]]}}, ["phone"]),
        ({"parts": [user, "@", host], "join": ""}, ["email"]),
    ])


@shape("split_json", "card_and_iban_in_fields", True)
def _():
    c = card(spaced=False)
    i = iban(grouped=False)
    return pick([
        ({"pagamento": {"bloco1": c[:4], "bloco2": c[4:8], "bloco3": c[8:12], "bloco4": c[12:]}}, ["card"]),
        ({"iban": {"country": i[:2], "check": i[2:4], "bban": [i[4:12], i[12:20], i[20:]]}}, ["iban"]),
        ({"pan_first6": c[:6], "pan_middle": c[6:12], "pan_last4": c[12:]}, ["card"]),
    ])


# ---- error_text --------------------------------------------------------------------------------


@shape("error_text", "validation_errors_multilang", True)
def _():
    origin = pick(["br", "it", "mx", "ro", "id"])
    first, last = person(origin)
    em = email(first, last, origin)
    return pick([
        ("ERRO: duplicar valor da chave viola a restrição de unicidade \"clientes_email_key\"\nDETALHE: Chave (email)=(%s) já existe." % em, ["email"]),
        ("errore: impossibile inviare la fattura a %s: casella piena (552)" % em, ["email"]),
        ("Error al procesar el pago de %s %s: tarjeta %s rechazada por el emisor" % (first, last, card()), ["name", "card"]),
        ("eroare: utilizatorul %s nu a putut fi creat, adresa %s este deja folosită" % (full(first, last, origin), em), ["name", "email"]),
        ("gagal mengirim OTP ke %s: nomor tidak aktif" % phone_of("id"), ["phone"]),
    ])


@shape("error_text", "agent_tool_failure", True)
def _():
    origin = pick(["ng", "ke", "vi", "ko", "ar"])
    first, last = person(origin)
    return pick([
        ({"error": {"tool": "sms.send", "message": "delivery failed for %s: subscriber absent" % phone_of(origin), "retryable": True}}, ["phone"]),
        ({"error": {"tool": "calendar.invite", "message": "cannot invite %s <%s>: mailbox not found" % (full(first, last, origin), email(first, last, origin))}}, ["name", "email"]),
        ({"error": {"tool": "payments.refund", "message": "refund to IBAN %s failed: account closed" % iban(), "code": "R03"}}, ["iban"]),
    ])
