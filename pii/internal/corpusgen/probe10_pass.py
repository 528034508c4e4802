"""Must-pass shapes of the tenth probe: the same kinds of narrative prose and notes about no person
the gate protects (eponyms, brands, places and institutions named for people, works known by
their author, health guidelines and drug leaflets, dates that are not dates of birth, minutes and
memory notes about teams and preferences), and hard negatives of the other families."""

from probe10_values import (HEX, HEALTH, LANGS, R, chars, date_compact, date_in, digits, national_broken, pick, public_key_pem,
                            shape, ymd)

# ---- benign_names ------------------------------------------------------------------------------


@shape("benign_names", "eponyms_in_prose", False)
def _():
    return pick([
        "The survival analysis uses Kaplan-Meier curves and a Cox model; see section %d." % R.randint(2, 9),
        "Fallnotiz zur Methode: Wir rechnen mit dem Mann-Whitney-Test statt dem t-Test.",
        "Le cours de jeudi porte sur la loi de Benford et le théorème de Bayes.",
        "El informe aplica la distribución de Poisson a las llegadas por hora.",
        "Diary: finally understood the Monty Hall problem and the Dunning-Kruger effect.",
        "Notes: the Doppler shift explains the reading; Hubble's law in chapter %d." % R.randint(3, 12),
    ])


@shape("benign_names", "brands_named_for_people", False)
def _():
    return pick([
        "Journal: bought a Ferrero Rocher box and a bottle of Moët & Chandon for the party, %d EUR." % R.randint(30, 90),
        "Review: the Dyson V%d is loud but the Philips one broke after a month." % R.randint(8, 15),
        "memory: user prefers Tim Hortons over Starbucks for coffee runs",
        "Note: the Porsche and the Ferrari are parked in bay %d." % R.randint(1, 40),
        "Reseña: la chaqueta de Carolina Herrera llegó con la talla equivocada.",
        "Avis : le parfum Yves Saint Laurent est arrivé en %d jours." % R.randint(2, 9),
    ])


@shape("benign_names", "places_named_for_people", False)
def _():
    return pick([
        "Diary: landed at Indira Gandhi International at %d:%02d, queue at immigration." % (R.randint(0, 23), R.randint(0, 59)),
        "Meet at the Kossuth Lajos utca tram stop, exit %d." % R.randint(1, 4),
        "Trip notes: train from Roma Termini to Aeroporto Leonardo da Vinci, then bus.",
        "Journal: walked along Avenida Francisco de Miranda to the park.",
        "Our office moved to Rue Jean Jaurès, floor %d." % R.randint(1, 8),
        "Ghi chú: khách sạn trên đường Nguyễn Huệ, quận 1.",
    ])


@shape("benign_names", "works_and_institutions", False)
def _():
    return pick([
        "Book club pick: Tolstoy's Anna Karenina, chapters 1-%d." % R.randint(5, 20),
        "Summary of a Johns Hopkins study on sleep and shift work, %d participants." % R.randint(200, 9000),
        "Reading diary: finished Márquez's Cien años de soledad tonight.",
        "The grant comes from the Bill & Melinda Gates Foundation programme for %d." % R.randint(2025, 2027),
        "Review: the new staging of Shakespeare's Hamlet runs for %d minutes." % R.randint(120, 200),
        "Notes: the Max Planck Institute seminar moved to room %d." % R.randint(100, 400),
    ])


@shape("benign_names", "minutes_teams_roles", False)
def _():
    return pick([
        "Minutes, %s\nPresent: finance team, ops lead, two volunteers\nActions:\n- ops to chase the landlord\n- comms to draft the newsletter" % date_compact(*ymd(2024, 2025)),
        "AP: legal follow up by Friday. AP: facilities book the venue.",
        "Protokoll: Die Geschäftsführung übernimmt die Einladung, das Sekretariat das Catering.",
        "Incident report #%s: the night shift reported a leak in the storeroom; no injuries." % digits(5),
        "Actas: la tesorería presentó el presupuesto; la junta lo revisará.",
    ])


# ---- benign_health -----------------------------------------------------------------------------


def _leaflet(lang, cond, med):
    return {"en": "Patient leaflet: %s is used to treat %s. Do not exceed the stated dose." % (med, cond),
            "de": "Packungsbeilage: %s wird zur Behandlung von %s angewendet." % (med, cond),
            "fr": "Notice : %s est indiqué dans le traitement %s." % (med, cond.replace("de l'", "de l'").replace("une ", "d'une ")),
            "es": "Prospecto: %s se utiliza para tratar la %s en adultos." % (med, cond),
            "pt": "Folheto informativo: %s é indicado no tratamento da %s." % (med, cond),
            "it": "Foglio illustrativo: %s è indicato per il trattamento dell'%s." % (med, cond),
            "nl": "Bijsluiter: %s wordt gebruikt bij %s." % (med, cond),
            "pl": "Ulotka: lek stosuje się w leczeniu chorób takich jak %s." % cond,
            "sv": "Bipacksedel: %s används vid %s hos vuxna." % (med, cond),
            "hu": "Betegtájékoztató: a %s a felnőttek kezelésére szolgál." % med,
            "vi": "Hướng dẫn sử dụng: %s dùng để điều trị %s ở người lớn." % (med, cond),
            "id": "Brosur obat: %s digunakan untuk mengobati %s." % (med, cond),
            "tr": "Kullanma talimatı: %s, %s tedavisinde kullanılır." % (med, cond)}[lang]


@shape("benign_health", "drug_leaflets_languages", False)
def _():
    lang = pick(LANGS)
    cond, med = pick(HEALTH[lang])
    return _leaflet(lang, cond, med)


@shape("benign_health", "guidelines_about_no_one", False)
def _():
    cond, med = pick(HEALTH["en"])
    return pick([
        "Guideline: adults with %s should be reviewed at least once a year." % cond,
        "Leitlinie: Bei Asthma wird eine jährliche Kontrolle der Inhalationstechnik empfohlen.",
        "Recommandation : le dépistage du diabète est conseillé après %d ans." % pick([40, 45, 50]),
        "Guía clínica: la hipertensión se controla con cambios en la dieta y ejercicio.",
        "Richtlijn: bij epilepsie wordt autorijden pas na %d aanvalsvrije maanden toegestaan." % pick([6, 12]),
        "Health news: a trial of %s in %d adults with %s reported fewer relapses." % (med, R.randint(200, 5000), cond),
    ])


@shape("benign_health", "eponym_diseases_news", False)
def _():
    return pick([
        "Parkinson's Awareness Week starts on the %dth with a charity walk." % R.randint(4, 20),
        "Researchers report a new blood test for Alzheimer's disease in a sample of %d adults." % R.randint(300, 9000),
        "Die Deutsche Morbus Crohn Vereinigung lädt zum Infotag am %d. Mai." % R.randint(1, 28),
        "Journée mondiale de la maladie de Huntington : stands d'information en mairie.",
        "La fundación organiza una charla sobre el síndrome de Down y la inclusión laboral.",
        "Funding round for a Hodgkin lymphoma study closes in %d weeks." % R.randint(2, 10),
    ])


@shape("benign_health", "hr_policy_sick_leave", False)
def _():
    return pick([
        "HR policy: employees on sick leave for more than %d days need a fit note." % pick([3, 5, 7]),
        "Richtlinie: Krankmeldungen sind ab dem dritten Tag vorzulegen.",
        "Politique RH : l'arrêt maladie doit être transmis sous 48 heures.",
        "Política: la baja por enfermedad se comunica al responsable el primer día.",
        "Reminder: the flu vaccination clinic is on floor %d on Thursday." % R.randint(1, 6),
    ])


# ---- benign_prose ------------------------------------------------------------------------------


@shape("benign_prose", "dates_not_birth_dates", False)
def _():
    lang = pick(["en", "de", "fr", "es", "nl", "hu", "id", "tr"])
    y, m, d = ymd(1950, 2024)
    dt = date_in(lang, y, m, d)
    return {
        "en": pick(["The bridge opened to traffic on %s." % dt, "The lease was signed on %s and runs for five years." % dt]),
        "de": "Die Brücke wurde am %s eröffnet." % dt,
        "fr": "La bibliothèque a ouvert ses portes le %s." % dt,
        "es": "El contrato se firmó el %s." % dt,
        "nl": "De fabriek sloot op %s haar deuren." % dt,
        "hu": "Az új híd %s nyílt meg." % dt,
        "id": "Gedung ini diresmikan pada %s." % dt,
        "tr": "Köprü %s tarihinde açıldı." % dt,
    }[lang]


@shape("benign_prose", "lowercase_chat_no_person", False)
def _():
    return pick([
        "lunch moved to 1pm, bring the slides",
        "ok so the invoice was paid twice, can u check",
        "lol the wifi is down again on the 3rd floor",
        "running %d min late, start without me" % R.randint(5, 20),
        "pls cc the team on the thread",
        "btw the berlin office moved last week",
    ])


@shape("benign_prose", "memory_preferences_no_person", False)
def _():
    return pick([
        "memory: user prefers metric units; timezone Europe/Budapest; answers in Hungarian",
        "Remember: the user likes short summaries and dislikes emoji.",
        "[memory] user is learning Vietnamese, practise %d new words a day" % R.randint(5, 20),
        {"memory": [{"k": "diet", "v": "vegetarian"}, {"k": "units", "v": "metric"}, {"k": "tone", "v": "formal"}]},
    ])


@shape("benign_prose", "diary_without_people", False)
def _():
    return pick([
        "Dear diary — rain all day, finished the puzzle and baked bread.",
        "Journal, %s: long walk by the river, then read until midnight." % date_compact(*ymd(2024, 2025)),
        "Tagebuch: heute endlich den Balkon bepflanzt.",
        "Diario: hoy hizo sol, fuimos a la playa y comimos paella.",
        "Journal intime : journée calme, rangé la cave.",
    ])


# ---- the other must-pass families --------------------------------------------------------------


@shape("bad_checksum", "hr_report_ids_failing_check", False)
def _():
    lbl, v = national_broken()
    return "Incident report: the %s on the form, %s, failed validation; HR asked for a copy of the ID." % (lbl, v)


@shape("labelled_number", "notes_order_and_case_numbers", False)
def _():
    return pick([
        "Journal: order no. %s arrived damaged, refund requested." % digits(10),
        "Case number %s closed after the home visit." % digits(9),
        "Référence dossier %s-%s" % (digits(4), digits(6)),
        "Tracking: %s (DHL), ETA Friday" % digits(10),
    ])


@shape("git_ssh", "dev_journal_remotes", False)
def _():
    return pick([
        "Dev journal: cloned git@github.com:%s/%s.git and fixed the build." % (pick(["acme", "casework", "diary-app"]), pick(["notes", "api", "web"])),
        "memory: user's repo remote is git@gitlab.example.org:%s/memory-store.git" % pick(["team", "labs", "ops"]),
    ])


@shape("benign_code", "code_about_birthdays_and_people", False)
def _():
    return pick([
        "def age(person):\n    today = date.today()\n    return today.year - person.birth_date.year",
        "SELECT name, date_of_birth FROM patients WHERE id = :id;",
        "type Patient struct {\n\tName string\n\tDOB  time.Time\n\tDiagnosis string\n}",
        "// TODO: hide the diagnosis field for users without the clinician role",
    ])


@shape("benign_secretlike", "memory_redacted_placeholders", False)
def _():
    return pick([
        "memory: user's wifi password is stored in the vault (not here)",
        "note: api key = <redacted>",
        "Dev diary: set OPENAI_API_KEY=${OPENAI_API_KEY} in the env file",
        "commit %s, build %s" % (chars(40, HEX), chars(8, HEX)),
        "memory: user's public signing key\n%s" % public_key_pem(),
        "trace id: %s-%s-%s" % (chars(8, HEX), chars(4, HEX), chars(12, HEX)),
    ])



@shape("benign_names", "news_roles_without_names", False)
def _():
    return pick([
        "The mayor said the new library will open in %s." % pick(["spring", "autumn", "March", "2026"]),
        "Der Bürgermeister kündigte an, die Brücke bis %d zu sanieren." % R.randint(2026, 2030),
        "La ministra de Sanidad presentó el plan de vacunación en rueda de prensa.",
        "Le préfet a annoncé la fermeture de la route pendant %d jours." % R.randint(2, 10),
        "A police spokesperson confirmed that two people were questioned.",
        "Review: the head chef's tasting menu is worth the trip; the sommelier was excellent.",
    ])


@shape("benign_health", "clinic_notices_no_patient", False)
def _():
    return pick([
        "Clinic notice: the asthma clinic moves to Tuesday mornings from %s." % pick(["May", "June", "next week"]),
        "Die Diabetesberatung ist am %d. geschlossen." % R.randint(1, 28),
        "Avis : la consultation d'épilepsie est déplacée au bâtiment B.",
        "Aviso: la unidad de salud mental amplía su horario hasta las %d h." % R.randint(18, 21),
        "Mededeling: de griepprik wordt op %d oktober gegeven." % R.randint(1, 31),
    ])
