"""Value sources of the fifth probe (probe5_rows.py).

Nothing here comes from the corpus generators or the first four probes; only the row bookkeeping
(probe_registry.py) is shared. People come from name lists written for this probe (Filipino,
Malay, Irish, South African, Israeli names in Latin letters and Quebec French) and from Faker
locales (Dutch, Polish, Turkish, Swedish, Norwegian, Danish, Finnish and Czech); mobile numbers
from the plans of those regions, written the way people there write them; identifiers computed
with python-stdnum's validators (BSN, PESEL, personnummer, fødselsnummer, CPR, HETU, rodné číslo,
TC kimlik, SIN, MyKad); vendor tokens of package registries, hosting and LLM providers in the
vendors' published shapes; keys derived from seeded bytes with python3-cryptography.
"""

import base64
import datetime
import hashlib
import random
import string

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from faker import Faker
from stdnum import iban as stdiban
from stdnum.ca import sin as stdsin
from stdnum.cz import rc as stdrc
from stdnum.dk import cpr as stdcpr
from stdnum.fi import hetu as stdhetu
from stdnum.my import nric as stdnric
from stdnum.nl import bsn as stdbsn
from stdnum.no import fodselsnummer as stdfnr
from stdnum.pl import pesel as stdpesel
from stdnum.se import personnummer as stdpnr
from stdnum.tr import tckimlik as stdtck
from unidecode import unidecode

from probe_registry import Registry, drawing, seeded_fakers

SEED = 20261127
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
FAKER_LOCALES = ["nl_NL", "pl_PL", "tr_TR", "sv_SE", "no_NO", "dk_DK", "fi_FI", "cs_CZ"]
FAKERS = seeded_fakers(Faker, FAKER_LOCALES, SEED)

REG = Registry("probe5", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)

HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
URLSAFE = B62 + "-_"

# ---- people ------------------------------------------------------------------------------------

LISTS = {
    "ph": (["Maricel", "Jerome", "Rowena", "Rodel", "Jocelyn", "Arnel", "Marivic", "Jun-Jun", "Liezl", "Ramil",
            "Cherry Ann", "Reynaldo", "Maricris", "Jomar", "Analyn", "Dindo"],
           ["Dela Cruz", "Bautista", "Villanueva", "Macaraeg", "Dimaculangan", "Pangilinan", "Manalastas", "Soriano",
            "Mercado", "Tolentino", "Sison", "Dizon", "Lacson", "Ocampo"]),
    "my": (["Nurul Aisyah", "Muhammad Faiz", "Siti Hajar", "Ahmad Zaki", "Farah Nabila", "Mohd Hafiz", "Wan Azlina",
            "Kamarul Ariffin", "Nor Hidayah", "Amirul Hakim", "Tan Wei Ling", "Lim Chee Keong", "Kavitha"],
           ["binti Abdullah", "bin Ismail", "binti Razak", "bin Hassan", "binti Osman", "bin Yusof", "a/p Subramaniam",
            "bin Kamaruddin", "binti Salleh"]),
    "ie": (["Siobhán", "Ciarán", "Aoife", "Pádraig", "Niamh", "Eoin", "Caoimhe", "Oisín", "Gráinne", "Darragh",
            "Saoirse", "Cathal", "Róisín", "Tadhg"],
           ["Ó Súilleabháin", "Mac Carthaigh", "O'Donoghue", "Fitzgerald", "Ní Bhriain", "McNamara", "Brennan",
            "O'Sullivan", "Ó Ceallaigh", "Gallagher", "Kavanagh", "Ní Mhurchú"]),
    "za": (["Thandiwe", "Sipho", "Nomvula", "Pieter", "Anneke", "Lwazi", "Zanele", "Johannes", "Lerato", "Mpho",
            "Riaan", "Nandi", "Bongani", "Elna"],
           ["Dlamini", "van der Merwe", "Nkosi", "Botha", "Mokoena", "du Plessis", "Khumalo", "Naidoo", "Pretorius",
            "Ndlovu", "Steyn", "Mahlangu", "Venter"]),
    "il": (["Yonatan", "Noa", "Itai", "Tamar", "Eitan", "Shira", "Avi", "Michal", "Oren", "Yael", "Gilad", "Hila",
            "Nadav", "Liat"],
           ["Cohen", "Levi", "Mizrahi", "Peretz", "Biton", "Dahan", "Avraham", "Friedman", "Azoulay", "Ben-David",
            "Shapira", "Katz", "Ohana"]),
    "qc": (["Marie-Ève", "Jean-François", "Geneviève", "Mathieu", "Josée", "Sébastien", "Annie", "Étienne",
            "Mélanie", "Pierre-Luc", "Chantal", "Maxime", "Isabelle", "Simon"],
           ["Tremblay", "Gagnon", "Bouchard", "Côté", "Gauthier", "Morin", "Lavoie", "Fortin", "Pelletier",
            "Bélanger", "Lévesque", "Bergeron", "Leblanc", "Desjardins"]),
}
FAKER_OF = {"nl": "nl_NL", "pl": "pl_PL", "tr": "tr_TR", "se": "sv_SE", "no": "no_NO", "dk": "dk_DK",
            "fi": "fi_FI", "cz": "cs_CZ"}
ORIGINS = sorted(LISTS) + sorted(FAKER_OF)


def person(origin=None):
    """(first, last) of an origin."""
    origin = origin or pick(ORIGINS)
    if origin in LISTS:
        firsts, lasts = LISTS[origin]
        return pick(firsts), pick(lasts)
    f = FAKERS[FAKER_OF[origin]]
    return f.first_name(), f.last_name()


def fold(s):
    return "".join(c for c in unidecode(s).lower() if c.isalnum() or c in ".-")


MAIL_HOSTS = {"nl": ["ziggo.nl", "kpnmail.nl", "xs4all.nl"], "pl": ["wp.pl", "onet.pl", "interia.pl", "o2.pl"],
              "tr": ["hotmail.com.tr", "yandex.com.tr"], "se": ["telia.com", "bredband.net"], "no": ["online.no", "getmail.no"],
              "dk": ["mail.dk", "jubii.dk"], "fi": ["luukku.com", "elisanet.fi"], "cz": ["seznam.cz", "centrum.cz", "email.cz"],
              "ph": ["yahoo.com.ph", "gmail.com"], "my": ["yahoo.com.my", "streamyx.com"], "ie": ["eircom.net", "gmail.com"],
              "za": ["mweb.co.za", "telkomsa.net", "webmail.co.za"], "il": ["walla.co.il", "012.net.il"],
              "qc": ["videotron.ca", "sympatico.ca", "hotmail.ca"]}


def email(first, last, origin=None):
    f = fold(first.split()[0]).replace("-", "")
    l = fold(last.split()[-1]).replace("-", "").replace("'", "")
    local = pick(["%s.%s" % (f, l), "%s%s" % (f[:1], l), "%s-%s" % (f, l), "%s%02d" % (l, R.randint(1, 99)),
                  "%s.%s%d" % (f, l[:1], R.randint(1, 9))])
    return "%s@%s" % (local, pick(MAIL_HOSTS.get(origin, []) + ["gmail.com", "outlook.com"]))


# ---- phones: mobile plans of the regions, written as people there write them --------------------


def _grp(n, *sizes):
    out, i = [], 0
    for s in sizes:
        out.append(n[i:i + s])
        i += s
    return out


MOBILE = {
    "PL": ("48", lambda: pick(["50", "51", "53", "57", "60", "66", "69", "72", "78", "79", "88"]) + digits(7),
           lambda n: pick(["%s %s %s" % tuple(_grp(n, 3, 3, 3)), "+48 %s-%s-%s" % tuple(_grp(n, 3, 3, 3)), "+48%s" % n])),
    "NL": ("31", lambda: "6" + R.choice("12345") + digits(7),
           lambda n: pick(["0%s-%s" % (n[:1], n[1:]), "+31 (0)%s %s" % (n[:1], n[1:]), "0%s %s %s %s" % tuple(_grp(n, 1, 2, 3, 3))])),
    "TR": ("90", lambda: "5" + pick(["05", "30", "32", "33", "35", "42", "43", "44", "52", "55", "59"]) + digits(7),
           lambda n: pick(["0 (%s) %s %s %s" % tuple(_grp(n, 3, 3, 2, 2)), "+90 %s %s %s %s" % tuple(_grp(n, 3, 3, 2, 2)), "0%s" % n])),
    "SE": ("46", lambda: "7" + R.choice("0236") + digits(7),
           lambda n: pick(["0%s-%s %s %s" % tuple(_grp(n, 2, 3, 2, 2)), "+46 %s %s %s %s" % tuple(_grp(n, 2, 3, 2, 2))])),
    "NO": ("47", lambda: pick(["40", "41", "45", "46", "47", "48", "9" + R.choice("0123456789")]) + digits(6),
           lambda n: pick(["%s %s %s" % tuple(_grp(n, 3, 2, 3)), "+47 %s %s %s %s" % tuple(_grp(n, 2, 2, 2, 2))])),
    "DK": ("45", lambda: pick(["20", "21", "22", "26", "28", "29", "30", "31", "40", "42", "51", "60", "61", "71"]) + R.choice("123456789") + digits(5),
           lambda n: pick(["%s %s %s %s" % tuple(_grp(n, 2, 2, 2, 2)), "+45 %s%s %s%s" % (n[:2], n[2:4], n[4:6], n[6:])])),
    "FI": ("358", lambda: pick(["40", "41", "44", "45", "46", "50"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_grp(n, 2, 3, 4)), "+358 %s %s" % (n[:2], n[2:])])),
    "CZ": ("420", lambda: pick(["601", "602", "603", "604", "605", "606", "608", "720", "724", "731", "737", "739", "775", "777"]) + digits(6),
           lambda n: pick(["%s %s %s" % tuple(_grp(n, 3, 3, 3)), "+420 %s %s %s" % tuple(_grp(n, 3, 3, 3))])),
    "PH": ("63", lambda: "9" + pick(["05", "06", "15", "16", "17", "18", "19", "20", "27", "28", "39", "47", "77", "95"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_grp(n, 3, 3, 4)), "+63 %s %s %s" % tuple(_grp(n, 3, 3, 4)), "0%s-%s-%s" % tuple(_grp(n, 3, 3, 4))])),
    "MY": ("60", lambda: "1" + pick(["2", "3", "6", "7", "9"]) + R.choice("123456789") + digits(6),
           lambda n: pick(["0%s-%s %s" % tuple(_grp(n, 2, 3, 4)), "+60 %s-%s %s" % tuple(_grp(n, 2, 3, 4))])),
    "IL": ("972", lambda: "5" + pick(["0", "2", "3", "4"]) + R.choice("23456789") + digits(6),
           lambda n: pick(["0%s-%s-%s" % tuple(_grp(n, 2, 3, 4)), "+972-%s-%s-%s" % tuple(_grp(n, 2, 3, 4))])),
    "ZA": ("27", lambda: pick(["72", "73", "76", "79", "82", "83", "84", "61", "63"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_grp(n, 2, 3, 4)), "+27 %s %s %s" % tuple(_grp(n, 2, 3, 4))])),
    "IE": ("353", lambda: "8" + R.choice("35679") + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_grp(n, 2, 3, 4)), "+353 %s %s %s" % tuple(_grp(n, 2, 3, 4))])),
    "CA": ("1", lambda: pick(["514", "438", "418", "581", "819", "613", "450"]) + R.choice("23456789") + digits(2) + digits(4),
           lambda n: pick(["(%s) %s-%s" % tuple(_grp(n, 3, 3, 4)), "%s %s-%s" % tuple(_grp(n, 3, 3, 4)), "+1 %s %s %s" % tuple(_grp(n, 3, 3, 4))])),
}
PHONE_OF = {"pl": "PL", "nl": "NL", "tr": "TR", "se": "SE", "no": "NO", "dk": "DK", "fi": "FI", "cz": "CZ",
            "ph": "PH", "my": "MY", "il": "IL", "za": "ZA", "ie": "IE", "qc": "CA"}
PHONES_SEEN = []


def phone(region=None):
    """(region, national significant number, the number as written there)."""
    region = region or pick(sorted(MOBILE))
    cc, gen, write = MOBILE[region]
    while True:
        n = gen()
        if region != "CA" or n[3:6] != "555":
            break
    s = write(n)
    PHONES_SEEN.append((region, s))
    return region, n, s


def phone_of(origin):
    return phone(PHONE_OF[origin])[2]


# Landlines with extensions, in the formats the gate's target regions print on letterheads.
LANDLINE = {
    "JP": lambda: pick(["03-%s-%s" % (R.choice("3456789") + digits(3), digits(4)), "06-%s-%s" % (R.choice("3456789") + digits(3), digits(4)),
                        "+81 3 %s %s" % (R.choice("3456789") + digits(3), digits(4))]),
    "FR": lambda: pick(["01 %s %s %s %s" % (digits(2), digits(2), digits(2), digits(2)),
                        "+33 (0)4 7%s %s %s %s" % (digits(1), digits(2), digits(2), digits(2))]),
    "AU": lambda: pick(["(02) %s %s" % (R.choice("89") + digits(3), digits(4)), "+61 3 %s %s" % (R.choice("89") + digits(3), digits(4))]),
    "CN": lambda: pick(["010-%s%s" % (R.choice("234567"), digits(7)), "(021) %s %s" % (R.choice("234567") + digits(3), digits(4))]),
    "IN": lambda: pick(["080-%s %s" % (R.choice("2345") + digits(3), digits(4)), "+91 22 %s %s" % (R.choice("2456") + digits(3), digits(4))]),
}


def landline(region=None):
    region = region or pick(sorted(LANDLINE))
    s = LANDLINE[region]()
    PHONES_SEEN.append((region, s))
    return region, s


# ---- identifiers, made until python-stdnum says valid (or, for bad ones, until it says not) -----


def _until(make, ok):
    while True:
        s = make()
        if ok(s):
            return s


def _birth_parts(lo=1950, hi=2006):
    d = datetime.date(R.randint(lo, hi), R.randint(1, 12), R.randint(1, 28))
    return d


def bsn():
    return _until(lambda: R.choice("1234567") + digits(8), stdbsn.is_valid)


def pesel():
    def make():
        d = _birth_parts()
        mm = d.month + (20 if d.year >= 2000 else 0)
        base = "%02d%02d%02d%04d" % (d.year % 100, mm, d.day, R.randint(0, 9999))
        return base + stdpesel.calc_check_digit(base)
    return _until(make, stdpesel.is_valid)


def personnummer():
    def make():
        d = _birth_parts()
        return "%02d%02d%02d-%s" % (d.year % 100, d.month, d.day, digits(4))
    return _until(make, stdpnr.is_valid)


def fodselsnummer():
    def make():
        d = _birth_parts(1954, 1999)
        base = "%02d%02d%02d%03d" % (d.day, d.month, d.year % 100, R.randint(0, 499))
        c1 = stdfnr.calc_check_digit1(base)
        c2 = stdfnr.calc_check_digit2(base + c1)
        return base + c1 + c2
    return _until(make, stdfnr.is_valid)


def cpr():
    def make():
        d = _birth_parts(1950, 1999)
        return "%02d%02d%02d-%s" % (d.day, d.month, d.year % 100, R.choice("0123") + digits(3))
    return _until(make, lambda s: stdcpr.is_valid(s) and stdcpr.checksum(stdcpr.compact(s)) == 0)


HETU_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def hetu():
    def make():
        d = _birth_parts()
        sep = "-" if d.year < 2000 else "A"
        ind = R.randint(2, 899)
        base = "%02d%02d%02d%03d" % (d.day, d.month, d.year % 100, ind)
        return "%s%s%03d%s" % (base[:6], sep, ind, HETU_CHECK[int(base) % 31])
    return _until(make, stdhetu.is_valid)


def rodne_cislo():
    def make():
        d = _birth_parts(1955, 2006)
        mm = d.month + (50 if R.random() < 0.5 else 0)
        base = "%02d%02d%02d%03d" % (d.year % 100, mm, d.day, R.randint(0, 999))
        c = (int(base) % 11) % 10
        return "%s/%s%d" % (base[:6], base[6:], c)
    return _until(make, stdrc.is_valid)


def tckimlik():
    def make():
        base = R.choice("123456789") + digits(8)
        return base + stdtck.calc_check_digits(base)
    return _until(make, stdtck.is_valid)


def sin():
    def make():
        n = R.choice("12345679") + digits(8)
        return "%s %s %s" % (n[:3], n[3:6], n[6:])
    return _until(make, stdsin.is_valid)


MY_STATES = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14"]


def mykad():
    def make():
        d = _birth_parts()
        return "%02d%02d%02d-%s-%s" % (d.year % 100, d.month, d.day, pick(MY_STATES), digits(4))
    return _until(make, stdnric.is_valid)


def broken(valid_maker, is_valid):
    """A number of a scheme whose last digit is changed until the scheme's check fails."""
    s = valid_maker()
    return _until(lambda: s[:-1] + R.choice(string.digits), lambda t: not is_valid(t))


BAD = {
    "BSN": (bsn, stdbsn.is_valid), "PESEL": (pesel, stdpesel.is_valid),
    "personnummer": (personnummer, stdpnr.is_valid), "fødselsnummer": (fodselsnummer, stdfnr.is_valid),
    "TC kimlik no": (tckimlik, stdtck.is_valid), "SIN": (sin, stdsin.is_valid),
    "rodné číslo": (rodne_cislo, stdrc.is_valid),
}

# ---- cards and accounts ------------------------------------------------------------------------


def luhn_complete(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return body + str((10 - total % 10) % 10)


CARD_PREFIX = ["4", "51", "53", "55", "2221", "2720", "6011", "3528"]


def card(valid=True):
    p = pick(CARD_PREFIX)
    n = luhn_complete(p + digits(15 - len(p)))
    if not valid:
        n = n[:15] + str((int(n[15]) + R.randint(1, 9)) % 10)
    return pick([" ".join(n[i:i + 4] for i in range(0, 16, 4)), n, "-".join(n[i:i + 4] for i in range(0, 16, 4))])


BBAN = {"NL": lambda: pick(["ABNA", "RABO", "INGB", "TRIO", "SNSB"]) + digits(10),
        "PL": lambda: digits(24), "SE": lambda: digits(20), "NO": lambda: digits(11), "DK": lambda: digits(14),
        "FI": lambda: digits(14), "CZ": lambda: digits(20), "TR": lambda: digits(5) + "0" + digits(16),
        "IE": lambda: pick(["AIBK", "BOFI"]) + digits(14)}


def iban(country=None, valid=True):
    """An IBAN of the country, valid for python-stdnum (country rules included), or with check digits
    that fail mod 97."""
    country = country or pick(sorted(BBAN))
    while True:
        bban = BBAN[country]()
        s = country + stdiban.calc_check_digits(country + "00" + bban) + bban
        if stdiban.is_valid(s):
            break
    if not valid:
        s = _until(lambda: s[:2] + "%02d" % R.randint(2, 98) + s[4:], lambda t: not stdiban.is_valid(t))
    return pick([s, " ".join(s[i:i + 4] for i in range(0, len(s), 4))])


# ---- secrets -----------------------------------------------------------------------------------

VENDORS = {
    "npm": lambda: "npm_" + chars(36),
    "pypi": lambda: "pypi-AgEIcHlwaS5vcmc" + chars(R.randint(120, 160), URLSAFE),
    "dockerhub": lambda: "dckr_pat_" + chars(27, URLSAFE),
    "gitlab": lambda: "glpat-" + chars(20, URLSAFE),
    "huggingface": lambda: "hf_" + chars(34, string.ascii_letters),
    "replicate": lambda: "r8_" + chars(37),
    "shopify": lambda: "shpat_" + chars(32, HEX),
    "linear": lambda: "lin_api_" + chars(40),
    "digitalocean": lambda: "dop_v1_" + chars(64, HEX),
    "grafana": lambda: "glsa_" + chars(32) + "_" + chars(8, HEX),
    "newrelic": lambda: "NRAK-" + chars(27, string.ascii_uppercase + string.digits),
    "atlassian": lambda: "ATATT3xFfGF0" + chars(R.randint(170, 190), URLSAFE) + "=" + chars(8, "0123456789ABCDEF"),
    "supabase": lambda: "sbp_" + chars(40, HEX),
    "openai_project": lambda: "sk-proj-" + chars(74, URLSAFE) + "T3BlbkFJ" + chars(74, URLSAFE),
    "anthropic": lambda: "sk-ant-api03-" + chars(93, URLSAFE) + "AA",
    "github_fine": lambda: "github_pat_11" + chars(20, string.ascii_uppercase + string.digits) + "_" + chars(59),
    "slack_bot": lambda: "xoxb-%s-%s-%s" % (digits(12), digits(13), chars(24)),
    "sendgrid": lambda: "SG.%s.%s" % (chars(22, URLSAFE), chars(43, URLSAFE)),
    "stripe_webhook": lambda: "whsec_" + chars(32),
    "twilio": lambda: "SK" + chars(32, HEX),
    "google_oauth": lambda: "ya29.a0" + chars(R.randint(140, 200), URLSAFE),
    "aws": lambda: "AKIA" + chars(16, string.ascii_uppercase + "234567"),
}
VENDOR_ENV = {"npm": "NPM_TOKEN", "pypi": "TWINE_PASSWORD", "dockerhub": "DOCKERHUB_TOKEN", "gitlab": "GITLAB_TOKEN",
              "huggingface": "HF_TOKEN", "replicate": "REPLICATE_API_TOKEN", "shopify": "SHOPIFY_ACCESS_TOKEN",
              "linear": "LINEAR_API_KEY", "digitalocean": "DIGITALOCEAN_TOKEN", "grafana": "GRAFANA_SA_TOKEN",
              "newrelic": "NEW_RELIC_API_KEY", "atlassian": "JIRA_API_TOKEN", "supabase": "SUPABASE_ACCESS_TOKEN",
              "openai_project": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "github_fine": "GH_TOKEN",
              "slack_bot": "SLACK_BOT_TOKEN", "sendgrid": "SENDGRID_API_KEY", "stripe_webhook": "STRIPE_WEBHOOK_SECRET",
              "twilio": "TWILIO_API_KEY", "google_oauth": "GOOGLE_ACCESS_TOKEN", "aws": "AWS_ACCESS_KEY_ID"}


def vendor(name=None):
    name = name or pick(sorted(VENDORS))
    return name, VENDORS[name]()


def password():
    """A password as people make them: words, digits and punctuation, or random."""
    word = pick(["Zomer", "Lato", "Kesä", "Sommar", "Bahar", "Sneeuw", "Kotek", "Kissa", "Tulipan", "Maple", "Sampaguita",
                 "Durian", "Braai", "Shalom", "Hygge", "Fjord", "Praha", "Ankara"])
    return pick([
        "%s%d%s" % (word, R.randint(2019, 2027), pick("!#$%&*?")),
        "%s.%s%02d" % (word.lower(), pick(["ikea", "volvo", "kofta", "skoda", "bakkie"]), R.randint(0, 99)),
        chars(R.randint(10, 16), B62 + "!@#%^&*-_"),
        "%s%s%d" % (pick(["Welkom", "Witaj", "Hosgeldin", "Tervetuloa", "Velkommen", "Mabuhay"]), pick("@#!"), R.randint(100, 9999)),
    ])


def token(n=40, alphabet=B62):
    return chars(n, alphabet)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def _seed_bytes(n):
    return hashlib.sha256(("probe5-key-%d" % R.randint(0, 1 << 30)).encode()).digest()[:n]


def private_key_pem(kind=None):
    kind = kind or pick(["ed25519", "ec", "rsa", "ed25519"])
    if kind == "ed25519":
        k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32))
    elif kind == "ec":
        k = ec.derive_private_key(int.from_bytes(_seed_bytes(32), "big") % (2 ** 255) + 1, ec.SECP256R1())
    else:
        k = _rsa_keys[R.randrange(len(_rsa_keys))]
    fmt = pick([serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.OpenSSH]) if kind == "ed25519" else \
        pick([serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.TraditionalOpenSSL])
    pem = k.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()
    if fmt == serialization.PrivateFormat.OpenSSH:
        pem = _fixed_checkint(pem)
    return pem


def _fixed_checkint(pem):
    """OpenSSH's format opens the private block with a random check integer, written twice; it is
    set from the seeded draw so that the rows are the same on every run."""
    lines = pem.strip().split("\n")
    blob = bytearray(base64.b64decode("".join(lines[1:-1])))
    i = len(b"openssh-key-v1\0")
    for _ in range(3):  # cipher name, kdf name, kdf options
        i += 4 + int.from_bytes(blob[i:i + 4], "big")
    i += 4  # number of keys
    i += 4 + int.from_bytes(blob[i:i + 4], "big")  # public key
    i += 4  # length of the private block
    check = R.getrandbits(32).to_bytes(4, "big")
    blob[i:i + 4] = check
    blob[i + 4:i + 8] = check
    body = base64.b64encode(bytes(blob)).decode()
    return "\n".join([lines[0]] + [body[j:j + 70] for j in range(0, len(body), 70)] + [lines[-1]]) + "\n"


def public_key_text():
    k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32)).public_key()
    return pick([k.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
                 k.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()])


# RSA generation is slow and not seedable; a few keys generated once per run would make rows change
# from run to run, so RSA keys are made from a seeded prime search instead.
def _seeded_rsa(seed):
    rnd = random.Random(seed)

    def prime(bits):
        while True:
            c = rnd.getrandbits(bits) | (1 << (bits - 1)) | 1
            if all(pow(a, c - 1, c) == 1 for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)):
                return c
    e = 65537
    while True:
        p, q = prime(512), prime(512)
        phi = (p - 1) * (q - 1)
        if p != q and phi % e:
            break
    d = pow(e, -1, phi)
    nums = rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p), rsa.RSAPublicNumbers(e, p * q))
    return nums.private_key()


_rsa_keys = [_seeded_rsa(SEED + i) for i in range(3)]


# ---- dates -------------------------------------------------------------------------------------


def birth(fmt=None):
    d = _birth_parts(1948, 2008)
    fmt = fmt or pick(["%d.%m.%Y", "%d-%m-%Y", "%Y-%m-%d", "%d/%m/%Y"])
    return d.strftime(fmt)


def when():
    d = datetime.date(2026, R.randint(1, 12), R.randint(1, 28))
    return d.strftime(pick(["%d.%m.%Y", "%Y-%m-%d", "%d/%m"])) + " " + "%02d:%02d" % (R.randint(7, 19), pick([0, 15, 30, 45]))
