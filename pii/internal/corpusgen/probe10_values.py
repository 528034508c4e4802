"""Value sources of the tenth probe (probe10_rows.py).

Nothing here comes from the corpus generators or the earlier probes; only the row bookkeeping
(probe_registry.py) is shared. People come from name lists written for this probe, of origins
written in Latin letters the way their bearers write them abroad (Arabic, Russian, Bulgarian and
Georgian transliterated, Chinese in pinyin, Korean, Japanese in romaji, Hindi, Yoruba, Amharic,
Vietnamese, Hungarian, Dutch, Spanish and Irish names with their particles), and from Faker's
Russian, Bulgarian and Georgian locales transliterated with python3-unidecode. Names are set in
the order their language sets them (family name first in Hungarian, Vietnamese, Chinese, Korean
and Japanese). Health terms and dates of birth are written in the thirteen languages of the
probe's prose. Identifiers are computed with python-stdnum; mobile numbers follow the national
plans of their regions (PROBE10_PHONES=1 lists them for the check against libphonenumber's
metadata); keys are derived from seeded bytes with python3-cryptography.
"""

import base64
import random
import string

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from faker import Faker
from stdnum.es import dni as stddni
from stdnum.nl import bsn as stdbsn
from stdnum.pl import pesel as stdpesel
from stdnum.ro import cnp as stdcnp
from unidecode import unidecode

from probe_registry import Registry, drawing, seeded_fakers

SEED = 20261310
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
FAKER_LOCALES = ["ru_RU", "bg_BG", "ka_GE"]
FAKERS = seeded_fakers(Faker, FAKER_LOCALES, SEED)

REG = Registry("probe10", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"

# ---- people ------------------------------------------------------------------------------------

# origin: (given names, family names, family name first?)
ORIGINS = {
    "arabic": (["Youssef", "Khadija", "Omar", "Layla", "Hamza", "Mariam", "Tariq", "Noor", "Bilal", "Huda", "Zainab", "Karim"],
               ["al-Rashidi", "bin Saleh", "Al-Harbi", "El-Sayed", "Haddad", "ibn Yousef", "Abu Zaid", "Al-Masri", "bin Omar", "al-Qahtani"], False),
    "pinyin": (["Xiaoling", "Jianguo", "Meihua", "Zhiwei", "Yutong", "Haoran", "Shufen", "Guoqiang", "Lihua", "Zixuan"],
               ["Wang", "Zhang", "Liu", "Chen", "Zhou", "Xu", "Sun", "Huang", "Zhao", "Wu"], True),
    "korean": (["Min-jun", "Seo-yeon", "Ji-hoon", "Ha-eun", "Dong-hyun", "Soo-ah", "Jae-won", "Eun-ji", "Sung-min", "Yoo-jin"],
               ["Kim", "Park", "Choi", "Jung", "Kang", "Yoon", "Han", "Lim", "Shin", "Oh"], True),
    "romaji": (["Haruka", "Takeshi", "Yui", "Kenji", "Aiko", "Daisuke", "Sakura", "Ryota", "Mei", "Hiroki"],
               ["Tanaka", "Suzuki", "Watanabe", "Yamamoto", "Kobayashi", "Nakamura", "Ishikawa", "Fujimoto", "Mori", "Okada"], True),
    "hindi": (["Priyanka", "Rohit", "Ananya", "Vikram", "Sunita", "Arjun", "Meenakshi", "Kavita", "Rajesh", "Deepika"],
              ["Sharma", "Iyer", "Chatterjee", "Deshpande", "Nair", "Reddy", "Banerjee", "Kulkarni", "Mehta", "Pillai"], False),
    "yoruba": (["Adebayo", "Folasade", "Oluwaseun", "Titilayo", "Babatunde", "Yetunde", "Olumide", "Abimbola", "Kehinde", "Temitope"],
               ["Adeyemi", "Ogunleye", "Balogun", "Oyelaran", "Akinwande", "Olatunji", "Adebisi", "Ogundipe", "Fashola", "Ajayi"], False),
    "amharic": (["Meseret", "Tesfaye", "Selamawit", "Abebe", "Hirut", "Dawit", "Tsion", "Yonas", "Bethlehem", "Kidus"],
                ["Girma", "Haile", "Bekele", "Tadesse", "Wolde", "Alemu", "Kebede", "Gebremedhin", "Assefa", "Tesfaye"], False),
    "vietnamese": (["Thị Lan", "Văn Hùng", "Thu Hương", "Minh Tuấn", "Ngọc Mai", "Quốc Dũng", "Thanh Hà", "Đức Anh"],
                   ["Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Vũ", "Đặng", "Bùi", "Đỗ"], True),
    "hungarian": (["Zsófia", "Bence", "Réka", "Gergely", "Eszter", "Levente", "Boglárka", "Csaba", "Dóra", "Zoltán"],
                  ["Kovács", "Szabó", "Tóth", "Varga", "Farkas", "Balogh", "Németh", "Lakatos", "Mészáros", "Pintér"], True),
    "dutch": (["Maarten", "Femke", "Joris", "Lieke", "Sander", "Marloes", "Thijs", "Anouk", "Wouter", "Ilse"],
              ["van der Meer", "van den Broek", "de Jong", "van Dijk", "ter Horst", "van der Heijden", "de Wit", "van Leeuwen"], False),
    "spanish": (["Itziar", "Gonzalo", "Rocío", "Íñigo", "Maite", "Fermín", "Ainhoa", "Leire", "Borja", "Nerea"],
                ["de la Fuente", "del Olmo", "de los Ríos", "Etxeberria", "de la Torre", "Goikoetxea", "del Campo", "Zubizarreta"], False),
    "irish": (["Siobhán", "Cillian", "Aoife", "Pádraig", "Niamh", "Oisín", "Caoimhe", "Ruairí", "Gráinne", "Tadhg"],
              ["O'Donovan", "McNulty", "Ó Súilleabháin", "MacGiolla", "O'Keeffe", "McGrath", "Ní Bhriain", "O'Halloran"], False),
}
FAKER_ORIGINS = {"russian": "ru_RU", "bulgarian": "bg_BG", "georgian": "ka_GE"}
ALL_ORIGINS = sorted(ORIGINS) + sorted(FAKER_ORIGINS)
WESTERN = ["arabic", "hindi", "yoruba", "amharic", "dutch", "spanish", "irish", "russian", "bulgarian", "georgian"]
FAMILY_FIRST = ["pinyin", "korean", "romaji", "vietnamese", "hungarian"]


def person(origin=None):
    """A (given, family, origin) triple."""
    o = origin or pick(ALL_ORIGINS)
    if o in FAKER_ORIGINS:
        f = REG.fakers[FAKER_ORIGINS[o]]
        female = R.random() < 0.5
        g = f.first_name_female() if female else f.first_name_male()
        fam = f.last_name_female() if female else f.last_name_male()
        return _latin(g), _latin(fam), o
    gs, fs, _ = ORIGINS[o]
    return pick(gs), pick(fs), o


def _latin(s):
    """A name in Cyrillic or Georgian as its bearer writes it in Latin letters: unidecode's
    transliteration without its apostrophes and backticks for soft signs and ejectives, and
    capitalised, since Georgian has no capitals for unidecode to keep."""
    t = unidecode(s).replace("'", "").replace("`", "")
    return "-".join(w[:1].upper() + w[1:] for w in t.split("-"))


def full(g, fam, o):
    """The name in the order its language sets it."""
    if o in FAMILY_FIRST:
        return fam + " " + g
    return g + " " + fam


def name(origin=None):
    g, fam, o = person(origin)
    return full(g, fam, o)


def initials(g, fam, o):
    """"J. R. Okafor", "Y. Tanaka", "A.K. Banerjee"."""
    first = g.replace("-", " ").split()[0][0]
    if R.random() < 0.5:
        return "%s. %s. %s" % (first, pick("ABDEKMRST"), fam)
    return "%s. %s" % (first, fam)


def ascii_fold(s):
    return unidecode(s).replace("'", "").replace(" ", "").replace("-", "").lower()


def email(g, fam):
    return "%s.%s@%s" % (ascii_fold(g), ascii_fold(fam), pick(["mailbox.example.org", "post.example.net", "example.com", "inbox.example.de"]))


# ---- languages of the prose --------------------------------------------------------------------

LANGS = ["en", "de", "fr", "es", "pt", "it", "nl", "pl", "sv", "hu", "vi", "id", "tr"]

# condition, medicine, per language: (asthma, salbutamol), (diabetes, insulin), (epilepsy, ...),
# (depression, sertraline), (hypertension, amlodipine)
HEALTH = {
    "en": [("asthma", "a salbutamol inhaler"), ("type 1 diabetes", "insulin glargine"), ("epilepsy", "levetiracetam"),
           ("depression", "sertraline"), ("high blood pressure", "amlodipine"), ("multiple sclerosis", "ocrelizumab")],
    "de": [("Asthma", "Salbutamol"), ("Diabetes Typ 1", "Insulin"), ("Epilepsie", "Levetiracetam"),
           ("Depressionen", "Sertralin"), ("Bluthochdruck", "Ramipril"), ("Multiple Sklerose", "Ocrelizumab")],
    "fr": [("de l'asthme", "de la Ventoline"), ("un diabète de type 1", "de l'insuline"), ("une épilepsie", "du lévétiracétam"),
           ("une dépression", "de la sertraline"), ("de l'hypertension", "de l'amlodipine"), ("une sclérose en plaques", "de l'ocrélizumab")],
    "es": [("asma", "salbutamol"), ("diabetes tipo 1", "insulina"), ("epilepsia", "levetiracetam"),
           ("depresión", "sertralina"), ("hipertensión", "enalapril"), ("esclerosis múltiple", "ocrelizumab")],
    "pt": [("asma", "salbutamol"), ("diabetes tipo 1", "insulina"), ("epilepsia", "levetiracetam"),
           ("depressão", "sertralina"), ("hipertensão", "losartana"), ("esclerose múltipla", "ocrelizumabe")],
    "it": [("asma", "salbutamolo"), ("diabete di tipo 1", "insulina"), ("epilessia", "levetiracetam"),
           ("depressione", "sertralina"), ("ipertensione", "amlodipina"), ("sclerosi multipla", "ocrelizumab")],
    "nl": [("astma", "salbutamol"), ("diabetes type 1", "insuline"), ("epilepsie", "levetiracetam"),
           ("een depressie", "sertraline"), ("hoge bloeddruk", "amlodipine"), ("multiple sclerose", "ocrelizumab")],
    "pl": [("astmę", "salbutamol"), ("cukrzycę typu 1", "insulinę"), ("padaczkę", "lewetyracetam"),
           ("depresję", "sertralinę"), ("nadciśnienie", "amlodypinę"), ("stwardnienie rozsiane", "okrelizumab")],
    "sv": [("astma", "salbutamol"), ("typ 1-diabetes", "insulin"), ("epilepsi", "levetiracetam"),
           ("depression", "sertralin"), ("högt blodtryck", "amlodipin"), ("MS", "ocrelizumab")],
    "hu": [("asztmás", "szalbutamolt"), ("1-es típusú cukorbeteg", "inzulint"), ("epilepsziás", "levetiracetámot"),
           ("depressziós", "szertralint"), ("magas vérnyomású", "amlodipint"), ("szklerózis multiplexes", "okrelizumabot")],
    "vi": [("hen suyễn", "salbutamol"), ("tiểu đường type 1", "insulin"), ("động kinh", "levetiracetam"),
           ("trầm cảm", "sertraline"), ("cao huyết áp", "amlodipine"), ("đa xơ cứng", "ocrelizumab")],
    "id": [("asma", "salbutamol"), ("diabetes tipe 1", "insulin"), ("epilepsi", "levetiracetam"),
           ("depresi", "sertraline"), ("darah tinggi", "amlodipin"), ("multiple sclerosis", "ocrelizumab")],
    "tr": [("astım", "salbutamol"), ("tip 1 diyabet", "insülin"), ("epilepsi", "levetirasetam"),
           ("depresyon", "sertralin"), ("yüksek tansiyon", "amlodipin"), ("MS", "okrelizumab")],
}

MONTHS = {
    "en": ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"],
    "fr": ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"],
    "pt": ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"],
    "it": ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"],
    "nl": ["januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"],
    "pl": ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października", "listopada", "grudnia"],
    "sv": ["januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"],
    "hu": ["január", "február", "március", "április", "május", "június", "július", "augusztus", "szeptember", "október", "november", "december"],
    "id": ["Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September", "Oktober", "November", "Desember"],
    "tr": ["Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım", "Aralık"],
}


def ymd(lo=1938, hi=2019):
    return R.randint(lo, hi), R.randint(1, 12), R.randint(1, 28)


def date_in(lang, y, m, d):
    """A date as the language writes it in prose."""
    if lang == "en":
        return pick(["%d %s %d" % (d, MONTHS["en"][m - 1], y), "%s %d, %d" % (MONTHS["en"][m - 1], d, y),
                     "%s %d%s, %d" % (MONTHS["en"][m - 1], d, {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd"}.get(d, "th"), y)])
    if lang == "de":
        return pick(["%d. %s %d" % (d, MONTHS["de"][m - 1], y), "%02d.%02d.%d" % (d, m, y)])
    if lang == "fr":
        return pick(["%s %s %d" % ("1er" if d == 1 else str(d), MONTHS["fr"][m - 1], y), "%02d/%02d/%d" % (d, m, y)])
    if lang in ("es", "pt"):
        return pick(["%d de %s de %d" % (d, MONTHS[lang][m - 1], y), "%02d/%02d/%d" % (d, m, y)])
    if lang == "it":
        return pick(["%d %s %d" % (d, MONTHS["it"][m - 1], y), "%02d/%02d/%d" % (d, m, y)])
    if lang == "nl":
        return pick(["%d %s %d" % (d, MONTHS["nl"][m - 1], y), "%02d-%02d-%d" % (d, m, y)])
    if lang == "pl":
        return pick(["%d %s %d r." % (d, MONTHS["pl"][m - 1], y), "%02d.%02d.%d" % (d, m, y)])
    if lang == "sv":
        return pick(["den %d %s %d" % (d, MONTHS["sv"][m - 1], y), "%d-%02d-%02d" % (y, m, d)])
    if lang == "hu":
        return pick(["%d. %s %d." % (y, MONTHS["hu"][m - 1], d), "%d.%02d.%02d." % (y, m, d)])
    if lang == "vi":
        return pick(["ngày %d tháng %d năm %d" % (d, m, y), "%02d/%02d/%d" % (d, m, y)])
    if lang == "id":
        return pick(["%d %s %d" % (d, MONTHS["id"][m - 1], y), "%02d-%02d-%d" % (d, m, y)])
    if lang == "tr":
        return pick(["%d %s %d" % (d, MONTHS["tr"][m - 1], y), "%02d.%02d.%d" % (d, m, y)])
    raise ValueError(lang)


def date_compact(y, m, d):
    """Dates as forms and notes abbreviate them."""
    mon = MONTHS["en"][m - 1][:3]
    return pick(["%02d-%s-%d" % (d, mon, y), "%d/%d/%02d" % (m, d, y % 100), "%d-%02d-%02d" % (y, m, d), "%02d.%02d.%02d" % (d, m, y % 100),
                 "%s %d '%02d" % (mon, d, y % 100), "%d%02d%02d" % (y, m, d), "%d %s %d" % (d, mon.upper(), y)])


# ---- identifiers -------------------------------------------------------------------------------


def national():
    """A (label, value) pair valid by python-stdnum."""
    k = pick(["dni", "bsn", "pesel", "cnp"])
    if k == "dni":
        n = digits(8)
        return "DNI", n + stddni.calc_check_digit(n)
    if k == "bsn":
        while True:
            n = str(R.randint(1, 9)) + digits(7)
            valid = [n + str(last) for last in range(10) if stdbsn.is_valid(n + str(last))]
            if valid:
                return "BSN", valid[0]
    if k == "pesel":
        y, m, d = ymd(1950, 1999)
        n = "%02d%02d%02d%s" % (y % 100, m, d, digits(4))
        return "PESEL", n + stdpesel.calc_check_digit(n)
    y, m, d = ymd(1950, 1999)
    n = "%d%02d%02d%02d%02d%s" % (pick([1, 2]), y % 100, m, d, R.randint(1, 46), digits(3))
    return "CNP", n + stdcnp.calc_check_digit(n)


def national_broken():
    """The same schemes with the check digit changed."""
    lbl, v = national()
    last = v[-1]
    alts = [c for c in (string.ascii_uppercase if not last.isdigit() else string.digits) if c != last]
    while True:
        w = v[:-1] + pick(alts)
        mod = {"DNI": stddni, "BSN": stdbsn, "PESEL": stdpesel, "CNP": stdcnp}[lbl]
        if not mod.is_valid(w):
            return lbl, w


# ---- phones ------------------------------------------------------------------------------------

PHONES_SEEN = []


def phone():
    """A mobile number of one of the regions the probe's people come from, as its owner writes it."""
    region = pick(["GB", "HU", "IN", "NG", "ET", "VN", "ID", "TR", "DE", "FR", "NL", "ES"])
    if region == "GB":
        s = "+44 7%s %s" % (pick(["700", "711", "723", "745", "768", "782", "799"]), digits(6))
    elif region == "HU":
        s = "+36 %s %s %s" % (pick(["20", "30", "70"]), digits(3), digits(4))
    elif region == "IN":
        s = "+91 %s%s %s" % (pick(["98", "97", "99", "94"]), digits(3), digits(5))
    elif region == "NG":
        s = "+234 %s %s %s" % (pick(["803", "806", "813", "816", "703", "802"]), digits(3), digits(4))
    elif region == "ET":
        s = "+251 9%s %s %s" % (pick(["1", "2", "3", "4"]), digits(3), digits(4))
    elif region == "VN":
        s = "+84 %s %s %s" % (pick(["91", "98", "97", "90"]), digits(3), digits(4))
    elif region == "ID":
        s = "+62 8%s-%s-%s" % (pick(["12", "13", "21", "52", "57"]), digits(4), digits(4))
    elif region == "TR":
        s = "+90 5%s %s %s %s" % (pick(["32", "33", "42", "05", "55"]), digits(3), digits(2), digits(2))
    elif region == "DE":
        s = "+49 1%s %s" % (pick(["51", "57", "76"]), digits(8))
    elif region == "FR":
        s = "+33 6 %s %s %s %s" % (digits(2), digits(2), digits(2), digits(2))
    elif region == "NL":
        s = "+31 6 %d%s %s" % (R.randint(1, 5), digits(3), digits(4))
    else:
        s = "+34 6%s %s %s" % (digits(2), digits(3), digits(3))
    PHONES_SEEN.append((region, s))
    return s


# ---- secrets -----------------------------------------------------------------------------------


def vendor_token():
    k = pick(["github", "stripe", "openai", "anthropic", "slack", "gitlab", "sendgrid", "aws"])
    if k == "github":
        return "ghp_" + chars(36, B62)
    if k == "stripe":
        return "sk_live_" + chars(24, B62)
    if k == "openai":
        return "sk-proj-" + chars(48, B62 + "-_")
    if k == "anthropic":
        return "sk-ant-api03-" + chars(93, B62 + "-_") + "AA"
    if k == "slack":
        return "xoxb-%s-%s-%s" % (digits(12), digits(13), chars(24, B62))
    if k == "gitlab":
        return "glpat-" + chars(20, B62 + "-_")
    if k == "sendgrid":
        return "SG.%s.%s" % (chars(22, B62 + "-_"), chars(43, B62 + "-_"))
    return "AKIA" + chars(16, string.ascii_uppercase + "234567")


def password():
    return pick(["Kw!", "m@r", "Zx7", "Tq#", "pL9", "R0s"]) + chars(R.randint(5, 9), B62) + pick(["!", "$", "#", "&", "*", "%", "?"]) + digits(2)


def _seed_bytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def private_key_pem():
    kind = pick(["ed25519", "p256"])
    if kind == "ed25519":
        k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32))
    else:
        k = ec.derive_private_key(int.from_bytes(_seed_bytes(31), "big") + 1, ec.SECP256R1())
    fmt = serialization.PrivateFormat.PKCS8
    if kind == "p256" and R.random() < 0.5:
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
    return k.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()


def public_key_pem():
    k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32))
    return k.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def b64(s):
    return base64.b64encode(s.encode()).decode()
