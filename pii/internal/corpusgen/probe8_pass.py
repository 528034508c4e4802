"""Must-pass shapes of the eighth probe: the same kinds of business message as probe8_block.py with
nothing personal and no secret in them (identifiers and cards that fail their checks, booking
codes, flight and ticket numbers, invoices, SKUs and tracking numbers in tables, git remotes in
planning notes, minutes and threads about work, GraphQL and OData schemas and queries, guidelines
and policy terms about no patient, places and prizes named for people, ids of API objects,
placeholders, references and digests)."""

import json

from probe8_values import B62, HEX, R, bad_card, broken_national, chars, digits, pick, pnr, shape, uuid, when

# ---- bad_checksum ------------------------------------------------------------------------------


@shape("bad_checksum", "payroll_ids_failing_check", False)
def _():
    scheme, label, val = broken_national()
    field = {"ru": "INN", "do": "Cedula", "mu": "NationalIdentityCardNo", "nz": "IRDNumber", "sk": "RodneCislo"}[scheme]
    return pick([
        {"@odata.context": "https://hr.example.com/odata/v4/$metadata#ValidationResults", "value": [
            {"Field": field, "Value": val, "Valid": False, "Reason": "check digit mismatch"}]},
        "| %s | result |\n|---|---|\n| %s | rejected: checksum |" % (label, val),
        "import row %d skipped: %s %s fails its check digit" % (R.randint(2, 900), label, val),
    ])


@shape("bad_checksum", "statement_cards_failing_luhn", False)
def _():
    c = bad_card()
    return pick([
        "Card number %s was declined by the form: it does not pass the Luhn check." % c,
        {"tool_result": {"name": "cards.validate", "content": json.dumps({"pan": c, "luhn": False, "network": "unknown"})}},
        "| Input | Luhn |\n|---|---|\n| %s | fail |" % " ".join(c[i:i + 4] for i in range(0, 16, 4)),
    ])


# ---- labelled_number ---------------------------------------------------------------------------


@shape("labelled_number", "travel_booking_codes", False)
def _():
    flight = "%s %d" % (pick(["ET", "WB", "CM", "MK", "ME", "KQ", "TK"]), R.randint(100, 9999))
    return pick([
        "Group booking %s: 14 seats on %s, fare basis %s, ticketing deadline %s." % (pnr(), flight, chars(6, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), when()),
        {"availability": {"flight": flight, "date": when(), "cabins": {"Y": R.randint(0, 9), "C": R.randint(0, 4)}, "equipment": pick(["738", "7M8", "E90"])}},
        "Ticket stock %s-%s issued to agency IATA %s" % (pick(["071", "086", "230", "235"]), digits(10), digits(8)),
        "Hotel allotment ref %s, %d rooms, release %s" % (chars(8, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), R.randint(5, 40), when()),
    ])


@shape("labelled_number", "invoice_sku_tracking_tables", False)
def _():
    rows = "\n".join("| INV-%s | SKU %s-%s | %s | %.2f |" % (digits(7), chars(3, "ABCDEFGHJKLMNPQRSTUVWXYZ"), digits(5),
                                                              pick(["1Z" + chars(16, "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"), "RR" + digits(9) + "MU", digits(12)]),
                                                              R.uniform(10, 9000)) for _ in range(R.randint(2, 4)))
    return pick([
        "| Invoice | Item | Tracking | Amount |\n|---|---|---|---|\n%s" % rows,
        "<table><tr><th>Order</th><th>Qty</th></tr><tr><td>%s</td><td>%d</td></tr></table>" % (digits(10), R.randint(1, 99)),
        {"odata.metadata": "https://erp.example.com/odata/$metadata#Invoices", "value": [{"InvoiceNo": digits(9), "Total": round(R.uniform(10, 9999), 2)}]},
    ])


# ---- git_ssh -----------------------------------------------------------------------------------


@shape("git_ssh", "agent_plan_git_remotes", False)
def _():
    host = pick(["github.com", "gitlab.com", "bitbucket.org", "git.sr.ht", "codeberg.org"])
    repo = "%s/%s" % (pick(["payments", "crm-sync", "booking"]), pick(["api", "schemas", "infra", "mobile"]))
    return pick([
        "Plan:\n1. clone git@%s:%s.git\n2. run the migration\n3. open a merge request" % (host, repo),
        {"tool_use": {"name": "git.clone", "input": {"remote": "git@%s:%s.git" % (host, repo), "depth": 1}}},
        "Thought: the fix belongs in ssh://git@%s/%s.git, branch release/%d.%d" % (host, repo, R.randint(1, 9), R.randint(0, 20)),
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "minutes_and_threads_about_work", False)
def _():
    return pick([
        "Zápisnica: rozpočet na Q%d schválený, ďalšie stretnutie %s." % (R.randint(1, 4), when()),
        "Zapisnik: nabava potvrđuje isporuku za %s, skladište %d." % (when(), R.randint(1, 9)),
        "Протокол: релиз переносится на %s, отдел закупок согласовал бюджет." % when(),
        "Notule: die span keur die nuwe begroting goed; volgende vergadering %s." % when(),
        "Aktak: aurrekontua onartuta, hurrengo bilera %s." % when(),
        "Acta: o equipo de vendas pecha o trimestre con %d pedidos." % R.randint(100, 9000),
        "შეხვედრის ოქმი: ბიუჯეტი დამტკიცდა, შემდეგი შეხვედრა %s." % when(),
        "সভার কার্যবিবরণী: বাজেট অনুমোদিত হয়েছে।",
        "கூட்டக் குறிப்புகள்: அடுத்த கூட்டம் %s." % when(),
        "Thread: the courier missed the %s cut-off again; procurement will renegotiate the SLA." % pick(["14:00", "16:30"]),
    ])


# ---- benign_code -------------------------------------------------------------------------------


@shape("benign_code", "graphql_odata_schemas", False)
def _():
    return pick([
        "type Contact {\n  id: ID!\n  firstName: String\n  lastName: String\n  email: Email\n  mobilePhone: String\n}\n",
        "query GetContact($id: ID!) {\n  contact(id: $id) { id firstName lastName email mobilePhone }\n}",
        "GET /odata/v4/Employees?$select=DisplayName,INN,IRDNumber&$filter=PayGroup eq 'MONTHLY'&$top=%d" % R.randint(10, 500),
        "<EntityType Name=\"Employee\"><Key><PropertyRef Name=\"EmployeeID\"/></Key><Property Name=\"Cedula\" Type=\"Edm.String\" MaxLength=\"13\"/></EntityType>",
        "BEGIN:VCALENDAR\r\nPRODID:-//Example//Scheduler//EN\r\nBEGIN:VEVENT\r\nUID:%s\r\nDTSTART:20260%d%02dT090000Z\r\nSUMMARY:Sprint review\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n" % (
            uuid(), R.randint(1, 9), R.randint(1, 28)),
    ])


# ---- benign_health -----------------------------------------------------------------------------


@shape("benign_health", "clinical_guidelines_no_patient", False)
def _():
    return pick([
        "Odporúčanie: dospelí s cukrovkou 2. typu majú mať kontrolu HbA1c každé %d mesiace." % pick([3, 6]),
        "Smjernica: probir raka dojke preporučuje se ženama od 50 do 69 godina.",
        "Рекомендация: пациентам с сахарным диабетом 2 типа контроль HbA1c каждые %d месяца." % pick([3, 6]),
        "Riglyn: pasiënte met depressie moet binne %d weke opgevolg word." % R.randint(2, 6),
        "Gida: diabetesa duten helduek urtean behin begi-azterketa egin behar dute.",
        "Guía: en pacientes con VIH se recomienda iniciar tratamiento antirretroviral de inmediato.",
        "ডায়াবেটিস রোগীদের প্রতি %d মাসে HbA1c পরীক্ষা করা উচিত।" % pick([3, 6]),
        "Referral criteria: adults with suspected epilepsy should be seen by a specialist within %d weeks." % R.randint(2, 6),
    ])


@shape("benign_health", "insurance_policy_terms", False)
def _():
    return pick([
        "| Condition | Waiting period | Cover |\n|---|---|---|\n| Type 2 diabetes | %d months | 80%% |\n| Breast cancer | none | 100%% |" % R.randint(3, 24),
        {"policy": {"code": "HLTH-%s" % digits(4), "exclusions": ["pre-existing HIV", "alcohol dependence treatment"], "max_sessions_psychotherapy": R.randint(6, 30)}},
        "Plan %s covers insulin, antiretrovirals and chemotherapy after a %d-day waiting period." % (pick(["Gold", "Basic", "Familia"]), R.randint(30, 180)),
        "Tarifa: tratamiento de depresión cubierto hasta %d sesiones por año." % R.randint(6, 30),
    ])


# ---- benign_names ------------------------------------------------------------------------------


@shape("benign_names", "places_and_prizes_named_for_people", False)
def _():
    return pick([
        "Our branch on Rustaveli Avenue, Tbilisi, is open %d-18" % R.randint(8, 10),
        "Parcel locker %d is in the mall on Mesrop Mashtots Avenue, Yerevan" % R.randint(1, 60),
        "Meeting room booked at the Rabindranath Tagore hall, level %d" % R.randint(1, 9),
        "Shuttle from Julius Nyerere International Airport at %02d:%02d" % (R.randint(5, 22), R.randint(0, 59)),
        "The sales office moved to Nelson Mandela Boulevard in %s" % R.choice(["Maputo", "Kigali", "Lusaka"]),
        "The Sakharov Prize ceremony is on %s" % when(),
        "School: Ilia Chavchavadze Public School No. %d" % R.randint(1, 200),
        "The warehouse on Ulica Ľudovíta Štúra in Trnava takes goods in at gate %s" % R.choice("ABCD"),
        "Hotel near Avenida Simón Bolívar, Caracas — %d nights" % R.randint(1, 9),
    ])


# ---- benign_secretlike -------------------------------------------------------------------------


@shape("benign_secretlike", "llm_and_payment_object_ids", False)
def _():
    return pick([
        {"id": "chatcmpl-%s" % chars(29, B62), "object": "chat.completion", "created": R.randint(1.7e9, 1.8e9), "model": "gpt-4o-mini",
         "choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [{"id": "call_%s" % chars(24, B62), "type": "function"}]}}]},
        {"id": "msg_01%s" % chars(22, B62), "type": "message", "role": "assistant", "stop_reason": "tool_use",
         "content": [{"type": "tool_use", "id": "toolu_01%s" % chars(22, B62), "name": "crm.get_contact", "input": {"id": digits(9)}}]},
        "payment_intent %s succeeded for customer %s, invoice %s" % ("pi_3" + chars(23, B62), "cus_" + chars(14, B62), "in_1" + chars(23, B62)),
        "traceparent: 00-%s-%s-01\nx-request-id: req_%s" % (chars(32, HEX), chars(16, HEX), chars(24, B62)),
        {"points": [{"id": uuid(), "score": round(R.random(), 4), "payload": {"doc_id": "kb-%s" % digits(5)}}], "time": round(R.random() / 10, 4)},
    ])


@shape("benign_secretlike", "config_placeholders_and_refs", False)
def _():
    return pick([
        "environment_variables:\n  LANGFUSE_SECRET_KEY: os.environ/LANGFUSE_SECRET_KEY\n  HONEYCOMB_API_KEY: os.environ/HONEYCOMB_API_KEY\n",
        json.dumps({"mcpServers": {"firecrawl": {"command": "npx", "args": ["-y", "firecrawl-mcp"], "env": {"FIRECRAWL_API_KEY": "${FIRECRAWL_API_KEY}"}}}}),
        "curl https://api.example.com/v1/ -H 'Authorization: Bearer <YOUR_NEON_API_KEY>'",
        "DD_API_KEY=<your-datadog-api-key>\nE2B_API_KEY=e2b_***\nHUBSPOT_ACCESS_TOKEN={{ vault \"kv/hubspot\" }}\n",
        "image: ghcr.io/example/agent@sha256:%s\nchecksum: sha256:%s\n" % (chars(64, HEX), chars(64, HEX)),
        "api_key: ${{ secrets.CEREBRAS_API_KEY }}  # rotated %s" % when(),
    ])

