"""Must-block shapes of the tenth probe: people in narrative prose and notes, identified by their
name, their date of birth or their health in context rather than by a structured identifier (case
notes, referral letters, HR incident reports, biographies, notices of living people, news-like
sentences, reviews and testimonials, diary entries, an assistant's memory notes, chat in lower
case, minutes and action items), in thirteen languages; and a few shapes of the other families in
the same kinds of text."""

import json

from probe10_values import (B62, FAMILY_FIRST, HEALTH, HEX, LANGS, R, WESTERN, b64, chars, date_compact, date_in, digits,
                            email, full, initials, name, national, password, person, phone, pick, private_key_pem, shape,
                            vendor_token, ymd)

# ---- names_context -----------------------------------------------------------------------------


@shape("names_context", "case_note_given_name", True)
def _():
    g, fam, o = person(pick(WESTERN))
    g1 = g.split()[0]
    return pick([
        "Case note %s: home visit completed. %s was calm today and showed me the new rota; %s's sister will attend the review." % (date_compact(*ymd(2023, 2025)), g1, g1),
        "Fallnotiz: Gespräch mit %s %s am Dienstag. %s möchte die Termine künftig vormittags." % (g, fam, g1),
        "Note de suivi : %s %s est passé à l'accueil ce matin ; %s demande un rendez-vous avec l'assistante sociale." % (g, fam, g1),
        "Nota del caso: %s %s llamó de nuevo. Según %s, el casero no ha devuelto la fianza." % (g, fam, g1),
        "Notatka: rozmawiałam z %s %s, %s prosi o przesunięcie wizyty na piątek." % (g, fam, g1),
        "Casus-notitie: %s %s was vandaag aanwezig; %s vraagt of de begeleider volgende week kan bellen." % (g, fam, g1),
    ]), ["name"]


@shape("names_context", "referral_letter_particles", True)
def _():
    o = pick(["dutch", "spanish", "irish", "arabic"])
    g, fam, _ = person(o)
    title = pick(["Mr", "Ms", "Mrs", "Mx", "Sr.", "Sra.", "Dhr.", "Mevr."])
    return pick([
        "Dear colleague,\n\nThank you for seeing %s %s %s, whom I have known for several years. %s would like advice on returning to work.\n\nKind regards" % (title, g, fam, fam[0].upper() + fam[1:]),
        "Re: %s %s — I am writing to refer %s to your service for assessment of the housing situation described below." % (g, fam, g),
        "Verwijzing: graag verwijs ik %s %s naar uw praktijk; %s heeft een voorkeur voor een afspraak in de ochtend." % (g, fam, g),
        "Estimada doctora: le remito a %s %s %s para valoración; la acompañará su hermana." % (title if title.startswith("Sr") else "", g, fam),
    ]).replace("  ", " "), ["name"]


@shape("names_context", "hr_incident_report", True)
def _():
    a, b = name(pick(WESTERN)), name(pick(WESTERN))
    return pick([
        "Incident report #%s\nOn %s at about 14:20, %s reported that %s raised their voice during the handover. Witnesses were interviewed." % (digits(5), date_compact(*ymd(2024, 2025)), a, b),
        "HR summary: a complaint was filed by %s against the shift lead. %s was interviewed on Monday and denies the allegation." % (a, b),
        "Vorfallbericht: %s meldete, dass %s das Lager ohne Schlüsselübergabe verlassen hat." % (a, b),
        "Rapport d'incident : %s a signalé que %s a quitté son poste sans prévenir." % (a, b),
    ]), ["name"]


@shape("names_context", "biography_surname_subject", True)
def _():
    g, fam, o = person(pick(WESTERN))
    fam1 = fam[0].upper() + fam[1:]
    y = R.randint(1988, 2016)
    return pick([
        "%s began writing as a teenager, publishing her first short story in %d while still at school." % (fam1, y),
        "%s %s works as a nurse in Leeds. %s trained in %d and now mentors new staff on the ward." % (g, fam, fam1, y),
        "After university %s joined a small design studio; colleagues describe %s as patient and exacting." % (fam1, g),
        "%s, a local baker, opened the shop in %d. \"We started with two ovens,\" %s says." % (full(g, fam, o), y, fam1),
        "%s grew up in a family of teachers and moved to Rotterdam in %d, where %s now coaches the under-12s." % (g + " " + fam, y, fam1),
    ]), ["name"]


@shape("names_context", "diary_journal_entry", True)
def _():
    g, fam, o = person()
    g1 = g.split()[0]
    return pick([
        "Dear diary — coffee with %s again. %s thinks I should take the job in Porto." % (full(g, fam, o), g1),
        "Journal, %s: %s came round for dinner; we talked until midnight about %s's new flat." % (date_compact(*ymd(2024, 2025)), full(g, fam, o), g1),
        "Tagebuch: heute hat mich %s angerufen, endlich! Wir treffen uns Samstag." % full(g, fam, o),
        "Journal intime : déjeuner avec %s, qui part vivre à Lyon le mois prochain." % full(g, fam, o),
        "Diario: hoy vi a %s en el mercado; %s me contó que se casa en mayo." % (full(g, fam, o), g1),
    ]), ["name"]


@shape("names_context", "lowercase_chat_names", True)
def _():
    n = name(pick(WESTERN + ["pinyin", "korean", "romaji"])).lower()
    return pick([
        "lol ask %s if shes coming tonight" % n,
        "ok so %s just texted, running 10 min late" % n,
        "pls cc %s on the thread, she asked for it" % n,
        "btw %s moved to the berlin office last week" % n,
        "yo did %s ever pay you back for the tickets" % n,
        "gonna grab lunch w %s, back at 2" % n,
    ]), ["name"]


@shape("names_context", "family_name_first", True)
def _():
    g, fam, o = person(pick(FAMILY_FIRST))
    n = full(g, fam, o)
    return pick([
        "Meeting notes: %s (supplier side) confirmed the new delivery window." % n,
        "%s asked whether the contract can be signed in Budapest." % n,
        "Tomorrow %s-san will present the results; please prepare the slides." % n if o == "romaji" else "Tomorrow %s will present the results; please prepare the slides." % n,
        "Jegyzet: %s telefonált, holnap reggel jön be az irodába." % n,
        "Ghi chú: anh %s đã gọi lại, muốn đổi lịch hẹn sang thứ Sáu." % n,
        "Visitor today: %s from the Seoul office, badge at reception." % n,
    ]), ["name"]


@shape("names_context", "initials_and_nicknames", True)
def _():
    g, fam, o = person(pick(WESTERN))
    nick = pick(["Bongi", "Tunde", "Sasha", "Lexi", "Kiki", "Dima", "Nene", "Fifi", "Jojo", "Pato"])
    return pick([
        "Statement witnessed by %s, who signed on the second page." % initials(g, fam, o),
        "Reviewed with %s on Tuesday; %s will send the figures." % (initials(g, fam, o), g.split()[0]),
        "My cousin \"%s\" %s is staying with us until the 20th." % (nick, fam),
        "Everyone calls him %s, but his name is %s %s." % (nick, g, fam),
        "Signed: %s, on behalf of the tenants' association" % initials(g, fam, o),
    ]), ["name"]


@shape("names_context", "minutes_action_items", True)
def _():
    a, b = person(pick(WESTERN)), person(pick(WESTERN))
    return pick([
        "Minutes, %s\nPresent: %s, %s\nActions:\n- %s to chase the landlord about the boiler\n- %s to draft the newsletter" % (date_compact(*ymd(2024, 2025)), full(*a), full(*b), a[0].split()[0], b[0].split()[0]),
        "AP: %s follow up with legal by Friday. AP: %s book the venue." % (full(*a), full(*b)),
        "Protokoll: %s übernimmt die Einladung, %s kümmert sich um das Catering." % (full(*a), full(*b)),
        "Actas: %s presentó el presupuesto; %s queda encargada de revisarlo." % (full(*a), full(*b)),
    ]), ["name"]


@shape("names_context", "review_testimonial", True)
def _():
    g, fam, o = person()
    return pick([
        "\"%s was brilliant with our kids, patient and fun. Highly recommend!\" — %s %s." % (g.split()[0], pick(["Sara", "Tom", "Ines", "Ravi"]), pick("KLMPT")),
        "Five stars. %s fixed the leak in twenty minutes and cleaned up after himself." % full(g, fam, o),
        "Testimonial: \"Thanks to %s, I finally understand my pension.\"" % full(g, fam, o),
        "Avis : %s est une prof de piano exceptionnelle, ma fille adore ses cours." % full(g, fam, o),
        "Reseña: %s nos ayudó con la mudanza, muy puntual y amable." % full(g, fam, o),
    ]), ["name"]


@shape("names_context", "agent_memory_people", True)
def _():
    g, fam, o = person()
    rel = pick(["manager", "landlord", "accountant", "daughter's teacher", "physiotherapist", "neighbour"])
    return pick([
        "memory: user's %s is %s; prefers e-mail over calls." % (rel, full(g, fam, o)),
        "Remember: the user is meeting %s next Thursday about the lease." % full(g, fam, o),
        "[memory] User mentioned their partner, %s, works night shifts." % g.split()[0],
        "note to self (assistant): %s from the book club asked the user to bring the list." % full(g, fam, o),
    ]), ["name"]


# ---- health ------------------------------------------------------------------------------------

REL = {"en": ["my son", "my daughter", "my husband", "my mother"], "de": ["mein Sohn", "meine Tochter", "mein Mann", "meine Mutter"],
       "fr": ["mon fils", "ma fille", "mon mari", "ma mère"], "es": ["mi hijo", "mi hija", "mi marido", "mi madre"],
       "pt": ["o meu filho", "a minha filha", "o meu marido", "a minha mãe"], "it": ["mio figlio", "mia figlia", "mio marito", "mia madre"],
       "nl": ["mijn zoon", "mijn dochter", "mijn man", "mijn moeder"], "pl": ["mój syn", "moja córka", "mój mąż", "moja mama"],
       "sv": ["min son", "min dotter", "min man", "min mamma"], "hu": ["a fiam", "a lányom", "a férjem", "az anyám"],
       "vi": ["con trai tôi", "con gái tôi", "chồng tôi", "mẹ tôi"], "id": ["anak saya", "putri saya", "suami saya", "ibu saya"],
       "tr": ["oğlum", "kızım", "eşim", "annem"]}


def _has(lang, who, cond):
    return {"en": "%s has %s" % (who, cond), "de": "%s hat %s" % (who, cond), "fr": "%s a %s" % (who, cond),
            "es": "%s tiene %s" % (who, cond), "pt": "%s tem %s" % (who, cond), "it": "%s ha %s" % (who, cond),
            "nl": "%s heeft %s" % (who, cond), "pl": "%s ma %s" % (who, cond), "sv": "%s har %s" % (who, cond),
            "hu": "%s %s" % (who, cond), "vi": "%s bị %s" % (who, cond), "id": "%s menderita %s" % (who, cond),
            "tr": "%s %s hastası" % (who, cond)}[lang]


def _takes(lang, who, med):
    return {"en": "%s takes %s" % (who, med), "de": "%s nimmt %s" % (who, med), "fr": "%s prend %s" % (who, med),
            "es": "%s toma %s" % (who, med), "pt": "%s toma %s" % (who, med), "it": "%s prende %s" % (who, med),
            "nl": "%s gebruikt %s" % (who, med), "pl": "%s bierze %s" % (who, med), "sv": "%s tar %s" % (who, med),
            "hu": "%s %s szed" % (who, med), "vi": "%s đang dùng %s" % (who, med), "id": "%s minum %s" % (who, med),
            "tr": "%s %s kullanıyor" % (who, med)}[lang]


@shape("health", "case_note_condition_languages", True)
def _():
    lang = pick(LANGS)
    cond, med = pick(HEALTH[lang])
    g, fam, o = person()
    who = full(g, fam, o)
    return pick([_has(lang, who, cond), _takes(lang, who, med)]) + pick([".", "; see the care plan.", " — noted at intake."]), ["name", "health"]


@shape("health", "relative_condition_languages", True)
def _():
    lang = pick(LANGS)
    cond, med = pick(HEALTH[lang])
    who = pick(REL[lang])
    s = pick([_has(lang, who, cond), _takes(lang, who, med)])
    return s[0].upper() + s[1:] + pick([".", ", so please keep that in mind.", " — FYI for the trip."]), ["health"]


@shape("health", "agent_memory_health", True)
def _():
    she = pick(["Mia", "Aiko", "Folasade", "Lieke", "Ananya", "Selamawit", "Zsófia", "Seo-yeon"])
    he = pick(["Tomasz", "Youssef", "Bence", "Oisín", "Dawit", "Kenji", "Babatunde", "Íñigo"])
    cond, med = pick(HEALTH["en"])
    return pick([
        "user prefers morning slots; their daughter %s has %s" % (she, cond),
        "Memory update: user's husband %s takes %s twice daily — remind about refills." % (he, med),
        "[mem] user was diagnosed with %s last spring; avoid suggesting late-night plans" % cond,
        {"memory": [{"k": "diet", "v": "vegetarian"}, {"k": "family", "v": "son %s, 9, has %s" % (he, cond)}]},
    ]), ["health"]


@shape("health", "referral_letter_health", True)
def _():
    g, fam, o = person(pick(WESTERN))
    cond, med = pick(HEALTH["en"])
    t = pick(["Mr", "Ms", "Mrs"])
    return pick([
        "Dear Dr %s,\nI would be grateful if you could review %s %s %s, who has %s and currently takes %s.\nYours sincerely," % (pick(["Okoro", "Lindqvist", "Haddad"]), t, g, fam, cond, med),
        "Referral: %s %s — known %s, on %s; please assess for adjustment of treatment." % (g, fam, cond, med),
        "Überweisung: Frau %s %s, bekannte %s, bitte um Mitbeurteilung." % (g, fam, pick(["Epilepsie", "Multiple Sklerose", "Depression"])),
    ]), ["name", "health"]


@shape("health", "hr_sick_leave_prose", True)
def _():
    g, fam, o = person()
    n = full(g, fam, o)
    return pick([
        "%s is off this week with a migraine flare-up; the fit note mentions chronic migraine." % n,
        "HR: %s will be on phased return after treatment for breast cancer." % n,
        "%s ist seit Montag wegen eines Bandscheibenvorfalls krankgeschrieben." % n,
        "%s est en arrêt maladie pour un burn-out jusqu'au 30." % n,
        "%s está de baja por una hernia discal." % n,
    ]), ["name", "health"]


@shape("health", "diary_first_person_health", True)
def _():
    lang = pick(["en", "de", "fr", "es", "it", "nl"])
    cond, med = pick(HEALTH[lang])
    return {
        "en": pick(["Day 3 on %s. Sleeping badly but the %s feels a bit lighter." % (med, cond), "Journal: got the results — it's %s. Starting %s on Monday." % (cond, med)]),
        "de": "Tagebuch: heute die Diagnose bekommen, %s. Ab morgen %s." % (cond, med),
        "fr": "Journal : le médecin dit que j'ai %s, je commence %s demain." % (cond, med),
        "es": "Diario: me han diagnosticado %s; empiezo con %s el lunes." % (cond, med),
        "it": "Diario: mi hanno diagnosticato %s, inizio con %s." % (cond, med),
        "nl": "Dagboek: ik heb %s, zegt de huisarts; vanaf morgen %s." % (cond, med),
    }[lang], ["health"]


@shape("health", "testimonial_health", True)
def _():
    g, fam, o = person()
    cond, med = pick(HEALTH["en"])
    return pick([
        "\"After my %s diagnosis I thought I'd never run again. Six months later I finished the 10k.\" — %s" % (cond, full(g, fam, o)),
        "Patient story: %s has lived with %s since childhood and now volunteers at the clinic." % (full(g, fam, o), cond),
        "%s shares how switching to %s changed her days." % (full(g, fam, o), med),
    ]), ["name", "health"]


# ---- dob_context -------------------------------------------------------------------------------

BORN = {"en": "%s was born on %s.", "de": "%s wurde am %s geboren.", "fr": "%s est né(e) le %s.", "es": "%s nació el %s.",
        "pt": "%s nasceu em %s.", "it": "%s è nato/a il %s.", "nl": "%s is geboren op %s.", "pl": "%s urodził(a) się %s.",
        "sv": "%s föddes %s.", "hu": "%s %s született.", "vi": "%s sinh %s.", "id": "%s lahir pada %s.", "tr": "%s %s tarihinde doğdu."}


@shape("dob_context", "biography_born_languages", True)
def _():
    lang = pick(LANGS)
    g, fam, o = person()
    return BORN[lang] % (full(g, fam, o), date_in(lang, *ymd(1940, 2005))), ["name", "dob"]


@shape("dob_context", "agent_memory_birthdays", True)
def _():
    y, m, d = ymd(1950, 2018)
    return pick([
        "memory: user's birthday is %s (DOB)" % date_compact(y, m, d),
        "remember: user's son was born %s, allergic to nuts" % date_in("en", y, m, d),
        "[mem] user dob %s; lives alone; prefers short answers" % date_compact(y, m, d),
        {"memories": ["likes jazz", "date of birth: %s" % date_compact(y, m, d), "vegetarian"]},
    ]), ["dob"]


@shape("dob_context", "referral_dob_formats", True)
def _():
    g, fam, o = person()
    y, m, d = ymd(1935, 2010)
    return pick([
        "Re: %s, DOB %s, NHS appointment follow-up" % (full(g, fam, o), date_compact(y, m, d)),
        "Patient: %s (d.o.b. %s) seen in clinic today." % (full(g, fam, o), date_compact(y, m, d)),
        "Betreff: %s, geb. %02d.%02d.%d" % (full(g, fam, o), d, m, y),
        "Objet : %s, né(e) le %s" % (full(g, fam, o), date_in("fr", y, m, d)),
        "Asunto: %s, fecha de nacimiento %s" % (full(g, fam, o), date_in("es", y, m, d)),
    ]), ["name", "dob"]


@shape("dob_context", "living_person_notice", True)
def _():
    g, fam, o = person()
    y, m, d = ymd(1930, 1960)
    return pick([
        "Happy 90th! %s, born %s, celebrates with family at the community hall on Saturday." % (full(g, fam, o), date_in("en", y, m, d)),
        "Congratulations to our volunteer %s (born %s) on twenty years with the food bank." % (full(g, fam, o), date_in("en", y, m, d)),
        "Wir gratulieren %s, geboren am %s, zum Geburtstag!" % (full(g, fam, o), date_in("de", y, m, d)),
        "Felicidades a %s, nacida el %s, por su jubilación." % (full(g, fam, o), date_in("es", y, m, d)),
    ]), ["name", "dob"]


@shape("dob_context", "diary_child_birth_date", True)
def _():
    y, m, d = ymd(2008, 2022)
    lang = pick(["en", "de", "nl", "sv", "pl"])
    g = pick(["Mia", "Noah", "Lena", "Emil", "Zofia", "Sem", "Elsa", "Ayo"])
    return {
        "en": "Journal: %s's passport renewal — she was born %s, so the child fee applies." % (g, date_in("en", y, m, d)),
        "de": "Tagebuch: %s (geboren am %s) hat heute den ersten Zahn verloren." % (g, date_in("de", y, m, d)),
        "nl": "Dagboek: %s, geboren op %s, gaat na de zomer naar groep 3." % (g, date_in("nl", y, m, d)),
        "sv": "Dagbok: %s föddes %s och börjar skolan i höst." % (g, date_in("sv", y, m, d)),
        "pl": "Pamiętnik: %s urodziła się %s, dziś pierwsza wizyta u dentysty." % (g, date_in("pl", y, m, d)),
    }[lang], ["name", "dob"]


# ---- the other families, in the same kinds of text ---------------------------------------------


@shape("struct_pii", "case_note_contact_details", True)
def _():
    g, fam, o = person(pick(WESTERN))
    return "Case note: %s can be reached at %s or on %s after 5pm." % (full(g, fam, o), email(g, fam), phone()), ["name", "email", "phone"]


@shape("intl_phone", "diary_phone_in_prose", True)
def _():
    return pick([
        "Journal: finally got the plumber's mobile, %s — call before 8." % phone(),
        "memory: user's emergency contact number is %s" % phone(),
        "Referral letter: the family can be reached on %s." % phone(),
        "note: her new number is %s, the old one is dead" % phone(),
    ]), ["phone"]


@shape("national_id", "hr_report_national_id", True)
def _():
    lbl, v = national()
    g, fam, o = person(pick(WESTERN))
    return "Incident report: employee %s (%s %s) signed the statement." % (full(g, fam, o), lbl, v), ["name", "national_id"]


@shape("vendor_secret", "dev_journal_token", True)
def _():
    return pick([
        "Dev journal: rotated the deploy token today, new one is %s — move it to the vault tomorrow." % vendor_token(),
        "memory: user's API key for the side project: %s" % vendor_token(),
        "Diary: pasted %s into the chat by accident, need to revoke it." % vendor_token(),
    ]), ["api_token"]


@shape("url_credentials", "notes_connection_string", True)
def _():
    u = pick(["app", "reporting", "svc_notes", "admin"])
    return pick([
        "Notes from the migration: source db postgres://%s:%s@db-%s.internal:5432/cases" % (u, password(), digits(2)),
        "journal: staging is at https://%s:%s@staging.example.net/ for now" % (u, password()),
        "memory: user's NAS backup url smb://%s:%s@192.0.2.%d/backups" % (u, password(), R.randint(2, 250)),
    ]), ["url_credentials"]


@shape("password_prose", "memory_password_languages", True)
def _():
    p = password()
    return pick([
        "memory: the user's wifi password is %s" % p,
        "Notiz: das Passwort für das Elternportal lautet %s" % p,
        "Note : le mot de passe du compte de la mutuelle est %s" % p,
        "nota: la contraseña del banco es %s, no compartir" % p,
        "notatka: hasło do poczty to %s" % p,
        "anteckning: lösenordet till routern är %s" % p,
    ]), ["password"]


@shape("keyword_token", "notes_session_token", True)
def _():
    t = pick([chars(40, HEX), chars(32, B62), chars(48, B62)])
    return pick([
        "journal: the support agent asked for my session token, it was %s" % t,
        "memory: refresh_token %s (expires in 30 days)" % t,
        "HR portal note — auth token: %s" % t,
    ]), ["api_token"]


@shape("pem_key", "journal_pasted_key", True)
def _():
    return pick(["Dev diary: generated the signing key for the side project, keeping it here for now:\n%s",
                 "memory: user's server key (do not share)\n%s"]) % private_key_pem(), ["private_key"]


@shape("encoded", "memory_base64_contact", True)
def _():
    g, fam, o = person(pick(WESTERN))
    blob = b64(json.dumps({"name": full(g, fam, o), "email": email(g, fam)}, ensure_ascii=False))
    return pick(["memory blob (base64): %s" % blob, "Case export attached as base64: %s" % blob]), ["name", "email"]


@shape("split_json", "memory_fields_split", True)
def _():
    g, fam, o = person(pick(WESTERN))
    e = email(g, fam)
    local, dom = e.split("@")
    return {"memory": {"contact": {"user": local, "at": "@", "domain": dom}, "note": "met at the book club"}}, ["email"]


@shape("error_text", "reminder_delivery_error", True)
def _():
    g, fam, o = person(pick(WESTERN))
    k = R.randrange(3)
    if k == 0:
        return "Error: could not deliver birthday reminder to %s <%s>: mailbox full" % (full(g, fam, o), email(g, fam)), ["name", "email"]
    if k == 1:
        return "ReminderError: SMS to %s failed (carrier rejected)" % phone(), ["phone"]
    return "sync failed for contact %s (%s): 409 conflict" % (full(g, fam, o), email(g, fam)), ["name", "email"]
