"""Must-pass shapes of the fifth probe: hard negatives in the shapes of probe5_block.py (rental and
school paperwork, pharmacy and lab sheets, courier notes, contracts, agent scratchpads, function
calls, HAR captures, registry configs, Helm values, MIME and calendar files) that hold no personal
data and no secret: identifiers that fail their checks, numbers a label names, git remotes, text
about no one, things named for people, placeholders, digests and public keys."""

import base64
import hashlib
import json

from probe5_values import (BAD, R, VENDOR_ENV, b64, broken, card, chars, digits, iban, pick, public_key_text, shape, when,
                           HEX, B62)

# ---- bad_checksum ------------------------------------------------------------------------------


@shape("bad_checksum", "screening_ids_failing_check", False)
def _():
    scheme = pick(sorted(BAD))
    bad = broken(*BAD[scheme])
    return pick([
        "Screening rejected: %s %s does not pass the check digit, ask the applicant to re-enter it." % (scheme, bad),
        {"validation": {"field": "id_value", "scheme": scheme, "input": bad, "valid": False, "reason": "checksum"}},
        "Import row %d skipped: invalid %s (%s)." % (R.randint(2, 900), scheme, bad),
        "Deposit refund on hold: IBAN %s fails mod-97, card %s fails Luhn — both rejected by the bank's form." % (iban(valid=False), card(valid=False)),
    ])


# ---- labelled_number ---------------------------------------------------------------------------


@shape("labelled_number", "courier_and_locker_refs", False)
def _():
    return pick([
        "Paczkomat: kod odbioru %s, numer przesyłki %s." % (digits(6), digits(24)),
        "Track & Trace: 3S%s%s, bezorgd bij servicepunt." % (chars(4, "ABCDEFGHJKLMNPQRSTUVWXYZ"), digits(9)),
        "Gönderi takip no: %s, şube kodu %s." % (digits(12), digits(4)),
        "Zásilka č. %s, číslo objednávky %s, výdejní místo %s." % (digits(11), digits(9), digits(5)),
        "Waybill %s / manifest %s / seal %s" % (digits(10), digits(8), digits(7)),
        "Order #%s shipped, tracking no. %s, consignment %s." % (digits(9), digits(12), digits(10)),
        "Lähetystunnus JJFI%s, noutokoodi %s." % (digits(14), digits(6)),
    ])


@shape("labelled_number", "lab_and_school_refs", False)
def _():
    return pick([
        "Sample ID %s, accession no. %s, batch %s — haemolysed, please redraw." % (digits(10), digits(9), digits(6)),
        "Kursuskode %s, lokale %s, holdnummer %s." % (digits(6), digits(3), digits(4)),
        "Numer legitymacji szkolnej: brak; numer sali %s; kod przedmiotu %s." % (digits(3), digits(9)),
        "Prescription batch %s, GTIN %s, lot %s, exp. 2027-%02d." % (digits(8), digits(13), chars(6, "ABCDEFGHJK0123456789"), R.randint(1, 12)),
        "Case number %s, invoice %s, ledger %s." % (digits(10), digits(9), digits(8)),
        "Kurs %s, tentamen %s, anmälningskod %s." % (digits(6), digits(9), digits(5)),
    ])


@shape("labelled_number", "support_chat_log_refs", False)
def _():
    t = "%02d:%02d" % (R.randint(8, 21), R.randint(0, 59))
    return "[%s] bot: %s\n[%s] %s\n[%s] bot: %s" % (t, pick(["How can I help?", "Hoe kan ik helpen?", "W czym mogę pomóc?"]), t, pick([
        "klant: mijn bestelnummer is %s en het pakket is niet aangekomen" % digits(10),
        "klient: numer zamówienia %s, faktura %s" % (digits(9), digits(10)),
        "müşteri: sipariş numaram %s, takip numarası %s" % (digits(10), digits(12)),
        "customer: ticket %s still open, ref %s" % (digits(9), digits(8)),
        "asiakas: tilausnumero %s, lasku %s" % (digits(9), digits(10)),
        "customer: ang order number ko ay %s" % digits(11),
    ]), t, pick(["Thanks, checking the order.", "Dank je, ik kijk het na.", "Dziękuję, sprawdzam."]))


# ---- git_ssh -----------------------------------------------------------------------------------


@shape("git_ssh", "iac_module_sources", False)
def _():
    host = pick(["github.com", "gitlab.com", "bitbucket.org", "git.internal.example.nl", "ssh.dev.azure.com"])
    org = pick(["platform", "infra-modules", "huurportaal", "rekisteri", "lab-systems"])
    repo = pick(["terraform-aws-vpc", "helm-charts", "ansible-roles", "k8s-base", "tenant-portal"])
    return pick([
        'module "vpc" {\n  source = "git::ssh://git@%s/%s/%s.git?ref=v%d.%d.%d"\n}' % (host, org, repo, R.randint(0, 5), R.randint(0, 20), R.randint(0, 9)),
        "- src: git@%s:%s/%s.git\n  scm: git\n  version: v%d.%d" % (host, org, repo, R.randint(1, 4), R.randint(0, 9)),
        "[dependencies]\n%s = { git = \"ssh://git@%s/%s/%s.git\", rev = \"%s\" }" % (repo.replace("-", "_"), host, org, repo, chars(7, HEX)),
        "Cloning into '%s'...\ngit@%s: Permission denied (publickey).\nfatal: Could not read from remote repository." % (repo, host),
        {"repository": {"type": "git", "url": "git+ssh://git@%s/%s/%s.git" % (host, org, repo)}},
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "listing_and_newsletter", False)
def _():
    return pick([
        "Te huur: lichte driekamerwoning, %d m², huur €%d per maand, beschikbaar per %d %s. Huisdieren niet toegestaan." % (
            R.randint(45, 120), R.randint(900, 2400), R.randint(1, 28), pick(["maart", "juni", "september"])),
        "Mieszkanie do wynajęcia, %d m², %d zł/mies. + media, blisko metra. Kaucja dwumiesięczna." % (R.randint(30, 90), R.randint(1800, 5500)),
        "Koulun tiedote: syysloma viikolla %d, vanhempainilta torstaina klo %d." % (R.randint(40, 44), R.randint(17, 19)),
        "Skolan informerar: friluftsdag på fredag, ta med matsäck och regnkläder.",
        "Newsletter: the parents' association raised €%d for the new playground, thanks to everyone who baked!" % R.randint(300, 4000),
        "Paalala: walang pasok sa Lunes dahil sa bagyo; magpapatuloy ang klase sa Martes.",
        "Notis: kelas tambahan Matematik Tingkatan %d pada hari Sabtu, jam 8 pagi." % R.randint(1, 5),
        "Avis aux locataires: coupure d'eau chaude le %d %s de 9 h à 12 h pour entretien." % (R.randint(1, 28), pick(["mars", "juin", "octobre"])),
    ])


@shape("benign_prose", "agent_scratchpad_no_person", False)
def _():
    return pick([
        "Thought: the user wants the cheapest flat under €%d. I'll filter the listings by price and sort ascending.\nAction: search_listings" % R.randint(800, 2000),
        "Reasoning: the lab report is a template; no patient data is attached, so I can summarise the reference ranges.",
        "<scratchpad>Step 1 parse the CSV. Step 2 group by region. Step 3 chart monthly deliveries. No identifiers needed.</scratchpad>",
        "Plan:\n- read the tenancy law summary\n- list the notice periods per province\n- answer in Dutch",
        "Observation: the API returned %d results. Thought: paginate with cursor and stop at %d." % (R.randint(10, 500), R.randint(500, 2000)),
        "I should not guess the password policy; the docs say minimum 12 characters and MFA for admins.",
    ])


# ---- benign_code -------------------------------------------------------------------------------


@shape("benign_code", "function_call_args_no_pii", False)
def _():
    args = pick([
        {"listing_filter": {"city": pick(["Utrecht", "Kraków", "Tampere", "Brno", "Izmir", "Cebu"]), "max_rent": R.randint(800, 2500),
                            "rooms": {"min": R.randint(1, 3)}}, "sort": "price"},
        {"report": {"type": "deliveries_per_day", "depot": "D-%s" % digits(3), "range": {"from": "2026-01-01", "to": "2026-03-31"}}},
        {"course": {"code": "MAT-%s" % digits(3), "seats": R.randint(10, 40), "room": "B%d" % R.randint(100, 400)}},
        {"query": "SELECT count(*) FROM leases WHERE status = $1", "params": ["active"], "timeout_ms": R.randint(100, 5000)},
    ])
    return {"tool_calls": [{"id": "call_%s" % chars(24), "type": "function",
                            "function": {"name": pick(["search", "run_report", "create_course", "sql.query"]),
                                         "arguments": json.dumps(args) if R.random() < 0.5 else args}}]}


@shape("benign_code", "helm_and_inventory_refs", False)
def _():
    return pick([
        "backend:\n  env:\n    - name: DATABASE_URL\n      valueFrom:\n        secretKeyRef:\n          name: %s-db\n          key: url\n" % pick(["orders", "portal", "lab"]),
        "[db:vars]\nconn_string=postgresql://{{ db_user }}:{{ db_password }}@{{ db_host }}/orders\n",
        "DATABASE_URL=${DATABASE_URL:?set DATABASE_URL}\nREDIS_URL=redis://redis:6379/%d\n" % R.randint(0, 15),
        "- name: migrate\n  command: flyway -url=jdbc:postgresql://db:5432/orders -user=$FLYWAY_USER -password=$FLYWAY_PASSWORD migrate\n",
        "ingress:\n  hosts:\n    - host: portal.example.org\n      paths: [\"/\"]\n  tls:\n    - secretName: portal-tls\n",
    ])


# ---- benign_health -----------------------------------------------------------------------------


@shape("benign_health", "lab_reference_sheet", False)
def _():
    return pick([
        "Reference ranges: HbA1c %d-%d mmol/mol; fasting glucose 3.9-5.5 mmol/L; TSH 0.4-4.0 mU/L." % (20, 42),
        "Referentiewaarden: hemoglobine 7.5-10.0 mmol/L (vrouw), 8.5-11.0 mmol/L (man).",
        "Wartości referencyjne: cholesterol całkowity < 190 mg/dl, LDL < 115 mg/dl.",
        "Apteekki tiedottaa: influenssarokotukset alkavat %d.%d., ajanvaraus verkossa." % (R.randint(1, 28), R.randint(9, 11)),
        "Eczane nöbet listesi: bu hafta sonu %s Eczanesi açık." % pick(["Merkez", "Hayat", "Şifa", "Deniz"]),
        "Stock: metformine 500 mg (%d doosjes), salbutamol inhalator (%d), insuline pennen (%d)." % (R.randint(5, 90), R.randint(5, 90), R.randint(5, 90)),
        "School health week: talks on asthma, diabetes and allergies for parents, Wednesday at 18:00.",
        "Paalala ng botika: ang losartan ay iniinom isang beses sa isang araw; kumonsulta sa doktor bago itigil.",
    ])


# ---- benign_names ------------------------------------------------------------------------------


@shape("benign_names", "named_places_and_awards", False)
def _():
    return pick([
        "Pickup point: Vaclav Havel Airport Prague, Terminal %d, arrivals hall." % R.randint(1, 2),
        "The parcel is waiting at the Chopin Airport cargo terminal, gate %d." % R.randint(1, 9),
        "Viewing at the flat near Rizal Park at %s." % when(),
        "Zbiórka przy Centrum Nauki Kopernik o %d:00." % R.randint(8, 16),
        "Konsert i Sibelius-huset %s, biljetter i entrén." % when(),
        "Ophalen bij het Anne Frank Huis om %d uur, daarna naar de Johan Cruijff ArenA." % R.randint(9, 20),
        "Course trip: Tycho Brahe Planetarium, then lunch at Nyhavn.",
        "The school won the Nelson Mandela Bay science fair; prize-giving at the Boardwalk.",
        "Ceremonia de los premios Marie-Victorin au Québec, le %d %s." % (R.randint(1, 28), pick(["mai", "juin"])),
        "Delivery to the Atatürk Kültür Merkezi loading dock before %d:00." % R.randint(7, 11),
    ])


@shape("benign_names", "contract_roles_only", False)
def _():
    return pick([
        "HUUROVEREENKOMST. De ondergetekenden: Stichting Woonzorg, hierna verhuurder, en de huurder, verklaren het volgende.",
        "BAIL DE LOGEMENT entre Gestion Immobilière Laval inc. (le locateur) et le locataire soussigné, signé à %s." % pick(["Montréal", "Québec", "Laval"]),
        "This Tenancy Agreement is made between %s (the Landlord) and the Tenant named in Schedule %d." % (pick(["Dublin Lettings Ltd", "Cork Homes DAC"]), R.randint(1, 3)),
        "LEASE AGREEMENT entered into by and between %s (Pty) Ltd and the Lessee described in Annexure A." % pick(["Cape Rentals", "Highveld Property", "Durban Lets"]),
        "UMOWA NAJMU zawarta pomiędzy Spółdzielnią Mieszkaniową %s a Najemcą wskazanym w załączniku nr %d." % (pick(["Ursynów", "Mokotów", "Śródmieście"]), R.randint(1, 4)),
        "HYRESAVTAL mellan %s AB (hyresvärd) och hyresgästen avseende lägenhet nr %s." % (pick(["Bostadsbolaget Väst", "Stockholmshem", "Familjebostäder"]), digits(4)),
    ])


# ---- benign_secretlike -------------------------------------------------------------------------


@shape("benign_secretlike", "registry_config_placeholders", False)
def _():
    name = pick(sorted(VENDOR_ENV))
    return pick([
        "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n",
        "[pypi]\nusername = __token__\npassword = <your PyPI API token>\n",
        {"auths": {"https://index.docker.io/v1/": {"credsStore": "desktop"}}},
        "%s=   # set in CI secrets, never commit\n" % VENDOR_ENV[name],
        "%s=%s\n" % (VENDOR_ENV[name], pick(["changeme", "xxxxxxxxxxxxxxxxxxxx", "<redacted>", "sk-...", "${{ secrets.%s }}" % VENDOR_ENV[name]])),
        "Thought: the key in the config is masked as %s****, so I cannot use it; ask the user to set %s." % (pick(["npm_", "glpat-", "hf_", "sk-proj-"]), VENDOR_ENV[name]),
    ])


@shape("benign_secretlike", "har_and_keys_public", False)
def _():
    return pick([
        {"log": {"entries": [{"request": {"method": "GET", "url": "https://portal.example.nl/api/v2/listings?page=%d" % R.randint(1, 30),
                                          "headers": [{"name": "Authorization", "value": "Bearer [REDACTED]"},
                                                      {"name": "If-None-Match", "value": "W/\"%s\"" % chars(32, HEX)}]},
                              "response": {"status": 304}}]}},
        "ETag: \"%s\"\nX-Request-Id: %s-%s-%s-%s-%s" % (chars(40, HEX), chars(8, HEX), chars(4, HEX), chars(4, HEX), chars(4, HEX), chars(12, HEX)),
        "Deploy key (public, safe to share):\n%s" % public_key_text(),
        "sha256 of the lease PDF: %s; signature checked with the landlord's public key." % chars(64, HEX),
        "integrity: sha512-%s" % base64.b64encode(hashlib.sha512(chars(20).encode()).digest()).decode(),
        "content-md5: %s, commit %s" % (base64.b64encode(hashlib.md5(chars(20).encode()).digest()).decode(), chars(40, HEX)),
    ])
