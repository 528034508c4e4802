"""Must-pass shapes of the fourth probe: the same kinds of message as probe4_block.py (tool calls,
drafted e-mails, meeting notes, bookings, scheduling, reviews, traces, tables, encodings) holding
nothing personal and nothing secret: identifiers that fail their checks, labelled references,
git remotes, prose about no one, code and logs, health words about no one, places named for people,
placeholders, digests and public keys."""

import base64
import hashlib
import json
import urllib.parse

from probe4_values import (B62, HEXL, R, VENDOR_ENV, aadhaar, card, chars, cnp, cpf, digits, iban, pick,
                           public_key_pem, shape, when)

def at(s):
    """s as a chat or log line opens: a time before it, so that rows of a few sentences differ."""
    return pick(["[%02d:%02d] " % (R.randint(0, 23), R.randint(0, 59)), "%02d/%02d %02d:%02d - " % (
        R.randint(1, 28), R.randint(1, 12), R.randint(0, 23), R.randint(0, 59)), ""]) + s


# ---- bad_checksum ------------------------------------------------------------------------------


@shape("bad_checksum", "id_check_failed_log", False)
def _():
    # No Korean RRN: numbers issued since October 2020 carry no check digit, so one that fails it
    # may still be someone's.
    kind = pick(["cpf", "aadhaar", "cnp"])
    val = {"cpf": lambda: cpf(False), "aadhaar": lambda: aadhaar(False), "cnp": lambda: cnp(False),
           "rrn": lambda: kr_rrn(False)}[kind]()
    label = {"cpf": "CPF", "aadhaar": "Aadhaar", "cnp": "CNP", "rrn": "RRN"}[kind]
    return pick([
        "%s WARN kyc: %s %s rejeitado: dígito verificador inválido (tentativa %d)" % (when(), label, val, R.randint(1, 3)),
        "validation failed: %s %s does not pass its check digit, form returned to the user" % (label, val),
        {"kyc": {"document_type": label, "document": val, "valid": False, "reason": "checksum"}},
    ])


@shape("bad_checksum", "card_and_iban_failing", False)
def _():
    return pick([
        "Pagamento recusado: número do cartão %s inválido (falha no dígito verificador)." % card(valid=False),
        "IBAN %s respins: cifra de control incorectă." % iban(pick(["RO", "HU", "IT"]), valid=False),
        {"payment_error": {"field": "card_number", "value": card(valid=False, spaced=False), "code": "luhn_failed"}},
        "Il bonifico verso %s è stato rifiutato: IBAN non valido (controllo mod 97)." % iban("IT", valid=False),
    ])


# ---- labelled_number ---------------------------------------------------------------------------


@shape("labelled_number", "booking_shipping_refs", False)
def _():
    return pick([
        "Reserva confirmada. Localizador %s, voo LA%d, bilhete eletrônico 957-%s." % (chars(6, "ABCDEFGHJKLMNPQRSTUVWXYZ"), R.randint(3000, 8999), digits(10)),
        "Paket dikirim via JNE, nomor resi %s, estimasi tiba 2-3 hari." % digits(15),
        "AWB %s-%s picked up at hub %s, next scan expected tomorrow." % (pick(["176", "157", "618", "071"]), digits(8), pick(["NBO", "LOS", "CGK", "GRU"])),
        "Numero pratica %d/%s, protocollo %s del %02d/%02d/2026." % (R.randint(2024, 2026), digits(6), digits(10), R.randint(1, 28), R.randint(1, 12)),
        "Rendelésszám: %s, csomagazonosító: %s." % (digits(10), digits(14)),
    ])


@shape("labelled_number", "invoice_tax_payment_refs", False)
def _():
    return pick([
        "Nota Fiscal nº %s, série 1, chave de acesso %s." % ("%03d.%03d.%03d" % (R.randint(0, 999), R.randint(0, 999), R.randint(0, 999)), " ".join(digits(4) for _ in range(11))),
        "Linha digitável do boleto: %s.%s %s.%s %s.%s %s %s" % (digits(5), digits(5), digits(5), digits(6), digits(5), digits(6), digits(1), digits(14)),
        "Factura electrónica folio %s, UUID fiscal %s-%s-%s-%s-%s." % (digits(8), chars(8, HEXL).upper(), chars(4, HEXL).upper(), chars(4, HEXL).upper(), chars(4, HEXL).upper(), chars(12, HEXL).upper()),
        "M-Pesa confirmation %s. Paid to Buy Goods till %s, transaction cost Ksh %d." % (chars(10, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), digits(6), R.randint(0, 100)),
        "GSTIN invoice no. INV/%d-%02d/%s, HSN code %s." % (R.randint(2024, 2026), R.randint(1, 99), digits(5), digits(8)),
    ])


# ---- git_ssh -----------------------------------------------------------------------------------


@shape("git_ssh", "review_remotes_and_submodules", False)
def _():
    host = pick(["github.com", "gitlab.com", "bitbucket.org", "git.empresa.com.br", "gitea.local", "ssh.dev.azure.com"])
    org = pick(["pagamentos", "infra-ro", "tim-data", "platform", "nhom-backend", "v3/contoso/core"])
    repo = pick(["ledger", "api-gateway", "etl-jobs", "mobile-app", "infra-live"])
    return pick([
        "review: the submodule still points at git@%s:%s/%s.git, switch it to the mirror before release." % (host, org, repo),
        "[submodule \"vendor/%s\"]\n\tpath = vendor/%s\n\turl = git@%s:%s/%s.git\n" % (repo, repo, host, org, repo),
        "Cloning into '%s'...\ngit@%s: Permission denied (publickey).\nfatal: Could not read from remote repository." % (repo, host),
        "go: replace example.com/%s => git@%s:%s/%s v0.%d.%d" % (repo, host, org, repo, R.randint(0, 9), R.randint(0, 30)),
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "meeting_notes_roles_only", False)
def _():
    return at(pick([
        "Ata da reunião: o time de pagamentos apresentou o plano do trimestre; o jurídico revisa o contrato até sexta.",
        "Verbale: il team infrastruttura migra i server entro il %d; il reparto vendite aggiorna il listino." % R.randint(2, 28),
        "Minuta: el equipo de soporte reducirá el tiempo de respuesta a %d horas; finanzas cierra el mes el día %d." % (R.randint(2, 12), R.randint(25, 30)),
        "Proces-verbal: echipa de date a terminat migrarea; urmează testele de încărcare săptămâna %d." % R.randint(2, 50),
        "Action items: backend to cut the release on Thursday, QA to sign off, the on-call rota moves to the Nairobi office.",
        "Notulen rapat: tim produk menunda peluncuran fitur ke sprint %d." % R.randint(10, 40),
    ]))


@shape("benign_prose", "itinerary_and_booking_info", False)
def _():
    return pick([
        "Your flight %s%d departs %s at %02d:%02d from terminal %d; baggage allowance 23 kg." % (pick(["KQ", "ET", "AZ", "LA", "GA", "VN"]), R.randint(100, 999), pick(["NBO", "LOS", "FCO", "GRU", "CGK", "SGN"]), R.randint(0, 23), R.randint(0, 59), R.randint(1, 3)),
        "Check-in a partir das 14h, check-out até 11h. Café da manhã incluso, quarto %d, %d noites." % (R.randint(100, 950), R.randint(1, 9)),
        "La tariffa include %d kg di bagaglio in stiva e un cambio gratuito entro 24 ore." % pick([15, 20, 23]),
        "Khách sạn cách sân bay %d km, xe đưa đón lúc %d giờ sáng." % (R.randint(5, 40), R.randint(5, 10)),
    ])


@shape("benign_prose", "password_policy_no_password", False)
def _():
    return at(pick([
        "A senha deve ter no mínimo %d caracteres, com letras maiúsculas, números e símbolos." % R.randint(8, 16),
        "La password scade ogni %d giorni; non riutilizzare le ultime 5." % pick([60, 90, 180]),
        "Parola trebuie schimbată la prima autentificare și nu poate conține numele de utilizator.",
        "A jelszónak legalább %d karakterből kell állnia." % R.randint(8, 14),
        "Kata sandi tidak boleh dibagikan lewat chat; gunakan pengelola kata sandi perusahaan.",
        "Reset your password from the portal; support will never ask for it by phone or e-mail.",
    ]))


@shape("benign_prose", "agent_drafted_notice", False)
def _():
    return at(pick([
        "Subject: Scheduled maintenance\n\nDear customer,\nour mobile banking app will be unavailable on Sunday from %02d:00 to %02d:00. We apologise for the inconvenience.\n\nCustomer Care" % (R.randint(0, 3), R.randint(4, 6)),
        "Prezado cliente, sua apólice foi renovada automaticamente por mais %d meses. Nenhuma ação é necessária." % pick([6, 12]),
        "Kính gửi quý khách, đơn hàng của quý khách sẽ được giao trong %d ngày làm việc." % R.randint(2, 7),
        "Estimado cliente: su cita fue reprogramada por cierre del consultorio; le enviaremos una nueva fecha.",
    ]))


# ---- benign_code -------------------------------------------------------------------------------


@shape("benign_code", "stack_traces_clean", False)
def _():
    return pick([
        "Traceback (most recent call last):\n  File \"/srv/app/pedidos/views.py\", line %d, in criar\n    total = calcular(itens)\nZeroDivisionError: division by zero" % R.randint(10, 900),
        "java.lang.NullPointerException: Cannot invoke \"Fattura.getTotale()\" because \"f\" is null\n\tat it.acme.billing.Service.emit(Service.java:%d)" % R.randint(10, 900),
        "panic: runtime error: index out of range [%d] with length %d\n\ngoroutine %d [running]:\nmain.parse(0xc000%s)" % (R.randint(3, 9), R.randint(0, 3), R.randint(1, 99), chars(6, HEXL)),
        "TypeError: Cannot read properties of undefined (reading 'alamat')\n    at renderForm (webpack:///./src/Form.jsx:%d:%d)" % (R.randint(10, 300), R.randint(1, 80)),
    ])


@shape("benign_code", "sql_csv_without_people", False)
def _():
    return pick([
        "INSERT INTO produtos (sku, descricao, preco, estoque) VALUES ('%s', '%s', %d.%02d, %d);" % (chars(8, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), pick(["Cafeteira 110V", "Mouse sem fio", "Cabo USB-C 2m"]), R.randint(10, 900), R.randint(0, 99), R.randint(0, 500)),
        "region,week,orders,p95_ms\n%s,%d,%d,%d\n%s,%d,%d,%d" % (pick(["sp", "jkt", "nbo"]), R.randint(1, 52), R.randint(100, 9000), R.randint(80, 900), pick(["mil", "buc", "lag"]), R.randint(1, 52), R.randint(100, 9000), R.randint(80, 900)),
        "CREATE TABLE %s (id BIGSERIAL PRIMARY KEY, nome TEXT NOT NULL, cpf CHAR(11) UNIQUE, data_nascimento DATE);" % pick(["pacientes", "clientes", "segurados"]),
        "<catalogo><item codigo=\"%s\" preco=\"%d.%02d\" moeda=\"BRL\"/></catalogo>" % (digits(6), R.randint(1, 500), R.randint(0, 99)),
    ])


@shape("benign_code", "encoded_and_split_config", False)
def _():
    cfg = json.dumps({"region": pick(["sa-east-1", "ap-southeast-3", "eu-south-1"]), "replicas": R.randint(1, 9),
                      "feature_flags": {"pix": True, "boleto": R.random() < 0.5}})
    return pick([
        "config_b64=%s" % base64.b64encode(cfg.encode()).decode(),
        {"sku": {"familia": chars(3, "ABCDEFGHJKLMNPQRSTUVWXYZ"), "modelo": digits(4), "variante": [digits(2), chars(2, "ABCDEFGH")]}},
        "https://status.exemplo.com.br/api?q=%s" % urllib.parse.quote(json.dumps({"service": pick(["checkout", "pix", "login"]), "window": "%dh" % R.randint(1, 72)}), safe=""),
        {"parts": [pick(["api", "www", "cdn"]), ".", pick(["exemplo", "contoso"]), ".", pick(["com.br", "co.id", "it"])], "join": ""},
    ])


@shape("benign_code", "clean_logs_multilang", False)
def _():
    return pick([
        "%s INFO conciliacao: %d boletos processados, %d pendentes, duração %dms" % (when(), R.randint(10, 9000), R.randint(0, 50), R.randint(30, 9000)),
        "%s WARN worker-%d: coda piena, ritento tra %ds" % (when(), R.randint(1, 16), R.randint(1, 30)),
        "level=info ts=%s msg=\"proses selesai\" job=sync_stok durasi=%dms baris=%d" % (when(), R.randint(10, 9000), R.randint(1, 99999)),
        "%s ERROR http: POST /api/v2/pedidos 503 upstream timeout after %ds (trace %s)" % (when(), R.randint(5, 60), chars(32, HEXL)),
    ])


# ---- benign_health -----------------------------------------------------------------------------


@shape("benign_health", "clinic_operations_multilang", False)
def _():
    return at(pick([
        "A campanha de vacinação contra a gripe vai até %d de junho em todas as unidades." % R.randint(1, 30),
        "L'ambulatorio di cardiologia è chiuso il sabato; le prenotazioni si fanno allo sportello.",
        "Farmacia: reposición de metformina y losartán llega el %s." % pick(["lunes", "martes", "jueves"]),
        "Klinik buka pukul 08.00-20.00; layanan vaksin demam berdarah tersedia setiap Rabu.",
        "Secția de diabet are %d paturi libere săptămâna aceasta." % R.randint(0, 20),
        "World Diabetes Day: free blood sugar screening at the community centre this Saturday.",
    ]))


@shape("benign_health", "health_keys_aggregates", False)
def _():
    cond = pick(["diabete tipo 2", "hipertensão", "asma", "depresión", "hepatite B", "malaria"])
    return pick([
        {"report": {"campagna": "screening %s" % cond, "casi_segnalati": R.randint(10, 9000), "regione": pick(["Lazio", "Puglia", "Veneto"])}},
        {"catalogo_exames": [{"codigo": digits(5), "nome": "Hemoglobina glicada", "preparo": "jejum de %dh" % pick([4, 8, 12])}]},
        {"guideline": {"title": "%s: first-line treatment" % cond, "first_line": pick(["metformin", "salbutamol", "tenofovir", "artemether"]), "source": "WHO"}},
    ])


# ---- benign_names ------------------------------------------------------------------------------


@shape("benign_names", "places_named_for_people", False)
def _():
    return "Leg %d: " % R.randint(1, 4) + pick([
        "Conexão no Aeroporto Internacional Tom Jobim, depois ônibus até a Avenida Getúlio Vargas.",
        "Arrivo all'aeroporto Galileo Galilei di Pisa, poi treno per la stazione di Santa Maria Novella.",
        "Arrival at Jomo Kenyatta International Airport, transfer to the hotel on Moi Avenue.",
        "Flight lands at Nnamdi Azikiwe International Airport in Abuja at %02d:%02d." % (R.randint(0, 23), R.randint(0, 59)),
        "Hotel di Jalan Jenderal Sudirman, dekat Bundaran HI.",
        "Departure from Indira Gandhi International Airport, Terminal %d." % R.randint(1, 3),
        "Khách sạn nằm trên đường Nguyễn Huệ, gần chợ Bến Thành.",
        "Érkezés a Liszt Ferenc repülőtérre, onnan busz a Deák Ferenc térre.",
        "Cazare pe Bulevardul Nicolae Bălcescu, lângă Piața Universității.",
        "Landing at Athens Eleftherios Venizelos, then metro to Syntagma.",
    ]) + pick(["", " Seat %d%s." % (R.randint(1, 40), R.choice("ABCDEF")), " Gate %d." % R.randint(1, 60)])


# ---- benign_secretlike -------------------------------------------------------------------------


@shape("benign_secretlike", "placeholders_in_tool_calls", False)
def _():
    env = pick(sorted(VENDOR_ENV.values()))
    return pick([
        {"tool_call": {"name": "shell.exec", "arguments": json.dumps({"cmd": "export %s=${%s} && python run_eval.py" % (env, env)})}},
        "| variable | value |\n|---|---|\n| %s | `<sua-chave-aqui>` |\n| REGION | sa-east-1 |" % env,
        "%s=sk-proj-****************************%s (redacted)" % (env, chars(4, B62)),
        "<config><param name=\"%s\">CHANGE_ME</param></config>" % env.lower(),
        "Set %s in your .env (see .env.example); never commit the real value." % env,
    ])


@shape("benign_secretlike", "digests_dsn_placeholders_pubkeys", False)
def _():
    return pick([
        "image: registry.local/app@sha256:%s" % hashlib.sha256(chars(20).encode()).hexdigest(),
        "datasource:\n  url: postgresql://${DB_USER}:${DB_PASSWORD}@db-%s.internal:%d/core\n" % (pick(["sp1", "mil2", "jkt1"]), pick([5432, 6432])),
        "DATABASE_URL=\"postgresql://app@db.internal:5432/orders?sslmode=require\"",
        public_key_pem(),
        "integrity: sha512-%s" % base64.b64encode(hashlib.sha512(chars(12).encode()).digest()).decode(),
        "request_id=%s-%s-4%s-a%s-%s" % (chars(8, HEXL), chars(4, HEXL), chars(3, HEXL), chars(3, HEXL), chars(12, HEXL)),
    ])


@shape("benign_secretlike", "masked_values_in_tables", False)
def _():
    c = card(spaced=False)
    lines = ["| cliente | cartão | documento | contato |", "|---|---|---|---|"]
    for _ in range(R.randint(1, 3)):
        c = card(spaced=False)
        lines.append("| #%d | **** **** **** %s | ***.%s.%s-** | %s***@%s |" % (
            R.randint(1000, 99999), c[-4:], digits(3), digits(3), chars(1, "abcdefghijklmnoprstuvz"),
            pick(["gmail.com", "uol.com.br", "yahoo.co.id", "libero.it"])))
    return pick(["\n".join(lines), "Cartão final %s, CPF ***.***.%s-**, contato por e-mail mascarado." % (c[-4:], digits(3))])


@shape("benign_code", "tool_calls_without_people", False)
def _():
    return pick([
        {"tool_call": {"name": "weather.get", "arguments": json.dumps({"city": pick(["Manaus", "Cluj-Napoca", "Surabaya", "Kisumu", "Daegu"]), "units": "metric"})}},
        {"tool_call": {"name": "fx.convert", "arguments": {"from": pick(["BRL", "IDR", "NGN", "KES"]), "to": "USD", "amount": R.randint(1, 100000)}}},
        {"tool_result": {"name": "flights.search", "results": [{"flight": "%s%d" % (pick(["ET", "KQ", "GA"]), R.randint(100, 999)), "price": R.randint(90, 2000), "stops": R.randint(0, 2)}]}},
        {"tool_call": {"name": "calendar.free_slots", "arguments": {"room": "Sala %d" % R.randint(1, 30), "date": "2026-%02d-%02d" % (R.randint(1, 12), R.randint(1, 28))}}},
    ])


@shape("benign_prose", "chat_small_talk_multilang", False)
def _():
    return at(pick([
        "Bom dia, pessoal! Alguém sabe se o café da copa foi reposto?",
        "Ragazzi, la riunione di oggi slitta alle %d." % R.randint(14, 18),
        "Hehe sama-sama, nanti sore kita lanjut ya.",
        "Habari za asubuhi! Mkutano utaanza saa %d." % R.randint(2, 5),
        "Xin chào cả nhà, chiều nay team đi ăn phở nhé.",
        "Wahala dey o, the generator don off again for %d minutes." % R.randint(5, 90),
        "Jó reggelt! Ma hosszabb lesz a standup, %d perc." % R.randint(15, 45),
        "Na, kaló savvatokýriako se óloys!",
    ]))


@shape("benign_health", "leaflet_and_trial_text", False)
def _():
    drug = pick(["paracetamol", "ibuprofeno", "amoxicilina", "metformina", "omeprazolo", "cetirizina"])
    return pick([
        "Bula: %s %d mg. Posologia: 1 comprimido a cada %d horas. Não exceder %d comprimidos por dia." % (drug, pick([250, 500, 750]), pick([6, 8, 12]), pick([3, 4])),
        "Foglietto illustrativo: %s può causare nausea e mal di testa in meno di 1 paziente su %d." % (drug, pick([10, 100, 1000])),
        "Ensayo clínico fase %d: %s frente a placebo en %d participantes con asma leve." % (R.randint(1, 3), drug, R.randint(40, 2000)),
        "Stok %s tablet %d mg tersisa %d strip di gudang apotek." % (drug, pick([250, 500]), R.randint(0, 400)),
    ])
