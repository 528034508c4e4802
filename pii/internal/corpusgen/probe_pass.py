"""The probe's must-pass shapes (hard negatives): each function makes one row; @shape runs it PER times."""

import base64
import hashlib
import json
import uuid

from probe_values import *  # noqa: F401,F403


def uid():
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def sha(n=64):
    return hashlib.sha256(str(R.random()).encode()).hexdigest()[:n]


# ---- bad_checksum ----------------------------------------------------------------------------

@shape("bad_checksum", "refund_bad_luhn", False)
def _():
    return {"refund": {"order_id": order_no(), "description": pick([
        "Refund requested, customer typed card %s but it fails validation",
        "card %s rejected by the form (checksum)", "Karte %s ungültig, bitte erneut eingeben"]) % group4(card(False))}}


@shape("bad_checksum", "invoice_bad_iban", False)
def _():
    ib = iban(False)
    return "Invoice INV-%d: payee IBAN %s could not be validated, please resend." % (R.randint(1000, 99999), ib)


@shape("bad_checksum", "hr_bad_ids", False)
def _():
    kind, label, v, typ = national(False)
    return {"validation": {kind + "_number": v, "result": "invalid check digit", "checked_at": ts()}}


# ---- labelled_number -------------------------------------------------------------------------

@shape("labelled_number", "shipping_update", False)
def _():
    return pick([
        "Your order %s has shipped. Tracking number: %s. Estimated delivery %d %s.",
        "Ihre Bestellung %s wurde versandt, Sendungsnummer %s, Zustellung am %d. %s.",
        "Votre commande %s est expédiée, numéro de suivi %s, livraison le %d %s.",
        "Su pedido %s ha sido enviado, número de seguimiento %s, entrega el %d de %s.",
    ]) % (order_no(), tracking(), R.randint(1, 28), pick(["March", "April", "Mai", "juin", "julio"]))


@shape("labelled_number", "invoice_lines", False)
def _():
    lines = ["| %s | %s | %d | %d.%02d |" % (sku(), pick(["USB-C cable", "Desk lamp", "Toner 85A", "SSD 1TB"]), R.randint(1, 20),
                                            R.randint(3, 400), R.randint(0, 99)) for _ in range(R.randint(2, 4))]
    return "Invoice no. %d%d\n\n| SKU | Item | Qty | Price |\n|---|---|---|---|\n%s\n\nPO number %d" % (
        R.randint(2024, 2026), R.randint(100000, 999999), "\n".join(lines), R.randint(4500000000, 4599999999))


@shape("labelled_number", "build_ci", False)
def _():
    return {"pipeline": {"build_number": R.randint(100000, 99999999), "run_id": R.randint(10**9, 10**10),
                         "version": "%d.%d.%d" % (R.randint(0, 9), R.randint(0, 40), R.randint(0, 300)),
                         "commit": sha(40), "artifact": "app-%d.%d.%d-linux-amd64.tar.gz" % (R.randint(0, 9), R.randint(0, 40), R.randint(0, 300))}}


@shape("labelled_number", "isbn_catalogue", False)
def _():
    body = "978" + rand_chars(9, "0123456789")
    s = sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(body))
    isbn = body + str((10 - s % 10) % 10)
    return "Catalogue entry: %s, ISBN %s-%s-%s-%s-%s, %d pages, shelf %s" % (
        pick(["Field guide to ferns", "Kubernetes in practice", "A history of salt"]), isbn[:3], isbn[3], isbn[4:8], isbn[8:12], isbn[12],
        R.randint(120, 900), sku())


# ---- git_ssh ---------------------------------------------------------------------------------

def git_url():
    return "git@%s:%s/%s.git" % (pick(["github.com", "gitlab.com", "bitbucket.org", "git.internal.acme.io"]),
                                  pick(["acme", "platform-team", "ops", "jdoe"]), pick(["api", "infra", "dotfiles", "web-app"]))


@shape("git_ssh", "dockerfile", False)
def _():
    return ("FROM golang:1.%d-alpine AS build\nRUN apk add --no-cache git openssh\nRUN --mount=type=ssh git clone %s /src\n"
            "WORKDIR /src\nRUN go build -o /out/app ./cmd/app\n" % (R.randint(20, 23), git_url()))


@shape("git_ssh", "push_error", False)
def _():
    return ("%s: Permission denied (publickey).\nfatal: Could not read from remote repository.\n\n"
            "Please make sure you have the correct access rights\nand the repository exists." % git_url())


# ---- benign_prose ----------------------------------------------------------------------------

@shape("benign_prose", "calendar_room", False)
def _():
    return {"event": {"title": pick(["Sprint planning", "All hands", "Design crit", "Budget sync"]),
                      "room": pick(["Room 4.12", "Atlas", "Orion", "Big Kitchen"]), "start": ts(),
                      "recurrence": "RRULE:FREQ=WEEKLY;BYDAY=%s" % pick(["MO", "TU", "WE", "TH"]),
                      "notes": pick(["Bring the Q%d numbers." % R.randint(1, 4), "Agenda in the shared doc.", "Remote friendly."])}}


@shape("benign_prose", "status_multilang", False)
def _():
    return pick([
        "Der Server in %s wurde um %02d:%02d neu gestartet, alles läuft wieder.",
        "Le déploiement à %s s'est terminé à %02d:%02d sans erreur.",
        "El almacén de %s cierra hoy a las %02d:%02d.",
        "Il magazzino di %s chiude alle %02d:%02d.",
        "%s のサーバーは %02d:%02d に再起動しました。",
        "%s 仓库今天 %02d:%02d 关门。",
    ]) % (fk().city(), R.randint(0, 23), R.randint(0, 59))


@shape("benign_prose", "product_review", False)
def _():
    return pick(["The %s arrived in %d days and works fine, %d/5.", "Returned the %s, too loud. Refund took %d days; %d stars.",
                 "Battery on the %s lasts about %d hours; I'd give it %d/10."]) % (
        pick(["Pixel 8", "ThinkPad X1", "Kindle Paperwhite", "Dyson V11", "Galaxy Buds"]), R.randint(2, 12), R.randint(1, 5))


# ---- benign_code -----------------------------------------------------------------------------

@shape("benign_code", "k8s_secretref", False)
def _():
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  replicas: %d\n  template:\n    spec:\n"
            "      containers:\n        - name: app\n          image: registry.acme.io/%s:%s\n          env:\n"
            "            - name: DB_PASSWORD\n              valueFrom:\n                secretKeyRef:\n                  name: db-creds\n"
            "                  key: password\n" % (pick(["orders", "api", "worker"]), R.randint(1, 6), pick(["orders", "api"]), sha(12)))


@shape("benign_code", "stack_trace", False)
def _():
    return ("panic: runtime error: index out of range [%d] with length %d\n\ngoroutine %d [running]:\n"
            "main.(*Server).handle(0xc000%s, {0x%s, 0x%s})\n\t/src/server.go:%d +0x%s\nexit status 2"
            % (R.randint(1, 9), R.randint(0, 1), R.randint(1, 400), rand_chars(6, "0123456789abcdef"),
               rand_chars(6, "0123456789abcdef"), rand_chars(6, "0123456789abcdef"), R.randint(10, 500), rand_chars(3, "0123456789abcdef")))


@shape("benign_code", "sql_error_novalue", False)
def _():
    return pick([
        "ERROR: relation \"%s\" does not exist at character %d",
        "ERROR: column \"%s\" of relation \"orders\" contains null values (SQLSTATE 23502) at %d",
        "pq: deadlock detected on table %s, retrying in %d ms",
    ]) % (pick(["order_items", "users_archive", "shipment"]), R.randint(10, 300))


@shape("benign_code", "log_ids", False)
def _():
    return "%s INFO request_id=%s trace=%s span=%s method=%s path=/v1/orders/%d status=%d dur=%dms" % (
        ts(), uid(), sha(32), sha(16), pick(["GET", "POST"]), R.randint(1, 10**7), pick([200, 201, 404, 500]), R.randint(1, 900))


# ---- benign_health ---------------------------------------------------------------------------

MEDS_P = ["metformin", "lisinopril", "sertraline", "atorvastatin", "amoxicillin", "omeprazole", "levothyroxine"]
COND_P = ["type 2 diabetes", "asthma", "hypertension", "depression", "COPD", "rheumatoid arthritis", "migraine"]


@shape("benign_health", "drug_label", False)
def _():
    return pick([
        "{m} tablets are indicated as an adjunct to diet and exercise. Store below 25 °C. Keep out of reach of children. Lot {lot}.",
        "Each film-coated tablet contains {m} {d} mg. Do not exceed the stated dose. Lot {lot}.",
        "Package leaflet: information for the user. {m} {d} mg — read all of this leaflet carefully.",
        "Gebrauchsinformation: {m} {d} mg Filmtabletten. Bei Raumtemperatur lagern. Ch.-B. {lot}",
    ]).format(m=pick(MEDS_P).capitalize(), d=R.choice([5, 10, 20, 500]), lot=sku())


@shape("benign_health", "research_abstract", False)
def _():
    return ("Background: %s affects millions worldwide. Methods: we enrolled %d adults in a randomised trial of %s. "
            "Results: HbA1c fell by %.1f%% (95%% CI %.1f–%.1f). Conclusion: further studies are needed."
            % (pick(COND_P).capitalize(), R.randint(80, 4000), pick(MEDS_P), R.uniform(0.2, 1.5), R.uniform(0.1, 0.3), R.uniform(1.6, 2.0)))


@shape("benign_health", "icd_table", False)
def _():
    rows = ["| %s%02d.%d | %s |" % (pick("EIJMG"), R.randint(0, 99), R.randint(0, 9), pick(COND_P)) for _ in range(R.randint(2, 4))]
    return "Reference codes used by the billing export:\n\n| ICD-10 | Description |\n|---|---|\n" + "\n".join(rows)


# ---- benign_names ----------------------------------------------------------------------------

@shape("benign_names", "products_places", False)
def _():
    return pick([
        "Ship {n} units of the {p} to the {c} warehouse.",
        "The {p} display at {c} sold out by noon ({n} left).",
        "Stock check: {p} at {c}, {n} on hand.",
    ]).format(n=R.randint(2, 400), p=pick(["Ford Mustang model kit", "Jack Daniel's gift set", "Tim Hortons mug",
                                           "Victoria sponge mix", "Mont Blanc fountain pen", "Winston armchair"]),
              c=pick(["San Francisco", "Victoria Station", "St. Louis", "Port Elizabeth", "Santa Clara", "Mount Washington"]))


@shape("benign_names", "street_city", False)
def _():
    f = fk(pick(["de_DE", "fr_FR", "en_US", "es_ES"]))
    return "Road closure on %s between %s and the ring road until %d %s." % (
        f.street_name(), f.city(), R.randint(1, 28), pick(["May", "June", "Mai", "juin"]))


@shape("benign_names", "company_json", False)
def _():
    f = fk()
    return {"vendor": {"company": f.company(), "city": f.city(), "vat_registered": True, "category": pick(["logistics", "catering", "IT"])}}


# ---- benign_secretlike -----------------------------------------------------------------------

@shape("benign_secretlike", "redacted", False)
def _():
    v, k, typ = vendor_key()
    return pick(["OPENAI_API_KEY=%s...REDACTED", "Authorization: Bearer %s****", "token: %s[redacted]", "key %s… (truncated)"]) % k[:R.choice([3, 5, 7])]


@shape("benign_secretlike", "ssh_pubkey", False)
def _():
    blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + bytes(R.getrandbits(8) for _ in range(32))
    return {"authorized_keys": ["ssh-ed25519 %s %s" % (base64.b64encode(blob).decode(), pick(["deploy@ci-runner-3", "laptop", "backup-host"]))]}


@shape("benign_secretlike", "hashes_uuids", False)
def _():
    return "sha256:%s  image=%s  digest ok, id %s, etag \"%s\"" % (sha(), pick(["api", "worker"]), uid(), sha(32))


@shape("benign_secretlike", "placeholders", False)
def _():
    return pick([
        "export %s=<your-key-here>\ncurl https://api.example.com/v1 -H \"Authorization: Bearer $%s\"",
        "# copy .env.example to .env and set %s=changeme, then restart\n# docs: https://docs.example.com/%s",
        "password: ${%s}  # injected by the runner; see %s in the vault",
    ]) % (pick(["API_KEY", "OPENAI_API_KEY", "DB_PASSWORD", "STRIPE_KEY"]), pick(["API_KEY", "TOKEN", "SECRET"]))
