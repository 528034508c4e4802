"""Value sources of the third probe (probe3_rows.py).

Nothing here comes from the corpus generators or the first two probes: people are drawn from Faker
locales none of them uses (Latvian, Estonian, Thai in Latin letters, Ghanaian, Bulgarian, Georgian,
Hindi), phone numbers from 22 regions none of them uses, identifiers from other schemes (Estonian
isikukood, Latvian personas kods, Israeli, South African, Irish, Thai) beside new layouts of known
ones, cards of other networks, IBANs of other countries, vendors and encodings the others do not try.
"""

import base64
import hashlib
import random
import string

from faker import Faker

from probe_registry import Registry, drawing, seeded_fakers

SEED = 20261129
PER = 26  # rows per (family, shape)

R = random.Random(SEED)
LATIN = ["lv_LV", "et_EE", "en_TH", "tw_GH"]
SCRIPTS = ["bg_BG", "ka_GE", "hi_IN"]
FAKERS = seeded_fakers(Faker, LATIN + SCRIPTS, SEED)

REG = Registry("probe3", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)


# ---- people ----------------------------------------------------------------------------------

def person(loc=None):
    """(first, last) of a Faker locale the other generators do not use."""
    f = FAKERS[loc or pick(LATIN)]
    return f.first_name(), f.last_name()


def name(loc=None):
    return "%s %s" % person(loc)


def fold(s):
    table = str.maketrans("āčēģīķļņšūžõäöüĀČĒĢĪĶĻŅŠŪŽÕÄÖÜ", "acegiklnsuzoaouACEGIKLNSUZOAOU")
    return "".join(c for c in s.translate(table) if c.isascii() and (c.isalnum() or c in "-."))


HOSTS = ["inbox.lv", "mail.ee", "hot.ee", "abv.bg", "yahoo.co.th", "zoho.com", "proton.me", "gmx.net",
         "icloud.com", "outlook.com", "gmail.com", "tut.by", "dir.bg", "one.lv"]


def email(first, last):
    f, l = fold(first).lower(), fold(last).lower()
    local = pick(["%s.%s" % (f, l), "%s%s" % (f[:1], l), "%s_%s" % (l, f[:2]), "%s%d" % (f, R.randint(1, 999)),
                  "%s-%s" % (f, l)])
    return "%s@%s" % (local, pick(HOSTS) if R.random() < 0.7 else l + pick([".lv", ".ee", ".bg", ".co.th", ".com.gh"]))


CITIES = {"LV": ["Rīga", "Daugavpils", "Liepāja", "Jelgava", "Ventspils"], "EE": ["Tallinn", "Tartu", "Pärnu", "Narva"],
          "TH": ["Bangkok", "Chiang Mai", "Khon Kaen", "Hat Yai"], "GH": ["Accra", "Kumasi", "Tamale", "Cape Coast"],
          "BG": ["Sofia", "Plovdiv", "Varna", "Burgas"]}
STREET = {"LV": "%s iela %d", "EE": "%s tänav %d", "TH": "%d Soi %s", "GH": "%d %s Road", "BG": "ul. %s %d"}
POST = {"LV": lambda: "LV-%04d" % R.randint(1001, 5799), "EE": lambda: "%05d" % R.randint(10111, 94999),
        "TH": lambda: "%05d" % R.randint(10100, 96220), "GH": lambda: "GA-%03d-%04d" % (R.randint(100, 999), R.randint(1000, 9999)),
        "BG": lambda: "%04d" % R.randint(1000, 9999)}
CC_OF = {"lv_LV": "LV", "et_EE": "EE", "en_TH": "TH", "tw_GH": "GH", "bg_BG": "BG"}


def address(loc=None):
    loc = loc or pick(LATIN)
    cc = CC_OF.get(loc, "LV")
    street_name = FAKERS[loc if loc in LATIN else "lv_LV"].last_name()
    n = R.randint(1, 140)
    st = STREET[cc] % ((n, street_name) if cc in ("TH", "GH") else (street_name, n))
    return "%s, %s %s" % (st, POST[cc](), pick(CITIES[cc]))


# ---- phones: mobile ranges of 22 regions, as (region, digits after the country code, cc) --------

MOBILE = {
    "BE": ("32", lambda: pick(["470", "471", "472", "473", "475", "476", "477", "478", "479", "484", "485", "486", "487", "488", "489", "491", "492", "493", "494", "495", "496", "497", "498", "499"]) + digits(6), "0"),
    "IE": ("353", lambda: pick(["83", "85", "86", "87", "89"]) + digits(7), "0"),
    "GR": ("30", lambda: pick(["690", "693", "694", "695", "697", "698", "699"]) + digits(7), ""),
    "IL": ("972", lambda: pick(["50", "52", "53", "54", "55"]) + digits(7), "0"),
    "AE": ("971", lambda: pick(["50", "52", "54", "55", "56", "58"]) + digits(7), "0"),
    "ZA": ("27", lambda: pick(["72", "73", "74", "76", "78", "79", "82", "83", "84"]) + digits(7), "0"),
    "SG": ("65", lambda: pick(["81", "82", "83", "84", "85", "86", "87", "88", "90", "91", "92", "93", "94", "96", "97", "98"]) + digits(6), ""),
    "HK": ("852", lambda: pick(["51", "53", "54", "55", "59", "61", "62", "63", "64", "65", "66", "67", "69", "90", "91", "92", "93", "94", "95", "96", "97", "98"]) + digits(6), ""),
    "TH": ("66", lambda: pick(["81", "82", "83", "84", "85", "86", "87", "88", "89", "91", "92", "93", "94", "95", "96", "97", "98", "99"]) + digits(7), "0"),
    "PH": ("63", lambda: pick(["917", "918", "919", "920", "921", "927", "928", "929", "939", "945", "966", "977"]) + digits(7), "0"),
    "MY": ("60", lambda: pick(["12", "13", "16", "17", "19"]) + digits(7), "0"),
    "AR": ("54", lambda: "911" + pick(["2", "3", "4", "5", "6"]) + digits(7), ""),
    "CL": ("56", lambda: "9" + pick(["4", "5", "6", "7", "8", "9"]) + digits(7), ""),
    "CO": ("57", lambda: pick(["300", "301", "302", "304", "310", "311", "312", "313", "314", "315", "316", "317", "318", "320", "321", "350"]) + digits(7), ""),
    "NG": ("234", lambda: pick(["803", "806", "813", "706", "805", "807", "905", "814"]) + digits(7), "0"),
    "KE": ("254", lambda: pick(["70", "71", "72", "79", "74"]) + digits(7), "0"),
    "EE": ("372", lambda: "5" + pick(["0", "1", "2", "3", "5", "6", "8"]) + digits(6), ""),
    "LV": ("371", lambda: "2" + pick(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]) + digits(6), ""),
    "BG": ("359", lambda: pick(["87", "88", "89"]) + digits(7), "0"),
    "SK": ("421", lambda: pick(["901", "902", "903", "904", "905", "906", "907", "908", "910", "911", "912", "914", "915", "940", "944", "948", "949", "950"]) + digits(6), "0"),
    "RO": ("40", lambda: pick(["721", "722", "723", "724", "731", "732", "740", "741", "744", "745", "751", "752", "756", "761", "762", "765", "766", "786", "787"]) + digits(6), "0"),
    "VN": ("84", lambda: pick(["90", "91", "93", "94", "96", "97", "98", "32", "33", "34", "35", "36", "37", "38", "39", "70", "76", "77", "78", "79", "81", "82", "83", "84", "85"]) + digits(7), "0"),
}
REGIONS = sorted(MOBILE)
PHONES_SEEN = []  # (region, written form), for the check against libphonenumber's metadata


def groups(n, sizes):
    out, i = [], 0
    for s in sizes:
        out.append(n[i:i + s])
        i += s
    if i < len(n):
        out[-1] += n[i:]
    return [g for g in out if g]


def split_of(n):
    return {7: [3, 4], 8: [4, 4], 9: [3, 3, 3], 10: [3, 3, 4], 11: [3, 4, 4]}.get(len(n), [3, 3, 4])


def phone(region=None, style=None):
    """A mobile number of region written in style: intl (+CC groups), natl (trunk 0 and groups),
    dash (" - " between groups), spacedcc ("+ 3 2 ..."), dots (bare, dotted), paren ("(+CC)"),
    zerozero ("00CC"), compact (+CC and the digits). Returns (region, text)."""
    region = region or pick(REGIONS)
    cc, gen, trunk = MOBILE[region]
    n = gen()
    g = groups(n, split_of(n))
    style = style or pick(["intl", "natl", "dash", "dots", "paren", "zerozero", "compact"])
    if style in ("natl", "dots") and not trunk and region not in ("SG", "HK", "GR", "EE", "LV"):
        style = "intl"
    natl = [trunk + g[0]] + g[1:]
    if style == "intl":
        s = "+%s %s" % (cc, " ".join(g))
    elif style == "natl":
        s = " ".join(natl)
    elif style == "dash":
        s = "+%s - %s" % (cc, " - ".join(g))
    elif style == "spacedcc":
        s = "+ %s %s" % (" ".join(cc), " ".join(g))
    elif style == "dots":
        s = ".".join(natl)
    elif style == "paren":
        s = "(+%s) %s" % (cc, " ".join(g))
    elif style == "zerozero":
        s = "00%s %s" % (cc, "".join(g))
    else:
        s = "+%s%s" % (cc, n)
    PHONES_SEEN.append((region, s))
    return region, s


# ---- cards and IBANs -------------------------------------------------------------------------

def luhn(body):
    t = 0
    for i, c in enumerate(reversed(body)):
        d = int(c) * (2 if i % 2 == 0 else 1)
        t += d - 9 if d > 9 else d
    return str((10 - t % 10) % 10)


def card(valid=True):
    kind = pick(["amex", "jcb", "unionpay", "mc2", "discover", "visa"])
    prefix, n = {"amex": (pick(["34", "37"]), 15), "jcb": (str(R.randint(3528, 3589)), 16),
                 "unionpay": ("62" + digits(2), 16), "mc2": (str(R.randint(2221, 2720)), 16),
                 "discover": ("65" + digits(2), 16), "visa": ("4" + digits(3), 16)}[kind]
    body = prefix + digits(n - 1 - len(prefix))
    c = luhn(body)
    if not valid:
        c = str((int(c) + R.randint(1, 9)) % 10)
    s = body + c
    if n == 15:
        return "%s %s %s" % (s[:4], s[4:10], s[10:])
    return pick([" ", "-", ""]).join(s[i:i + 4] for i in range(0, 16, 4))


# (country, length, BBAN maker)
IBANS = {"BE": lambda: digits(12), "LV": lambda: chars(4, string.ascii_uppercase) + digits(13),
         "EE": lambda: digits(16), "BG": lambda: chars(4, string.ascii_uppercase) + digits(6) + digits(8),
         "GR": lambda: digits(23), "IE": lambda: chars(4, string.ascii_uppercase) + digits(14),
         "SK": lambda: digits(20), "RO": lambda: chars(4, string.ascii_uppercase) + digits(16),
         "IL": lambda: digits(19), "AE": lambda: digits(19), "SA": lambda: digits(20)}


def iban(valid=True, cc=None):
    cc = cc or pick(sorted(IBANS))
    bban = IBANS[cc]()
    check = 98 - int("".join(str(int(c, 36)) for c in bban + cc + "00")) % 97
    if not valid:
        check = (check + R.randint(1, 90) - 1) % 97 + 2
        if check == 98 - int("".join(str(int(c, 36)) for c in bban + cc + "00")) % 97:
            check = check % 97 + 2
    s = "%s%02d%s" % (cc, check, bban)
    return pick([s, " ".join(s[i:i + 4] for i in range(0, len(s), 4))])


# ---- national identifiers ----------------------------------------------------------------------

def _birth():
    return R.randint(1950, 2004), R.randint(1, 12), R.randint(1, 28)


def isikukood(valid=True):
    """Estonian personal code: sex/century digit, YYMMDD, serial, check (two weight rounds)."""
    y, m, d = _birth()
    body = "%d%02d%02d%02d%03d" % ((3 if y < 2000 else 5) + R.randint(0, 1), y % 100, m, d, R.randint(0, 999))
    w1, w2 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1], [3, 4, 5, 6, 7, 8, 9, 1, 2, 3]
    c = sum(int(a) * b for a, b in zip(body, w1)) % 11
    if c == 10:
        c = sum(int(a) * b for a, b in zip(body, w2)) % 11 % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    return body + str(c)


def personas_kods(valid=True):
    """Latvian personal code of the old form DDMMYY-CNNNC, with its check digit."""
    while True:
        y, m, d = _birth()
        body = "%02d%02d%02d%d%03d" % (d, m, y % 100, 1 if y < 2000 else 2, R.randint(0, 999))
        w = [1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
        c = (1101 - sum(int(a) * b for a, b in zip(body, w))) % 11
        if c < 10:
            break
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    return "%s-%s%d" % (body[:6], body[6:], c)


def israeli_id(valid=True):
    body = digits(8)
    t = 0
    for i, ch in enumerate(body):
        v = int(ch) * (1 if i % 2 == 0 else 2)
        t += v - 9 if v > 9 else v
    c = (10 - t % 10) % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    return body + str(c)


def za_id(valid=True):
    y, m, d = _birth()
    body = "%02d%02d%02d%04d%d8" % (y % 100, m, d, R.randint(0, 9999), R.randint(0, 1))
    c = luhn(body)
    if not valid:
        c = str((int(c) + R.randint(1, 9)) % 10)
    return body + c


def ppsn(valid=True):
    body = digits(7)
    letters = "WABCDEFGHIJKLMNOPQRSTUV"
    c = letters[sum(int(a) * b for a, b in zip(body, range(8, 1, -1))) % 23]
    if not valid:
        c = letters[(letters.index(c) + R.randint(1, 22)) % 23]
    return body + c


def thai_id(valid=True):
    body = str(R.randint(1, 8)) + digits(11)
    c = (11 - sum(int(a) * b for a, b in zip(body, range(13, 1, -1))) % 11) % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    s = body + str(c)
    return "%s-%s-%s-%s-%s" % (s[0], s[1:5], s[5:10], s[10:12], s[12])


def egn(valid=True):
    y, m, d = _birth()
    body = "%02d%02d%02d%03d" % (y % 100, m + (40 if y >= 2000 else 0), d, R.randint(0, 999))
    c = sum(int(a) * b for a, b in zip(body, [2, 4, 8, 5, 10, 9, 7, 3, 6])) % 11 % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    return body + str(c)


VERHOEFF_D = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
              [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
              [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
              [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
VERHOEFF_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
              [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
              [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
VERHOEFF_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def aadhaar(valid=True):
    body = str(R.randint(2, 9)) + digits(10)
    c = 0
    for i, ch in enumerate(reversed(body)):
        c = VERHOEFF_D[c][VERHOEFF_P[(i + 1) % 8][int(ch)]]
    c = VERHOEFF_INV[c]
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    s = body + str(c)
    return "%s %s %s" % (s[:4], s[4:8], s[8:])


def bsn(valid=True):
    while True:
        body = str(R.randint(1, 9)) + digits(7)
        t = sum(int(a) * b for a, b in zip(body, range(9, 1, -1)))
        c = t % 11
        if c < 10:
            break
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    return body + str(c)


# (scheme, label a person would write, maker, scanner type)
IDS = [("ee", "isikukood", isikukood, "national_id"), ("lv", "personas kods", personas_kods, "national_id"),
       ("il", "Teudat Zehut", israeli_id, "national_id"), ("za", "SA ID number", za_id, "national_id"),
       ("ie", "PPSN", ppsn, "national_id"), ("th", "Thai ID", thai_id, "national_id"),
       ("bg", "ЕГН", egn, "national_id"), ("in", "Aadhaar", aadhaar, "national_id"),
       ("nl", "BSN", bsn, "national_id")]


def national(valid=True):
    scheme, label, make, typ = pick(IDS)
    return scheme, label, make(valid), typ


# ---- dates -----------------------------------------------------------------------------------

MONTHS = {
    "en": ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"],
    "cs": ["ledna", "února", "března", "dubna", "května", "června", "července", "srpna", "září", "října", "listopadu", "prosince"],
    "lv": ["janvārī", "februārī", "martā", "aprīlī", "maijā", "jūnijā", "jūlijā", "augustā", "septembrī", "oktobrī", "novembrī", "decembrī"],
    "nl": ["januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"],
    "sv": ["januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"],
    "pl": ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października", "listopada", "grudnia"],
}


def date(lo=1940, hi=2006):
    return R.randint(lo, hi), R.randint(1, 12), R.randint(1, 28)


# ---- secrets ---------------------------------------------------------------------------------

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def vendor_token():
    """(vendor, token) of shapes their issuers publish."""
    v = pick(["hf", "gitlab", "openai_svc", "anthropic", "slack_user", "github_oauth", "npm", "doppler",
              "shopify", "linear", "grafana", "digitalocean", "stripe_rk", "groq", "replicate", "postman",
              "pypi", "atlassian", "sendgrid", "mailgun"])
    t = {"hf": lambda: "hf_" + chars(34, string.ascii_letters),
         "gitlab": lambda: "glpat-" + chars(20, B62 + "-_"),
         "openai_svc": lambda: "sk-svcacct-" + chars(58, B62 + "-_") + "T3BlbkFJ" + chars(58, B62 + "-_"),
         "anthropic": lambda: "sk-ant-api03-" + chars(93, B62 + "-_") + "AA",
         "slack_user": lambda: "xoxp-%s-%s-%s-%s" % (digits(11), digits(11), digits(13), chars(32, HEX)),
         "github_oauth": lambda: "gho_" + chars(36, B62),
         "npm": lambda: "npm_" + chars(36, B62),
         "doppler": lambda: "dp.st.prd." + chars(43, B62),
         "shopify": lambda: "shpat_" + chars(32, HEX),
         "linear": lambda: "lin_api_" + chars(40, B62),
         "grafana": lambda: "glsa_" + chars(32, B62) + "_" + chars(8, HEX),
         "digitalocean": lambda: "dop_v1_" + chars(64, HEX),
         "stripe_rk": lambda: "rk_live_" + chars(99, B62),
         "groq": lambda: "gsk_" + chars(52, B62),
         "replicate": lambda: "r8_" + chars(37, B62),
         "postman": lambda: "PMAK-%s-%s" % (chars(24, HEX), chars(34, HEX)),
         "pypi": lambda: "pypi-AgEIcHlwaS5vcmc" + chars(60, B62 + "-_"),
         "atlassian": lambda: "ATATT3xFfGF0" + chars(180, B62 + "-_") + "=" + chars(8, "0123456789ABCDEF"),
         "sendgrid": lambda: "SG.%s.%s" % (chars(22, B62 + "-_"), chars(43, B62 + "-_")),
         "mailgun": lambda: "key-" + chars(32, HEX)}[v]()
    return v, t


def password():
    """A password a person would choose or a manager would generate."""
    kind = R.randint(0, 3)
    if kind == 0:
        w = pick(["Saule", "Kalns", "Jura", "Tiger", "Mango", "Orkaan", "Lumi", "Koks", "Sunrise", "Baltic"])
        return "%s%s%d%s" % (w, pick(["_", "", "."]), R.randint(10, 9999), pick("!#$%&*?@"))
    if kind == 1:
        return chars(R.randint(12, 20), B62 + "!#%^&*()-_=+")
    if kind == 2:
        ws = ["amber", "falcon", "quartz", "river", "maple", "cobalt", "ember", "lantern", "orbit", "tundra"]
        return "-".join(R.sample(ws, 3)) + str(R.randint(1, 99))
    return "%s%s%s" % (chars(4, string.ascii_uppercase), digits(4), chars(4, "!$%&*+?@^~"))


def b64(s, url=False):
    b = s.encode() if isinstance(s, str) else s
    return (base64.urlsafe_b64encode(b).decode().rstrip("=") if url else base64.b64encode(b).decode())


def sha(s, n=64):
    return hashlib.sha256(s.encode()).hexdigest()[:n]
