"""Value sources of the sixth probe (probe6_rows.py).

Nothing here comes from the corpus generators or the first five probes; only the row bookkeeping
(probe_registry.py) is shared. People come from name lists written for this probe (Catalan,
Icelandic, Welsh, Maltese, Albanian, Serbian, Luxembourgish, Georgian, Ethiopian, Ghanaian,
Jordanian, Ecuadorian and Costa Rican names) and from Faker locales no other generator uses
(Hebrew, Persian, Arabic, Nepali and Thai in their own scripts); mobile numbers from the plans of
sixteen regions no other generator uses, written the way people there write them; identifiers
computed with python-stdnum (Belgian national register number, Croatian OIB, Chilean RUT, Swiss
AHV, Ecuadorian cédula, Austrian SVNR, Argentine CUIT and DNI, Ukrainian RNOKPP); vendor tokens of
vendors no other generator uses, in their published shapes; keys and certificates derived from
seeded bytes with python3-cryptography.
"""

import base64
import datetime
import hashlib
import random
import string

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.x509.oid import NameOID
from faker import Faker
from stdnum import iban as stdiban
from stdnum.ar import cuit as stdcuit
from stdnum.at import vnr as stdvnr
from stdnum.be import nn as stdnn
from stdnum.ch import ssn as stdahv
from stdnum.cl import rut as stdrut
from stdnum.ec import ci as stdci
from stdnum.hr import oib as stdoib
from stdnum.ua import rntrc as stdrntrc

from probe_registry import Registry, drawing, seeded_fakers

SEED = 20261128
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
FAKER_LOCALES = ["he_IL", "fa_IR", "ar_SA", "ne_NP", "th_TH"]
FAKERS = seeded_fakers(Faker, FAKER_LOCALES, SEED)

REG = Registry("probe6", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)

HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
URLSAFE = B62 + "-_"

# ---- people ------------------------------------------------------------------------------------

LISTS = {
    "ca": (["Jordi", "Núria", "Pere", "Montserrat", "Oriol", "Mireia", "Arnau", "Laia", "Xavier", "Meritxell", "Pau", "Roser"],
           ["Puig", "Vidal", "Ferrer", "Soler", "Casals", "Bosch", "Serra", "Vilanova", "Roca", "Pujol", "Sabaté", "Camps"]),
    "is": (["Guðrún", "Sigurður", "Kristín", "Gunnar", "Helga", "Jón", "Sigríður", "Ólafur", "Katrín", "Einar", "Þóra", "Bjarni"],
           ["Jónsdóttir", "Sigurðsson", "Guðmundsdóttir", "Einarsson", "Magnúsdóttir", "Ólafsson", "Stefánsdóttir", "Björnsson"]),
    "cy": (["Gwen", "Rhys", "Ffion", "Dafydd", "Sioned", "Iwan", "Carys", "Gethin", "Elin", "Owain", "Nia", "Huw"],
           ["Pritchard", "ap Llywelyn", "Jones", "Evans", "Price", "Vaughan", "Griffiths", "Prosser", "Bowen", "Lloyd"]),
    "mt": (["Marija", "Ġużeppi", "Rita", "Pawlu", "Doris", "Ċensu", "Anġela", "Mario", "Rosaria", "Kevin"],
           ["Borg", "Camilleri", "Vella", "Farrugia", "Zammit", "Galea", "Micallef", "Grech", "Azzopardi", "Xuereb"]),
    "al": (["Arben", "Elira", "Besnik", "Drita", "Ilir", "Mimoza", "Gentian", "Blerta", "Fatos", "Anila"],
           ["Hoxha", "Shehu", "Krasniqi", "Gashi", "Berisha", "Dervishi", "Leka", "Marku", "Çela", "Kola"]),
    "rs": (["Milica", "Nikola", "Jelena", "Stefan", "Ivana", "Marko", "Dragana", "Nemanja", "Snežana", "Vuk"],
           ["Petrović", "Jovanović", "Nikolić", "Đorđević", "Stojanović", "Ilić", "Marković", "Pavlović", "Živković"]),
    "lu": (["Claude", "Josiane", "Romain", "Nathalie", "Gilles", "Tessy", "Marc", "Carole", "Yves", "Manon"],
           ["Schmit", "Weber", "Hoffmann", "Kieffer", "Wagner", "Thill", "Muller", "Reuter", "Kremer", "Bettendorf"]),
    "ge": (["Nino", "Giorgi", "Tamar", "Levan", "Ketevan", "Davit", "Mariam", "Irakli", "Salome", "Zurab"],
           ["Beridze", "Kapanadze", "Gelashvili", "Maisuradze", "Tsiklauri", "Lomidze", "Japaridze", "Abashidze"]),
    "et": (["Abebe", "Meron", "Tesfaye", "Hirut", "Dawit", "Selamawit", "Yonas", "Bethlehem", "Kebede", "Tigist"],
           ["Bekele", "Tadesse", "Haile", "Girma", "Alemu", "Wolde", "Mengistu", "Desta", "Negash", "Ayele"]),
    "gh": (["Kwame", "Ama", "Kofi", "Akosua", "Yaw", "Efua", "Kwabena", "Abena", "Kojo", "Adwoa"],
           ["Mensah", "Owusu", "Boateng", "Asante", "Appiah", "Agyeman", "Osei", "Darko", "Ofori", "Amponsah"]),
    "jo": (["Rania", "Omar", "Lina", "Khaled", "Dina", "Yazan", "Hala", "Tariq", "Reem", "Faris"],
           ["Haddad", "Al-Masri", "Khoury", "Nasser", "Al-Zoubi", "Qasem", "Hijazi", "Abu Zeid", "Saleh"]),
    "ec": (["María José", "Juan Carlos", "Gabriela", "Andrés", "Paola", "Santiago", "Verónica", "Diego", "Daniela"],
           ["Cevallos", "Andrade", "Guamán", "Zambrano", "Villacís", "Quishpe", "Moreira", "Paredes", "Salazar"]),
    "cr": (["Marisol", "Esteban", "Karla", "Mauricio", "Adriana", "Randall", "Yendry", "Greivin", "Mariela"],
           ["Solís", "Vargas", "Mora", "Jiménez", "Rojas", "Araya", "Quesada", "Chaves", "Alfaro", "Brenes"]),
}
FAKER_OF = {"he": "he_IL", "fa": "fa_IR", "ar": "ar_SA", "ne": "ne_NP", "th": "th_TH"}
ORIGINS = sorted(LISTS) + sorted(FAKER_OF)
LATIN = sorted(LISTS)


def person(origin=None):
    """(first, last) of an origin."""
    origin = origin or pick(ORIGINS)
    if origin in LISTS:
        firsts, lasts = LISTS[origin]
        return pick(firsts), pick(lasts)
    f = FAKERS[FAKER_OF[origin]]
    while True:
        # ar_SA's list of female names holds a heading ("names of girls and their meanings:"), no name.
        first, last = f.first_name(), f.last_name()
        if ":" not in first + last:
            return first, last


def full(first, last, origin=None):
    """The name as written in the origin's order (Thai, Hebrew, Persian, Arabic and Nepali given
    name first, as the Latin ones)."""
    return "%s %s" % (first, last)


_FOLD = str.maketrans({"ð": "d", "þ": "th", "Þ": "Th", "æ": "ae", "ø": "o", "đ": "dj", "Đ": "Dj", "ł": "l",
                       "ġ": "g", "ċ": "c", "ż": "z", "ħ": "h", "ç": "c", "ë": "e"})


def fold(s):
    import unicodedata
    s = s.translate(_FOLD)
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s.lower() if c.isascii() and (c.isalnum() or c in ".-"))


MAIL_HOSTS = {"ca": ["telefonica.net", "xtec.cat"], "is": ["simnet.is", "visir.is"], "cy": ["btinternet.com", "sky.com"],
              "mt": ["maltanet.net", "go.net.mt"], "al": ["abcom.al", "yahoo.com"], "rs": ["eunet.rs", "mts.rs"],
              "lu": ["pt.lu", "internet.lu"], "ge": ["mail.ge", "yahoo.com"], "et": ["ethionet.et", "yahoo.com"],
              "gh": ["yahoo.co.uk", "gmail.com"], "jo": ["orange.jo", "hotmail.com"], "ec": ["hotmail.es", "yahoo.es"],
              "cr": ["racsa.co.cr", "ice.co.cr"]}
TRANSLIT = {"he": ["Yossi", "Dana", "Moshe", "Ronit", "Amir", "Orly"], "fa": ["Reza", "Maryam", "Ali", "Zahra", "Hossein"],
            "ar": ["Fahad", "Noura", "Saad", "Hessa", "Turki"], "ne": ["Ramesh", "Sita", "Bishnu", "Anjali", "Prakash"],
            "th": ["Somchai", "Nattaya", "Anan", "Kanya", "Prasert"]}


def email(first, last, origin=None):
    """An address made from the name (for names in a non-Latin script, a Latin spelling a person of
    that origin might use)."""
    f, l = fold(first.split()[0]), fold(last.split()[-1])
    if not f or not l:
        f, l = fold(pick(TRANSLIT.get(origin, ["user"]))), "%s%d" % (pick(["k", "m", "s", "a"]), R.randint(10, 99))
    local = pick(["%s.%s" % (f, l), "%s_%s" % (f, l), "%s%s" % (f[:1], l), "%s.%s%d" % (l, f[:1], R.randint(1, 99)),
                  "%s%d" % (f, R.randint(1970, 2005))])
    return "%s@%s" % (local, pick(MAIL_HOSTS.get(origin, ["yahoo.com", "gmail.com"]) + ["gmail.com", "proton.me"]))


# ---- phones: mobile plans of the regions, written as people there write them --------------------


def _grp(n, *sizes):
    out, i = [], 0
    for s in sizes:
        out.append(n[i:i + s])
        i += s
    return tuple(out)


def _persian_digits(s):
    return s.translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))


MOBILE = {
    "IS": ("354", lambda: pick(["611", "612", "615", "618", "690", "691", "694", "770", "772", "776", "780", "783", "846",
                                "849", "856", "862", "895", "897"]) + digits(4),
           lambda n: pick(["%s %s" % _grp(n, 3, 4), "+354 %s %s" % _grp(n, 3, 4), "+354%s" % n, "%s-%s" % _grp(n, 3, 4)])),
    "MT": ("356", lambda: pick(["79", "99", "77"]) + digits(6),
           lambda n: pick(["%s %s" % _grp(n, 4, 4), "+356 %s %s" % _grp(n, 4, 4), "(+356) %s" % n])),
    "AL": ("355", lambda: pick(["67", "68", "69"]) + R.choice("23456789") + digits(6),
           lambda n: pick(["0%s %s %s" % _grp(n, 2, 3, 4), "+355 %s %s %s" % _grp(n, 2, 3, 4), "+355 (0)%s %s" % _grp(n, 2, 7)])),
    "RS": ("381", lambda: "6" + R.choice("0123459") + digits(7),
           lambda n: pick(["0%s/%s-%s" % _grp(n, 2, 3, 4), "+381 %s %s %s" % _grp(n, 2, 3, 4), "0%s %s" % _grp(n, 2, 7)])),
    "IR": ("98", lambda: pick(["912", "913", "919", "935", "936", "937", "901", "902", "921"]) + digits(7),
           lambda n: pick(["0%s %s %s" % _grp(n, 3, 3, 4), "+98 %s %s %s" % _grp(n, 3, 3, 4), _persian_digits("0%s%s" % _grp(n, 3, 7)),
                           _persian_digits("0%s %s %s" % _grp(n, 3, 3, 4))])),
    "NP": ("977", lambda: pick(["980", "981", "982", "984", "985", "986", "974", "975"]) + digits(7),
           lambda n: pick(["%s-%s" % _grp(n, 3, 7), "+977 %s" % n, "+977-%s-%s" % _grp(n, 3, 7)])),
    "LU": ("352", lambda: pick(["621", "628", "661", "668", "691", "698", "651", "671"]) + digits(6),
           lambda n: pick(["%s %s %s" % _grp(n, 3, 3, 3), "+352 %s %s %s" % _grp(n, 3, 3, 3), "+352 %s" % n])),
    "GE": ("995", lambda: pick(["555", "557", "558", "568", "571", "574", "577", "579", "591", "593", "595", "597", "599"]) + digits(6),
           lambda n: pick(["%s %s %s %s" % _grp(n, 3, 2, 2, 2), "+995 %s %s %s %s" % _grp(n, 3, 2, 2, 2), "(+995) %s-%s-%s" % _grp(n, 3, 3, 3)])),
    "ET": ("251", lambda: "9" + pick(["1", "2", "3", "4", "6", "7"]) + digits(7),
           lambda n: pick(["0%s %s %s" % _grp(n, 3, 3, 3), "+251 %s %s %s" % _grp(n, 2, 3, 4), "+251-%s" % n])),
    "GH": ("233", lambda: pick(["24", "54", "55", "20", "27", "50", "26", "57"]) + digits(7),
           lambda n: pick(["0%s %s %s" % _grp(n, 2, 3, 4), "+233 %s %s %s" % _grp(n, 2, 3, 4), "0%s-%s" % _grp(n, 2, 7)])),
    "JO": ("962", lambda: pick(["77", "78", "79"]) + R.choice("5679") + digits(6),
           lambda n: pick(["0%s %s %s" % _grp(n, 2, 3, 4), "+962 %s %s %s" % _grp(n, 1, 4, 4), "00962%s" % n])),
    "QA": ("974", lambda: R.choice("3567") + digits(7),
           lambda n: pick(["%s %s" % _grp(n, 4, 4), "+974 %s %s" % _grp(n, 4, 4), "+974-%s" % n])),
    "TW": ("886", lambda: "9" + R.choice("012345678") + digits(7),
           lambda n: pick(["0%s-%s-%s" % _grp(n, 3, 3, 3), "+886 %s %s %s" % _grp(n, 3, 3, 3), "0%s %s" % _grp(n, 3, 6)])),
    "EC": ("593", lambda: "9" + pick(["8", "9", "60", "61", "62", "67", "69", "78", "79", "58", "59", "39"]),
           lambda n: pick(["0%s %s %s" % _grp(n, 2, 3, 4), "+593 %s %s %s" % _grp(n, 2, 3, 4), "0%s-%s" % _grp(n, 2, 7)])),
    "CR": ("506", lambda: pick(["83", "84", "85", "86", "87", "88", "89", "60", "61", "62", "70", "71", "72"]) + digits(6),
           lambda n: pick(["%s-%s" % _grp(n, 4, 4), "+506 %s %s" % _grp(n, 4, 4), "(506) %s-%s" % _grp(n, 4, 4)])),
    "KZ": ("7", lambda: pick(["701", "702", "705", "707", "747", "771", "775", "776", "777", "778"]) + digits(7),
           lambda n: pick(["8 (%s) %s %s %s" % _grp(n, 3, 3, 2, 2), "+7 %s %s %s %s" % _grp(n, 3, 3, 2, 2), "+7%s" % n])),
}
PHONE_OF = {"is": "IS", "mt": "MT", "al": "AL", "rs": "RS", "fa": "IR", "ne": "NP", "lu": "LU", "ge": "GE", "et": "ET",
            "gh": "GH", "jo": "JO", "ec": "EC", "cr": "CR"}
PHONES_SEEN = []


def phone(region=None):
    """(region, national significant number, the number as written there)."""
    region = region or pick(sorted(MOBILE))
    cc, gen, write = MOBILE[region]
    n = gen()
    if region == "EC":  # the plan's prefixes differ in length; the number has nine digits
        n += digits(9 - len(n))
    s = write(n)
    PHONES_SEEN.append((region, s))
    return region, n, s


def phone_of(origin):
    return phone(PHONE_OF.get(origin))[2]


# ---- identifiers, made until python-stdnum says valid (or, for bad ones, until it says not) -----


def _until(make, ok):
    while True:
        s = make()
        if ok(s):
            return s


def _date(lo=1950, hi=2005):
    return datetime.date(R.randint(lo, hi), R.randint(1, 12), R.randint(1, 28))


def be_nn():
    def make():
        d = _date(1950, 1999)
        base = "%02d%02d%02d%03d" % (d.year % 100, d.month, d.day, R.randint(1, 997))
        c = 97 - int(base) % 97
        s = base + "%02d" % c
        return "%s.%s.%s-%s.%s" % (s[:2], s[2:4], s[4:6], s[6:9], s[9:])
    return _until(make, stdnn.is_valid)


def hr_oib():
    def make():
        base = R.choice("123456789") + digits(9)
        for c in string.digits:
            if stdoib.is_valid(base + c):
                return base + c
        return base + "0"
    return _until(make, stdoib.is_valid)


def cl_rut():
    def make():
        n = str(R.randint(5000000, 25999999))
        s = n + stdrut.calc_check_digit(n)
        return stdrut.format(s)
    return _until(make, stdrut.is_valid)


def ch_ahv():
    def make():
        base = "756" + digits(9)
        total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(base))
        s = base + str((10 - total % 10) % 10)
        return "%s.%s.%s.%s" % (s[:3], s[3:7], s[7:11], s[11:])
    return _until(make, stdahv.is_valid)


def ec_ci():
    def make():
        base = "%02d" % R.randint(1, 24) + R.choice("012345") + digits(6)
        for c in string.digits:
            if stdci.is_valid(base + c):
                return base + c
        return base + "0"
    return _until(make, stdci.is_valid)


def at_svnr():
    def make():
        d = _date()
        base = R.choice("123456789") + digits(2)
        tail = "%02d%02d%02d" % (d.day, d.month, d.year % 100)
        s = base + stdvnr.calc_check_digit(base + "0" + tail) + tail
        return "%s %s" % (s[:4], s[4:])
    return _until(make, stdvnr.is_valid)


def ar_cuit():
    def make():
        base = pick(["20", "27", "23"]) + "%08d" % R.randint(10000000, 45999999)
        s = base + stdcuit.calc_check_digit(base)
        return "%s-%s-%s" % (s[:2], s[2:10], s[10:])
    return _until(make, stdcuit.is_valid)


def ar_dni():
    n = "%d" % R.randint(12000000, 45999999)
    return pick(["%s.%s.%s" % (n[:2], n[2:5], n[5:]), n])


def ua_rntrc():
    def make():
        base = R.choice("123") + digits(8)
        return base + stdrntrc.calc_check_digit(base)
    return _until(make, stdrntrc.is_valid)


# The scheme's names as people of the country write them, with the maker.
IDS = {
    "be": (["numéro de registre national", "rijksregisternummer", "NISS", "INSZ"], be_nn),
    "hr": (["OIB", "osobni identifikacijski broj"], hr_oib),
    "cl": (["RUT", "RUN", "Rol Único Tributario"], cl_rut),
    "ch": (["AHV-Nr.", "numéro AVS", "AHV number", "N. AVS"], ch_ahv),
    "ec": (["cédula de identidad", "C.I.", "cédula"], ec_ci),
    "at": (["Sozialversicherungsnummer", "SV-Nummer", "SVNR"], at_svnr),
    "ar": (["CUIT", "CUIL"], ar_cuit),
    "ar_dni": (["DNI", "D.N.I."], ar_dni),
    "ua": (["РНОКПП", "RNOKPP", "ідентифікаційний код", "ІПН"], ua_rntrc),
}
CHECKED = {"be": stdnn.is_valid, "hr": stdoib.is_valid, "cl": stdrut.is_valid, "ch": stdahv.is_valid,
           "ec": stdci.is_valid, "at": stdvnr.is_valid, "ar": stdcuit.is_valid, "ua": stdrntrc.is_valid}


def national(scheme=None):
    """(label, value) of a scheme."""
    scheme = scheme or pick(sorted(IDS))
    labels, make = IDS[scheme]
    return pick(labels), make()


def broken_national(scheme=None):
    """(label, value) of a scheme with a check that fails: the last digit changed until it does."""
    scheme = scheme or pick(sorted(CHECKED))
    labels, make = IDS[scheme]
    s = make()
    i = max(j for j, c in enumerate(s) if c.isdigit())
    bad = _until(lambda: s[:i] + R.choice(string.digits) + s[i + 1:], lambda t: not CHECKED[scheme](t))
    return pick(labels), bad


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


def card(valid=True):
    p = pick(["4", "52", "54", "2223", "6011", "3530", "4026", "4508"])
    n = luhn_complete(p + digits(15 - len(p)))
    if not valid:
        n = n[:15] + str((int(n[15]) + R.randint(1, 9)) % 10)
    return pick([" ".join(n[i:i + 4] for i in range(0, 16, 4)), n, "-".join(n[i:i + 4] for i in range(0, 16, 4))])


BBAN = {"IS": lambda: digits(22), "MT": lambda: pick(["MALT", "VALL", "APSB"]) + digits(5) + digits(18),
        "AL": lambda: digits(8) + digits(16), "RS": lambda: digits(18), "LU": lambda: digits(3) + digits(13),
        "GE": lambda: pick(["TB", "BG"]) + digits(16), "JO": lambda: pick(["CBJO", "ARAB"]) + digits(4) + digits(18),
        "QA": lambda: pick(["QNBA", "DOHB"]) + digits(21), "CR": lambda: "0" + digits(17), "KZ": lambda: digits(3) + digits(13),
        "BE": lambda: digits(12), "HR": lambda: digits(17), "CH": lambda: digits(5) + digits(12), "AT": lambda: digits(16)}


def iban(country=None, valid=True):
    """An IBAN of the country, valid for python-stdnum, or with check digits that fail mod 97."""
    country = country or pick(sorted(BBAN))
    s = _until(lambda: (lambda b: country + stdiban.calc_check_digits(country + "00" + b) + b)(BBAN[country]()), stdiban.is_valid)
    if not valid:
        s = _until(lambda: s[:2] + "%02d" % R.randint(2, 98) + s[4:], lambda t: not stdiban.is_valid(t))
    return pick([s, " ".join(s[i:i + 4] for i in range(0, len(s), 4))])


# ---- secrets: vendors no other generator uses, in their published shapes -------------------------

VENDORS = {
    "sentry_user": (lambda: "sntryu_" + chars(64, HEX), "SENTRY_AUTH_TOKEN"),
    "mapbox_secret": (lambda: "sk.eyJ1Ijoi" + chars(R.randint(40, 60), URLSAFE) + "." + chars(22, URLSAFE), "MAPBOX_SECRET_TOKEN"),
    "netlify": (lambda: "nfp_" + chars(36), "NETLIFY_AUTH_TOKEN"),
    "planetscale": (lambda: "pscale_tkn_" + chars(43, URLSAFE), "PLANETSCALE_SERVICE_TOKEN"),
    "pulumi": (lambda: "pul-" + chars(40, HEX), "PULUMI_ACCESS_TOKEN"),
    "terraform_cloud": (lambda: chars(14) + ".atlasv1." + chars(67, URLSAFE), "TFE_TOKEN"),
    "rubygems": (lambda: "rubygems_" + chars(48, HEX), "GEM_HOST_API_KEY"),
    "nuget": (lambda: "oy2" + chars(43, string.ascii_lowercase + string.digits), "NUGET_API_KEY"),
    "airtable": (lambda: "pat" + chars(14) + "." + chars(64, HEX), "AIRTABLE_API_KEY"),
    "figma": (lambda: "figd_" + chars(40, URLSAFE), "FIGMA_TOKEN"),
    "shippo": (lambda: "shippo_live_" + chars(40, HEX), "SHIPPO_API_KEY"),
    "flutterwave": (lambda: "FLWSECK-" + chars(32, HEX) + "-X", "FLW_SECRET_KEY"),
    "razorpay": (lambda: "rzp_live_" + chars(14), "RAZORPAY_KEY_ID"),
    "dynatrace": (lambda: "dt0c01." + chars(24, string.ascii_uppercase + "234567") + "." + chars(64, string.ascii_uppercase + "234567"), "DT_API_TOKEN"),
    "contentful": (lambda: "CFPAT-" + chars(43, URLSAFE), "CONTENTFUL_MANAGEMENT_TOKEN"),
    "bitbucket": (lambda: "ATBB" + chars(32) + chars(8, "0123456789ABCDEF"), "BITBUCKET_APP_PASSWORD"),
    "alibaba": (lambda: "LTAI" + chars(20), "ALIBABA_CLOUD_ACCESS_KEY_ID"),
    "tencent": (lambda: "AKID" + chars(32), "TENCENTCLOUD_SECRET_ID"),
    "flyio": (lambda: "fo1_" + chars(43, URLSAFE), "FLY_API_TOKEN"),
    "prefect": (lambda: "pnu_" + chars(36), "PREFECT_API_KEY"),
    "typeform": (lambda: "tfp_" + chars(44, URLSAFE) + "_" + chars(14, URLSAFE), "TYPEFORM_TOKEN"),
    "adafruit": (lambda: "aio_" + chars(28), "ADAFRUIT_IO_KEY"),
    "readme": (lambda: "rdme_" + chars(70, string.ascii_lowercase + string.digits), "README_API_KEY"),
    "easypost": (lambda: "EZAK" + chars(54), "EASYPOST_API_KEY"),
}


def vendor(name=None):
    """(name, env var, token)."""
    name = name or pick(sorted(VENDORS))
    make, env = VENDORS[name]
    return name, env, make()


def password():
    """A password as people make them."""
    word = pick(["Barcelona", "Reykjavik", "Hiraeth", "Gozo", "Tirana", "Beograd", "Kachelsmeier", "Tbilisi", "Injera",
                 "Akwaaba", "Petra", "Cotopaxi", "Pura", "Sunbird", "Lilja", "Ffordd"])
    return pick([
        "%s%d%s" % (word, R.randint(1990, 2027), pick("!#$%&*?@")),
        "%s_%s%02d" % (word.lower(), pick(["casa", "hus", "ty", "dar", "shtepi", "kuca"]), R.randint(0, 99)),
        chars(R.randint(10, 18), B62 + "!@#%^&*-_=+"),
        "%s%s%s%d" % (pick(["Molt", "Takk", "Diolch", "Grazzi", "Faleminderit", "Hvala"]), pick(["Be", "Fyrir", "Yn", "Hafna", "Shume"]),
                      pick("@#!.$"), R.randint(10, 9999)),
    ])


def token(n=40, alphabet=B62):
    return chars(n, alphabet)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def _seed_bytes(n):
    return hashlib.sha256(("probe6-key-%d" % R.randint(0, 1 << 30)).encode()).digest()[:n]


def private_key(kind=None):
    kind = kind or pick(["ed25519", "ec"])
    if kind == "ed25519":
        return ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32))
    return ec.derive_private_key(int.from_bytes(_seed_bytes(32), "big") % (2 ** 255) + 1, ec.SECP256R1())


def private_key_pem(kind=None):
    k = private_key(kind)
    fmt = serialization.PrivateFormat.PKCS8
    if isinstance(k, ec.EllipticCurvePrivateKey) and R.random() < 0.5:
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
    return k.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()


def certificate_pem():
    """A self-signed certificate (public) from a seeded key, with fixed dates and serial, as
    kubeconfig's certificate-authority-data carries one."""
    k = ed25519.Ed25519PrivateKey.from_private_bytes(_seed_bytes(32))
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, pick(["kubernetes", "cluster-ca", "etcd-ca", "front-proxy-ca"]))])
    start = datetime.datetime(2026, R.randint(1, 12), R.randint(1, 28))
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(k.public_key())
            .serial_number(R.getrandbits(64) + 1).not_valid_before(start).not_valid_after(start + datetime.timedelta(days=3650))
            .sign(k, None))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def public_key_text():
    k = private_key("ed25519").public_key()
    return pick([k.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
                 k.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode() + " deploy@ci"])


def uuid():
    h = chars(32, HEX)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


# ---- dates -------------------------------------------------------------------------------------

MONTHS = {
    "ca": ["de gener", "de febrer", "de març", "d'abril", "de maig", "de juny", "de juliol", "d'agost", "de setembre",
           "d'octubre", "de novembre", "de desembre"],
    "is": ["janúar", "febrúar", "mars", "apríl", "maí", "júní", "júlí", "ágúst", "september", "október", "nóvember", "desember"],
    "cy": ["Ionawr", "Chwefror", "Mawrth", "Ebrill", "Mai", "Mehefin", "Gorffennaf", "Awst", "Medi", "Hydref", "Tachwedd", "Rhagfyr"],
    "mt": ["Jannar", "Frar", "Marzu", "April", "Mejju", "Ġunju", "Lulju", "Awwissu", "Settembru", "Ottubru", "Novembru", "Diċembru"],
    "al": ["janar", "shkurt", "mars", "prill", "maj", "qershor", "korrik", "gusht", "shtator", "tetor", "nëntor", "dhjetor"],
    "rs": ["januar", "februar", "mart", "april", "maj", "jun", "jul", "avgust", "septembar", "oktobar", "novembar", "decembar"],
    "en": ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
}


def birth(fmt=None, lang=None):
    d = _date(1940, 2008)
    if lang in MONTHS:
        sep = "." if lang == "is" else ""
        return "%d%s %s %d" % (d.day, sep, MONTHS[lang][d.month - 1], d.year)
    return d.strftime(fmt or pick(["%d.%m.%Y", "%d/%m/%Y", "%Y-%m-%d", "%d-%m-%Y"]))


def when():
    d = datetime.date(2026, R.randint(1, 12), R.randint(1, 28))
    return d.strftime(pick(["%d.%m.%Y", "%Y-%m-%d", "%d/%m/%Y"]))
