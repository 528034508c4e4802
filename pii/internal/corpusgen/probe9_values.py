"""Value sources of the ninth probe (probe9_rows.py).

Nothing here comes from the corpus generators or the earlier probes; only the row bookkeeping
(probe_registry.py) is shared. People come from name lists written for this probe (Basque, Breton,
Faroese, Frisian, Sardinian, Corsican, Yoruba, Zulu, Hausa, Māori, Samoan, Tongan, Malagasy,
Quechua, Sami, Kurdish, Tamil, Sinhala and Bengali names in Latin letters); mobile numbers from the
plans of the regions the gate is most often asked about (checked against libphonenumber's metadata
with PROBE9_PHONES=1); identifiers computed until python-stdnum says valid (US SSN, Dutch BSN,
Polish PESEL, Spanish DNI, Brazilian CPF, Aadhaar, French NIR, German Steuer-ID, Canadian SIN,
Finnish HETU); tokens in the published shapes of the vendors an agent's shell and dotfiles hold;
keys derived from seeded bytes with python3-cryptography. The hostile writings (other scripts'
digits, number words, ciphers described in the text, escapes and nested encodings) are here too,
so that the block and pass shapes write values and harmless text alike.
"""

import base64
import codecs
import datetime
import hashlib
import json
import quopri
import random
import string
import urllib.parse

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from stdnum import iban as stdiban
from stdnum import luhn as stdluhn
from stdnum.br import cpf as stdcpf
from stdnum.ca import sin as stdsin
from stdnum.de import idnr as stdidnr
from stdnum.es import dni as stddni
from stdnum.fi import hetu as stdhetu
from stdnum.fr import nir as stdnir
from stdnum.in_ import aadhaar as stdaadhaar
from stdnum.nl import bsn as stdbsn
from stdnum.pl import pesel as stdpesel
from stdnum.us import ssn as stdssn

from probe_registry import Registry, drawing

SEED = 20261209
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
FAKERS = {}

REG = Registry("probe9", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)

HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
URLSAFE = B62 + "-_"

# ---- people ------------------------------------------------------------------------------------

LISTS = {
    "eu": (["Maite", "Iñaki", "Nerea", "Gorka", "Amaia", "Unai", "Leire", "Asier"],
           ["Etxeberria", "Agirre", "Goikoetxea", "Urrutia", "Zubizarreta", "Arrieta", "Elorza"]),
    "br": (["Gwenaëlle", "Yann", "Maiwenn", "Erwan", "Nolwenn", "Gwendal", "Soazig", "Tanguy"],
           ["Le Goff", "Kerjean", "Le Bihan", "Guivarc'h", "Riou", "Le Gall", "Quéméner"]),
    "fo": (["Rógvi", "Sunnvá", "Jógvan", "Turið", "Hallur", "Bára", "Óli", "Guðrið"],
           ["Joensen", "Hansen", "Poulsen", "Dalsgaard", "Mikkelsen", "Olsen", "Lamhauge"]),
    "fy": (["Sytske", "Wybren", "Baukje", "Sjoerd", "Griet", "Hessel", "Aukje", "Jelle"],
           ["Hoekstra", "Dijkstra", "Bosma", "Wiersma", "Zijlstra", "Postma", "Hiemstra"]),
    "sc": (["Bastianina", "Efisio", "Grazia", "Gavino", "Tonina", "Salvatore", "Giuannica"],
           ["Porcu", "Sanna", "Pinna", "Melis", "Loi", "Murgia", "Piras", "Atzeni"]),
    "co": (["Ghjulia", "Ghjuvanni", "Maria-Ghjuvanna", "Saveriu", "Letizia", "Petru", "Lisandru"],
           ["Santoni", "Albertini", "Luciani", "Filippi", "Casanova", "Paoli", "Mattei"]),
    "yo": (["Adebola", "Oluwaseun", "Folake", "Babatunde", "Titilayo", "Ayodele", "Yetunde", "Olumide"],
           ["Adeyemi", "Ogunleye", "Adebayo", "Oyelaran", "Akinola", "Fashola", "Olawale"]),
    "zu": (["Thandeka", "Sipho", "Nokuthula", "Bongani", "Zanele", "Mandla", "Lindiwe", "Sibusiso"],
           ["Dlamini", "Zulu", "Ndlovu", "Mthembu", "Khumalo", "Ngcobo", "Mkhize"]),
    "ha": (["Hauwa", "Abdullahi", "Zainab", "Musa", "Hadiza", "Sani", "Fatima", "Usman"],
           ["Bello", "Danjuma", "Abubakar", "Yusuf", "Garba", "Ibrahim", "Lawal"]),
    "mi": (["Aroha", "Tane", "Mereana", "Wiremu", "Huia", "Rawiri", "Kahurangi", "Tamati"],
           ["Ngata", "Parata", "Tawhiri", "Ruatapu", "Walker", "Herewini", "Te Whata"]),
    "sm": (["Malia", "Sione", "Lagi", "Tavita", "Seini", "Losa", "Faleolo", "Ioane"],
           ["Tuilagi", "Leiataua", "Fonoti", "Sapolu", "Aiono", "Tuimavave", "Lealaiauloto"]),
    "to": (["Mele", "Tevita", "Salote", "Viliami", "Ana", "Sione", "Lesieli", "Siosaia"],
           ["Taufa", "Fifita", "Vaipulu", "Kioa", "Havili", "Moala", "Tupou"]),
    "mg": (["Hery", "Voahangy", "Tahina", "Lalao", "Rivo", "Fara", "Mamy", "Nirina"],
           ["Rakotomalala", "Randrianarisoa", "Andriamanantena", "Rasolofo", "Razafindrakoto"]),
    "qu": (["Killa", "Inti", "Nina", "Yupanqui", "Sisa", "Amaru", "Wayra", "Kusi"],
           ["Huamán", "Mamani", "Ccori", "Quispe", "Huallpa", "Yupanqui", "Ticona"]),
    "se": (["Máret", "Ánde", "Elle", "Niillas", "Sara", "Biret", "Iŋgá", "Piera"],
           ["Sara", "Eira", "Gaup", "Somby", "Utsi", "Bals", "Hætta"]),
    "ku": (["Rojda", "Dilan", "Berfin", "Rêzan", "Hêvî", "Baran", "Şîrîn", "Azad"],
           ["Barzani", "Ahmadi", "Kurdi", "Zebari", "Hawrami", "Jaf", "Mukri"]),
    "ta": (["Kavitha", "Senthil", "Meenakshi", "Karthik", "Lakshmi", "Arun", "Revathi", "Murugan"],
           ["Subramaniam", "Raghavan", "Venkatesan", "Krishnan", "Natarajan", "Pillai", "Sundaram"]),
    "si": (["Dilani", "Chaminda", "Nadeesha", "Ruwan", "Ishara", "Tharindu", "Sanduni", "Kasun"],
           ["Perera", "Fernando", "Wijesinghe", "Jayasuriya", "Bandara", "Gunawardena", "Rajapaksa"]),
    "bn": (["Farhana", "Tanvir", "Nusrat", "Rafiq", "Sumaiya", "Arif", "Mithila", "Shakil"],
           ["Chowdhury", "Rahman", "Hossain", "Sarkar", "Talukdar", "Bhuiyan", "Majumder"]),
}
ORIGINS = sorted(LISTS)


def person(origin=None):
    """(first, last) of an origin."""
    firsts, lasts = LISTS[origin or pick(ORIGINS)]
    return pick(firsts), pick(lasts)


def full(first, last):
    return "%s %s" % (first, last)


_FOLD = str.maketrans({"ñ": "n", "ë": "e", "é": "e", "ó": "o", "í": "i", "á": "a", "ð": "d", "ú": "u", "ê": "e",
                       "î": "i", "ş": "s", "ŋ": "ng", "æ": "ae", "'": "", " ": "", "-": ""})


def fold(s):
    return "".join(c for c in s.lower().translate(_FOLD) if c.isascii() and c.isalnum())


MAIL_HOSTS = ["gmail.com", "outlook.com", "proton.me", "yahoo.co.uk", "fastmail.com", "icloud.com", "gmx.de", "hotmail.fr",
              "web.de", "zoho.com", "mail.ru", "yandex.com"]


def email(first, last):
    f, l = fold(first), fold(last)
    local = pick(["%s.%s" % (f, l), "%s%s" % (f[0], l), "%s_%s" % (f, l), "%s.%s%d" % (f, l, R.randint(1, 99)),
                  "%s%d" % (l, R.randint(1970, 2004))])
    return "%s@%s" % (local, pick(MAIL_HOSTS))


def someone():
    """(full name, e-mail) of someone."""
    f, l = person()
    return full(f, l), email(f, l)


# ---- phones --------------------------------------------------------------------------------------


def _g(n, *sizes):
    out, i = [], 0
    for s in sizes:
        out.append(n[i:i + s])
        i += s
    return tuple(out)


# region -> (country code, national significant number maker, ways of writing it)
MOBILE = {
    "GB": ("44", lambda: "7" + pick(["4", "5", "7", "8", "9"]) + digits(8),
           lambda n: pick(["0%s %s" % _g(n, 4, 6), "+44 %s %s %s" % _g(n, 4, 3, 3), "+44 (0)%s %s" % _g(n, 4, 6)])),
    "US": ("1", lambda: pick(["212", "415", "617", "312", "206", "303", "512", "404"]) + R.choice("23456789") + digits(2) + digits(4),
           lambda n: pick(["(%s) %s-%s" % _g(n, 3, 3, 4), "+1 %s %s %s" % _g(n, 3, 3, 4), "%s.%s.%s" % _g(n, 3, 3, 4)])),
    "IN": ("91", lambda: pick(["98", "99", "97", "94", "93"]) + digits(8),
           lambda n: pick(["+91 %s %s" % _g(n, 5, 5), "+91-%s" % n, "0%s %s" % _g(n, 5, 5)])),
    "AU": ("61", lambda: "4" + pick(["0", "1", "2", "3", "7", "8"]) + digits(7),
           lambda n: pick(["0%s %s %s" % _g(n, 3, 3, 3), "+61 %s %s %s" % _g(n, 3, 3, 3)])),
    "BR": ("55", lambda: pick(["11", "21", "31", "41", "51"]) + "9" + R.choice("6789") + digits(7),
           lambda n: pick(["(%s) %s-%s" % _g(n, 2, 5, 4), "+55 %s %s-%s" % _g(n, 2, 5, 4)])),
    "JP": ("81", lambda: pick(["90", "80", "70"]) + R.choice("123456789") + digits(7),
           lambda n: pick(["0%s-%s-%s" % _g(n, 2, 4, 4), "+81 %s-%s-%s" % _g(n, 2, 4, 4)])),
    "DE": ("49", lambda: pick(["151", "152", "157", "176", "177", "178"]) + digits(8),
           lambda n: pick(["0%s %s" % _g(n, 3, len(n) - 3), "+49 %s %s" % _g(n, 3, len(n) - 3)])),
    "ES": ("34", lambda: "6" + digits(8),
           lambda n: pick(["%s %s %s" % _g(n, 3, 3, 3), "+34 %s %s %s" % _g(n, 3, 3, 3)])),
    "IT": ("39", lambda: pick(["320", "328", "333", "338", "340", "347", "349", "366", "380", "392"]) + digits(7),
           lambda n: pick(["%s %s" % _g(n, 3, 7), "+39 %s %s %s" % _g(n, 3, 3, 4)])),
    "NL": ("31", lambda: "6" + R.choice("12345") + digits(7),
           lambda n: pick(["0%s %s %s %s" % _g(n, 1, 2, 3, 3), "+31 %s %s" % _g(n, 1, 8)])),
    "EG": ("20", lambda: "1" + pick(["0", "1", "2", "5"]) + digits(8),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 4, 4), "+20 %s %s %s" % _g(n, 2, 4, 4)])),
    "SA": ("966", lambda: "5" + pick(["0", "3", "4", "5", "6", "9"]) + digits(7),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 4), "+966 %s %s %s" % _g(n, 2, 3, 4)])),
    "BD": ("880", lambda: "1" + pick(["3", "7", "8", "9", "5", "6"]) + digits(8),
           lambda n: pick(["0%s-%s" % _g(n, 4, 6), "+880 %s-%s" % _g(n, 4, 6)])),
    "TH": ("66", lambda: pick(["8", "9", "6"]) + R.choice("123456789") + digits(7),
           lambda n: pick(["0%s-%s-%s" % _g(n, 2, 3, 4), "+66 %s %s %s" % _g(n, 2, 3, 4)])),
}
def _fr_nsn():
    lead = pick(["6", "73", "75", "76", "77", "78"])
    return lead + digits(9 - len(lead))


MOBILE["FR"] = ("33", _fr_nsn, lambda n: pick(["0%s %s %s %s %s" % _g(n, 1, 2, 2, 2, 2), "+33 %s %s %s %s %s" % _g(n, 1, 2, 2, 2, 2)]))
PHONES_SEEN = []


def phone(region=None):
    """(region, country code, national significant number, the number as written there)."""
    region = region or pick(sorted(MOBILE))
    cc, gen, write = MOBILE[region]
    n = gen()
    s = write(n)
    PHONES_SEEN.append((region, s))
    return region, cc, n, s


# ---- hostile writing of digits and text ------------------------------------------------------------

SCRIPT_DIGITS = {
    "arabic-indic": "٠١٢٣٤٥٦٧٨٩",
    "devanagari": "०१२३४५६७८९",
    "bengali": "০১২৩৪৫৬৭৮৯",
    "thai": "๐๑๒๓๔๕๖๗๘๙",
    "fullwidth": "０１２３４５６７８９",
    "tamil": "௦௧௨௩௪௫௬௭௮௯",
    "khmer": "០១២៣៤៥៦៧៨៩",
    "mathbold": "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗",
}
SCRIPT_OF = {"EG": "arabic-indic", "SA": "arabic-indic", "IN": "devanagari", "BD": "bengali", "TH": "thai", "JP": "fullwidth"}


def in_script(s, script):
    ds = SCRIPT_DIGITS[script]
    return "".join(ds[int(c)] if c.isdigit() and c.isascii() else c for c in s)


NUMBER_WORDS = {
    "en": ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"],
    "fr": ["zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"],
    "es": ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"],
    "de": ["null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"],
    "it": ["zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove"],
    "pt": ["zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove"],
    "nl": ["nul", "een", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen"],
}


def spelled(s, lang, sep=" "):
    """The digits of s as the language's number words, other characters dropped ('+' as 'plus')."""
    words = NUMBER_WORDS[lang]
    out = []
    for c in s:
        if c.isdigit():
            out.append(words[int(c)])
        elif c == "+":
            out.append("plus")
    return sep.join(out)


EMOJI = ["🔹", "✨", "📞", "👉", "•", "🙂", "⭐", "🔸"]


def emoji_between(s):
    e = pick(EMOJI)
    return e.join(c for c in s if c != " ")


ZW = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
BIDI = ["\u200e", "\u200f", "\u202a", "\u202b", "\u2066", "\u2067", "\u2069", "\u202c"]


def sprinkle(s, marks, every=(1, 3)):
    out = []
    for i, c in enumerate(s):
        out.append(c)
        if i < len(s) - 1 and R.randint(*every) == every[0]:
            out.append(pick(marks))
    return "".join(out)


def caesar(s, k):
    def sh(c):
        if "a" <= c <= "z":
            return chr((ord(c) - 97 + k) % 26 + 97)
        if "A" <= c <= "Z":
            return chr((ord(c) - 65 + k) % 26 + 65)
        if "0" <= c <= "9":
            return chr((ord(c) - 48 + k) % 10 + 48)
        return c
    return "".join(sh(c) for c in s)


def rot13(s):
    return codecs.encode(s, "rot13")


def b64(s):
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


def b64url(s):
    return base64.urlsafe_b64encode(s.encode()).decode().rstrip("=")


def b32(s):
    return base64.b32encode(s.encode()).decode()


def hexs(s):
    return s.encode().hex()


def pct_all(s):
    return "".join("%%%02X" % b for b in s.encode())


def pct(s):
    return urllib.parse.quote(s, safe="")


def qp(s):
    """Quoted-printable with every '@', '.', ':' and digit written as =XX, as a careful encoder may."""
    out = []
    for b in s.encode():
        c = chr(b)
        if c in "@.:=" or c.isdigit() or b > 126:
            out.append("=%02X" % b)
        else:
            out.append(c)
    return "".join(out)


def escapes(s, style):
    """s with most characters written as an escape of a style none of the earlier writers uses."""
    def one(c):
        o = ord(c)
        if style == "c_hex":
            return "\\x%02x" % o if o < 128 else c
        if style == "js_brace":
            return "\\u{%x}" % o
        if style == "octal":
            return "\\%03o" % o if o < 128 else c
        if style == "css":
            return "\\%x " % o
        if style == "named":
            return {"@": "&commat;", ".": "&period;", ":": "&colon;", "-": "&hyphen;", "_": "&lowbar;", "+": "&plus;"}.get(c, c)
        raise ValueError(style)
    if style == "named":
        return "".join(one(c) for c in s)
    return "".join(one(c) if (c in "@.:-_+" or R.random() < 0.7) else c for c in s)


# ---- identifiers, made until python-stdnum says valid (or, for bad ones, until it says not) -----


def _until(make, ok):
    while True:
        s = make()
        if ok(s):
            return s


def _date(lo=1950, hi=2005):
    return datetime.date(R.randint(lo, hi), R.randint(1, 12), R.randint(1, 28))


def us_ssn():
    return _until(lambda: "%03d-%02d-%04d" % (R.randint(1, 665), R.randint(1, 99), R.randint(1, 9999)), stdssn.is_valid)


def nl_bsn():
    return _until(lambda: R.choice("123456789") + digits(8), stdbsn.is_valid)


def pl_pesel():
    def make():
        d = _date()
        base = "%02d%02d%02d%04d" % (d.year % 100, d.month, d.day, R.randint(0, 9999))
        return base + str(stdpesel.calc_check_digit(base))
    return _until(make, stdpesel.is_valid)


def es_dni():
    n = "%08d" % R.randint(10000000, 79999999)
    return n + stddni.calc_check_digit(n)


def br_cpf():
    s = _until(lambda: digits(11), stdcpf.is_valid)
    return pick([s, "%s.%s.%s-%s" % (s[:3], s[3:6], s[6:9], s[9:])])


def in_aadhaar():
    s = _until(lambda: R.choice("23456789") + digits(11), stdaadhaar.is_valid)
    return pick([s, "%s %s %s" % (s[:4], s[4:8], s[8:])])


def fr_nir():
    def make():
        d = _date()
        base = "%d%02d%02d%02d%03d%03d" % (R.randint(1, 2), d.year % 100, d.month, R.randint(1, 95), R.randint(1, 999), R.randint(1, 999))
        return base + stdnir.calc_check_digits(base)
    s = _until(make, stdnir.is_valid)
    return pick([s, "%s %s %s %s %s %s %s" % (s[0], s[1:3], s[3:5], s[5:7], s[7:10], s[10:13], s[13:])])


def de_idnr():
    return _until(lambda: R.choice("123456789") + digits(10), stdidnr.is_valid)


def ca_sin():
    s = _until(lambda: R.choice("1234567") + digits(8), stdsin.is_valid)
    return pick([s, "%s %s %s" % (s[:3], s[3:6], s[6:])])


def fi_hetu():
    def make():
        d = _date()
        sep = "-" if d.year < 2000 else "A"
        num = "%03d" % R.randint(2, 899)
        base = "%02d%02d%02d%s" % (d.day, d.month, d.year % 100, num)
        return "%02d%02d%02d%s%s%s" % (d.day, d.month, d.year % 100, sep, num, "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(base) % 31])
    return _until(make, stdhetu.is_valid)


IDS = {
    "us": (["SSN", "social security number", "ssn"], us_ssn, stdssn.is_valid),
    "nl": (["BSN", "burgerservicenummer"], nl_bsn, stdbsn.is_valid),
    "pl": (["PESEL", "numer PESEL"], pl_pesel, stdpesel.is_valid),
    "es": (["DNI", "NIF"], es_dni, stddni.is_valid),
    "br": (["CPF"], br_cpf, stdcpf.is_valid),
    "in": (["Aadhaar", "aadhaar no"], in_aadhaar, stdaadhaar.is_valid),
    "fr": (["NIR", "numéro de sécurité sociale", "n° sécu"], fr_nir, stdnir.is_valid),
    "de": (["Steuer-ID", "steuerliche Identifikationsnummer", "IdNr"], de_idnr, stdidnr.is_valid),
    "ca": (["SIN", "social insurance number"], ca_sin, stdsin.is_valid),
    "fi": (["henkilötunnus", "HETU"], fi_hetu, stdhetu.is_valid),
}


def national(scheme=None):
    """(scheme, label, value)."""
    scheme = scheme or pick(sorted(IDS))
    labels, make, _ = IDS[scheme]
    return scheme, pick(labels), make()


def broken_national(scheme=None):
    """(scheme, label, value) whose check fails: its last digit changed until it does."""
    scheme = scheme or pick([k for k in sorted(IDS) if k not in ("us", "es", "fi")])
    labels, make, ok = IDS[scheme]
    s = make()
    i = max(j for j, c in enumerate(s) if c.isdigit())
    bad = _until(lambda: s[:i] + R.choice(string.digits) + s[i + 1:], lambda t: not ok(t))
    return scheme, pick(labels), bad


def card(valid=True):
    p = pick(["4", "51", "52", "55", "2221", "4532", "4916"])
    body = p + digits(15 - len(p))
    n = body + stdluhn.calc_check_digit(body)
    if not valid:
        n = _until(lambda: n[:15] + R.choice(string.digits), lambda t: not stdluhn.is_valid(t))
    return pick([n, " ".join(n[i:i + 4] for i in range(0, 16, 4)), "-".join(n[i:i + 4] for i in range(0, 16, 4))])


BBAN = {"DE": lambda: digits(18), "FR": lambda: digits(10) + chars(11, string.ascii_uppercase + string.digits) + digits(2),
        "ES": lambda: digits(20), "NL": lambda: pick(["ABNA", "INGB", "RABO"]) + digits(10), "GB": lambda: pick(["NWBK", "BARC", "LOYD"]) + digits(14)}


def iban(country=None, valid=True):
    country = country or pick(sorted(BBAN))
    s = _until(lambda: (lambda b: country + stdiban.calc_check_digits(country + "00" + b) + b)(BBAN[country]()), stdiban.is_valid)
    if not valid:
        s = _until(lambda: s[:2] + "%02d" % R.randint(2, 98) + s[4:], lambda t: not stdiban.is_valid(t))
    return s


# ---- secrets: the vendors of an agent's shell and dotfiles, in their published shapes ------------

VENDORS = {
    "openai": (lambda: "sk-proj-" + chars(58, URLSAFE) + "T3BlbkFJ" + chars(58, URLSAFE), "OPENAI_API_KEY"),
    "anthropic": (lambda: "sk-ant-api03-" + chars(93, URLSAFE) + "AA", "ANTHROPIC_API_KEY"),
    "github_pat": (lambda: "ghp_" + chars(36), "GITHUB_TOKEN"),
    "github_fine": (lambda: "github_pat_11" + chars(20, string.ascii_uppercase + string.digits) + "_" + chars(59), "GH_TOKEN"),
    "gitlab": (lambda: "glpat-" + chars(20, URLSAFE), "GITLAB_TOKEN"),
    "npm": (lambda: "npm_" + chars(36), "NPM_TOKEN"),
    "pypi": (lambda: "pypi-AgEIcHlwaS5vcmc" + chars(60, URLSAFE), "TWINE_PASSWORD"),
    "slack_bot": (lambda: "xoxb-%s-%s-%s" % (digits(11), digits(13), chars(24)), "SLACK_BOT_TOKEN"),
    "stripe": (lambda: "sk_live_" + chars(99), "STRIPE_SECRET_KEY"),
    "sendgrid": (lambda: "SG." + chars(22, URLSAFE) + "." + chars(43, URLSAFE), "SENDGRID_API_KEY"),
    "aws": (lambda: "AKIA" + chars(16, string.ascii_uppercase + "234567"), "AWS_ACCESS_KEY_ID"),
    "google": (lambda: "AIza" + chars(35, URLSAFE), "GOOGLE_API_KEY"),
    "dockerhub": (lambda: "dckr_pat_" + chars(27, URLSAFE), "DOCKERHUB_TOKEN"),
    "hf": (lambda: "hf_" + chars(34, string.ascii_letters), "HF_TOKEN"),
    "doppler": (lambda: "dp.st.prd." + chars(43), "DOPPLER_TOKEN"),
    "digitalocean": (lambda: "dop_v1_" + chars(64, HEX), "DIGITALOCEAN_TOKEN"),
}


def vendor(name=None):
    """(name, env var, token)."""
    name = name or pick(sorted(VENDORS))
    make, env = VENDORS[name]
    return name, env, make()


def aws_secret():
    return chars(40, B62 + "/+")


def password():
    """A password as people make them."""
    word = pick(["Donostia", "Kemper", "Torshavn", "Ljouwert", "Cagliari", "Ajaccio", "Ibadan", "Durban", "Kano", "Rotorua",
                 "Apia", "Nukualofa", "Antsirabe", "Cusco", "Kautokeino", "Erbil", "Madurai", "Kandy", "Sylhet"])
    return pick([
        "%s%d%s" % (word, R.randint(1990, 2026), pick("!#$%&*?@")),
        "%s_%s_%02d" % (word.lower(), pick(["tide", "moss", "kite", "reef", "ember"]), R.randint(0, 99)),
        chars(R.randint(12, 20), B62 + "!@#%^&*-_=+"),
        "%s%s%d" % (word[:5].capitalize(), pick(["#", "!", "$"]), R.randint(100, 99999)),
    ])


def token(n=40, alphabet=B62):
    return chars(n, alphabet)


def _seed_bytes(n):
    return hashlib.sha512(("probe9-key-%d" % R.randint(0, 1 << 30)).encode()).digest()[:n]


def private_key_pem():
    kind = pick(["ed25519", "p256", "p384"])
    if kind == "ed25519":
        k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32))
        fmt = serialization.PrivateFormat.PKCS8
    elif kind == "p256":
        k = ec.derive_private_key((int.from_bytes(_seed_bytes(32), "big") >> 2) | (1 << 253), ec.SECP256R1())
        fmt = pick([serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.TraditionalOpenSSL])
    else:
        k = ec.derive_private_key((int.from_bytes(_seed_bytes(48), "big") >> 2) | (1 << 381), ec.SECP384R1())
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
    return k.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()


def public_key_pem():
    k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32)).public_key()
    return k.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def ssh_public_key():
    k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32)).public_key()
    return k.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


def uuid():
    h = chars(32, HEX)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


def jwt(claims):
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")))
    body = b64url(json.dumps(claims, separators=(",", ":")))
    return "%s.%s.%s" % (head, body, chars(43, URLSAFE))


# ---- dates -------------------------------------------------------------------------------------


def birth_date():
    return _date(1940, 2006)


def when():
    d = datetime.date(2026, R.randint(1, 11), R.randint(1, 28))
    return d.strftime(pick(["%Y-%m-%d", "%d.%m.%Y"]))


def stamp():
    return "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (R.randint(1, 11), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59),
                                                   R.randint(0, 59), R.randint(0, 999))


def host():
    return pick(["db.internal", "pg-prod-2.corp.example.net", "10.4.2.17", "mysql.staging.svc", "rds-eu.example.com",
                 "redis-cache-01", "mongo.shard3.example.org"])


def user():
    return pick(["admin", "deploy", "svc_billing", "root", "app", "etl_writer", "ci-bot", "reporting"])
