"""Must-pass shapes of the ninth probe: the same kinds of message as probe9_block.py with nothing
personal and no secret in them. Identifiers that fail their checks, written as the block shapes
write values (other scripts' digits, escapes); order, build and ticket numbers in debug output, in
other scripts and in words; git remotes in shell history; talk about encodings and ciphers with no
value; one-liners and configuration files whose secrets are references or placeholders; health
words in code about no one; names of algorithms, libraries and laws in stack traces; digests,
UUIDs, vendors' documented example keys, base64 and hex of harmless text, public keys."""

import json

from probe9_values import (B62, HEX, R, b32, b64, broken_national, card, chars, digits, escapes, hexs, host, iban,
                           in_script, jwt, pct, pick, public_key_pem, shape, spelled, ssh_public_key, stamp, user, uuid, when)

# ---- bad_checksum ------------------------------------------------------------------------------


@shape("bad_checksum", "ids_failing_check_in_cli", False)
def _():
    scheme, label, v = broken_national()
    flag = {"nl": "--bsn", "pl": "--pesel", "br": "--cpf", "in": "--aadhaar", "fr": "--nir", "de": "--steuer-id",
            "ca": "--sin"}[scheme]
    return pick([
        "$ ./kyc-check %s %s\nerror: %s checksum mismatch, nothing stored" % (flag, v.replace(" ", ""), label),
        "curl -s https://kyc.example.com/v2/validate -d '%s=%s'\n{\"valid\":false,\"reason\":\"check digit\"}" % (flag[2:], v.replace(" ", "")),
        {"tool": "validate_id", "arguments": {"type": label, "value": v}, "result": {"valid": False}},
    ])


@shape("bad_checksum", "cards_ibans_failing_disguised", False)
def _():
    v = pick([card(valid=False), iban(valid=False)])
    w = pick([v, in_script(v, pick(["fullwidth", "arabic-indic", "devanagari"])), escapes(v, "c_hex")])
    return pick([
        "test fixture (fails Luhn/mod-97 on purpose): %s" % w,
        {"case": "rejects_bad_check", "input": w, "expect": "InvalidChecksum"},
        "assert not validate(%r)  # bad check digit" % w,
    ])


# ---- labelled_number ---------------------------------------------------------------------------


@shape("labelled_number", "labelled_numbers_disguised", False)
def _():
    n = digits(R.randint(8, 11))
    label = pick(["order", "invoice", "ticket", "build", "shipment", "batch", "PR"])
    how = pick(["plain", "script", "words", "debug"])
    if how == "script":
        w = in_script(n, pick(["fullwidth", "arabic-indic", "devanagari", "thai"]))
    elif how == "words":
        w = spelled(n, pick(["en", "fr", "de", "es"]))
    else:
        w = n
    return pick([
        "%s #%s" % (label, w),
        "DEBUG %s_id=%s status=%s" % (label, w, pick(["queued", "done", "failed"])),
        {"%s_number" % label: w, "created": stamp()},
        "%s no. %s — see the dashboard" % (label.capitalize(), w),
    ])


@shape("labelled_number", "numbers_in_queries_and_escapes", False)
def _():
    a, b = digits(R.randint(9, 12)), digits(R.randint(6, 10))
    return pick([
        "GET /api/orders?order_id=%s&page=2&per_page=50 HTTP/1.1" % a,
        "GET /track?awb=%s&carrier=dhl" % pct(a),
        "printf 'invoice \\x23%s\\n'" % a,
        "<Invoice number=\"%s\" customerRef=\"CR-%s\"/>" % (a, b),
        "shipment%%20%s%%20delivered" % a,
    ])


# ---- git_ssh -----------------------------------------------------------------------------------


@shape("git_ssh", "git_remotes_in_history", False)
def _():
    h = pick(["github.com", "gitlab.com", "bitbucket.org", "git.example.org", "ssh.dev.azure.com"])
    repo = "%s/%s.git" % (pick(["platform", "ml", "web", "ops"]), pick(["infra", "agents", "site", "pipelines"]))
    return pick([
        "  201  git clone git@%s:%s\n  202  cd %s" % (h, repo, repo.split("/")[1][:-4]),
        "$ git remote -v\norigin\tgit@%s:%s (fetch)\norigin\tgit@%s:%s (push)" % (h, repo, h, repo),
        "[remote \"origin\"]\n\turl = git@%s:%s\n\tfetch = +refs/heads/*:refs/remotes/origin/*" % (h, repo),
        "ssh -T git@%s\nHi deploy-bot! You've successfully authenticated, but GitHub does not provide shell access." % h,
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "talk_of_encodings_no_value", False)
def _():
    return pick([
        "ROT13 is not encryption: anyone can undo it, so never use it to hide a password.",
        "Tip: base64 is an encoding, not a cipher. Decode it with `base64 -d`.",
        "The attacker wrote the key backwards and split it over two messages; the gate should still catch it.",
        "Zero\u200bwidth spaces can hide inside words; normalise text before you compare it.",
        "Quoted-printable writes = as =3D and long lines end with a soft break.",
        "Use \\u0040 when a JSON string must not contain a literal at-sign in your template engine.",
        "Caesar shift by three: A becomes D, B becomes E, and so on.",
        "Please don't paste tokens in chat; rotate any key that was shared by mistake.",
    ]) + pick(["", " (from the security onboarding deck)", " — see the wiki", ""])


@shape("benign_prose", "spelled_numbers_no_person", False)
def _():
    lang = pick(["en", "fr", "de", "es", "it"])
    n = digits(R.randint(3, 5))
    return pick([
        "Chapter %s, verse %s." % (spelled(n[:2], lang), spelled(n[2:], lang)),
        "The talk lasts %s minutes, questions included." % spelled(n[:2], lang),
        "Room %s is on floor %s." % (spelled(n, lang), spelled(n[:1], lang)),
        "We counted %s attendees over two days." % spelled(n, lang, ""),
    ])


# ---- benign_code -------------------------------------------------------------------------------

REFS = ["${DB_PASSWORD}", "$PGPASSWORD", "${{ secrets.DB_PASS }}", "<redacted>", "********", "{{ .Values.db.password }}",
        "$(cat /run/secrets/db_pw)", "%(DB_PASSWORD)s", "${env:DB_PASSWORD}", "ENC[AES256_GCM,data:...,type:str]"]


@shape("benign_code", "configs_with_references", False)
def _():
    u, h = user(), host()
    r = pick(REFS)
    return pick([
        "; ~/.npmrc\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n",
        "[pypi]\nusername = __token__\npassword = %s\n" % r,
        "machine %s\n  login %s\n  password %s\n" % (h, u, r),
        json.dumps({"auths": {"ghcr.io": {}}, "credsStore": "desktop", "currentContext": "default"}, indent=2),
        "spring.datasource.username=%s\nspring.datasource.password=%s\n" % (u, r),
        "resource \"aws_db_instance\" \"main\" {\n  username = \"%s\"\n  password = var.db_password\n}" % u,
        json.dumps({"version": 4, "resources": [{"type": "random_password", "name": "db", "instances": [
            {"attributes": {"length": 24, "special": True}, "sensitive_attributes": [[{"type": "get_attr", "value": "result"}]]}]}]}),
        "[client]\nuser=%s\npassword=%s\n" % (u, r),
    ])


@shape("benign_code", "oneliners_without_secret", False)
def _():
    u, h = user(), host()
    return pick([
        "mysql -h %s -u %s -p orders   # prompts for the password" % (h, u),
        "curl -u \"$API_USER:$API_PASS\" https://%s/api/health" % h,
        "export OPENAI_API_KEY=$(op read op://dev/openai/credential)",
        "psql \"postgresql://%s@%s:5432/orders?sslmode=require\"" % (u, h),
        "docker login ghcr.io -u %s --password-stdin < ~/.ghcr_token" % u,
        "git clone https://git.example.com/platform/infra.git",
        "PGPASSWORD=\"$(vault kv get -field=pw secret/db)\" pg_dump -h %s -U %s app" % (h, u),
        "sshpass -f ~/.ssh/pw.txt ssh %s@%s" % (u, h),
    ])


# ---- benign_health -----------------------------------------------------------------------------


@shape("benign_health", "health_words_in_code", False)
def _():
    return pick([
        "DEBUG icd10.lookup code=E11.9 title=\"Type 2 diabetes mellitus without complications\" hits=%d" % R.randint(1, 900),
        "<!-- the HIV testing page links to the clinic finder -->\n<section id=\"hiv-testing\"></section>",
        "enum Condition { DIABETES, EPILEPSY, ASTHMA, DEPRESSION }  // for the symptom checker",
        "SELECT condition, count(*) FROM diagnoses GROUP BY condition ORDER BY 2 DESC LIMIT %d;" % R.randint(5, 20),
        "# drugs.toml\n[[drug]]\nname = \"sertraline\"\nclass = \"SSRI\"\nmax_daily_mg = 200\n",
        "assert classify('chest pain and shortness of breath') == 'urgent'",
    ])


# ---- benign_names ------------------------------------------------------------------------------


@shape("benign_names", "eponyms_in_traces", False)
def _():
    return pick([
        "Traceback (most recent call last):\n  File \"routing/dijkstra.py\", line %d, in shortest_path\nKeyError: 'node-%d'" % (R.randint(10, 300), R.randint(1, 99)),
        "java.lang.ArithmeticException: / by zero\n\tat org.apache.commons.math3.distribution.PoissonDistribution.<init>(PoissonDistribution.java:%d)" % R.randint(50, 200),
        "WARN kalman.Filter: covariance not positive definite after %d steps" % R.randint(2, 90),
        "error[E0599]: no method named `gauss_seidel` found for struct `Solver` in the current scope",
        "FAIL test_bayes_update (tests.test_inference.BayesTests) ... AssertionError: 0.31 != 0.3",
        "GDPR Article %d request closed; Murphy's law applied to the rollout again." % R.randint(12, 22),
    ])


# ---- benign_secretlike -------------------------------------------------------------------------


@shape("benign_secretlike", "digests_and_ids_in_debug", False)
def _():
    return pick([
        "DEBUG pulled image sha256:%s" % chars(64, HEX),
        "\"integrity\": \"sha512-%s==\"" % chars(86, B62 + "+/"),
        "request_id=%s trace_id=%s span_id=%s" % (uuid(), chars(32, HEX), chars(16, HEX)),
        "commit %s\nAuthor: ci <ci@noreply.example.com>" % chars(40, HEX),
        "etag: W/\"%s\"" % chars(32, HEX),
        {"resource": "tls_private_key", "public_key_fingerprint_sha256": "SHA256:%s" % chars(43, B62 + "+/")},
    ])


@shape("benign_secretlike", "documented_example_keys", False)
def _():
    return pick([
        "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "export OPENAI_API_KEY=sk-...  # paste yours here",
        "//registry.npmjs.org/:_authToken=YOUR_NPM_TOKEN",
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "password = changeme",
        "STRIPE_SECRET_KEY=sk_live_...  (set in the dashboard, never here)",
    ])


@shape("benign_secretlike", "encoded_harmless_text", False)
def _():
    text = pick(["hello world", "status: ok", "{\"theme\":\"dark\",\"lang\":\"en\"}", "build %s passed" % digits(4),
                 "see you at the standup", "release notes for %s" % when(), "{\"page\":%d,\"per_page\":50}" % R.randint(1, 9)])
    how = pick(["b64", "b64b64", "hex", "b32", "pct", "datauri", "jwtless"])
    if how == "b64":
        s = "payload=%s" % b64(text)
    elif how == "b64b64":
        s = {"blob": b64(b64(text))}
    elif how == "hex":
        s = "data: %s" % hexs(text)
    elif how == "b32":
        s = "cursor=%s" % b32(text)
    elif how == "pct":
        s = "GET /search?q=%s" % pct(text)
    elif how == "datauri":
        s = "<a href=\"data:text/plain;base64,%s\">notes</a>" % b64(text)
    else:
        s = "cursor: %s" % b64(json.dumps({"offset": R.randint(0, 900), "ts": stamp()}))
    return s


@shape("benign_secretlike", "public_keys_in_dotfiles", False)
def _():
    return pick([
        "# ~/.ssh/authorized_keys\n%s deploy@ci" % ssh_public_key(),
        "resource \"tls_private_key\" \"k\" {}\noutput \"pub\" { value = <<EOT\n%sEOT\n}" % public_key_pem(),
        {"keys": [{"kty": "OKP", "crv": "Ed25519", "x": chars(43, B62 + "-_"), "kid": uuid(), "use": "sig"}]},
        "$ cat ~/.ssh/id_ed25519.pub\n%s" % ssh_public_key(),
    ])
