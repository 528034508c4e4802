"""Value sources of the fourth probe (probe4_rows.py).

Nothing here comes from the corpus generators or the first three probes. People come from name
lists written for this probe (Vietnamese, Nigerian, Kenyan, Arabic and Korean names in Latin
letters, Indian and Romanian names) and from Faker locales (Brazilian Portuguese, Italian, Mexican
Spanish, Hungarian, Indonesian, and Greek transliterated to Latin letters); phone numbers from the
mobile plans of regions written the way people there write them; identifiers computed with
python-stdnum (CPF, Aadhaar, PAN, CNP, codice fiscale, Korean RRN, CURP); cards of regional
networks; IBANs of other countries; tokens of LLM and developer vendors; keys derived from seeded
bytes with python3-cryptography.
"""

import base64
import hashlib
import random
import string

from faker import Faker
from unidecode import unidecode
from stdnum import iban as stdiban
from stdnum import luhn, verhoeff
from stdnum.br import cpf as stdcpf
from stdnum.it import codicefiscale as stdcf
from stdnum.mx import curp as stdcurp
from stdnum.ro import cnp as stdcnp

from probe_registry import Registry, drawing, seeded_fakers

SEED = 20261204
PER = 24  # rows per (family, shape)

R = random.Random(SEED)
FAKER_LOCALES = ["pt_BR", "it_IT", "es_MX", "hu_HU", "id_ID", "el_GR"]
FAKERS = seeded_fakers(Faker, FAKER_LOCALES, SEED)

REG = Registry("probe4", SEED, PER, R, FAKERS)
shape = REG.shape
pick, chars, digits = drawing(R)


HEXL = "0123456789abcdef"
B62 = string.ascii_letters + string.digits
URLSAFE = B62 + "-_"

# ---- people ------------------------------------------------------------------------------------

LISTS = {
    "vi": (["An", "Bình", "Châu", "Dũng", "Giang", "Hạnh", "Hùng", "Khoa", "Lan", "Linh", "Long", "Mai", "Nam",
            "Phương", "Quân", "Thảo", "Trang", "Tuấn", "Vy", "Yến"],
           ["Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Phan", "Vũ", "Võ", "Đặng", "Bùi", "Đỗ", "Hồ", "Ngô",
            "Dương", "Lý"]),
    "ng": (["Chukwuemeka", "Ngozi", "Oluwaseun", "Adaeze", "Babajide", "Funmilayo", "Ifeanyi", "Chiamaka",
            "Abubakar", "Temitope", "Obinna", "Yetunde", "Emeka", "Nkechi", "Tunde", "Kelechi", "Folake", "Uche"],
           ["Okafor", "Adeyemi", "Okonkwo", "Balogun", "Eze", "Nwosu", "Ogunleye", "Abdullahi", "Bello", "Oyelaran",
            "Chukwu", "Adebayo", "Ibekwe", "Olawale", "Danjuma", "Onyekachi"]),
    "ke": (["Wanjiru", "Achieng", "Kipchoge", "Wambui", "Njeri", "Atieno", "Odhiambo", "Chebet", "Kiprono",
            "Nyambura", "Omondi", "Jelagat", "Muthoni", "Wairimu", "Kibet", "Akinyi"],
           ["Kamau", "Ochieng", "Mutua", "Njoroge", "Wafula", "Kiptoo", "Owino", "Karanja", "Mwangi", "Chepkoech",
            "Githinji", "Kariuki", "Wekesa", "Nyaga", "Korir", "Otieno"]),
    "ar": (["Mohammed", "Ahmed", "Fatima", "Youssef", "Layla", "Omar", "Khalid", "Noor", "Hassan", "Mariam",
            "Tariq", "Salma", "Karim", "Rania", "Yasmin", "Ibrahim", "Hamza", "Amira"],
           ["Al-Harbi", "El-Sayed", "Haddad", "Al-Qahtani", "Mansour", "Nasser", "Abdelrahman", "Al-Masri",
            "Khoury", "Bensaid", "Al-Otaibi", "Farouk", "Benali", "Saleh", "El Amrani", "Tahir"]),
    "ko": (["Min-jun", "Seo-yeon", "Ji-ho", "Ha-eun", "Do-yun", "Su-bin", "Jae-won", "Ye-jin", "Hyun-woo",
            "Eun-ji", "Tae-yang", "Yu-na", "Sung-min", "Ji-woo"],
           ["Kim", "Lee", "Park", "Choi", "Jung", "Kang", "Cho", "Yoon", "Jang", "Lim", "Han", "Shin", "Seo",
            "Kwon"]),
    "in": (["Aarav", "Priya", "Rohan", "Ananya", "Vikram", "Sneha", "Arjun", "Kavya", "Rahul", "Divya",
            "Siddharth", "Pooja", "Karthik", "Meera", "Aditya", "Lakshmi", "Nikhil", "Shreya"],
           ["Sharma", "Iyer", "Reddy", "Patel", "Nair", "Gupta", "Menon", "Krishnan", "Banerjee", "Chatterjee",
            "Rao", "Deshpande", "Kulkarni", "Agarwal", "Pillai", "Joshi"]),
    "ro": (["Andrei", "Ioana", "Mihai", "Elena", "Alexandru", "Raluca", "Bogdan", "Cristina", "Vlad", "Andreea",
            "Ștefan", "Mădălina", "Radu", "Bianca", "Sorin", "Irina"],
           ["Popescu", "Ionescu", "Dumitrescu", "Constantinescu", "Stoica", "Munteanu", "Ardeleanu", "Vasilescu",
            "Mocanu", "Lungu", "Dobre", "Neagu", "Tănase", "Zamfir"]),
}
FAKER_OF = {"br": "pt_BR", "it": "it_IT", "mx": "es_MX", "hu": "hu_HU", "id": "id_ID", "gr": "el_GR"}
ORIGINS = sorted(LISTS) + sorted(FAKER_OF)


def person(origin=None):
    """(first, last) of an origin; Greek names transliterated to Latin letters."""
    origin = origin or pick(ORIGINS)
    if origin in LISTS:
        firsts, lasts = LISTS[origin]
        if origin == "vi":
            return "%s %s" % (pick(["Văn", "Thị", "Minh", "Đức", "Thanh", "Ngọc"]), pick(firsts)), pick(lasts)
        return pick(firsts), pick(lasts)
    f = FAKERS[FAKER_OF[origin]]
    first, last = f.first_name(), f.last_name()
    if origin == "gr":
        first, last = unidecode(first), unidecode(last)
    return first, last


def full(first, last, origin=None):
    """The name in the order its culture writes it (Vietnamese and often Korean: family first)."""
    if origin == "vi" or (origin == "ko" and R.random() < 0.5):
        return "%s %s" % (last, first)
    return "%s %s" % (first, last)


def ascii_fold(s):
    return "".join(c for c in unidecode(s).lower() if c.isalnum() or c in ".-")


MAIL_HOSTS = {"br": ["uol.com.br", "bol.com.br", "terra.com.br"], "it": ["libero.it", "virgilio.it", "tiscali.it"],
              "mx": ["prodigy.net.mx", "hotmail.com"], "hu": ["freemail.hu", "citromail.hu"], "id": ["yahoo.co.id",
              "telkom.net"], "gr": ["otenet.gr", "yahoo.gr"], "vi": ["fpt.vn", "vnn.vn"], "ng": ["yahoo.com.ng",
              "gmail.com"], "ke": ["safaricom.co.ke", "gmail.com"], "ar": ["hotmail.com", "live.com"],
              "ko": ["naver.com", "daum.net", "kakao.com"], "in": ["rediffmail.com", "gmail.com"],
              "ro": ["yahoo.ro", "gmail.com"]}


def email(first, last, origin=None):
    f, l = ascii_fold(first).replace("-", ""), ascii_fold(last).replace("-", "")
    local = pick(["%s.%s" % (f, l), "%s%s%02d" % (f[:1], l, R.randint(0, 99)), "%s_%s" % (f, l),
                  "%s.%s" % (l, f[:1]), "%s%d" % (f, R.randint(70, 2005))])
    hosts = MAIL_HOSTS.get(origin, ["gmail.com", "outlook.com"])
    return "%s@%s" % (local, pick(hosts + ["gmail.com", "outlook.com", "proton.me"]))


# ---- phones: (country code, national significant number maker, how people write it) -------------

def _g(n, *sizes):
    out, i = [], 0
    for s in sizes:
        out.append(n[i:i + s])
        i += s
    return out


PLANS = {
    "ID": ("62", lambda: "8" + pick(["11", "12", "13", "21", "22", "52", "53", "57", "77", "78", "96"]) + digits(8),
           lambda n: pick(["0%s-%s-%s" % tuple(_g(n, 3, 4, 4)), "+62 %s %s %s" % tuple(_g(n, 3, 4, 4)), "0%s%s" % (n[:3], n[3:])])),
    "EG": ("20", lambda: "1" + pick(["0", "1", "2", "5"]) + digits(8),
           lambda n: pick(["0%s %s %s" % tuple(_g(n, 2, 4, 4)), "+20 %s %s" % (n[:2], n[2:])])),
    "SA": ("966", lambda: "5" + pick(["0", "3", "4", "5", "6", "9"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_g(n, 2, 3, 4)), "+966 %s %s %s" % tuple(_g(n, 2, 3, 4))])),
    "MA": ("212", lambda: "6" + pick(["1", "2", "5", "6", "7"]) + digits(7),
           lambda n: pick(["0%s %s %s %s %s" % tuple(_g(n, 1, 2, 2, 2, 2)), "+212 %s-%s-%s-%s-%s" % tuple(_g(n, 1, 2, 2, 2, 2))])),
    "PK": ("92", lambda: "3" + pick(["00", "01", "02", "03", "11", "12", "21", "33", "45"]) + digits(7),
           lambda n: pick(["0%s-%s" % (n[:3], n[3:]), "+92 %s %s" % (n[:3], n[3:])])),
    "BD": ("880", lambda: "1" + pick(["3", "5", "7", "8", "9"]) + digits(8),
           lambda n: pick(["0%s-%s" % (n[:4], n[4:]), "+880 %s-%s" % (n[:4], n[4:])])),
    "PE": ("51", lambda: "9" + digits(8),
           lambda n: pick(["%s %s %s" % tuple(_g(n, 3, 3, 3)), "+51 %s %s %s" % tuple(_g(n, 3, 3, 3))])),
    "UY": ("598", lambda: "9" + pick(["1", "2", "3", "4", "5", "8", "9"]) + digits(6),
           lambda n: pick(["0%s %s %s" % tuple(_g(n, 2, 3, 3)), "+598 %s %s %s" % tuple(_g(n, 2, 3, 3))])),
    "TZ": ("255", lambda: pick(["65", "68", "71", "74", "75", "76", "78"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_g(n, 3, 3, 3)), "+255 %s %s %s" % tuple(_g(n, 3, 3, 3))])),
    "UG": ("256", lambda: "7" + pick(["0", "1", "5", "7", "8"]) + digits(7),
           lambda n: pick(["0%s %s" % (n[:3], n[3:]), "+256 %s %s" % (n[:3], n[3:])])),
    "LK": ("94", lambda: "7" + pick(["0", "1", "2", "5", "6", "7", "8"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_g(n, 2, 3, 4)), "+94 %s %s %s" % tuple(_g(n, 2, 3, 4))])),
    "NG": ("234", lambda: pick(["803", "805", "806", "807", "813", "816", "903", "706"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_g(n, 3, 3, 4)), "+234 %s %s %s" % tuple(_g(n, 3, 3, 4)), "234%s" % n])),
    "KE": ("254", lambda: pick(["70", "71", "72", "79", "11"]) + digits(7),
           lambda n: pick(["0%s %s%s" % (n[:3], n[3:6], n[6:]), "+254 %s %s" % (n[:3], n[3:]), "254%s" % n])),
    "BR": ("55", lambda: pick(["11", "21", "31", "41", "51", "61", "71", "81", "85"]) + "9" + pick("6789") + digits(7),
           lambda n: pick(["(%s) %s-%s" % (n[:2], n[2:7], n[7:]), "+55 %s %s-%s" % (n[:2], n[2:7], n[7:])])),
    "VN": ("84", lambda: pick(["90", "91", "93", "98", "86", "88", "70", "77"]) + digits(7),
           lambda n: pick(["0%s %s %s" % tuple(_g(n, 2, 3, 4)), "+84 %s %s %s" % tuple(_g(n, 2, 3, 4))])),
    "KR": ("82", lambda: "10" + R.choice("23456789") + digits(7),
           lambda n: pick(["0%s-%s-%s" % tuple(_g(n, 2, 4, 4)), "+82 %s-%s-%s" % tuple(_g(n, 2, 4, 4))])),
}
PHONE_OF = {"id": "ID", "ng": "NG", "ke": "KE", "br": "BR", "vi": "VN", "ko": "KR", "ar": "EG"}
PHONES_SEEN = []


def phone(region=None):
    """(region, the number as written there)."""
    region = region or pick(sorted(PLANS))
    _, gen, write = PLANS[region]
    s = write(gen())
    PHONES_SEEN.append((region, s))
    return region, s


def phone_of(origin):
    return phone(PHONE_OF.get(origin, pick(["EG", "SA", "MA", "PK", "BD", "PE", "UY", "TZ", "UG", "LK"])))[1]


# ---- identifiers -----------------------------------------------------------------------------

def cpf(valid=True):
    base = digits(9)
    n = base + stdcpf._calc_check_digits(base)
    if not valid:
        n = n[:9] + str((int(n[9]) + R.randint(1, 9)) % 10) + n[10]
    return pick(["%s.%s.%s-%s" % (n[:3], n[3:6], n[6:9], n[9:]), n])


def aadhaar(valid=True):
    base = R.choice("23456789") + digits(10)
    n = base + verhoeff.calc_check_digit(base)
    if not valid:
        n = n[:11] + str((int(n[11]) + R.randint(1, 9)) % 10)
    return pick(["%s %s %s" % (n[:4], n[4:8], n[8:]), n, "%s-%s-%s" % (n[:4], n[4:8], n[8:])])


def pan():
    # Fourth letter P: an individual; fifth: the surname's initial.
    return chars(3, string.ascii_uppercase) + "P" + R.choice(string.ascii_uppercase) + digits(4) + R.choice(string.ascii_uppercase)


def cnp(valid=True):
    y, m, d = R.randint(55, 99), R.randint(1, 12), R.randint(1, 28)
    base = "%d%02d%02d%02d%02d%03d" % (R.choice([1, 2]), y, m, d, R.randint(1, 40), R.randint(1, 999))
    n = base + stdcnp.calc_check_digit(base)
    if not valid:
        n = n[:12] + str((int(n[12]) + R.randint(1, 9)) % 10)
    return n


CF_MONTHS = "ABCDEHLMPRST"


def codice_fiscale(last, first, valid=True):
    def cons(s):
        return [c for c in ascii_fold(s).upper() if c.isalpha() and c not in "AEIOU"]

    def vows(s):
        return [c for c in ascii_fold(s).upper() if c in "AEIOU"]
    sur = (cons(last) + vows(last) + ["X"] * 3)[:3]
    fc = cons(first)
    nam = ([fc[0], fc[2], fc[3]] if len(fc) > 3 else (fc + vows(first) + ["X"] * 3)[:3])
    day = R.randint(1, 28) + (40 if R.random() < 0.5 else 0)
    base = "".join(sur + nam) + "%02d%s%02d%s%03d" % (R.randint(50, 99), pick(CF_MONTHS), day,
                                                      pick("ABCDEFGHLM"), R.randint(1, 999))
    n = base + stdcf.calc_check_digit(base)
    if not valid:
        n = n[:15] + pick([c for c in string.ascii_uppercase if c != n[15]])
    return n


def kr_rrn(valid=True):
    y, m, d = R.randint(60, 99), R.randint(1, 12), R.randint(1, 28)
    base = "%02d%02d%02d%d%05d" % (y, m, d, R.choice([1, 2]), R.randint(0, 99999))
    w = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]
    c = (11 - sum(int(a) * b for a, b in zip(base, w)) % 11) % 10
    if not valid:
        c = (c + R.randint(1, 9)) % 10
    n = base + str(c)
    return "%s-%s" % (n[:6], n[6:])


MX_STATES = ["AS", "BC", "CH", "DF", "GT", "JC", "MC", "NL", "OC", "PL", "QT", "SP", "VZ", "YN"]


def curp(first, last):
    f, l = ascii_fold(first).upper(), ascii_fold(last).upper()
    vowel = next((c for c in l[1:] if c in "AEIOU"), "X")
    cons = lambda s: next((c for c in s[1:] if c.isalpha() and c not in "AEIOU"), "X")
    base = "%s%s%s%s%02d%02d%02d%s%s%s%s%s0" % (
        l[0], vowel, pick("AEGLMPRS"), f[0], R.randint(60, 99), R.randint(1, 12), R.randint(1, 28), R.choice("HM"),
        pick(MX_STATES), cons(l), cons(pick(["GARCIA", "LOPEZ", "RAMIREZ", "TORRES"])), cons(f))
    return base + stdcurp.calc_check_digit(base)


# ---- money ---------------------------------------------------------------------------------

CARD_BINS = {"elo": (["636368", "438935", "504175", "451416", "636297", "506699"], 16),
             "hipercard": (["606282"], 16), "rupay": (["607153", "652150", "508227", "817290"], 16),
             "verve": (["506099", "650002"], 16), "mir": (["2200", "2202", "2204"], 16),
             "troy": (["979200", "979211"], 16), "visa": (["4"], 16), "mastercard": (["51", "53", "55", "2221"], 16)}


def card(network=None, valid=True, spaced=None):
    network = network or pick(sorted(CARD_BINS))
    bins, n = CARD_BINS[network]
    body = pick(bins)
    body += digits(n - 1 - len(body))
    c = luhn.calc_check_digit(body)
    if not valid:
        c = str((int(c) + R.randint(1, 9)) % 10)
    s = body + c
    spaced = R.random() < 0.6 if spaced is None else spaced
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4)) if spaced else s


IBAN_BBAN = {"BR": lambda: digits(8) + digits(5) + digits(10) + R.choice("CPS") + R.choice("12"),
             "RO": lambda: chars(4, string.ascii_uppercase) + digits(16),
             "HU": lambda: digits(24), "IT": lambda: R.choice(string.ascii_uppercase) + digits(10) + digits(12),
             "GR": lambda: digits(23), "PT": lambda: digits(21), "SA": lambda: digits(2) + digits(18),
             "EG": lambda: digits(25), "PK": lambda: chars(4, string.ascii_uppercase) + digits(16),
             "MX": None}


def iban(country=None, valid=True, grouped=None):
    country = country or pick([c for c in sorted(IBAN_BBAN) if IBAN_BBAN[c]])
    for _ in range(50):
        bban = IBAN_BBAN[country]()
        check = stdiban.calc_check_digits(country + "00" + bban)
        s = country + check + bban
        if stdiban.is_valid(s):
            break
    while not valid:
        t = s[:2] + "%02d" % R.randint(2, 98) + s[4:]
        if not stdiban.is_valid(t):
            s = t
            break
    grouped = R.random() < 0.5 if grouped is None else grouped
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4)) if grouped else s


# ---- secrets -------------------------------------------------------------------------------

VENDORS = {
    "openai_project": lambda: "sk-proj-" + chars(58, URLSAFE) + "T3BlbkFJ" + chars(58, URLSAFE),
    "anthropic": lambda: "sk-ant-api03-" + chars(93, URLSAFE) + "AA",
    "openrouter": lambda: "sk-or-v1-" + chars(64, HEXL),
    "groq": lambda: "gsk_" + chars(52, B62),
    "perplexity": lambda: "pplx-" + chars(48, B62),
    "xai": lambda: "xai-" + chars(80, B62),
    "huggingface": lambda: "hf_" + chars(34, string.ascii_letters),
    "replicate": lambda: "r8_" + chars(37, B62),
    "langsmith": lambda: "lsv2_pt_" + chars(32, HEXL) + "_" + chars(10, HEXL),
    "github_fine": lambda: "github_pat_11" + chars(20, string.ascii_uppercase + string.digits) + "_" + chars(59, B62),
    "gitlab": lambda: "glpat-" + chars(20, URLSAFE),
    "slack_user": lambda: "xoxp-%s-%s-%s-%s" % (digits(11), digits(12), digits(13), chars(32, HEXL)),
    "google_oauth": lambda: "ya29.a0" + chars(150, URLSAFE),
    "stripe_restricted": lambda: "rk_live_" + chars(99, B62),
    "sendgrid": lambda: "SG." + chars(22, URLSAFE) + "." + chars(43, URLSAFE),
    "npm": lambda: "npm_" + chars(36, B62),
    "digitalocean": lambda: "dop_v1_" + chars(64, HEXL),
    "supabase": lambda: "sbp_" + chars(40, HEXL),
    "shopify": lambda: "shpat_" + chars(32, HEXL),
    "linear": lambda: "lin_api_" + chars(40, B62),
    "doppler": lambda: "dp.pt." + chars(43, B62),
    "pinecone": lambda: "pcsk_" + chars(5, B62) + "_" + chars(63, B62),
}
VENDOR_ENV = {"openai_project": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "openrouter": "OPENROUTER_API_KEY",
              "groq": "GROQ_API_KEY", "perplexity": "PPLX_API_KEY", "xai": "XAI_API_KEY", "huggingface": "HF_TOKEN",
              "replicate": "REPLICATE_API_TOKEN", "langsmith": "LANGSMITH_API_KEY", "github_fine": "GH_TOKEN",
              "gitlab": "GITLAB_TOKEN", "slack_user": "SLACK_USER_TOKEN", "google_oauth": "GOOGLE_ACCESS_TOKEN",
              "stripe_restricted": "STRIPE_KEY", "sendgrid": "SENDGRID_API_KEY", "npm": "NPM_TOKEN",
              "digitalocean": "DO_TOKEN", "supabase": "SUPABASE_ACCESS_TOKEN", "shopify": "SHOPIFY_ADMIN_TOKEN",
              "linear": "LINEAR_API_KEY", "doppler": "DOPPLER_TOKEN", "pinecone": "PINECONE_API_KEY"}


def vendor():
    v = pick(sorted(VENDORS))
    return v, VENDORS[v]()


def password():
    """A password as people choose them: words, digits and symbols."""
    w = pick(["Saudade", "Tartaruga", "Girassol", "Primavera", "Cerbiatto", "Zapatilla", "Mariposa", "Kutya",
              "Padurea", "Harimau", "Jollof", "Simba", "Hoahong", "Bulgogi", "Chai", "Tahini", "Kalimera"])
    return pick(["%s%d%s" % (w, R.randint(10, 2029), pick("!@#$%&*?")),
                 "%s.%s.%d" % (w.lower(), pick(["azul", "verde", "rosso", "piros", "merah"]), R.randint(1, 99)),
                 "%s%s%s" % (chars(4), pick("!#$%*-_"), chars(7)),
                 "%s_%s%d!" % (w[:4], chars(3, string.ascii_uppercase), R.randint(100, 999))])


def token(n=40, alphabet=B62):
    return chars(n, alphabet)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def seeded(n):
    return hashlib.sha256(("probe4-%d" % R.getrandbits(64)).encode()).digest()[:n]


def private_key_pem(kind=None):
    """A real private key, derived from seeded bytes, in PEM."""
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519
    kind = kind or pick(["p256", "p384", "ed25519", "secp256k1"])
    if kind == "ed25519":
        k = ed25519.Ed25519PrivateKey.from_private_bytes(seeded(32))
        fmt = ser.PrivateFormat.PKCS8
    else:
        curve = {"p256": ec.SECP256R1(), "p384": ec.SECP384R1(), "secp256k1": ec.SECP256K1()}[kind]
        k = ec.derive_private_key(int.from_bytes(seeded(32), "big") >> 8 | 1 << 240, curve)
        fmt = pick([ser.PrivateFormat.PKCS8, ser.PrivateFormat.TraditionalOpenSSL])
    return k.private_bytes(ser.Encoding.PEM, fmt, ser.NoEncryption()).decode()


def public_key_pem():
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519
    if R.random() < 0.5:
        k = ed25519.Ed25519PrivateKey.from_private_bytes(seeded(32))
    else:
        k = ec.derive_private_key(int.from_bytes(seeded(32), "big") >> 8 | 1 << 240, ec.SECP256R1())
    if R.random() < 0.5:
        return k.public_key().public_bytes(ser.Encoding.OpenSSH, ser.PublicFormat.OpenSSH).decode() + " deploy@ci-runner"
    return k.public_key().public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo).decode()


def when():
    return "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (R.randint(1, 12), R.randint(1, 28), R.randint(0, 23),
                                                   R.randint(0, 59), R.randint(0, 59), R.randint(0, 999))


def birth():
    """(year, month, day) of a birth date."""
    return R.randint(1948, 2004), R.randint(1, 12), R.randint(1, 28)
