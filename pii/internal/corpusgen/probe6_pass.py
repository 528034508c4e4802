"""Must-pass shapes of the sixth probe: hard negatives in the shapes of probe6_block.py (function
calls with arrays of records, spreadsheet ranges, OCR'd forms, e-mail threads, chat exports, claims,
prescriptions, summaries and translation tasks, framework logs, Jupyter outputs, docker run, JDBC
URLs, git configuration and kubeconfig files) that hold no personal data and no secret: identifiers
that fail their checks, numbers a label names, git remotes, text about no one, things and places
named for people, titles without a name, placeholders, digests, certificates and public keys."""

import base64
import hashlib
import json

from probe6_values import (R, VENDORS, b64, broken_national, card, certificate_pem, chars, digits, iban, pick,
                           public_key_text, shape, uuid, when, HEX, B62)

# ---- bad_checksum ------------------------------------------------------------------------------


@shape("bad_checksum", "claim_ids_failing_check", False)
def _():
    label, bad = broken_national()
    return pick([
        {"claim": {"number": "CLM-%s" % digits(8), "id_document": {"type": label, "number": bad},
                   "validation": "check digit mismatch"}},
        "Form rejected: the %s %s fails its check digit; ask for a scan of the document." % (label, bad),
        "Import warning (row %d): invalid %s '%s' skipped." % (R.randint(2, 500), label, bad),
        "Refund blocked: IBAN %s fails mod 97 and card %s fails Luhn." % (iban(valid=False), card(valid=False)),
    ])


# ---- labelled_number ---------------------------------------------------------------------------


@shape("labelled_number", "claim_and_policy_refs", False)
def _():
    return pick([
        "Claim CLM-%s, policy %s, adjuster ref %s." % (digits(8), digits(10), digits(6)),
        "Número de póliza %s, expediente %s, sucursal %s." % (digits(10), digits(9), digits(4)),
        "Tjónanúmer %s, samningsnúmer %s." % (digits(9), digits(8)),
        "NDC %s-%s-%s, lot %s, expiry 2027-%02d." % (digits(5), digits(4), digits(2), chars(6, "ABCDEFGHJK0123456789"), R.randint(1, 12)),
        "Prior authorisation no. %s approved for procedure code %s." % (digits(11), digits(5)),
        "Numri i faturës %s, kodi i klientit %s." % (digits(10), digits(7)),
    ])


@shape("labelled_number", "spreadsheet_number_columns", False)
def _():
    head = pick([["Order", "SKU", "Qty", "Amount"], ["Comanda", "Article", "Quantitat", "Import"], ["Pöntun", "Vörunúmer", "Magn", "Upphæð"]])
    rows = [head]
    for _ in range(R.randint(2, 5)):
        rows.append([digits(10), "SKU-%s" % digits(8), str(R.randint(1, 40)), "%d.%02d" % (R.randint(5, 9000), R.randint(0, 99))])
    return {"range": "Orders!A1:D%d" % len(rows), "majorDimension": "ROWS", "values": rows}


# ---- git_ssh -----------------------------------------------------------------------------------


@shape("git_ssh", "git_config_and_remotes", False)
def _():
    host = pick(["github.com", "gitlab.com", "bitbucket.org", "git.example.is", "codeberg.org"])
    org, repo = pick(["acme", "infra", "data-eng", "mobile"]), pick(["claims-api", "etl", "notebooks", "helm"])
    return pick([
        "[credential]\n\thelper = store\n[remote \"origin\"]\n\turl = git@%s:%s/%s.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*" % (host, org, repo),
        "$ git remote -v\norigin\tgit@%s:%s/%s.git (fetch)\norigin\tgit@%s:%s/%s.git (push)" % (host, org, repo, host, org, repo),
        "[submodule \"vendor/%s\"]\n\tpath = vendor/%s\n\turl = ssh://git@%s/%s/%s.git" % (repo, repo, host, org, repo),
        "pip install git+ssh://git@%s/%s/%s.git@v%d.%d" % (host, org, repo, R.randint(0, 4), R.randint(0, 20)),
        "Host %s\n  User git\n  IdentityFile ~/.ssh/id_ed25519\n  IdentitiesOnly yes" % host,
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "email_thread_no_person", False)
def _():
    return "%s\n\n> On %s, %s wrote:\n> %s\n\n%s" % (
        pick(["Thanks, the room is booked for the %d attendees." % R.randint(5, 40), "Confirmed — the delivery window is 8 to 12.",
              "Gràcies, ho revisem demà.", "Takk, við skoðum þetta á morgun.", "Diolch, byddwn yn ateb cyn dydd Gwener."]),
        when(), pick(["Facilities", "The events team", "Support", "Reception desk"]),
        pick(["Can you confirm the numbers?", "Please send the delivery window.", "Is the projector needed?"]),
        pick(["Kind regards,\nThe Facilities Team", "Salutacions,\nL'equip de suport", "Kveðja,\nÞjónustuverið", "Cofion,\nY Tîm"]))


@shape("benign_prose", "translation_and_summary_tasks", False)
def _():
    return pick([
        {"task": "translate", "target_language": "en", "text": "El museu obre de dimarts a diumenge de 10 a 19 h; l'entrada és gratuïta el primer diumenge de mes."},
        {"task": "translate", "target_language": "de", "text": "Opnunartími sundlaugarinnar breytist yfir hátíðirnar."},
        {"task": "summarise", "text": "The council approved %d new bus routes and a cycling lane along the seafront." % R.randint(2, 9)},
        "Summary: the meeting agreed to move the quarterly review to %s; budget unchanged at €%d." % (when(), R.randint(10, 900) * 1000),
        "Resum: la reunió va aprovar el pressupost de %d euros per al festival." % (R.randint(5, 90) * 1000),
        {"task": "translate", "target_language": "fr", "text": "Il-bibljoteka se tkun magħluqa nhar it-Tnejn għal xogħol ta' manutenzjoni."},
    ])


# ---- benign_code -------------------------------------------------------------------------------


@shape("benign_code", "framework_logs_and_run_flags", False)
def _():
    return pick([
        "Started GET \"/api/v2/orders?page=%d\" for 10.0.%d.%d\nCompleted 200 OK in %dms (Views: %d.%dms | ActiveRecord: %d.%dms)" % (
            R.randint(1, 40), R.randint(0, 9), R.randint(1, 254), R.randint(3, 900), R.randint(1, 90), R.randint(0, 9), R.randint(1, 90), R.randint(0, 9)),
        "docker run -d --name pg -e POSTGRES_PASSWORD_FILE=/run/secrets/pg_pw -p 5432:5432 postgres:16",
        "docker run --env-file .env -e NODE_ENV=production ghcr.io/acme/api:%d.%d" % (R.randint(1, 9), R.randint(0, 30)),
        "spring.datasource.url=jdbc:postgresql://db.prod.internal:5432/orders\nspring.datasource.username=${DB_USER}\nspring.datasource.password=${DB_PASSWORD}",
        "[2026-03-%02d 10:%02d:11] production.INFO: queue drained {\"jobs\":%d,\"failed\":0}" % (R.randint(1, 28), R.randint(0, 59), R.randint(1, 900)),
        "INFO:httpx:HTTP Request: GET https://api.example.com/v1/status \"HTTP/1.1 200 OK\"",
    ])


@shape("benign_code", "function_args_records_no_person", False)
def _():
    recs = [{"sku": "SKU-%s" % digits(6), "qty": R.randint(1, 30), "warehouse": pick(["BCN-1", "KEF-2", "MLA-1", "TIA-3"])}
            for _ in range(R.randint(2, 4))]
    args = {"batch_id": "b_%s" % chars(10), "records": recs}
    return pick([
        {"type": "tool_use", "id": "toolu_%s" % chars(22), "name": "inventory_bulk_update", "input": args},
        {"role": "assistant", "tool_calls": [{"id": "call_%s" % chars(20), "type": "function",
                                              "function": {"name": "stock.adjust", "arguments": json.dumps(args)}}]},
        {"cell_type": "code", "execution_count": R.randint(1, 40), "source": ["df.describe()"],
         "outputs": [{"output_type": "execute_result", "data": {"text/plain": ["       qty     price", "count  %d.0  %d.0" % (R.randint(10, 99), R.randint(10, 99)),
                                                                                "mean   %d.%d  %d.%d" % (R.randint(1, 9), R.randint(0, 9), R.randint(1, 99), R.randint(0, 9))]}}]},
    ])


# ---- benign_health -----------------------------------------------------------------------------


@shape("benign_health", "policy_and_drug_leaflets", False)
def _():
    return pick([
        "Claims for physiotherapy require a GP referral; the policy covers up to %d sessions a year." % R.randint(6, 20),
        "Pre-existing conditions such as diabetes or asthma are covered after a %d-month waiting period." % pick([6, 12, 24]),
        "Leaflet: sertraline is usually started at 50 mg once daily; do not stop suddenly.",
        "Dosage: methotrexate is taken once a week, never daily; folic acid is often given alongside.",
        "ICD-10 chapter V (F00-F99) covers mental and behavioural disorders.",
        "La pòlissa cobreix la fisioteràpia amb prescripció mèdica prèvia.",
        "Formulary update: insulin glargine biosimilars now on tier %d." % R.randint(1, 3),
    ])


# ---- benign_names ------------------------------------------------------------------------------


@shape("benign_names", "appositions_of_things_named_for_people", False)
def _():
    return pick([
        "Our supplier, Johnson & Johnson, confirmed the delivery for %s." % when(),
        "The venue, the Gaudí Exhibition Center, holds %d people." % R.randint(200, 3000),
        "Ford's quarterly results beat expectations again.",
        "We met at the hotel near Hallgrímskirkja, then walked to the harbour.",
        "The team visited the Mother Teresa Square in Tirana and the Skanderbeg Museum.",
        "Our sponsor, Mercedes-Benz, renewed for %d years." % R.randint(1, 5),
        "The prize, the Nikola Tesla Award, goes to a research group this year.",
        "Pickup at Sir Seewoosagur Ramgoolam Airport? No — at Malta International, Gate %d." % R.randint(1, 9),
        "Dylan Thomas Centre in Swansea hosts the reading on %s." % when(),
    ])


@shape("benign_names", "titles_without_a_name", False)
def _():
    return pick([
        "Dear Sir or Madam, please find the invoice attached.",
        "Benvolgut senyor, benvolguda senyora: us adjuntem la factura.",
        "Kæri viðskiptavinur, reikningurinn fylgir.",
        "Annwyl Syr/Madam, amgaeir yr anfoneb.",
        "Estimado Sr./Sra.: adjuntamos la factura.",
        "Action item for the Director of Finance: confirm the venue.",
        "Minutes — present: the chair, the treasurer and two guests.",
        "The Dr. on call will review the results in the morning.",
        "السيد الرئيس التنفيذي سيحضر الاجتماع.",
    ])


# ---- benign_secretlike -------------------------------------------------------------------------


@shape("benign_secretlike", "placeholder_tokens_same_shapes", False)
def _():
    name = pick(sorted(VENDORS))
    env = VENDORS[name][1]
    return pick([
        "%s=<your-token-here>" % env,
        "%s=${%s}" % (env, env),
        "docker run -d -e %s=$%s ghcr.io/acme/worker:2.3" % (env, env),
        "export %s='xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'" % env,
        {"secrets": {env: "********"}},
        "users:\n- name: ci\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n      args: [\"eks\", \"get-token\", \"--cluster-name\", \"prod\"]\n",
        "spring.datasource.url=jdbc:mysql://db:3306/shop?user=app&password=${DB_PASSWORD}",
        "sk-test-xxxxxxxxxxxxxxxxxxxxxxxx  # example from the docs, not a real key",
    ])


@shape("benign_secretlike", "digests_uuids_certificates", False)
def _():
    return pick([
        "clusters:\n- cluster:\n    certificate-authority-data: %s\n    server: https://10.0.0.1:6443\n  name: prod\n" % b64(certificate_pem()),
        "image: ghcr.io/acme/api@sha256:%s" % chars(64, HEX),
        "request_id=%s trace_id=%s" % (uuid(), chars(32, HEX)),
        "Public key for verifying releases:\n%s" % public_key_text(),
        "sha256sum: %s  claims-export.csv" % hashlib.sha256(chars(30).encode()).hexdigest(),
        "\"integrity\": \"sha384-%s\"" % base64.b64encode(hashlib.sha384(chars(16).encode()).digest()).decode(),
        "commit %s\nMerge: %s %s\n\n    bump chart to %d.%d.%d" % (chars(40, HEX), chars(7, HEX), chars(7, HEX), R.randint(0, 3), R.randint(0, 30), R.randint(0, 9)),
    ])
