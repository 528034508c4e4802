#!/usr/bin/python3
"""Writes the Faker-sourced rows of the pii accuracy corpus.

Run with Debian's python3-fake-factory (Faker 0.9.3):

    /usr/bin/python3 pii/internal/corpusgen/faker_rows.py > pii/testdata/corpus/faker.jsonl

The output depends only on SEED and the Faker version: every locale's generator is seeded.
"""
import hashlib
import json
import random
import sys

from faker import Faker

SEED = 20261126
LOCALES = ["en_US", "en_GB", "en_AU", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL",
           "pt_BR", "ja_JP", "zh_CN"]
# Locales whose names are written in Latin letters (the prose templates are European).
LATIN = [l for l in LOCALES if l not in ("ja_JP", "zh_CN")]


def split(row_id):
    return "dev" if hashlib.sha256(row_id.encode()).digest()[0] < 128 else "test"


def luhn_ok(digits):
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_ok(iban):
    s = iban[4:] + iban[:4]
    n = "".join(str(int(c, 36)) for c in s)
    return int(n) % 97 == 1


# BBAN shapes (a: capital letter, n: digit) of the countries whose IBANs the corpus writes.
BBAN = {"DE": "n" * 18, "FR": "n" * 23, "GB": "aaaa" + "n" * 14, "NL": "aaaa" + "n" * 10, "ES": "n" * 20,
        "IT": "a" + "n" * 22, "PL": "n" * 24, "BE": "n" * 12, "AT": "n" * 16, "PT": "n" * 21}


def make_iban(rng):
    """An IBAN of the country's length whose check digits are computed by ISO 7064 mod 97."""
    cc = rng.choice(sorted(BBAN))
    bban = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") if c == "a" else str(rng.randrange(10))
                   for c in BBAN[cc])
    n = int("".join(str(int(c, 36)) for c in bban + cc + "00"))
    iban = "%s%02d%s" % (cc, 98 - n % 97, bban)
    assert iban_ok(iban)
    return iban


def ssn_ok(ssn):
    a, g, s = ssn.split("-")
    return a not in ("000", "666") and a[0] != "9" and g != "00" and s != "0000"


class Out:
    def __init__(self):
        self.n = {}
        self.rows = []

    def add(self, family, must_block, types, text=None, payload=None, locale=""):
        k = self.n.get(family, 0)
        self.n[family] = k + 1
        row_id = "faker-%s-%04d" % (family, k)
        row = {"id": row_id, "family": family, "source": "faker" + ("/" + locale if locale else ""),
               "split": split(row_id), "must_block": must_block, "types": sorted(set(types))}
        if payload is not None:
            row["json"] = payload
        else:
            row["text"] = text
        self.rows.append(row)


def fakers():
    out = {}
    for i, loc in enumerate(LOCALES):
        f = Faker(loc)
        f.seed_instance(SEED + i)
        out[loc] = f
    return out


# Structured identifiers in the kinds of text an agent sends: requests, tool input, replies.
STRUCT_TEXT = [
    "Please update the CRM record: new contact e-mail is {email}.",
    "Forwarding the customer's request. Reply to {email} once the refund is approved.",
    "Tool input: lookup_customer(email=\"{email}\")",
    "The invoice should be sent to {address}.",
    "Shipping label: {name}, {address}",
    "Charge the card on file ({card}) for the renewal.",
    "Payment failed for card {card}; ask the customer to retry.",
    "Refund to IBAN {iban}, reference RF-{n}.",
    "Bank details for the payout: {iban}",
    "SSN on the application: {ssn}",
    "Verification: the applicant's social security number is {ssn}.",
    "Summary of the ticket: {name} ({email}) cannot log in since Tuesday.",
    "Found 1 match: {name} <{email}>, last order shipped to {address}.",
    "Can you check whether {email} is subscribed to the newsletter?",
    "New lead from the web form - email: {email}, company: {company}",
    "Deliver to: {address}. Leave at the front desk.",
    "I moved! My new address is {address}.",
    "Card number {card}, expiry 0{m}/2{y}, please keep it on file.",
    "Wire the deposit to {iban} before Friday.",
    "Error: duplicate key value violates unique constraint \"users_email_key\" (email)=({email})",
]

STRUCT_JSON = [
    lambda v: {"tool": "crm.update", "input": {"contact": {"email": v["email"]}}},
    lambda v: {"customer": {"full_name": v["name"], "email": v["email"]}},
    lambda v: {"order": {"id": "ORD-" + v["n"], "ship_to": v["address"]}},
    lambda v: {"payment": {"method": "card", "number": v["card"]}},
    lambda v: {"payout": {"iban": v["iban"], "currency": "EUR"}},
    lambda v: {"applicant": {"ssn": v["ssn"]}},
    lambda v: {"results": [{"rank": 1, "match": v["email"]}]},
    lambda v: {"message": "Reply sent to " + v["email"], "status": "ok"},
]

NAME_TEXT = [
    "Please forward the contract to {name}; she signs for the buyer.",
    "Meeting notes: {name} agreed to take over the on-call rota next week.",
    "{name} called again about the delayed refund and wants a manager to ring back.",
    "The new hire, {name}, starts on Monday in the finance team.",
    "Ask {name} whether he approved the expense report.",
    "Escalation: customer {name} is unhappy with the response time.",
    "Dear {name}, thank you for your patience while we looked into your account.",
    "Hi {name}, your appointment is confirmed for Thursday.",
    "Signed off by {name}, head of procurement.",
    "The tenant {name} reported a leak in the bathroom.",
    "Background check requested for candidate {name}.",
    "Reminder: {name}'s performance review is due on Friday.",
    "Thanks, {name}",
    "Interview feedback for {name}: strong on systems design, weak on testing.",
    "Patient {name} missed the follow-up visit.",
    "Passenger {name} asked to change seats.",
    "I spoke with {name} from accounting yesterday; she'll send the figures.",
    "Please CC {name} on the thread.",
    "{name} will cover for me while I'm on leave.",
    "Flight booked for {name}, seat 14C.",
    "Bitte leiten Sie das an {name} weiter.",
    "Merci de contacter {name} demain matin.",
    "Por favor, avisa a {name} de la reunión.",
    "Può richiamare {name} domani?",
    "Fale com {name} sobre o contrato.",
    "Our landlord {name} wants the keys back by Friday.",
    "{name} is the emergency contact on file.",
    "Case opened on behalf of {name}, who disputes the charge.",
]

NAME_JSON = [
    lambda v: {"assignee": v["name"], "task": "review contract"},
    lambda v: {"customer": {"name": v["name"], "tier": "gold"}},
    lambda v: {"attendees": [v["name"], v["name2"]], "room": "B2"},
    lambda v: {"ticket": {"reporter": v["name"], "status": "open"}},
    lambda v: {"signed_by": v["name"], "document": "NDA"},
    lambda v: {"candidate": {"first_name": v["first"], "last_name": v["last"]}},
    lambda v: {"owner": v["name"], "asset": "laptop-" + v["n"]},
    lambda v: {"booking": {"guest": v["name"], "nights": 3}},
    lambda v: {"from": {"display_name": v["name"]}, "body": "see attached"},
    lambda v: {"contact_person": v["name"], "company": v["company"]},
]

# Date-of-birth cues in the corpus's languages.
DOB_TEXT = [
    "Date of birth: {date_iso}",
    "DOB {date_us} - please verify against the ID.",
    "The applicant was born on {date_long}.",
    "She was born {date_iso} in the city hospital.",
    "My birthday is {date_us}, can you update the profile?",
    "Geburtsdatum: {date_de}",
    "Der Kunde ist am {date_de} geboren.",
    "Date de naissance : {date_fr}",
    "Il est né le {date_fr}.",
    "Fecha de nacimiento: {date_fr}",
    "Nació el {date_fr} en Sevilla.",
    "Data di nascita: {date_fr}",
    "Data de nascimento: {date_fr}",
    "Geboortedatum: {date_de}",
    "Data urodzenia: {date_de}",
    "Birth date on the passport reads {date_iso}.",
    "Customer DOB is {date_us}, age verification passed.",
    "born: {date_iso}",
    "{name} (DOB {date_iso}) is the main policy holder.",
    "b. {date_long}, per the birth certificate.",
    "I was born on {date_long}, so the age check should pass.",
    "Né(e) le {date_fr} à Lyon.",
    "nacido el {date_fr}",
    "nato il {date_fr} a Torino",
    "geb. {date_de}",
]

DOB_JSON = [
    lambda v: {"patient": {"dob": v["date_iso"]}},
    lambda v: {"profile": {"date_of_birth": v["date_iso"], "plan": "basic"}},
    lambda v: {"birthdate": v["date_us"]},
    lambda v: {"kunde": {"geburtsdatum": v["date_de"]}},
    lambda v: {"person": {"dateOfBirth": v["date_iso"]}},
    lambda v: {"cliente": {"fecha_nacimiento": v["date_fr"]}},
    lambda v: {"assure": {"date_naissance": v["date_fr"]}},
    lambda v: {"traveller": {"birth_date": v["date_iso"], "nationality": v["country"]}},
]

CONDITIONS = ["type 2 diabetes", "asthma", "hypertension", "major depressive disorder", "HIV",
              "breast cancer", "epilepsy", "multiple sclerosis", "bipolar disorder", "hepatitis C",
              "Crohn's disease", "rheumatoid arthritis", "schizophrenia", "COPD", "leukemia",
              "an anxiety disorder", "Parkinson's disease", "chronic kidney disease", "ADHD",
              "a herniated disc", "coeliac disease", "long COVID", "anorexia nervosa", "psoriasis"]
MEDS = ["metformin", "insulin glargine", "sertraline", "lithium", "atorvastatin", "levothyroxine",
        "methotrexate", "fluoxetine", "adalimumab", "prednisone", "lisinopril", "olanzapine",
        "salbutamol", "warfarin", "buprenorphine", "tamoxifen", "quetiapine", "gabapentin"]

HEALTH_TEXT = [
    "{name} was diagnosed with {cond} last spring.",
    "I have {cond} and need the meeting moved to the afternoon.",
    "My doctor put me on {med} for my {cond}.",
    "Note for HR: {name} is on sick leave because of {cond}.",
    "{name} takes {med} twice a day; please keep it in the travel file.",
    "The claim for {name} covers treatment of {cond}.",
    "Patient {name}: {cond}, currently on {med}.",
    "My son was diagnosed with {cond}, so I'll be working from home.",
    "Please note that {name} is allergic to penicillin and has {cond}.",
    "Prescription refill for {name}: {med}, 30 days.",
    "I'm recovering from {cond} and can't travel until June.",
    "{name} tested positive for {cond} and is isolating.",
    "She's been off work since her {cond} flared up again.",
    "Attaching {name}'s lab results; the specialist confirmed {cond}.",
    "Can we keep it quiet that {name} is being treated for {cond}?",
    "Reason for absence: {cond} (employee {name}).",
    "{name}'s insurance pre-authorisation for {med} was denied.",
    "FYI {first} started {med} last week, so expect some side effects.",
    "{name} leidet an {cond_de} und fällt bis Monatsende aus.",
    "Bei mir wurde letzte Woche {cond_de} diagnostiziert.",
    "Diagnose für {name}: {cond_de}.",
    "{name} est atteinte de {cond_fr} depuis deux ans.",
    "On m'a diagnostiqué {cond_fr} en mars.",
    "{name} padece {cond_es} y necesita trabajar desde casa.",
    "Me diagnosticaron {cond_es} el año pasado.",
    "{name} soffre di {cond_it}.",
    "{name} tem {cond_pt} e toma remédio todos os dias.",
]

# Conditions as written in the corpus's other languages.
COND_LANG = {
    "de": ["Diabetes", "Asthma", "Bluthochdruck", "eine Depression", "Epilepsie", "Brustkrebs", "Multiple Sklerose", "Morbus Crohn"],
    "fr": ["diabète", "asthme", "hypertension", "dépression", "épilepsie", "un cancer du sein", "sclérose en plaques", "la maladie de Crohn"],
    "es": ["diabetes", "asma", "hipertensión", "depresión", "epilepsia", "cáncer de mama", "esclerosis múltiple", "trastorno bipolar"],
    "it": ["diabete", "asma", "ipertensione", "depressione", "epilessia", "sclerosi multipla", "morbo di Crohn"],
    "pt": ["diabetes", "asma", "hipertensão", "depressão", "epilepsia", "esclerose múltipla", "transtorno bipolar"],
}

HEALTH_JSON = [
    lambda v: {"patient": v["name"], "diagnosis": v["cond"]},
    lambda v: {"member_id": "M" + v["n"], "diagnosis": v["cond"], "medication": v["med"]},
    lambda v: {"record": {"name": v["name"], "conditions": [v["cond"]]}},
    lambda v: {"employee": v["name"], "leave_reason": v["cond"]},
    lambda v: {"prescription": {"patient": v["name"], "drug": v["med"]}},
    lambda v: {"intake": {"medical_history": "diagnosed with " + v["cond"], "medications": [v["med"]]}},
    lambda v: {"patient": {"name": v["name"]}, "condition": v["cond"]},
    lambda v: {"case": {"client": v["name"], "notes": "client disclosed " + v["cond"]}},
    lambda v: {"sick_note": {"employee": v["name"], "diagnose": v["cond_de"]}},
    lambda v: {"dossier": {"patient": v["name"], "diagnostic": v["cond_fr"]}},
]

# Must pass: organisations, places and products, no person.
PLACE_TEXT = [
    "The {city} warehouse ships orders before 3 pm.",
    "{company} announced a new data centre near {city}.",
    "Our supplier {company} raised prices by 4% this quarter.",
    "Route the parcel through the {city} hub.",
    "Weather in {city} tomorrow: light rain, 14 degrees.",
    "Compare the offers from {company} and {company2} before Friday.",
    "The conference moves from {city} to {city2} next year.",
    "{company} is listed as the vendor on the purchase order.",
    "Flights to {city} are delayed by two hours.",
    "The {street} branch closes early on public holidays.",
    "Market share: {company} 31%, {company2} 24%, others 45%.",
    "Tool output: {{\"vendor\": \"{company}\", \"region\": \"{city}\"}}",
]

PLACE_JSON = [
    lambda v: {"vendor": v["company"], "city": v["city"]},
    lambda v: {"warehouses": [v["city"], v["city2"]]},
    lambda v: {"supplier": {"name": v["company"], "country": v["country"]}},
    lambda v: {"route": {"from": v["city"], "to": v["city2"]}},
]


def values(f, rng):
    d = f.date_of_birth(minimum_age=18, maximum_age=90)
    v = {"name": f.name(), "name2": f.name(), "first": f.first_name(), "last": f.last_name(),
         "email": f.email(), "address": f.address().replace("\n", ", "), "company": f.company(),
         "company2": f.company(), "city": f.city(), "city2": f.city(), "street": f.street_name(),
         "country": f.country(), "n": str(rng.randint(10000, 99999)), "m": str(rng.randint(1, 9)),
         "y": str(rng.randint(7, 9)),
         "date_iso": d.isoformat(), "date_us": d.strftime("%m/%d/%Y"), "date_de": d.strftime("%d.%m.%Y"),
         "date_fr": d.strftime("%d/%m/%Y"), "date_long": d.strftime("%B %d, %Y"),
         "cond": rng.choice(CONDITIONS), "med": rng.choice(MEDS)}
    for lang, conds in COND_LANG.items():
        v["cond_" + lang] = rng.choice(conds)
    card = f.credit_card_number()
    v["card"] = card if luhn_ok(card) and len(card) >= 13 else "4111111111111111"
    v["iban"] = make_iban(rng)
    ssn = f.numerify("###-##-####")
    while not ssn_ok(ssn):
        ssn = f.numerify("###-##-####")
    v["ssn"] = ssn
    return v


def struct_types(tmpl):
    t = []
    for k, typ in (("{email}", "email"), ("{address}", "address"), ("{card}", "card"),
                   ("{iban}", "iban"), ("{ssn}", "ssn"), ("{name}", "name")):
        if k in tmpl:
            t.append(typ)
    return t


def main():
    rng = random.Random(SEED)
    fk = fakers()
    out = Out()
    for i in range(900):
        loc = LOCALES[i % len(LOCALES)]
        v = values(fk[loc], rng)
        if i % 3 == 2:
            j = rng.randrange(len(STRUCT_JSON))
            p = STRUCT_JSON[j](v)
            out.add("struct_pii", True, [k for k in ("email", "address", "card", "iban", "ssn")
                                          if json.dumps(p).find(json.dumps(v[k])[1:-1]) >= 0], payload=p, locale=loc)
        else:
            t = rng.choice(STRUCT_TEXT)
            out.add("struct_pii", True, struct_types(t), text=t.format(**v), locale=loc)
    for i in range(500):
        loc = LATIN[i % len(LATIN)] if i % 5 else LOCALES[i % len(LOCALES)]
        v = values(fk[loc], rng)
        if i % 4 == 3:
            out.add("names_context", True, ["name"], payload=rng.choice(NAME_JSON)(v), locale=loc)
        else:
            out.add("names_context", True, ["name"], text=rng.choice(NAME_TEXT).format(**v), locale=loc)
    for i in range(360):
        loc = LOCALES[i % len(LOCALES)]
        v = values(fk[loc], rng)
        if i % 4 == 3:
            out.add("dob_context", True, ["dob"], payload=rng.choice(DOB_JSON)(v), locale=loc)
        else:
            out.add("dob_context", True, ["dob"], text=rng.choice(DOB_TEXT).format(**v), locale=loc)
    for i in range(480):
        loc = LATIN[i % len(LATIN)]
        v = values(fk[loc], rng)
        if i % 3 == 2:
            out.add("health", True, ["health"], payload=rng.choice(HEALTH_JSON)(v), locale=loc)
        else:
            out.add("health", True, ["health"], text=rng.choice(HEALTH_TEXT).format(**v), locale=loc)
    for i in range(640):
        loc = LOCALES[i % len(LOCALES)]
        v = values(fk[loc], rng)
        if i % 4 == 3:
            out.add("benign_names", False, [], payload=rng.choice(PLACE_JSON)(v), locale=loc)
        else:
            out.add("benign_names", False, [], text=rng.choice(PLACE_TEXT).format(**v), locale=loc)
    for i in range(500):
        loc = LOCALES[i % len(LOCALES)]
        f = fk[loc]
        if i % 3 == 2:
            out.add("benign_prose", False, [], payload={"summary": f.text(160), "tags": f.words(3)}, locale=loc)
        else:
            out.add("benign_prose", False, [], text=f.text(rng.choice([80, 200, 400])), locale=loc)
    w = sys.stdout
    for r in out.rows:
        w.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
