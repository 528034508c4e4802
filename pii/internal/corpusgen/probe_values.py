"""Values, hostile transforms and the row registry of the probe generator (probe_rows.py)."""

import base64
import binascii
import json
import random
import string
import sys
import urllib.parse
import uuid

from faker import Faker

from probe_registry import Registry

SEED = 20261127
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
LOCALES = ["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL"]
FAKERS = {}
for i, loc in enumerate(LOCALES):
    f = Faker(loc)
    f.seed_instance(SEED + i)
    FAKERS[loc] = f

REG = Registry("probe", SEED, PER, R, FAKERS)
ROWS = REG.rows
shape = REG.shape


def pick(xs):
    return xs[R.randrange(len(xs))]


def lang_of(loc):
    return loc.split("_")[0]


def fk(loc=None):
    return FAKERS[loc or pick(LOCALES)]


# ---- values ----------------------------------------------------------------------------------

def rand_chars(n, alphabet=string.ascii_letters + string.digits):
    return "".join(R.choice(alphabet) for _ in range(n))


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
    prefix = pick(["4", "51", "52", "53", "54", "55", "2221", "6011"])
    body = prefix + "".join(R.choice(string.digits) for _ in range(15 - len(prefix)))
    d = luhn_digit(body)
    if not valid:
        d = str((int(d) + R.randint(1, 9)) % 10)
    return body + d


def group4(s, sep=" "):
    return sep.join(s[i:i + 4] for i in range(0, len(s), 4))


IBAN_LEN = {"DE": 18, "FR": 23, "ES": 20, "IT": 23, "NL": 14, "BE": 12, "AT": 16, "PT": 21}


def iban(valid=True, country=None):
    cc = country or pick(sorted(IBAN_LEN))
    if cc == "NL":
        bban = rand_chars(4, string.ascii_uppercase) + rand_chars(10, string.digits)
    elif cc == "IT":
        bban = R.choice(string.ascii_uppercase) + rand_chars(22, string.digits)
    else:
        bban = rand_chars(IBAN_LEN[cc], string.digits)
    num = "".join(str(int(c, 36)) for c in bban + cc + "00")
    check = 98 - int(num) % 97
    if not valid:
        check = (check + R.randint(1, 96)) % 97 + 2 if check < 90 else check - R.randint(1, 9)
        if check == 98 - int(num) % 97:
            check += 1
    return "%s%02d%s" % (cc, check, bban)


def ssn(valid=True):
    if valid:
        area = R.choice([R.randint(1, 665), R.randint(667, 899)])
        return "%03d-%02d-%04d" % (area, R.randint(1, 99), R.randint(1, 9999))
    area = pick([0, 666, R.randint(900, 999)])
    # A 9xx area with a group of 50-65 or 70-99 is an ITIN; 01-49 is neither.
    return "%03d-%02d-%04d" % (area, R.randint(1, 49 if area >= 900 else 99), R.randint(1, 9999))


NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"


def nino(valid=True):
    while True:
        p = R.choice(NINO_FIRST) + R.choice(NINO_SECOND)
        if p not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
            break
    if not valid:
        p = R.choice("DFIQUV") + R.choice("DFIQUV")
    d = rand_chars(6, string.digits)
    return "%s %s %s %s %s" % (p, d[:2], d[2:4], d[4:], R.choice("ABCD"))


VD = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
      [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
      [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
VP = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4]]
for _ in range(6):
    VP.append([VP[1][VP[-1][i]] for i in range(10)])
VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(num):
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = VD[c][VP[(i + 1) % 8][int(ch)]]
    return str(VINV[c])


def aadhaar(valid=True):
    body = str(R.randint(2, 9)) + rand_chars(10, string.digits)
    d = verhoeff_digit(body)
    if not valid:
        d = str((int(d) + R.randint(1, 9)) % 10)
    n = body + d
    return "%s %s %s" % (n[:4], n[4:8], n[8:])


def cpf(valid=True):
    d = [R.randint(0, 9) for _ in range(9)]
    for k in (10, 11):
        s = sum(x * w for x, w in zip(d, range(k, 1, -1)))
        r = s * 10 % 11
        d.append(0 if r == 10 else r)
    if not valid:
        d[10] = (d[10] + R.randint(1, 9)) % 10
    s = "".join(map(str, d))
    return "%s.%s.%s-%s" % (s[:3], s[3:6], s[6:9], s[9:])


def sin(valid=True):
    body = str(R.choice([1, 2, 3, 4, 5, 6, 7, 9])) + rand_chars(7, string.digits)
    d = luhn_digit(body)
    if not valid:
        d = str((int(d) + R.randint(1, 9)) % 10)
    n = body + d
    return "%s %s %s" % (n[:3], n[3:6], n[6:])


def bsn(valid=True):
    while True:
        d = [R.randint(0, 9) for _ in range(8)]
        d[0] = R.randint(1, 6)
        s = sum(x * w for x, w in zip(d, range(9, 1, -1)))
        last = s % 11
        if last < 10:
            break
    if not valid:
        last = (last + R.randint(1, 9)) % 10
    return "".join(map(str, d)) + str(last)


def nir(valid=True):
    sex = R.choice("12")
    body = sex + "%02d%02d%02d%03d%03d" % (R.randint(50, 99), R.randint(1, 12), R.randint(1, 95),
                                          R.randint(1, 999), R.randint(1, 999))
    key = 97 - int(body) % 97
    if not valid:
        key = (key + R.randint(1, 40)) % 97 + 1
    return "%s %s %s %s %s %s %02d" % (body[0], body[1:3], body[3:5], body[5:7], body[7:10], body[10:], key)


def ric(valid=True):
    area = pick(["110101", "310104", "440305", "510107", "330106"])
    birth = "%04d%02d%02d" % (R.randint(1950, 2004), R.randint(1, 12), R.randint(1, 28))
    body = area + birth + rand_chars(3, string.digits)
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    s = sum(int(c) * k for c, k in zip(body, w))
    codes = "10X98765432"
    c = codes[s % 11]
    if not valid:
        c = codes[(s + R.randint(1, 10)) % 11]
    return body + c


def mynumber(valid=True):
    body = rand_chars(11, string.digits)
    s = sum(int(c) * (n + 1 if n <= 6 else n - 5) for n, c in enumerate(reversed(body), 1))
    r = s % 11
    d = 0 if r <= 1 else 11 - r
    if not valid:
        d = (d + R.randint(1, 9)) % 10
    n = body + str(d)
    return "%s %s %s" % (n[:4], n[4:8], n[8:])


def twelve_valid(v):
    """Whether twelve digits pass Aadhaar's or My Number's check, which share a layout."""
    d = v.replace(" ", "")
    if verhoeff_digit(d[:11]) == d[11]:
        return True
    s = sum(int(c) * (n + 1 if n <= 6 else n - 5) for n, c in enumerate(reversed(d[:11]), 1))
    return str(0 if s % 11 <= 1 else 11 - s % 11) == d[11]


def national(valid=True):
    kind = pick(["ssn", "nino", "aadhaar", "cpf", "sin", "bsn", "nir", "ric", "mynumber"])
    if not valid and kind in ("aadhaar", "mynumber"):
        while True:
            v = globals()[kind](False)
            if not twelve_valid(v):
                break
        return kind, None, v, "national_id"
    label = {"ssn": "SSN", "nino": "National Insurance number", "aadhaar": "Aadhaar", "cpf": "CPF",
             "sin": "SIN", "bsn": "BSN", "nir": "numéro de sécurité sociale", "ric": "身份证号",
             "mynumber": "マイナンバー"}[kind]
    typ = {"ssn": "ssn", "nino": "nino"}.get(kind, "national_id")
    return kind, label, globals()[kind](valid), typ


def phone():
    cc = pick(["FR", "DE", "JP", "AU", "IN", "CN", "IT", "ES", "NL", "BR", "GB"])
    d = lambda n: rand_chars(n, string.digits)
    if cc == "FR":
        n = R.choice("67") + d(8)
        return cc, pick(["0%s %s %s %s %s" % (n[0], n[1:3], n[3:5], n[5:7], n[7:]),
                         "+33 %s %s %s %s %s" % (n[0], n[1:3], n[3:5], n[5:7], n[7:])])
    if cc == "DE":
        n = "15" + R.choice("1279") + d(8)
        return cc, pick(["0%s %s" % (n[:3], n[3:]), "+49 %s %s %s" % (n[:3], n[3:7], n[7:])])
    if cc == "JP":
        n = R.choice(["90", "80", "70"]) + d(8)
        return cc, pick(["0%s-%s-%s" % (n[:2], n[2:6], n[6:]), "+81 %s-%s-%s" % (n[:2], n[2:6], n[6:])])
    if cc == "AU":
        n = "4" + R.choice("0123") + d(7)
        return cc, pick(["0%s %s %s" % (n[:3], n[3:6], n[6:]), "+61 %s %s %s" % (n[:3], n[3:6], n[6:])])
    if cc == "IN":
        n = R.choice(["98", "99", "97", "94"]) + d(8)
        return cc, pick(["+91 %s %s" % (n[:5], n[5:]), "0%s-%s" % (n[:5], n[5:])])
    if cc == "CN":
        n = "13" + R.choice("6789") + d(8)
        return cc, pick(["+86 %s %s %s" % (n[:3], n[3:7], n[7:]), "%s-%s-%s" % (n[:3], n[3:7], n[7:])])
    if cc == "IT":
        n = "3" + R.choice("2456789") + d(8)
        return cc, pick(["+39 %s %s %s" % (n[:3], n[3:6], n[6:]), "%s %s" % (n[:3], n[3:])])
    if cc == "ES":
        n = "6" + d(8)
        return cc, pick(["+34 %s %s %s" % (n[:3], n[3:6], n[6:]), "%s %s %s" % (n[:3], n[3:6], n[6:])])
    if cc == "NL":
        n = "6" + R.choice("12345") + d(7)
        return cc, pick(["06-%s" % n[1:], "+31 6 %s" % n[1:]])
    if cc == "BR":
        n = d(2).replace("0", "1") + "9" + R.choice("6789") + d(7)
        return cc, pick(["(%s) %s-%s" % (n[:2], n[2:7], n[7:]), "+55 %s %s-%s" % (n[:2], n[2:7], n[7:])])
    n = "7" + R.choice("45789") + d(8)
    return cc, pick(["0%s %s" % (n[:4], n[4:]), "+44 %s %s" % (n[:4], n[4:])])


DOMAINS = ["gmail.com", "outlook.com", "web.de", "orange.fr", "libero.it", "gmx.net", "yahoo.es",
           "uol.com.br", "ziggo.nl", "proton.me", "icloud.com"]


def ascii_fold(s):
    import unicodedata
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if c.isascii() and (c.isalnum() or c in ".-"))


def person(loc=None):
    f = fk(loc)
    first, last = f.first_name(), f.last_name()
    local = ascii_fold("%s%s%s" % (first, pick([".", "_", ""]), last)).lower() or "user%d" % R.randint(1, 999)
    if R.random() < 0.4:
        local += str(R.randint(1, 99))
    dom = pick(DOMAINS) if R.random() < 0.6 else ascii_fold(f.last_name()).lower() + pick([".com", ".de", ".fr", ".io", ".co.uk"])
    return first, last, "%s@%s" % (local, dom)


def dob():
    y, m, d = R.randint(1940, 2005), R.randint(1, 12), R.randint(1, 28)
    return y, m, d


def token(n=40):
    return rand_chars(n)


def vendor_key():
    kind = pick(["openai", "anthropic", "github", "ghpat", "slack", "stripe", "aws", "sendgrid",
                 "google", "hf", "gitlab", "twilio"])
    alnum = string.ascii_letters + string.digits
    if kind == "openai":
        return "OpenAI", "sk-proj-" + rand_chars(R.randint(40, 80), alnum + "-_") + "T3BlbkFJ" + rand_chars(20, alnum + "-_"), "api_token"
    if kind == "anthropic":
        return "Anthropic", "sk-ant-api03-" + rand_chars(93, alnum + "-_") + "AA", "api_token"
    if kind == "github":
        return "GitHub", "ghp_" + rand_chars(36), "api_token"
    if kind == "ghpat":
        return "GitHub", "github_pat_" + rand_chars(22) + "_" + rand_chars(59), "api_token"
    if kind == "slack":
        return "Slack", "xox%s-%d-%d-%s" % (R.choice("bp"), R.randint(10**10, 10**12), R.randint(10**10, 10**12), rand_chars(24)), "api_token"
    if kind == "stripe":
        return "Stripe", pick(["sk_live_", "rk_live_", "whsec_"]) + rand_chars(R.choice([24, 32, 99])), "api_token"
    if kind == "aws":
        return "AWS", "AKIA" + rand_chars(16, string.ascii_uppercase + "234567"), "cloud_token"
    if kind == "sendgrid":
        return "SendGrid", "SG." + rand_chars(22, alnum + "-_") + "." + rand_chars(43, alnum + "-_"), "api_token"
    if kind == "google":
        return "Google", "AIza" + rand_chars(35, alnum + "-_"), "cloud_token"
    if kind == "hf":
        return "Hugging Face", "hf_" + rand_chars(34), "api_token"
    if kind == "gitlab":
        return "GitLab", "glpat-" + rand_chars(20, alnum + "-_"), "api_token"
    return "Twilio", "SK" + rand_chars(32, "0123456789abcdef"), "api_token"


def password():
    words = ["Sommer", "Soleil", "Verano", "Harbor", "Tiger", "Falcon", "Mango", "Winter", "Kiwi", "Rocket"]
    return pick([
        lambda: pick(words) + str(R.randint(10, 2099)) + pick(["!", "#", "$", "?", "*", "&"]),
        lambda: rand_chars(R.randint(10, 18), string.ascii_letters + string.digits + "!@#$%^&*-_=+"),
        lambda: pick(words).lower() + pick(["_", ".", "-"]) + pick(words) + str(R.randint(1, 99)),
    ])()


def dsn_password():
    return rand_chars(6) + pick(["!", "$", "&", "'", "(", "*", ",", ";", "=", "~", "#", "@"]) + rand_chars(5)


def ts():
    return "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (R.randint(1, 12), R.randint(1, 28), R.randint(0, 23),
                                                   R.randint(0, 59), R.randint(0, 59), R.randint(0, 999))


def order_no():
    return pick(["ORD-", "SO", "#", "A"]) + rand_chars(R.randint(7, 11), string.digits)


def sku():
    return "%s-%s-%s" % (rand_chars(3, string.ascii_uppercase), rand_chars(4, string.digits), rand_chars(2, string.ascii_uppercase + string.digits))


def tracking():
    return pick([
        lambda: "1Z" + rand_chars(6, string.ascii_uppercase + string.digits) + rand_chars(10, string.digits),
        lambda: "94" + rand_chars(20, string.digits),
        lambda: rand_chars(12, string.digits),
        lambda: "JD" + rand_chars(16, string.digits),
        lambda: rand_chars(2, string.ascii_uppercase) + rand_chars(9, string.digits) + pick(["DE", "GB", "FR", "NL"]),
    ])()


# ---- hostile transforms ----------------------------------------------------------------------

ZW = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad"]


def zero_width(s):
    return "".join(c + (R.choice(ZW) if R.random() < 0.35 else "") for c in s)


def fullwidth(s):
    return "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in s)


def b64(s):
    return base64.b64encode(s.encode()).decode()
