"""Value sources of the seventh probe (probe7_rows.py).

Nothing here comes from the corpus generators or the first six probes; only the row bookkeeping
(probe_registry.py) is shared. People come from name lists written for this probe (Lithuanian,
Slovene, Ukrainian, Moldovan, Armenian, Azerbaijani, Uzbek, Mongolian, Khmer, Senegalese,
Cameroonian, Ivorian, Tunisian, Algerian, Bolivian, Paraguayan, Panamanian, Guatemalan and
Dominican names) and from Faker's Palestinian Arabic locale, which no other generator uses; mobile
numbers from the plans of regions no other generator uses, and German numbers written as one run of
digits after the country code; identifiers computed with python-stdnum (Lithuanian asmens kodas,
Icelandic kennitala, Slovene EMŠO, NHS number, Peruvian CUI); tokens of vendors no other generator
uses, in their published shapes; keys of kinds no other probe uses (X25519, Ed448, P-384, P-521)
derived from seeded bytes with python3-cryptography.
"""

import base64
import datetime
import hashlib
import random
import string
import unicodedata

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, x25519
from faker import Faker
from stdnum import iban as stdiban
from stdnum.gb import nhs as stdnhs
from stdnum.is_ import kennitala as stdkt
from stdnum.lt import asmens as stdasmens
from stdnum.pe import cui as stdcui
from stdnum.si import emso as stdemso

from probe_registry import Registry, drawing, seeded_fakers

SEED = 20261207
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
FAKER_LOCALES = ["ar_PS"]
FAKERS = seeded_fakers(Faker, FAKER_LOCALES, SEED)

REG = Registry("probe7", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)

HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
URLSAFE = B62 + "-_"

# ---- people ------------------------------------------------------------------------------------

LISTS = {
    "lt": (["Rasa", "Mindaugas", "Eglė", "Tomas", "Jurgita", "Darius", "Aušra", "Vytautas", "Gintarė", "Saulius"],
           ["Kazlauskienė", "Petrauskas", "Jankauskaitė", "Stankevičius", "Vasiliauskas", "Žukauskienė", "Butkus", "Paulauskas"]),
    "sl": (["Jana", "Matej", "Urška", "Rok", "Maja", "Luka", "Nina", "Žiga", "Tjaša", "Gregor"],
           ["Novak", "Horvat", "Kranjc", "Zupančič", "Potočnik", "Kovačič", "Mlakar", "Vidmar", "Golob", "Turk"]),
    "ua": (["Oksana", "Taras", "Iryna", "Bohdan", "Olena", "Andrii", "Yuliia", "Serhii", "Nataliia", "Dmytro"],
           ["Shevchenko", "Kovalenko", "Bondarenko", "Tkachenko", "Kravchuk", "Oliinyk", "Melnyk", "Lysenko", "Hnatiuk"]),
    "uk_cyr": (["Оксана", "Тарас", "Ірина", "Богдан", "Олена", "Андрій", "Юлія", "Сергій"],
               ["Шевченко", "Коваленко", "Бондаренко", "Ткаченко", "Кравчук", "Олійник", "Мельник", "Лисенко"]),
    "md": (["Ion", "Ana", "Vasile", "Doina", "Sergiu", "Cristina", "Victor", "Natalia", "Dorin", "Ludmila"],
           ["Rusu", "Ceban", "Ciobanu", "Țurcanu", "Cojocaru", "Munteanu", "Lungu", "Bivol", "Spînu", "Guțu"]),
    "am": (["Anahit", "Armen", "Lusine", "Tigran", "Narine", "Hayk", "Gayane", "Aram", "Siranush", "Vardan"],
           ["Hakobyan", "Grigoryan", "Sargsyan", "Petrosyan", "Harutyunyan", "Vardanyan", "Karapetyan", "Avetisyan"]),
    "az": (["Aysel", "Elvin", "Günel", "Rashad", "Leyla", "Tural", "Nigar", "Orkhan", "Sevinj", "Kamran"],
           ["Mammadov", "Aliyeva", "Huseynov", "Hasanova", "Guliyev", "Ismayilova", "Jafarov", "Abbasova"]),
    "uz": (["Dilnoza", "Jasur", "Malika", "Sardor", "Nodira", "Bekzod", "Gulnora", "Otabek", "Zarina", "Akmal"],
           ["Karimov", "Yusupova", "Rakhimov", "Tashkentova", "Abdullaev", "Ergasheva", "Nazarov", "Mirzaeva"]),
    "mn": (["Bolormaa", "Bat-Erdene", "Oyuntsetseg", "Ganbaatar", "Enkhjargal", "Temuulen", "Sarangerel", "Munkhbat"],
           ["Batbayar", "Dorjsuren", "Tsend", "Ochirbat", "Gantulga", "Purevdorj", "Erdenebileg", "Sukhbaatar"]),
    "kh": (["Sokha", "Dara", "Sreymom", "Vanna", "Chantha", "Piseth", "Bopha", "Rithy", "Sophea", "Veasna"],
           ["Chea", "Sok", "Heng", "Meas", "Pich", "Keo", "Chan", "Ly", "Prum", "Sam"]),
    "sn": (["Awa", "Mamadou", "Fatou", "Cheikh", "Aminata", "Ousmane", "Ndèye", "Modou", "Khady", "Ibrahima"],
           ["Diop", "Ndiaye", "Fall", "Sow", "Gueye", "Faye", "Sarr", "Mbaye", "Cissé", "Thiam"]),
    "cm": (["Nadège", "Emmanuel", "Brigitte", "Serge", "Clarisse", "Achille", "Solange", "Hervé", "Mireille"],
           ["Mbarga", "Ngono", "Tchoupo", "Essomba", "Fotso", "Nkoulou", "Abena", "Kamga", "Ateba", "Nana"]),
    "ci": (["Adjoua", "Koffi", "Aya", "Yao", "Affoué", "Kouadio", "Ahou", "Konan", "Mariam", "Drissa"],
           ["Kouassi", "N'Guessan", "Koné", "Ouattara", "Bamba", "Yao", "Kouamé", "Traoré", "Coulibaly", "Soro"]),
    "tn": (["Amira", "Mehdi", "Sarra", "Wassim", "Ines", "Aymen", "Rim", "Skander", "Olfa", "Hamza"],
           ["Ben Salah", "Trabelsi", "Gharbi", "Jebali", "Mejri", "Hammami", "Ayari", "Bouazizi", "Chaabane"]),
    "dz": (["Yasmine", "Karim", "Lamia", "Sofiane", "Nadia", "Riad", "Samira", "Walid", "Houria", "Amine"],
           ["Benali", "Boumediene", "Cherif", "Haddad", "Mansouri", "Belkacem", "Saadi", "Zerrouki", "Khelifi"]),
    "bo": (["Wilma", "Freddy", "Roxana", "Limbert", "Gladys", "Edwin", "Ximena", "Grover", "Jhanet", "Rodrigo"],
           ["Mamani", "Quispe", "Choque", "Condori", "Flores", "Apaza", "Vargas", "Gutiérrez", "Huanca", "Ticona"]),
    "py": (["Liz", "Derlis", "Nilda", "Osvaldo", "Araceli", "Hugo", "Mirian", "Aníbal", "Perla", "Fredy"],
           ["Benítez", "Giménez", "Báez", "Ortiz", "Duarte", "Villalba", "Cabañas", "Acosta", "Insfrán", "Ayala"]),
    "pa": (["Yariela", "Rubén", "Itzel", "Abdiel", "Yarisel", "Eric", "Anayansi", "Rolando", "Maribel"],
           ["De León", "Castillo", "Batista", "Pinzón", "Caballero", "Quintero", "Saldaña", "Rodríguez", "Barría"]),
    "gt": (["Ana Lucía", "José Luis", "Mayra", "Byron", "Heidy", "Otto", "Lesbia", "Estuardo", "Wendy"],
           ["Ajú", "Tzoc", "Xicará", "Cifuentes", "Monterroso", "Barrios", "Coyoy", "Juárez", "Ixcot"]),
    "do": (["Yokasta", "Wander", "Rosanna", "Yunior", "Altagracia", "Franklin", "Yudelka", "Ramón", "Mildred"],
           ["De los Santos", "Peña", "Almonte", "Taveras", "Rosario", "Mejía", "Encarnación", "Polanco", "Féliz"]),
}
ORIGINS = sorted(LISTS) + ["ps"]
LATIN = sorted(k for k in LISTS if k != "uk_cyr")


def person(origin=None):
    """(first, last) of an origin."""
    origin = origin or pick(ORIGINS)
    if origin in LISTS:
        firsts, lasts = LISTS[origin]
        return pick(firsts), pick(lasts)
    f = FAKERS["ar_PS"]
    while True:
        first, last = f.first_name(), f.last_name()
        if ":" not in first + last:
            return first, last


def full(first, last):
    return "%s %s" % (first, last)


_FOLD = str.maketrans({"ė": "e", "ž": "z", "š": "s", "č": "c", "ț": "t", "ș": "s", "î": "i", "ü": "u", "ğ": "g",
                       "'": "", "ç": "c"})
_CYR = str.maketrans({"О": "O", "о": "o", "к": "k", "с": "s", "а": "a", "н": "n", "Т": "T", "р": "r", "І": "I", "и": "y",
                      "і": "i", "Б": "B", "г": "h", "д": "d", "е": "e", "л": "l", "А": "A", "й": "i", "Ю": "Yu", "я": "ia",
                      "С": "S", "ї": "i", "Ш": "Sh", "в": "v", "ч": "ch", "К": "K", "М": "M", "ь": "", "Л": "L", "ц": "ts",
                      "т": "t", "у": "u", "ю": "iu", "б": "b", "ш": "sh", "ж": "zh", "х": "kh", "п": "p", "м": "m", "з": "z",
                      "ф": "f", "щ": "shch", "є": "ie", "Р": "R", "Е": "E", "Є": "Ye"})


def fold(s):
    s = s.translate(_CYR).translate(_FOLD)
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s.lower() if c.isascii() and (c.isalnum() or c in ".-"))


MAIL_HOSTS = {"lt": ["one.lt", "takas.lt"], "sl": ["siol.net", "t-2.net"], "ua": ["ukr.net", "i.ua"], "uk_cyr": ["ukr.net", "meta.ua"],
              "md": ["mail.md", "yandex.ru"], "am": ["mail.am", "yandex.ru"], "az": ["mail.az", "box.az"], "uz": ["mail.uz", "inbox.uz"],
              "mn": ["yahoo.com", "mongol.net"], "kh": ["online.com.kh", "yahoo.com"], "sn": ["orange.sn", "yahoo.fr"],
              "cm": ["yahoo.fr", "camtel.cm"], "ci": ["aviso.ci", "yahoo.fr"], "tn": ["topnet.tn", "planet.tn"],
              "dz": ["djaweb.dz", "yahoo.fr"], "bo": ["entelnet.bo", "hotmail.com"], "py": ["tigo.com.py", "hotmail.com"],
              "pa": ["cwpanama.net", "hotmail.com"], "gt": ["intelnet.net.gt", "yahoo.com"], "do": ["claro.net.do", "hotmail.com"]}
ROMAN = ["Nader", "Layla", "Samer", "Hiba", "Yousef", "Rana"]


def email(first, last, origin=None):
    f, l = fold(first.split()[0]), fold(last.split()[-1])
    if not f or not l:
        f, l = fold(pick(ROMAN)), "%s%d" % (pick(["h", "q", "z"]), R.randint(10, 99))
    local = pick(["%s.%s" % (f, l), "%s%s" % (f, l), "%s_%s%d" % (l, f[:1], R.randint(1, 99)), "%s.%s" % (f[:1], l),
                  "%s%02d" % (f, R.randint(0, 99))])
    return "%s@%s" % (local, pick(MAIL_HOSTS.get(origin, ["hotmail.com"]) + ["outlook.com", "gmx.net"]))


# ---- phones: mobile plans of the regions, written as people there write them --------------------


def _g(n, *sizes):
    out, i = [], 0
    for s in sizes:
        out.append(n[i:i + s])
        i += s
    return tuple(out)


MOBILE = {
    "SI": ("386", lambda: pick(["30", "31", "40", "41", "51", "64", "68", "69", "70", "71"]) + digits(6),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 3), "+386 %s %s %s" % _g(n, 2, 3, 3), "+386 (0)%s %s-%s" % _g(n, 2, 3, 3)])),
    "LT": ("370", lambda: "6" + digits(7),
           lambda n: pick(["8 %s %s" % _g(n, 3, 5), "+370 %s %s" % _g(n, 3, 5), "8-%s-%s" % _g(n, 3, 5)])),
    "UA": ("380", lambda: pick(["50", "63", "66", "67", "68", "73", "93", "95", "96", "97", "98", "99"]) + digits(7),
           lambda n: pick(["0%s %s %s %s" % _g(n, 2, 3, 2, 2), "+380 (%s) %s-%s-%s" % _g(n, 2, 3, 2, 2), "(0%s) %s %s %s" % _g(n, 2, 3, 2, 2)])),
    "MD": ("373", lambda: pick(["60", "67", "68", "69", "78", "79"]) + digits(6),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 3), "+373 %s %s %s" % _g(n, 2, 3, 3), "+373-%s-%s" % _g(n, 2, 6)])),
    "AM": ("374", lambda: pick(["55", "77", "91", "93", "94", "95", "96", "98", "99"]) + digits(6),
           lambda n: pick(["0%s %s %s %s" % _g(n, 2, 2, 2, 2), "+374 %s %s %s %s" % _g(n, 2, 2, 2, 2), "(0%s) %s" % _g(n, 2, 6)])),
    "AZ": ("994", lambda: pick(["50", "51", "55", "70", "77", "99"]) + R.choice("23456789") + digits(6),
           lambda n: pick(["0%s %s %s %s" % _g(n, 2, 3, 2, 2), "+994 %s %s %s %s" % _g(n, 2, 3, 2, 2), "(0%s) %s-%s-%s" % _g(n, 2, 3, 2, 2)])),
    "UZ": ("998", lambda: pick(["90", "91", "93", "94", "97", "99", "88", "33"]) + R.choice("123456789") + digits(6),
           lambda n: pick(["+998 %s %s %s %s" % _g(n, 2, 3, 2, 2), "+998 (%s) %s-%s-%s" % _g(n, 2, 3, 2, 2), "998%s" % n])),
    "MN": ("976", lambda: pick(["88", "99", "95", "96", "80", "85", "86", "89", "91", "94"]) + digits(6),
           lambda n: pick(["%s-%s" % _g(n, 4, 4), "+976 %s %s" % _g(n, 4, 4), "(+976) %s" % n])),
    "KH": ("855", lambda: pick(["12", "17", "77", "89", "92", "95", "99", "61"]) + R.choice("123456789") + digits(5),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 3), "+855 %s %s %s" % _g(n, 2, 3, 3), "(+855) %s-%s" % _g(n, 2, 6)])),
    "SN": ("221", lambda: pick(["77", "78", "76", "70"]) + digits(7),
           lambda n: pick(["%s %s %s %s" % _g(n, 2, 3, 2, 2), "+221 %s %s %s %s" % _g(n, 2, 3, 2, 2), "00221%s" % n])),
    "CM": ("237", lambda: "6" + R.choice("5789") + digits(7),
           lambda n: pick(["%s %s %s %s %s" % _g(n, 1, 2, 2, 2, 2), "+237 %s %s %s %s %s" % _g(n, 1, 2, 2, 2, 2), "+237 %s" % n])),
    "CI": ("225", lambda: pick(["07", "05", "01"]) + digits(8),
           lambda n: pick(["%s %s %s %s %s" % _g(n, 2, 2, 2, 2, 2), "+225 %s %s %s %s %s" % _g(n, 2, 2, 2, 2, 2), "+225%s" % n])),
    "TN": ("216", lambda: pick(["20", "21", "22", "23", "24", "25", "50", "52", "53", "54", "55", "92", "93", "94", "95", "97", "98"]) + digits(6),
           lambda n: pick(["%s %s %s" % _g(n, 2, 3, 3), "+216 %s %s %s" % _g(n, 2, 3, 3), "(+216) %s.%s.%s" % _g(n, 2, 3, 3)])),
    "DZ": ("213", lambda: pick(["55", "56", "66", "69", "77", "79", "65"]) + digits(7),
           lambda n: pick(["0%s %s %s %s" % _g(n, 3, 2, 2, 2), "+213 %s %s %s %s" % _g(n, 3, 2, 2, 2), "+213 (0) %s" % n])),
    "BO": ("591", lambda: R.choice("67") + R.choice("0123456789") + digits(6),
           lambda n: pick(["%s" % n, "+591 %s" % n, "+591 %s-%s" % _g(n, 4, 4)])),
    "PY": ("595", lambda: "9" + pick(["61", "71", "72", "73", "75", "81", "82", "83", "84", "85", "91", "92", "94", "95"]) + digits(6),
           lambda n: pick(["0%s %s" % _g(n, 3, 6), "+595 %s %s %s" % _g(n, 3, 3, 3), "0%s-%s-%s" % _g(n, 3, 3, 3)])),
    "PA": ("507", lambda: "6" + digits(7),
           lambda n: pick(["%s-%s" % _g(n, 4, 4), "+507 %s-%s" % _g(n, 4, 4), "(507) %s %s" % _g(n, 4, 4)])),
    "GT": ("502", lambda: R.choice("345") + digits(7),
           lambda n: pick(["%s %s" % _g(n, 4, 4), "+502 %s-%s" % _g(n, 4, 4), "(+502) %s" % n])),
    # German mobiles as a contact form's single field keeps them: the country code, then one run.
    "DE": ("49", lambda: pick(["151", "152", "157", "159", "160", "162", "170", "171", "172", "175", "176", "177", "178", "179"]) + digits(8),
           lambda n: pick(["+49 %s" % n, "+49%s" % n, "0049 %s" % n])),
}
PHONE_OF = {"sl": "SI", "lt": "LT", "ua": "UA", "uk_cyr": "UA", "md": "MD", "am": "AM", "az": "AZ", "uz": "UZ", "mn": "MN",
            "kh": "KH", "sn": "SN", "cm": "CM", "ci": "CI", "tn": "TN", "dz": "DZ", "bo": "BO", "py": "PY", "pa": "PA",
            "gt": "GT", "do": "DE", "ps": "DE"}
PHONES_SEEN = []


def phone(region=None):
    """(region, national significant number, the number as written there)."""
    region = region or pick(sorted(MOBILE))
    cc, gen, write = MOBILE[region]
    n = gen()
    s = write(n)
    PHONES_SEEN.append((region, s))
    return region, n, s


def phone_of(origin):
    return phone(PHONE_OF.get(origin))[2]


def phone_long_run(region=None):
    """The country code, then the national significant number as one run of digits."""
    region = region or pick(sorted(MOBILE))
    cc, gen, _ = MOBILE[region]
    n = gen()
    s = pick(["+%s %s" % (cc, n), "+%s %s" % (cc, n), "+%s-%s" % (cc, n)])
    PHONES_SEEN.append((region, s))
    return s


# ---- identifiers, made until python-stdnum says valid (or, for bad ones, until it says not) -----


def _until(make, ok):
    while True:
        s = make()
        if ok(s):
            return s


def _date(lo=1945, hi=2006):
    return datetime.date(R.randint(lo, hi), R.randint(1, 12), R.randint(1, 28))


def lt_asmens():
    def make():
        d = _date()
        g = (3 if d.year < 2000 else 5) + R.randint(0, 1)
        base = "%d%02d%02d%02d%03d" % (g, d.year % 100, d.month, d.day, R.randint(0, 999))
        return base + stdasmens.calc_check_digit(base)
    return _until(make, stdasmens.is_valid)


def is_kennitala():
    def make():
        d = _date(1945, 1999)
        base = "%02d%02d%02d%02d" % (d.day, d.month, d.year % 100, R.randint(20, 99))
        for c in string.digits:
            s = base + c + "9"
            if stdkt.is_valid(s):
                return pick([s, s[:6] + "-" + s[6:]])
        return base + "09"
    return _until(make, stdkt.is_valid)


def si_emso():
    def make():
        d = _date()
        base = "%02d%02d%03d50%s" % (d.day, d.month, d.year % 1000, R.choice(["0", "5"]) + digits(2))
        return base + str(stdemso.calc_check_digit(base))
    return _until(make, stdemso.is_valid)


def gb_nhs():
    def make():
        base = R.choice("456789") + digits(8)
        for c in string.digits:
            if stdnhs.is_valid(base + c):
                s = base + c
                return pick([s, "%s %s %s" % (s[:3], s[3:6], s[6:])])
        return base + "0"
    return _until(make, stdnhs.is_valid)


def pe_cui():
    def make():
        base = "%08d" % R.randint(10000000, 79999999)
        c = stdcui.calc_check_digits(base)
        return pick([base + "-" + c[R.randint(0, 1)], base])
    return _until(make, stdcui.is_valid)


# The scheme's names as people of the country write them, with the maker.
IDS = {
    "lt": (["asmens kodas", "a.k.", "personal code"], lt_asmens),
    "is": (["kennitala", "kt."], is_kennitala),
    "si": (["EMŠO", "EMSO", "enotna matična številka občana"], si_emso),
    "gb": (["NHS number", "NHS No."], gb_nhs),
    "pe": (["DNI", "CUI", "Documento Nacional de Identidad"], pe_cui),
}
CHECKED = {"lt": stdasmens.is_valid, "is": stdkt.is_valid, "si": stdemso.is_valid, "gb": stdnhs.is_valid}


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


# ---- accounts ----------------------------------------------------------------------------------

BBAN = {"LT": lambda: digits(16), "SI": lambda: digits(15), "UA": lambda: digits(6) + digits(19), "MD": lambda: pick(["AG", "MO", "VI"]) + digits(18),
        "AZ": lambda: pick(["NABZ", "IBAZ", "AIIB"]) + digits(20), "TN": lambda: digits(20), "DZ": None}


def iban(country=None, valid=True):
    country = country or pick(["LT", "SI", "UA", "MD", "AZ", "TN"])
    s = _until(lambda: (lambda b: country + stdiban.calc_check_digits(country + "00" + b) + b)(BBAN[country]()), stdiban.is_valid)
    if not valid:
        s = _until(lambda: s[:2] + "%02d" % R.randint(2, 98) + s[4:], lambda t: not stdiban.is_valid(t))
    return pick([s, " ".join(s[i:i + 4] for i in range(0, len(s), 4))])


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


def card():
    p = pick(["4", "51", "53", "55", "2720", "4213"])
    n = luhn_complete(p + digits(15 - len(p)))
    return pick([" ".join(n[i:i + 4] for i in range(0, 16, 4)), n])


# ---- secrets: vendors no other generator uses, in their published shapes -------------------------

VENDORS = {
    "heroku": (lambda: "HRKU-AA" + chars(58, URLSAFE), "HEROKU_API_KEY"),
    "clojars": (lambda: "CLOJARS_" + chars(60, HEX), "CLOJARS_DEPLOY_TOKEN"),
    "square": (lambda: "sq0atp-" + chars(22, URLSAFE), "SQUARE_ACCESS_TOKEN"),
    "square_secret": (lambda: "sq0csp-" + chars(43, URLSAFE), "SQUARE_APPLICATION_SECRET"),
    "duffel": (lambda: "duffel_live_" + chars(43, URLSAFE), "DUFFEL_ACCESS_TOKEN"),
    "brevo": (lambda: "xkeysib-" + chars(64, HEX) + "-" + chars(16), "BREVO_API_KEY"),
    "jina": (lambda: "jina_" + chars(60), "JINA_API_KEY"),
    "tavily": (lambda: "tvly-" + chars(32), "TAVILY_API_KEY"),
    "fireworks": (lambda: "fw_" + chars(24), "FIREWORKS_API_KEY"),
    "nvidia": (lambda: "nvapi-" + chars(64, URLSAFE), "NVIDIA_API_KEY"),
    "frameio": (lambda: "fio-u-" + chars(64, URLSAFE), "FRAMEIO_TOKEN"),
    "gitlab_runner": (lambda: "glrt-" + chars(20, URLSAFE), "CI_RUNNER_TOKEN"),
    "slack_refresh": (lambda: "xoxe-1-" + chars(140, B62 + "-"), "SLACK_REFRESH_TOKEN"),
    "grafana_cloud": (lambda: "glc_" + base64.b64encode(('{"o":"%d","n":"stack-%d","k":"%s","m":{"r":"eu"}}' % (
        R.randint(100000, 999999), R.randint(100, 999), chars(24))).encode()).decode().rstrip("="), "GRAFANA_CLOUD_TOKEN"),
    "tailscale": (lambda: "tskey-auth-k" + chars(10) + "CNTRL-" + chars(33), "TS_AUTHKEY"),
    "posthog": (lambda: "phx_" + chars(47), "POSTHOG_PERSONAL_API_KEY"),
    "telegram": (lambda: "%d:AA%s" % (R.randint(100000000, 7999999999), chars(33, URLSAFE)), "TELEGRAM_BOT_TOKEN"),
    "mailchimp": (lambda: chars(32, HEX) + "-us" + str(R.randint(1, 21)), "MAILCHIMP_API_KEY"),
}


def vendor(name=None):
    """(name, env var, token)."""
    name = name or pick(sorted(VENDORS))
    make, env = VENDORS[name]
    return name, env, make()


def password():
    """A password as people make them."""
    word = pick(["Vilnius", "Ljubljana", "Dnipro", "Chisinau", "Yerevan", "Baku", "Samarkand", "Erdenet", "Angkor",
                 "Teranga", "Yaounde", "Abidjan", "Carthage", "Tlemcen", "Titicaca", "Asuncion", "Boquete", "Atitlan", "Samana"])
    return pick([
        "%s%02d%s%s" % (word, R.randint(0, 99), pick("!#$%&*?@+"), pick(["", "x", "Q"])),
        "%s.%s.%d" % (word.lower(), pick(["kava", "chai", "mate", "cafe", "attaya"]), R.randint(1, 999)),
        chars(R.randint(11, 20), B62 + "!@#%^&*-_=+~"),
        "%s%s%d%s" % (pick(["Labas", "Zdravo", "Pryvit", "Barev", "Salam", "Sain"]), word[:4], R.randint(100, 9999), pick("!?#")),
    ])


def token(n=40, alphabet=B62):
    return chars(n, alphabet)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def _seed_bytes(n):
    return hashlib.sha512(("probe7-key-%d" % R.randint(0, 1 << 30)).encode()).digest()[:n]


def private_key_pem():
    kind = pick(["x25519", "ed448", "p384", "p521"])
    if kind == "x25519":
        k = x25519.X25519PrivateKey.from_private_bytes(_seed_bytes(32))
    elif kind == "ed448":
        k = ed448.Ed448PrivateKey.from_private_bytes(_seed_bytes(57))
    else:
        curve = ec.SECP384R1() if kind == "p384" else ec.SECP521R1()
        k = ec.derive_private_key(int.from_bytes(_seed_bytes(40), "big") % (2 ** 300) + 1, curve)
    fmt = serialization.PrivateFormat.PKCS8
    if kind.startswith("p") and R.random() < 0.5:
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
    return k.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()


def public_key_pem():
    k = ed448.Ed448PrivateKey.from_private_bytes(_seed_bytes(57)).public_key()
    return k.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def uuid():
    h = chars(32, HEX)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


# ---- dates -------------------------------------------------------------------------------------

MONTHS = {
    "lt": ["sausio", "vasario", "kovo", "balandžio", "gegužės", "birželio", "liepos", "rugpjūčio", "rugsėjo", "spalio",
           "lapkričio", "gruodžio"],
    "sl": ["januarja", "februarja", "marca", "aprila", "maja", "junija", "julija", "avgusta", "septembra", "oktobra",
           "novembra", "decembra"],
    "uk": ["січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня", "вересня", "жовтня", "листопада",
           "грудня"],
    "ro": ["ianuarie", "februarie", "martie", "aprilie", "mai", "iunie", "iulie", "august", "septembrie", "octombrie",
           "noiembrie", "decembrie"],
    "fr": ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"],
}


def birth_date():
    return _date(1938, 2007)


def birth(lang=None):
    d = birth_date()
    if lang == "lt":
        return "%d m. %s %d d." % (d.year, MONTHS["lt"][d.month - 1], d.day)
    if lang == "sl":
        return "%d. %s %d" % (d.day, MONTHS["sl"][d.month - 1], d.year)
    if lang == "uk":
        return "%d %s %d р." % (d.day, MONTHS["uk"][d.month - 1], d.year)
    if lang in MONTHS:
        return "%d %s %d" % (d.day, MONTHS[lang][d.month - 1], d.year)
    return d.strftime(pick(["%d.%m.%Y", "%Y-%m-%d", "%d/%m/%Y"]))


def when():
    d = datetime.date(2026, R.randint(1, 11), R.randint(1, 28))
    return d.strftime(pick(["%Y-%m-%d", "%d.%m.%Y"]))


def stamp():
    return "2026-%02d-%02dT%02d:%02d:%02dZ" % (R.randint(1, 11), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59))
