"""Values, hostile transforms and the row registry of the second probe (probe2_rows.py).

Nothing here is shared with the first probe (probe_values.py) or the corpus generators: the people come
from Faker locales neither uses (Nordic, Central and Eastern European, Turkish, Mexican, Portuguese,
New Zealand, Swiss, Austrian, Indonesian, and Russian, Ukrainian, Greek, Korean and Taiwanese in their
own scripts), the identifiers are other schemes or other layouts, the vendors are mostly others, and the
private keys are real keys derived from seeded bytes.
"""

import base64
import random
import string
import struct

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from faker import Faker

from probe_registry import Registry

SEED = 20261128
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
LATIN = ["sv_SE", "no_NO", "dk_DK", "fi_FI", "cs_CZ", "hu_HU", "ro_RO", "tr_TR", "pt_PT", "es_MX",
         "en_NZ", "de_AT", "hr_HR", "lt_LT", "sl_SI", "id_ID", "de_CH", "fr_CH"]
SCRIPTS = ["ru_RU", "uk_UA", "el_GR", "ko_KR", "zh_TW"]
# Locales whose Faker 0.9.3 addresses are written in the locale's own format.
ADDRESS_LOCALES = ["sv_SE", "no_NO", "fi_FI", "cs_CZ", "hu_HU", "pt_PT", "es_MX", "de_AT", "hr_HR",
                   "sl_SI", "id_ID", "fr_CH"]
FAKERS = {}
for i, loc in enumerate(LATIN + SCRIPTS):
    f = Faker(loc)
    f.seed_instance(SEED + i)
    FAKERS[loc] = f

REG = Registry("probe2", SEED, PER, R, FAKERS)
ROWS = REG.rows
shape = REG.shape


def pick(xs):
    return xs[R.randrange(len(xs))]


def fk(loc=None):
    return FAKERS[loc or pick(LATIN)]


# ---- people ----------------------------------------------------------------------------------

def ascii_fold(s):
    import unicodedata
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if c.isascii() and (c.isalnum() or c in ".-"))


def full_name(loc=None):
    loc = loc or pick(LATIN)
    f = FAKERS[loc]
    first, last = f.first_name(), f.last_name()
    if loc in ("ko_KR", "zh_TW"):
        return last + first
    return "%s %s" % (first, last)


MAILHOSTS = ["seznam.cz", "wp.pl", "telia.com", "online.no", "hotmail.se", "freemail.hu", "yandex.ru",
             "sapo.pt", "bluewin.ch", "hotmail.com", "naver.com", "mail.ee", "aol.com", "fastmail.fm"]


def email_of(name):
    parts = [p for p in (ascii_fold(x).lower() for x in name.split()) if p]
    if len(parts) < 2:
        parts = ["user%d" % R.randint(10, 9999), "x"]
    local = pick(["%s.%s" % (parts[0], parts[-1]), "%s%s" % (parts[0][0], parts[-1]),
                  "%s_%s%d" % (parts[0], parts[-1], R.randint(1, 99)), "%s.%s%d" % (parts[-1], parts[0][:3], R.randint(70, 99))])
    host = pick(MAILHOSTS) if R.random() < 0.6 else parts[-1] + pick([".cz", ".se", ".no", ".fi", ".hu", ".pt", ".mx", ".ch", ".at", ".ro"])
    return "%s@%s" % (local, host)


def address(loc=None):
    loc = loc or pick(ADDRESS_LOCALES)
    return FAKERS[loc].address().replace("\n", ", ")


# ---- phones (mobile ranges of each region's numbering plan) -----------------------------------

def digits(n):
    return "".join(R.choice(string.digits) for _ in range(n))


def phone(cc=None):
    """A mobile number valid in its region's plan, as (region, national form, international form)."""
    cc = cc or pick(["SE", "NO", "DK", "FI", "PL", "CZ", "PT", "CH", "AT", "MX", "KR", "TR", "NZ", "HU"])
    if cc == "SE":
        n = "7" + R.choice("0236") + digits(7)
        return cc, "0%s-%s %s %s" % (n[:2], n[2:5], n[5:7], n[7:]), "+46 %s %s %s %s" % (n[:2], n[2:5], n[5:7], n[7:])
    if cc == "NO":
        n = "9" + digits(7)
        return cc, "%s %s %s" % (n[:3], n[3:5], n[5:]), "+47 %s %s %s" % (n[:3], n[3:5], n[5:])
    if cc == "DK":
        n = R.choice(["20", "22", "23", "25", "26", "27", "28", "29", "30", "31", "40", "41", "42", "50", "51", "52", "53", "60", "61", "71", "81", "91", "93"]) + R.choice("123456789") + digits(5)
        return cc, "%s %s %s %s" % (n[:2], n[2:4], n[4:6], n[6:]), "+45 %s %s %s %s" % (n[:2], n[2:4], n[4:6], n[6:])
    if cc == "FI":
        n = R.choice(["40", "41", "44", "45", "46", "50"]) + digits(7)
        return cc, "0%s %s %s" % (n[:2], n[2:5], n[5:]), "+358 %s %s %s" % (n[:2], n[2:5], n[5:])
    if cc == "PL":
        n = R.choice(["50", "51", "53", "60", "66", "69", "72", "78", "79", "88"]) + digits(7)
        return cc, "%s %s %s" % (n[:3], n[3:6], n[6:]), "+48 %s %s %s" % (n[:3], n[3:6], n[6:])
    if cc == "CZ":
        n = R.choice(["601", "602", "603", "604", "605", "606", "607", "608", "702", "720", "721", "722", "731", "732", "736", "737", "739", "773", "774", "775", "776", "777"]) + digits(6)
        return cc, "%s %s %s" % (n[:3], n[3:6], n[6:]), "+420 %s %s %s" % (n[:3], n[3:6], n[6:])
    if cc == "PT":
        n = "9" + R.choice("1236") + digits(7)
        return cc, "%s %s %s" % (n[:3], n[3:6], n[6:]), "+351 %s %s %s" % (n[:3], n[3:6], n[6:])
    if cc == "CH":
        n = "7" + R.choice("6789") + digits(7)
        return cc, "0%s %s %s %s" % (n[:2], n[2:5], n[5:7], n[7:]), "+41 %s %s %s %s" % (n[:2], n[2:5], n[5:7], n[7:])
    if cc == "AT":
        n = R.choice(["650", "660", "664", "676", "680", "681", "688", "699"]) + digits(7)
        return cc, "0%s %s" % (n[:3], n[3:]), "+43 %s %s" % (n[:3], n[3:])
    if cc == "MX":
        n = R.choice(["55", "33", "81"]) + digits(8)
        return cc, "%s %s %s" % (n[:2], n[2:6], n[6:]), "+52 %s %s %s" % (n[:2], n[2:6], n[6:])
    if cc == "KR":
        n = "10" + R.choice("2346789") + digits(7)
        return cc, "0%s-%s-%s" % (n[:2], n[2:6], n[6:]), "+82 %s-%s-%s" % (n[:2], n[2:6], n[6:])
    if cc == "TR":
        n = "5" + R.choice(["30", "31", "32", "33", "35", "36", "41", "42", "43", "44", "51", "52", "53", "54", "55"]) + digits(7)
        return cc, "0%s %s %s %s" % (n[:3], n[3:6], n[6:8], n[8:]), "+90 %s %s %s %s" % (n[:3], n[3:6], n[6:8], n[8:])
    if cc == "NZ":
        n = "2" + R.choice("1027") + digits(7)
        return cc, "0%s %s %s" % (n[:2], n[2:5], n[5:]), "+64 %s %s %s" % (n[:2], n[2:5], n[5:])
    n = R.choice(["20", "30", "70"]) + digits(7)
    return "HU", "06 %s %s %s" % (n[:2], n[2:5], n[5:]), "+36 %s %s %s" % (n[:2], n[2:5], n[5:])


# ---- national identifiers of schemes and layouts the first probe did not use ------------------

DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni(valid=True):
    n = R.randint(10000000, 99999999)
    c = DNI_LETTERS[n % 23]
    if not valid:
        c = DNI_LETTERS[(n + R.randint(1, 22)) % 23]
    return "%08d%s" % (n, c)


def nie(valid=True):
    p = R.choice("XYZ")
    n = R.randint(1000000, 9999999)
    c = DNI_LETTERS[int(str("XYZ".index(p)) + "%07d" % n) % 23]
    if not valid:
        c = DNI_LETTERS[(DNI_LETTERS.index(c) + R.randint(1, 22)) % 23]
    return "%s%07d%s" % (p, n, c)


def pesel(valid=True):
    y, m, d = R.randint(1950, 2009), R.randint(1, 12), R.randint(1, 28)
    mm = m + (20 if y >= 2000 else 0)
    body = "%02d%02d%02d%04d" % (y % 100, mm, d, R.randint(0, 9999))
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    c = (10 - sum(int(a) * b for a, b in zip(body, w)) % 10) % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    return body + str(c)


def steuer_id(valid=True):
    """A German tax identification number: one digit twice or thrice among the first ten, ISO 7064 check."""
    while True:
        ds = [R.randint(0, 9) for _ in range(10)]
        if ds[0] == 0:
            continue
        counts = [ds.count(x) for x in set(ds)]
        if sorted(counts, reverse=True)[0] in (2, 3) and sum(1 for c in counts if c > 1) == 1:
            break
    p = 10
    for x in ds:
        s = (x + p) % 10 or 10
        p = (2 * s) % 11
    c = (11 - p) % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    return "".join(map(str, ds)) + str(c)


def tfn(valid=True):
    w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    while True:
        ds = [R.randint(0, 9) for _ in range(9)]
        ok = sum(a * b for a, b in zip(ds, w)) % 11 == 0
        if ok == valid and ds[0] != 0:
            return "%d%d%d %d%d%d %d%d%d" % tuple(ds)


def medicare(valid=True):
    w = [1, 3, 7, 9, 1, 3, 7, 9]
    ds = [R.randint(2, 6)] + [R.randint(0, 9) for _ in range(7)]
    c = sum(a * b for a, b in zip(ds, w)) % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    s = "".join(map(str, ds)) + str(c) + str(R.randint(1, 9))
    return "%s %s %s" % (s[:4], s[4:9], s[9:])


def nino(valid=True):
    first, second = "ABCEGHJKLMNOPRSTWXYZ", "ABCEGHJKLMNPRSTWXYZ"
    while True:
        p = R.choice(first) + R.choice(second)
        if p not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
            break
    if not valid:
        p = R.choice("DFIQUV") + R.choice("DFIQUV")
    return "%s%s%s" % (p, digits(6), R.choice("ABCD"))


def national(valid=True):
    """(label, value, scanner type) of one identifier, valid or failing its check."""
    kind = pick(["dni", "nie", "pesel", "steuer", "tfn", "medicare", "nino"])
    label = {"dni": "DNI", "nie": "NIE", "pesel": "PESEL", "steuer": "Steuer-ID", "tfn": "TFN",
             "medicare": "Medicare card", "nino": "NI number"}[kind]
    fn = {"dni": dni, "nie": nie, "pesel": pesel, "steuer": steuer_id, "tfn": tfn, "medicare": medicare, "nino": nino}[kind]
    return label, fn(valid), ("nino" if kind == "nino" else "national_id")


# ---- money -----------------------------------------------------------------------------------

def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def card(valid=True):
    prefix, n = pick([("34", 15), ("37", 15), ("4", 16), ("22", 16), ("5", 16), ("35", 16), ("6011", 16), ("36", 14)])
    if prefix == "5":
        prefix = "5" + R.choice("12345")
    if prefix == "22":
        prefix = "22" + R.choice("3456789")
    body = prefix + digits(n - 1 - len(prefix))
    d = luhn_digit(body)
    if not valid:
        d = str((int(d) + R.randint(1, 9)) % 10)
    return body + d


def card_spaced(c):
    if len(c) == 15:
        return "%s %s %s" % (c[:4], c[4:10], c[10:])
    if len(c) == 14:
        return "%s %s %s" % (c[:4], c[4:10], c[10:])
    return " ".join(c[i:i + 4] for i in range(0, len(c), 4))


IBAN_BBAN = {"SE": 20, "NO": 11, "DK": 14, "FI": 14, "PL": 24, "CZ": 20, "PT": 21, "CH": 17, "AT": 16,
             "HU": 24, "RO": None, "HR": 17, "SI": 15, "LT": 16}


def iban(valid=True):
    cc = pick(sorted(IBAN_BBAN))
    if cc == "RO":
        bban = "".join(R.choice(string.ascii_uppercase) for _ in range(4)) + digits(16)
    else:
        bban = digits(IBAN_BBAN[cc])
    num = "".join(str(int(c, 36)) for c in bban + cc + "00")
    check = 98 - int(num) % 97
    if not valid:
        check = (check - 2 + R.randint(1, 96)) % 97 + 2
        if check == 98 - int(num) % 97:
            check = check % 97 + 2
    return "%s%02d%s" % (cc, check, bban)


def iban_spaced(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


# ---- secrets ---------------------------------------------------------------------------------

ALNUM = string.ascii_letters + string.digits


def chars(n, alphabet=ALNUM):
    return "".join(R.choice(alphabet) for _ in range(n))


def vendor_key():
    """(vendor, key, type): vendors the first probe did not use, and LLM providers agents carry."""
    kind = pick(["openrouter", "groq", "xai", "perplexity", "replicate", "deepseek", "mistral_env",
                 "anthropic_admin", "openai_svcacct", "digitalocean", "npm", "pypi", "shopify", "linear",
                 "postman", "grafana", "databricks", "atlassian", "telegram", "doppler", "gcp_oauth",
                 "slack_app", "azure_storage", "stripe_restricted"])
    lo = string.ascii_lowercase + string.digits
    hexd = "0123456789abcdef"
    return {
        "openrouter": lambda: ("OpenRouter", "sk-or-v1-" + chars(64, hexd), "api_token"),
        "groq": lambda: ("Groq", "gsk_" + chars(52), "api_token"),
        "xai": lambda: ("xAI", "xai-" + chars(80), "api_token"),
        "perplexity": lambda: ("Perplexity", "pplx-" + chars(48), "api_token"),
        "replicate": lambda: ("Replicate", "r8_" + chars(37), "api_token"),
        "deepseek": lambda: ("DeepSeek", "sk-" + chars(32, hexd), "api_token"),
        "mistral_env": lambda: ("Mistral", chars(32), "api_token"),
        "anthropic_admin": lambda: ("Anthropic", "sk-ant-admin01-" + chars(93, ALNUM + "-_") + "AA", "api_token"),
        "openai_svcacct": lambda: ("OpenAI", "sk-svcacct-" + chars(74, ALNUM + "-_") + "T3BlbkFJ" + chars(74, ALNUM + "-_"), "api_token"),
        "digitalocean": lambda: ("DigitalOcean", "dop_v1_" + chars(64, hexd), "api_token"),
        "npm": lambda: ("npm", "npm_" + chars(36), "api_token"),
        "pypi": lambda: ("PyPI", "pypi-AgEIcHlwaS5vcmc" + chars(R.randint(60, 140), ALNUM + "-_"), "api_token"),
        "shopify": lambda: ("Shopify", pick(["shpat_", "shpss_", "shpca_"]) + chars(32, hexd), "api_token"),
        "linear": lambda: ("Linear", "lin_api_" + chars(40), "api_token"),
        "postman": lambda: ("Postman", "PMAK-" + chars(24, hexd) + "-" + chars(34, hexd), "api_token"),
        "grafana": lambda: ("Grafana", "glsa_" + chars(32) + "_" + chars(8, hexd), "api_token"),
        "databricks": lambda: ("Databricks", "dapi" + chars(32, hexd), "api_token"),
        "atlassian": lambda: ("Atlassian", "ATATT3xFfGF0" + chars(R.randint(170, 190), ALNUM + "-_=") , "api_token"),
        "telegram": lambda: ("Telegram", "%d:AA%s" % (R.randint(10**8, 10**10), chars(33, ALNUM + "-_")), "api_token"),
        "doppler": lambda: ("Doppler", "dp.st." + pick(["prd", "dev", "stg"]) + "." + chars(40), "api_token"),
        "gcp_oauth": lambda: ("Google", "ya29.a0" + chars(R.randint(120, 200), ALNUM + "-_"), "api_token"),
        "slack_app": lambda: ("Slack", "xapp-1-A%s-%d-%s" % (chars(10, string.ascii_uppercase + string.digits), R.randint(10**12, 10**13), chars(64, hexd)), "api_token"),
        "azure_storage": lambda: ("Azure", "DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s==;EndpointSuffix=core.windows.net" % (chars(10, lo), chars(86, ALNUM + "+/")), "cloud_token"),
        "stripe_restricted": lambda: ("Stripe", "rk_live_51" + chars(97), "api_token"),
    }[kind]()


def password():
    words = ["Fjord", "Kanelbulle", "Pivo", "Lumi", "Bosque", "Istanbul", "Kiwi", "Gouda", "Taiga",
             "Sauna", "Paprika", "Aurora", "Vltava", "Tango"]
    return pick([
        lambda: pick(words) + str(R.randint(1, 2099)) + pick(["!", "#", "?", "%", "+", ""]),
        lambda: chars(R.randint(9, 16), ALNUM + "!#%&*+-=?@^_~"),
        lambda: pick(words).lower() + pick(["", "_", "."]) + pick(words).lower() + str(R.randint(1, 99)),
        lambda: "".join(pick(words)[:3] for _ in range(3)) + chars(3, string.digits),
    ])()


def token_hex(n):
    return chars(n, "0123456789abcdef")


# ---- private keys, real ones, from seeded bytes ------------------------------------------------

def _sshstr(b):
    return struct.pack(">I", len(b)) + b


def openssh_ed25519():
    seed = bytes(R.getrandbits(8) for _ in range(32))
    k = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
    pub = k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    pubblob = _sshstr(b"ssh-ed25519") + _sshstr(pub)
    check = struct.pack(">I", R.getrandbits(32))
    priv = check + check + _sshstr(b"ssh-ed25519") + _sshstr(pub) + _sshstr(seed + pub) + _sshstr(b"deploy@ci")
    pad = 1
    while len(priv) % 8:
        priv += bytes([pad])
        pad += 1
    blob = (b"openssh-key-v1\x00" + _sshstr(b"none") + _sshstr(b"none") + _sshstr(b"") + struct.pack(">I", 1)
            + _sshstr(pubblob) + _sshstr(priv))
    b = base64.b64encode(blob).decode()
    body = "\n".join(b[i:i + 70] for i in range(0, len(b), 70))
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n" % body


def ec_pkcs8():
    curve, bits = pick([(ec.SECP256R1(), 255), (ec.SECP384R1(), 383)])
    k = ec.derive_private_key(R.getrandbits(bits) | 1 << (bits - 8), curve)
    return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                           serialization.NoEncryption()).decode()


def ec_sec1():
    k = ec.derive_private_key(R.getrandbits(255) | 1 << 247, ec.SECP256R1())
    return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                           serialization.NoEncryption()).decode()


def private_pem():
    return pick([openssh_ed25519, ec_pkcs8, ec_sec1])()


def public_pem():
    """A public key or its OpenSSH line: must pass."""
    k = ec.derive_private_key(R.getrandbits(255) | 1 << 247, ec.SECP256R1()).public_key()
    e = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(R.getrandbits(8) for _ in range(32))).public_key()
    return pick([
        lambda: k.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
        lambda: e.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
        lambda: e.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode() + " " + pick(["ops@bastion", "ci-runner", "laptop-2026"]),
    ])()


# ---- hostile transforms ----------------------------------------------------------------------

HOMO = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445", "i": "\u0456", "s": "\u0455"}


def homoglyph(s):
    return "".join(HOMO[c] if c in HOMO and R.random() < 0.5 else c for c in s)


def leet(s):
    m = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}
    return "".join(m[c] if c in m and R.random() < 0.6 else c for c in s)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def b32(s):
    return base64.b32encode(s.encode()).decode()


def jwt_with(claims):
    import json
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode()).decode().rstrip("=")
    return "%s.%s.%s" % (head, body, chars(43, ALNUM + "-_"))


# ---- hard-negative values --------------------------------------------------------------------

def ean13():
    body = digits(12)
    s = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(body))
    return body + str((10 - s % 10) % 10)


def uuid4():
    h = token_hex(32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


def ulid():
    return chars(26, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")


def ts():
    return "2026-%02d-%02dT%02d:%02d:%02dZ" % (R.randint(1, 12), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59))
