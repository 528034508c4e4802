"""Value sources of the eighth probe (probe8_rows.py).

Nothing here comes from the corpus generators or the first seven probes; only the row bookkeeping
(probe_registry.py) is shared. People come from name lists written for this probe (Slovak,
Croatian, Macedonian, Russian, Georgian, Armenian, Bengali, Tamil, Amharic, Kinyarwanda, Afrikaans,
Basque, Galician, Honduran, Salvadoran, Nicaraguan, Venezuelan, Jamaican, Mauritian, Mozambican,
Lebanese, Kuwaiti and Omani names, Georgian, Armenian, Bengali, Tamil, Amharic and Cyrillic names in
their own scripts too); mobile numbers from the plans of regions no other generator uses;
identifiers computed with python-stdnum for countries no other generator uses (Russian INN of a
person, Dominican cédula, Mauritian national ID, New Zealand IRD number, Slovak rodné číslo, Cuban
carné de identidad, Pakistani CNIC); tokens of vendors agents call every day that no other
generator writes, in their published shapes.
"""

import datetime
import random
import string
import unicodedata

from stdnum import luhn as stdluhn
from stdnum.cu import ni as stdcuni
from stdnum.do import cedula as stdcedula
from stdnum.mu import nid as stdmunid
from stdnum.nz import ird as stdird
from stdnum.pk import cnic as stdcnic
from stdnum.ru import inn as stdinn
from stdnum.sk import rc as stdskrc

from probe_registry import Registry, drawing

SEED = 20261208
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
FAKERS = {}  # no Faker locale: every name comes from the lists below

REG = Registry("probe8", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)

HEX = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
URLSAFE = B62 + "-_"
LOWER_ALNUM = string.ascii_lowercase + string.digits

# ---- people: (given names, surnames) per origin; a script's own letters where the origin has them --

LISTS = {
    "sk": (["Zuzana", "Marek", "Lucia", "Peter", "Katarína", "Juraj", "Veronika", "Ľubomír", "Jana", "Michal"],
           ["Horváthová", "Kováč", "Baláž", "Nagyová", "Szabó", "Molnárová", "Varga", "Tóthová", "Lukáč", "Kolesár"]),
    "hr": (["Ivana", "Tomislav", "Petra", "Krešimir", "Marija", "Domagoj", "Ana", "Zvonimir", "Lucija", "Hrvoje"],
           ["Horvat", "Kovačević", "Babić", "Marić", "Jurić", "Novak", "Knežević", "Vuković", "Perić", "Matić"]),
    "mk": (["Билјана", "Горан", "Елена", "Никола", "Марија", "Дарко", "Ивана", "Бојан"],
           ["Стојановска", "Трајковски", "Петровска", "Николовски", "Димитровска", "Јовановски", "Ристовска"]),
    "ru": (["Анна", "Дмитрий", "Екатерина", "Алексей", "Ольга", "Сергей", "Наталья", "Михаил"],
           ["Смирнова", "Кузнецов", "Попова", "Соколов", "Лебедева", "Козлов", "Новикова", "Морозов"]),
    "ru_lat": (["Anastasia", "Dmitry", "Yekaterina", "Alexei", "Olga", "Sergei", "Natalia", "Mikhail", "Irina", "Pavel"],
               ["Smirnova", "Kuznetsov", "Popova", "Sokolov", "Lebedeva", "Kozlov", "Novikova", "Morozov", "Volkova"]),
    "ka": (["ნინო", "გიორგი", "თამარ", "დავით", "მარიამ", "ლევან", "ეკა", "ირაკლი"],
           ["ბერიძე", "კაპანაძე", "გელაშვილი", "მაისურაძე", "ლომიძე", "ხარაიშვილი", "ჯავახიშვილი"]),
    "ka_lat": (["Nino", "Giorgi", "Tamar", "Davit", "Mariam", "Levan", "Eka", "Irakli", "Salome", "Zurab"],
               ["Beridze", "Kapanadze", "Gelashvili", "Maisuradze", "Lomidze", "Kharaishvili", "Javakhishvili", "Tsiklauri"]),
    "hy": (["Անի", "Գևորգ", "Մարինե", "Արմեն", "Լիլիթ", "Դավիթ", "Նարե", "Սուրեն"],
           ["Մկրտչյան", "Ղազարյան", "Սահակյան", "Հովհաննիսյան", "Աբրահամյան", "Մարտիրոսյան"]),
    "bn": (["রহিমা", "তানভীর", "নুসরাত", "আরিফ", "ফারহানা", "সাকিব", "মৌমিতা", "রাশেদ"],
           ["রহমান", "হোসেন", "চৌধুরী", "আহমেদ", "ইসলাম", "সরকার", "দাস", "বিশ্বাস"]),
    "bn_lat": (["Rahima", "Tanvir", "Nusrat", "Arif", "Farhana", "Sakib", "Moumita", "Rashed", "Sumaiya", "Imran"],
               ["Rahman", "Hossain", "Chowdhury", "Ahmed", "Islam", "Sarkar", "Das", "Biswas", "Talukder"]),
    "ta": (["கவிதா", "முருகன்", "பிரியா", "செந்தில்", "லட்சுமி", "கார்த்திக்", "மீனா", "அருண்"],
           ["சுப்பிரமணியம்", "ராஜேந்திரன்", "கிருஷ்ணன்", "வேலு", "பாண்டியன்", "சேகர்"]),
    "ta_lat": (["Kavitha", "Murugan", "Priya", "Senthil", "Lakshmi", "Karthik", "Meena", "Arun", "Divya", "Selvam"],
               ["Subramaniam", "Rajendran", "Krishnan", "Velu", "Pandian", "Sekar", "Annamalai", "Muthusamy"]),
    "am": (["ሔለን", "ዳዊት", "መሰረት", "ዮናስ", "ቤተልሔም", "አበበ", "ሰላም", "ቴዎድሮስ"],
           ["ተስፋዬ", "ገብረ", "መንግሥቱ", "ኃይሌ", "በቀለ", "ወልደ", "አለሙ"]),
    "am_lat": (["Helen", "Dawit", "Meseret", "Yonas", "Betelhem", "Abebe", "Selam", "Tewodros", "Hirut", "Kebede"],
               ["Tesfaye", "Gebre", "Mengistu", "Haile", "Bekele", "Wolde", "Alemu", "Girma", "Tadesse"]),
    "rw": (["Uwase", "Jean Claude", "Mukamana", "Eric", "Ingabire", "Emmanuel", "Umutoni", "Patrick", "Keza", "Olivier"],
           ["Niyonsaba", "Habimana", "Mukiza", "Nshimiyimana", "Uwimana", "Bizimana", "Ndayisaba", "Hakizimana"]),
    "af": (["Annelie", "Pieter", "Marlize", "Johan", "Elmarie", "Francois", "Riana", "Gerhard", "Anrich", "Liezl"],
           ["van der Merwe", "Botha", "Pretorius", "du Plessis", "Venter", "Steyn", "Nel", "Coetzee", "Joubert"]),
    "eu": (["Ane", "Iñaki", "Maialen", "Unai", "Nerea", "Aitor", "Itziar", "Gorka", "Amaia", "Xabier"],
           ["Etxeberria", "Agirre", "Goikoetxea", "Urrutia", "Zubizarreta", "Arrieta", "Iriondo", "Larrañaga"]),
    "gl": (["Uxía", "Brais", "Antía", "Xoán", "Iria", "Anxo", "Noa", "Roi", "Sabela", "Iago"],
           ["Castiñeira", "Otero", "Vázquez", "Couceiro", "Fraga", "Pazos", "Souto", "Lema", "Barreiro"]),
    "hn": (["Dania", "Wilmer", "Suyapa", "Marvin", "Karla", "Denis", "Lourdes", "Nelson"],
           ["Zelaya", "Cálix", "Mejía", "Bonilla", "Paz", "Figueroa", "Castellanos", "Hernández"]),
    "sv": (["Xiomara", "Mauricio", "Roxana", "Salvador", "Karen", "Oscar", "Marleny", "René"],
           ["Alvarenga", "Portillo", "Menjívar", "Guardado", "Quintanilla", "Ayala", "Rivas", "Chicas"]),
    "ni": (["Scarleth", "Bayardo", "Yelba", "Silvio", "Jahoska", "Róger", "Martha", "Lenin"],
           ["Ortega", "Chamorro", "Sandino", "Mairena", "Espinoza", "Urbina", "Baltodano", "Téllez"]),
    "ve": (["Yusmary", "Jhonny", "Mariangel", "Wuilmer", "Yelitza", "Argenis", "Oriana", "Yonathan"],
           ["Rondón", "Briceño", "Colmenares", "Peraza", "Marcano", "Guédez", "Zambrano", "Villegas"]),
    "jm": (["Shanice", "Dwayne", "Tanisha", "Andre", "Kimone", "Rohan", "Shelly-Ann", "Omar"],
           ["Campbell", "Brown", "McKenzie", "Williams", "Grant", "Thompson", "Reid", "Samuels"]),
    "mu": (["Vidisha", "Kushal", "Anoushka", "Yannick", "Priyanka", "Jean-Marc", "Nishta", "Kevin"],
           ["Ramgoolam", "Boolell", "Lallmahomed", "Seeruttun", "Jugnauth", "Permal", "Ah-Chuen", "Rivet"]),
    "mz": (["Celmira", "Albino", "Rosália", "Ernesto", "Florinda", "Armando", "Judite", "Samora"],
           ["Macuácua", "Cossa", "Nhantumbo", "Tembe", "Chissano", "Mondlane", "Sitoe", "Mabunda"]),
    "lb": (["Rania", "Ziad", "Maya", "Karim", "Nour", "Elie", "Carine", "Fadi"],
           ["Khoury", "Haddad", "Saab", "Nassar", "Aoun", "Gemayel", "Frangieh", "Abi Nader"]),
    "kw": (["Dana", "Fahad", "Shaikha", "Bader", "Noura", "Abdullah", "Lulwa", "Mishari"],
           ["Al-Sabah", "Al-Mutairi", "Al-Ajmi", "Al-Rashidi", "Al-Enezi", "Al-Kandari", "Behbehani"]),
    "om": (["Aisha", "Said", "Thuraya", "Hilal", "Muna", "Salim", "Zuwaina", "Khalfan"],
           ["Al-Busaidi", "Al-Harthi", "Al-Balushi", "Al-Hinai", "Al-Rawahi", "Al-Maskari", "Al-Siyabi"]),
}
NATIVE = {"mk", "ru", "ka", "hy", "bn", "ta", "am"}  # lists in their own scripts
LATIN = sorted(k for k in LISTS if k not in NATIVE)
ORIGINS = sorted(LISTS)
LATIN_OF = {"ru": "ru_lat", "ka": "ka_lat", "bn": "bn_lat", "ta": "ta_lat", "am": "am_lat"}


# Origins whose surnames take the bearer's gender: their given names alternate woman, man, and a
# woman's surname ends in -ová or -a.
GENDERED = {"sk", "ru", "ru_lat", "mk"}


def person(origin=None):
    """(first, last) of an origin."""
    origin = origin or pick(ORIGINS)
    firsts, lasts = LISTS[origin]
    i = R.randrange(len(firsts))
    if origin in GENDERED:
        woman = i % 2 == 0
        lasts = [x for x in lasts if x.endswith(("ová", "а", "a")) == woman]
    return firsts[i], pick(lasts)


def full(first, last):
    return "%s %s" % (first, last)


_FOLD = str.maketrans({"ľ": "l", "'": "", "ñ": "n", "ç": "c", "-": ""})


def fold(s):
    s = unicodedata.normalize("NFKD", s.translate(_FOLD))
    return "".join(c for c in s.lower() if c.isascii() and c.isalnum())


MAIL_HOSTS = {"sk": ["azet.sk", "centrum.sk"], "hr": ["net.hr", "gmail.com"], "ru_lat": ["yandex.ru", "mail.ru"],
              "ka_lat": ["gmail.com", "yahoo.com"], "bn_lat": ["gmail.com", "yahoo.com"], "ta_lat": ["gmail.com", "rediffmail.com"],
              "am_lat": ["ethionet.et", "gmail.com"], "rw": ["gmail.com", "yahoo.fr"], "af": ["mweb.co.za", "telkomsa.net"],
              "eu": ["euskalnet.net", "gmail.com"], "gl": ["mundo-r.com", "gmail.com"], "hn": ["yahoo.com", "hotmail.com"],
              "sv": ["hotmail.com", "gmail.com"], "ni": ["yahoo.com", "hotmail.com"], "ve": ["cantv.net", "gmail.com"],
              "jm": ["yahoo.com", "gmail.com"], "mu": ["intnet.mu", "gmail.com"], "mz": ["tvcabo.co.mz", "gmail.com"],
              "lb": ["idm.net.lb", "gmail.com"], "kw": ["hotmail.com", "gmail.com"], "om": ["omantel.net.om", "gmail.com"]}


def email(first, last, origin):
    """An address made from a person's name (in Latin letters)."""
    f, l = fold(first.split()[0]), fold(last.split()[-1])
    if not f or not l:  # a name in its own script: its Latin list gives the address
        f, l = (fold(x.split()[-1]) for x in person(LATIN_OF.get(origin, "jm")))
    local = pick(["%s.%s" % (f, l), "%s%s%d" % (f[:1], l, R.randint(1, 99)), "%s_%s" % (l, f), "%s%s" % (f, l[:3])])
    return "%s@%s" % (local, pick(MAIL_HOSTS.get(origin, ["gmail.com"]) + ["outlook.com", "proton.me"]))


def latin_person(origin=None):
    """(first, last, origin) with a Latin-letter name, for addresses and fields that ASCII systems keep."""
    origin = origin or pick(LATIN)
    f, l = person(origin)
    return f, l, origin


# ---- phones: mobile plans of regions no other generator uses, as people there write them ----------


def _g(n, *sizes):
    out, i = [], 0
    for s in sizes:
        out.append(n[i:i + s])
        i += s
    return tuple(out)


MOBILE = {
    "RU": ("7", lambda: "9" + pick(["03", "05", "06", "09", "10", "11", "12", "15", "16", "17", "19", "25", "26", "60", "61", "62", "63", "64", "65", "77", "85", "99"]) + digits(7),
           lambda n: pick(["8 (%s) %s-%s-%s" % _g(n, 3, 3, 2, 2), "+7 %s %s-%s-%s" % _g(n, 3, 3, 2, 2), "+7(%s)%s%s%s" % _g(n, 3, 3, 2, 2)])),
    "BY": ("375", lambda: pick(["25", "29", "33", "44"]) + R.choice("123456789") + digits(6),
           lambda n: pick(["8 (0%s) %s-%s-%s" % _g(n, 2, 3, 2, 2), "+375 (%s) %s-%s-%s" % _g(n, 2, 3, 2, 2), "+375 %s %s %s %s" % _g(n, 2, 3, 2, 2)])),
    "KG": ("996", lambda: pick(["700", "701", "702", "705", "707", "550", "551", "555", "557", "770", "772", "775", "779", "220", "222"]) + digits(6),
           lambda n: pick(["0%s %s %s" % _g(n, 3, 3, 3), "+996 %s %s %s" % _g(n, 3, 3, 3), "+996 (%s) %s-%s" % _g(n, 3, 3, 3)])),
    "MK": ("389", lambda: pick(["70", "71", "72", "75", "76", "77", "78"]) + digits(6),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 3), "+389 %s %s %s" % _g(n, 2, 3, 3), "0%s/%s-%s" % _g(n, 2, 3, 3)])),
    "HR": ("385", lambda: pick(["91", "92", "95", "98", "99"]) + R.choice("123456789") + digits(6),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 4), "+385 %s %s %s" % _g(n, 2, 3, 4), "0%s/%s-%s" % _g(n, 2, 3, 4)])),
    "ME": ("382", lambda: pick(["67", "68", "69", "60"]) + R.choice("123456789") + digits(5),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 3), "+382 %s %s %s" % _g(n, 2, 3, 3), "0%s/%s-%s" % _g(n, 2, 3, 3)])),
    "CY": ("357", lambda: pick(["96", "97", "99"]) + digits(6),
           lambda n: pick(["%s %s" % _g(n, 2, 6), "+357 %s %s" % _g(n, 2, 6), "+357-%s-%s" % _g(n, 2, 6)])),
    "LB": ("961", lambda: pick(["3", "70", "71", "81"]) + digits(6),
           lambda n: pick(["0%s %s" % (n[:-6], n[-6:]) if n[0] == "3" else "%s %s" % (n[:2], n[2:]),
                           "+961 %s %s %s" % (n[:-6], n[-6:-3], n[-3:])])),
    "KW": ("965", lambda: pick(["50", "55", "66", "94", "96", "97", "99"]) + digits(6),
           lambda n: pick(["%s %s" % _g(n, 4, 4), "+965 %s %s" % _g(n, 4, 4), "+965-%s" % n])),
    "OM": ("968", lambda: pick(["90", "91", "92", "93", "94", "95", "96", "97", "98", "99", "71", "72", "79"]) + digits(6),
           lambda n: pick(["%s %s" % _g(n, 4, 4), "+968 %s %s" % _g(n, 4, 4), "(+968) %s" % n])),
    "RW": ("250", lambda: pick(["72", "73", "78", "79"]) + digits(7),
           lambda n: pick(["0%s %s %s" % _g(n, 3, 3, 3), "+250 %s %s %s" % _g(n, 3, 3, 3), "+250%s" % n])),
    "ZM": ("260", lambda: pick(["95", "96", "97", "76", "77"]) + digits(7),
           lambda n: pick(["0%s %s %s" % _g(n, 2, 3, 4), "+260 %s %s %s" % _g(n, 2, 3, 4), "+260-%s-%s" % _g(n, 2, 7)])),
    "MZ": ("258", lambda: pick(["82", "83", "84", "85", "86", "87"]) + digits(7),
           lambda n: pick(["%s %s %s" % _g(n, 2, 3, 4), "+258 %s %s %s" % _g(n, 2, 3, 4), "(+258) %s" % n])),
    "BW": ("267", lambda: "7" + R.choice("1234567") + digits(6),
           lambda n: pick(["%s %s %s" % _g(n, 2, 3, 3), "+267 %s %s %s" % _g(n, 2, 3, 3), "+267 %s" % n])),
    "MU": ("230", lambda: pick(["55", "57"]) + digits(6),
           lambda n: pick(["%s %s" % _g(n, 4, 4), "+230 %s %s" % _g(n, 4, 4), "(230) %s-%s" % _g(n, 4, 4)])),
    "HN": ("504", lambda: R.choice("389") + digits(7),
           lambda n: pick(["%s-%s" % _g(n, 4, 4), "+504 %s-%s" % _g(n, 4, 4), "(504) %s %s" % _g(n, 4, 4)])),
    "SV": ("503", lambda: R.choice("67") + digits(7),
           lambda n: pick(["%s-%s" % _g(n, 4, 4), "+503 %s %s" % _g(n, 4, 4), "(503) %s-%s" % _g(n, 4, 4)])),
    "NI": ("505", lambda: pick(["57", "58", "75", "76", "77", "78", "84", "85", "86", "87", "88"]) + digits(6),
           lambda n: pick(["%s %s" % _g(n, 4, 4), "+505 %s %s" % _g(n, 4, 4), "+505-%s-%s" % _g(n, 4, 4)])),
    "VE": ("58", lambda: pick(["412", "414", "416", "424", "426"]) + digits(7),
           lambda n: pick(["0%s-%s" % _g(n, 3, 7), "+58 %s-%s" % _g(n, 3, 7), "+58 (%s) %s.%s.%s" % _g(n, 3, 3, 2, 2)])),
    "JM": ("1", lambda: "876" + pick(["3", "4", "8"]) + digits(6),
           lambda n: pick(["(%s) %s-%s" % _g(n, 3, 3, 4), "+1 %s-%s-%s" % _g(n, 3, 3, 4), "1-%s-%s-%s" % _g(n, 3, 3, 4)])),
}
PHONE_OF = {"sk": "HR", "hr": "HR", "mk": "MK", "ru": "RU", "ru_lat": "RU", "ka": "KG", "ka_lat": "KG", "hy": "RU", "bn": "KW",
            "bn_lat": "OM", "ta": "MU", "ta_lat": "MU", "am": "RW", "am_lat": "RW", "rw": "RW", "af": "BW", "eu": "CY",
            "gl": "ME", "hn": "HN", "sv": "SV", "ni": "NI", "ve": "VE", "jm": "JM", "mu": "MU", "mz": "MZ", "lb": "LB",
            "kw": "KW", "om": "OM"}
PHONES_SEEN = []


def phone_parts(region=None):
    """(region, country code, national significant number, the number as written there)."""
    region = region or pick(sorted(MOBILE))
    cc, gen, write = MOBILE[region]
    n = gen()
    s = write(n)
    PHONES_SEEN.append((region, s))
    return region, cc, n, s


def phone(region=None):
    """(region, the number as written there)."""
    region, _, _, s = phone_parts(region)
    return region, s


def phone_of(origin):
    return phone(PHONE_OF.get(origin))[1]


# ---- identifiers, made until python-stdnum says valid (or, for bad ones, until it says not) -------


def _until(make, ok):
    while True:
        s = make()
        if ok(s):
            return s


def _date(lo=1950, hi=2005):
    return datetime.date(R.randint(lo, hi), R.randint(1, 12), R.randint(1, 28))


def ru_inn():
    def make():
        base = "%02d%02d%06d" % (R.choice([77, 78, 50, 66, 16, 23, 54, 61]), R.randint(1, 99), R.randint(0, 999999))
        return base + stdinn.calc_personal_check_digits(base)
    return _until(make, stdinn.is_valid)


def do_cedula():
    def make():
        base = "%03d%07d" % (R.choice([1, 2, 3, 4, 8, 11, 12, 23, 31, 47, 56, 224, 402]), R.randint(0, 9999999))
        s = base + stdluhn.calc_check_digit(base)
        return pick([s, "%s-%s-%s" % (s[:3], s[3:10], s[10])])
    return _until(make, stdcedula.is_valid)


def mu_nid(last=None):
    def make():
        d = _date(2000, 2008)  # python-stdnum reads the year as 20YY
        body = (last or pick(LISTS["mu"][1]))[0].upper() + "%02d%02d%02d" % (d.day, d.month, d.year % 100) + digits(6)
        return body + stdmunid.calc_check_digit(body)
    return _until(make, stdmunid.is_valid)


def nz_ird():
    def make():
        base = "%08d" % R.randint(10000000, 14999999)
        s = base + stdird.calc_check_digit(base)
        return pick([s, "%s-%s-%s" % (s[:3], s[3:6], s[6:])])
    return _until(make, stdird.is_valid)


def sk_rc():
    def make():
        d = _date(1954, 2005)
        month = d.month + (50 if R.random() < 0.5 else 0)
        base = "%02d%02d%02d%03d" % (d.year % 100, month, d.day, R.randint(0, 999))
        for c in string.digits:
            if int(base + c) % 11 == 0:
                return pick([base + c, base[:6] + "/" + base[6:] + c])
        return base + "0"
    return _until(make, stdskrc.is_valid)


def cu_ni():
    def make():
        d = _date(1950, 1999)
        return "%02d%02d%02d%d%03d%d" % (d.year % 100, d.month, d.day, R.randint(0, 8), R.randint(0, 999), R.randint(0, 9))
    return _until(make, stdcuni.is_valid)


def pk_cnic():
    def make():
        s = R.choice("1234567") + digits(4) + digits(7) + R.choice("123456789")
        return pick([s, "%s-%s-%s" % (s[:5], s[5:12], s[12])])
    return _until(make, stdcnic.is_valid)


# The scheme's names as people of the country write them, with the maker.
IDS = {
    "ru": (["ИНН", "INN", "taxpayer number (INN)"], ru_inn),
    "do": (["cédula", "Cédula de Identidad y Electoral", "No. cédula"], do_cedula),
    "mu": (["NIC", "National Identity Card No.", "ID number"], mu_nid),
    "nz": (["IRD number", "IRD no.", "tax file (IRD)"], nz_ird),
    "sk": (["rodné číslo", "RČ", "r.č."], sk_rc),
    "cu": (["carné de identidad", "CI", "No. de identidad"], cu_ni),
    "pk": (["CNIC", "CNIC No.", "شناختی کارڈ"], pk_cnic),
}
CHECKED = {"ru": stdinn.is_valid, "do": stdcedula.is_valid, "mu": stdmunid.is_valid, "nz": stdird.is_valid, "sk": stdskrc.is_valid}


def national(scheme=None):
    """(scheme, label, value)."""
    scheme = scheme or pick(sorted(IDS))
    labels, make = IDS[scheme]
    return scheme, pick(labels), make()


def broken_national(scheme=None):
    """(scheme, label, value) with a check that fails: the last check character changed until it does."""
    scheme = scheme or pick(sorted(CHECKED))
    labels, make = IDS[scheme]
    s = make()
    i = max(j for j, c in enumerate(s) if c.isalnum())
    alphabet = string.digits if s[i].isdigit() else string.ascii_uppercase
    bad = _until(lambda: s[:i] + R.choice(alphabet) + s[i + 1:], lambda t: not CHECKED[scheme](t))
    return scheme, pick(labels), bad


# ---- cards -----------------------------------------------------------------------------------------


def card():
    """A card number that passes Luhn, of the networks a statement prints."""
    p = pick(["4", "5", "2221", "6011", "3528", "62"])
    body = p + digits(15 - len(p))
    s = body + stdluhn.calc_check_digit(body)
    return pick([" ".join(s[i:i + 4] for i in range(0, 16, 4)), s, "-".join(s[i:i + 4] for i in range(0, 16, 4))])


def bad_card():
    body = pick(["4", "5"]) + digits(14)
    good = stdluhn.calc_check_digit(body)
    return body + pick([c for c in string.digits if c != good])


# ---- secrets: vendors agents call daily that no other generator writes, in their published shapes ---


def _uuid():
    h = chars(32, HEX)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


VENDORS = {
    # name: (maker, env var, HTTP header that carries it)
    "langfuse": (lambda: "sk-lf-" + _uuid(), "LANGFUSE_SECRET_KEY", "Authorization: Basic"),
    "honeycomb": (lambda: "hcaik_01" + chars(50, LOWER_ALNUM), "HONEYCOMB_API_KEY", "X-Honeycomb-Team"),
    "neon": (lambda: "napi_" + chars(64, LOWER_ALNUM), "NEON_API_KEY", "Authorization: Bearer"),
    "hubspot": (lambda: "pat-" + pick(["na1", "eu1"]) + "-" + _uuid(), "HUBSPOT_ACCESS_TOKEN", "Authorization: Bearer"),
    "cerebras": (lambda: "csk-" + chars(48, LOWER_ALNUM), "CEREBRAS_API_KEY", "Authorization: Bearer"),
    "voyage": (lambda: "pa-" + chars(43, URLSAFE), "VOYAGE_API_KEY", "Authorization: Bearer"),
    "firecrawl": (lambda: "fc-" + chars(32, HEX), "FIRECRAWL_API_KEY", "Authorization: Bearer"),
    "browserbase": (lambda: "bb_live_" + chars(27, URLSAFE), "BROWSERBASE_API_KEY", "X-BB-API-Key"),
    "e2b": (lambda: "e2b_" + chars(40, HEX), "E2B_API_KEY", "X-API-Key"),
    "helicone": (lambda: "sk-helicone-" + "-".join(chars(7, LOWER_ALNUM) for _ in range(4)), "HELICONE_API_KEY", "Helicone-Auth: Bearer"),
    "axiom": (lambda: pick(["xaat-", "xapt-"]) + _uuid(), "AXIOM_TOKEN", "Authorization: Bearer"),
    "mollie": (lambda: "live_" + chars(30, B62), "MOLLIE_API_KEY", "Authorization: Bearer"),
    "paddle": (lambda: "pdl_live_apikey_" + chars(26, LOWER_ALNUM) + "_" + chars(22, B62) + "_" + chars(3, B62), "PADDLE_API_KEY", "Authorization: Bearer"),
    "zilliz": (lambda: chars(104, HEX), "ZILLIZ_CLOUD_API_KEY", "Authorization: Bearer"),
}
VENDOR_PREFIXED = sorted(k for k in VENDORS if k != "zilliz")


def vendor(name=None):
    """(name, env var, header, token)."""
    name = name or pick(VENDOR_PREFIXED)
    make, env, header = VENDORS[name]
    return name, env, header, make()


def password():
    """A password as people make them."""
    word = pick(["Bratislava", "Dubrovnik", "Ohrid", "Kazbegi", "Sevan", "Sundarbans", "Madurai", "Lalibela", "Kigali",
                 "Stellenbosch", "Donostia", "Compostela", "Copan", "Izalco", "Momotombo", "Canaima", "Negril", "LeMorne"])
    return pick([
        "%s%d%s" % (word, R.randint(1, 2026), pick("!#$%&*?@")),
        "%s_%s%02d" % (word.lower(), pick(["chai", "mate", "kava", "txakoli", "rooibos"]), R.randint(0, 99)),
        chars(R.randint(12, 18), B62 + "!@#%^&*-_=+"),
        "%s%s%s%d" % (word[:5].upper(), pick("!#$"), pick(["Tbilisi", "Yerevan", "Dhaka", "Chennai", "Mahé"]), R.randint(10, 99)),
    ])


# ---- dates -----------------------------------------------------------------------------------------

MONTHS = {
    "sk": ["januára", "februára", "marca", "apríla", "mája", "júna", "júla", "augusta", "septembra", "októbra", "novembra", "decembra"],
    "hr": ["siječnja", "veljače", "ožujka", "travnja", "svibnja", "lipnja", "srpnja", "kolovoza", "rujna", "listopada", "studenoga", "prosinca"],
    "ka": ["იანვარი", "თებერვალი", "მარტი", "აპრილი", "მაისი", "ივნისი", "ივლისი", "აგვისტო", "სექტემბერი", "ოქტომბერი", "ნოემბერი", "დეკემბერი"],
    "eu": ["urtarrilaren", "otsailaren", "martxoaren", "apirilaren", "maiatzaren", "ekainaren", "uztailaren", "abuztuaren", "irailaren",
           "urriaren", "azaroaren", "abenduaren"],
    "gl": ["xaneiro", "febreiro", "marzo", "abril", "maio", "xuño", "xullo", "agosto", "setembro", "outubro", "novembro", "decembro"],
    "af": ["Januarie", "Februarie", "Maart", "April", "Mei", "Junie", "Julie", "Augustus", "September", "Oktober", "November", "Desember"],
    "mk": ["јануари", "февруари", "март", "април", "мај", "јуни", "јули", "август", "септември", "октомври", "ноември", "декември"],
}


def birth_date():
    return _date(1940, 2006)


def birth(lang=None):
    d = birth_date()
    if lang in ("sk", "hr"):
        return "%d. %s %d" % (d.day, MONTHS[lang][d.month - 1], d.year)
    if lang == "ka":
        return "%d %s, %d" % (d.day, MONTHS["ka"][d.month - 1], d.year)
    if lang == "eu":
        return "%d(e)ko %s %da" % (d.year, MONTHS["eu"][d.month - 1], d.day)
    if lang == "gl":
        return "%d de %s de %d" % (d.day, MONTHS["gl"][d.month - 1], d.year)
    if lang in ("af", "mk"):
        return "%d %s %d" % (d.day, MONTHS[lang][d.month - 1], d.year)
    return d.strftime(pick(["%d.%m.%Y", "%Y-%m-%d", "%d/%m/%Y"]))


def when():
    d = datetime.date(2026, R.randint(1, 12), R.randint(1, 28))
    return d.strftime(pick(["%Y-%m-%d", "%d.%m.%Y", "%d %b %Y"]))


def stamp():
    return "2026-%02d-%02dT%02d:%02d:%02dZ" % (R.randint(1, 12), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59))


def uuid():
    return _uuid()


def pnr():
    """A booking reference as airlines print it (six letters and digits, no 0/1/I/O)."""
    return chars(6, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789")


def passport():
    return pick([chars(2, "ABCDEFGHJKLMNPRSTUVWXYZ") + digits(7), digits(9), R.choice("PKNEC") + digits(7)])
