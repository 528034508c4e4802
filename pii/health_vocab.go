package pii

import (
	"math/bits"
	"strings"
	"unsafe"
)

// Health vocabulary: conditions by the names that ICD-10's chapters and common usage give them,
// medicines by their international non-proprietary names (most from the WHO Model List of
// Essential Medicines), and phrases that state someone's health ("diagnosed with", "allergic
// to", "on sick leave"), in English and in the other languages the gate sees most. A word of
// the vocabulary is health information about a person when the document identifies someone or
// speaks of one ("I", "my", "she", "patient", a name); "a cancer research grant", "the
// diagnosis module" and "health check passed" name no one and pass.

// healthVocab maps a first word (lower case) to the phrases that start with it; "" stands for
// the word alone.
var healthVocab = func() map[string][]string {
	m := map[string][]string{}
	for _, list := range []string{healthConditions, healthMedicines, healthPhrases, healthLeave, healthMoreLanguages, healthNineLanguages} {
		for _, p := range strings.Split(strings.TrimSpace(list), ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			first, rest, _ := strings.Cut(p, " ")
			m[first] = append(m[first], rest)
		}
	}
	return m
}()

const healthConditions = `
diabetes, diabetic, hypertension, asthma, epilepsy, hiv, aids, cancer, leukemia, leukaemia, lymphoma,
melanoma, carcinoma, sarcoma, tumour, tumor, metastatic, copd, emphysema, bronchitis, pneumonia,
tuberculosis, hepatitis, cirrhosis, psoriasis, eczema, dermatitis, lupus, arthritis, osteoarthritis,
osteoporosis, gout, fibromyalgia, migraine, migraines, multiple sclerosis, parkinson's, parkinson's disease,
alzheimer's, alzheimer's disease, dementia, schizophrenia, bipolar disorder, bipolar, depression,
major depressive disorder, depressive, anxiety disorder, panic disorder, ptsd, ocd, adhd, autism,
anorexia, anorexia nervosa, bulimia, eating disorder, insomnia, narcolepsy, crohn's, crohn's disease, coeliac, celiac,
coeliac disease, celiac disease, colitis, ulcerative colitis, irritable bowel, ibs, kidney disease,
chronic kidney disease, renal failure, heart failure, heart disease, coronary, arrhythmia,
atrial fibrillation, angina, stroke, herniated disc, sciatica, scoliosis, endometriosis, infertility,
miscarriage, pregnant, pregnancy, long covid, covid, covid-19, influenza, malaria, cholera, measles,
hemophilia, haemophilia, sickle cell, thalassemia, anaemia, anemia, hypothyroidism, hyperthyroidism,
glaucoma, cataract, cataracts, tinnitus, deafness, blindness, paralysis, paraplegia, cerebral palsy,
down syndrome, cystic fibrosis, muscular dystrophy, als, obesity, alcoholism, addiction, overdose,
concussion, fracture, chlamydia, gonorrhea, syphilis, herpes, hpv, diabetes mellitus, type 1 diabetes,
type 2 diabetes, diabète, diabetes tipo, krebs, zuckerkrankheit, depressionen, cancro, cáncer,
tumeur, diabete, épilepsie, epilepsia, asthme, asma, hipertensión, ipertensione, hypertonie, bluthochdruck,
brustkrebs, lungenkrebs, morbus crohn, multiple sklerose, esclerosis múltiple, trastorno bipolar, depresión,
diabetes tipo 2, cáncer de mama, sclérose en plaques, dépression, trouble bipolaire, sclerosi multipla, disturbo bipolare,
cukrzyca, nadciśnienie, stwardnienie rozsiane, depresja, astma,
hep c, hep b, hepatitis c, hepatitis b, long-covid, mecfs,
lungenentzündung, migräne, bandscheibenvorfall, burnout, erschöpfungssyndrom, herzinfarkt, schlaganfall,
migren, kanser, şeker hastalığı, zatürre, depresyon, migrän, lunginflammation, utmattningssyndrom, diskbråck,
migrene, lungebetændelse, migreeni, keuhkokuume, zápal plic, výhřez ploténky, migréna, zapalenie płuc, migrena,
rwa kulszowa, pneumonie, migraine, hernie discale, neumonía, hernia discal, polmonite, ernia del disco,
pneumonia, hérnia de disco, longontsteking, hernia, tüdőgyulladás, porckorongsérv,
sleep apnoea, sleep apnea, obstructive sleep apnoea, obstructive sleep apnea, generalised anxiety disorder,
generalized anxiety disorder, hyperlipidaemia, hyperlipidemia, hypercholesterolaemia, hypercholesterolemia,
psoriatic arthritis, ankylosing spondylitis, myasthenia gravis, huntington's disease, motor neurone disease,
meningitis, sepsis, pancreatitis, thrombosis, deep vein thrombosis, pulmonary embolism, aneurysm,
spina bifida, borderline personality disorder, personality disorder, agoraphobia, self-harm,
neoplasm, malignant neoplasm, depressive episode, alcohol dependence, opioid dependence`

// healthNineLanguages are the common chronic conditions (asthma, diabetes, epilepsy, depression,
// high blood pressure, multiple sclerosis) and the medicines most prescribed for them as Dutch,
// Portuguese, Italian, Polish, Swedish, Hungarian, Turkish, Indonesian and Vietnamese write them,
// with the inflected forms a sentence about a person takes ("ma astmę", "inzulint szed",
// "asztmás"), and English's "high blood pressure".
const healthNineLanguages = `
high blood pressure, hoge bloeddruk, suikerziekte, depressie, epilepsie, astma, insuline,
hipertensão, depressão, esclerose múltipla, insulina, sertralina, losartana, ocrelizumabe,
epilessia, depressione, diabete di tipo, salbutamolo, amlodipina,
astmę, astmy, cukrzycę, cukrzycy, padaczka, padaczkę, depresję, insulinę, sertralinę, amlodypinę, lewetyracetam, okrelizumab,
högt blodtryck, epilepsi, sertralin, amlodipin,
asztma, asztmás, cukorbeteg, cukorbetegség, epilepszia, epilepsziás, depresszió, depressziós, magas vérnyomás,
magas vérnyomású, szklerózis multiplex, szklerózis multiplexes, inzulin, inzulint, szalbutamol, szalbutamolt, szertralin, szertralint,
amlodipint, levetiracetám, levetiracetámot, okrelizumabot,
astım, diyabet, tip 1 diyabet, tip 2 diyabet, yüksek tansiyon, insülin, levetirasetam, okrelizumab,
darah tinggi, depresi, diabetes tipe,
hen suyễn, tiểu đường, động kinh, trầm cảm, cao huyết áp, đa xơ cứng`

// healthLeave is being off work on a doctor's note, in the languages the gate sees most: it
// says a person is ill as plainly as a diagnosis.
const healthLeave = `
krankgeschrieben, krankschreibung, arbeitsunfähig, sjukskriven, sjukskrivning, sykmeldt, sygemeldt,
sairauslomalla, sairauslomaa, raporlu, pracovní neschopnosti, pracovní neschopnost, neschopence, zwolnienie lekarskie,
zwolnieniu lekarskim, arbeidsongeschikt, ziekgemeld, arrêt maladie, arrêt de travail, baja médica,
baja por enfermedad, in malattia, congedo per malattia, atestado médico, licença médica, betegszabadságon,
táppénzen, sick note, signed off sick, off sick, medical leave`

const healthMedicines = `
metformin, insulin, insulin glargine, glargine, gliclazide, glibenclamide, sitagliptin, empagliflozin,
lisinopril, enalapril, ramipril, losartan, amlodipine, bisoprolol, metoprolol, atenolol, propranolol,
hydrochlorothiazide, furosemide, spironolactone, atorvastatin, simvastatin, rosuvastatin, warfarin,
apixaban, rivaroxaban, clopidogrel, heparin, digoxin, levothyroxine, prednisone, prednisolone,
dexamethasone, hydrocortisone, methotrexate, adalimumab, infliximab, etanercept, hydroxychloroquine,
azathioprine, tamoxifen, letrozole, anastrozole, imatinib, trastuzumab, rituximab, cisplatin,
carboplatin, doxorubicin, paclitaxel, cyclophosphamide, sertraline, fluoxetine, citalopram, escitalopram,
paroxetine, venlafaxine, duloxetine, mirtazapine, amitriptyline, bupropion, quetiapine, olanzapine,
risperidone, aripiprazole, haloperidol, clozapine, lithium, lithium carbonate, valproate, valproic acid,
lamotrigine, levetiracetam, carbamazepine, phenytoin, gabapentin, pregabalin, diazepam, lorazepam,
alprazolam, clonazepam, zolpidem, methylphenidate, atomoxetine, donepezil, memantine, levodopa,
buprenorphine, methadone, naltrexone, naloxone, morphine, oxycodone, hydrocodone, fentanyl, tramadol,
codeine, rivastigmine, galantamine, keppra, lamictal, depakote, tegretol, wellbutrin, lexapro, effexor,
cymbalta, seroquel, abilify, risperdal, zyprexa, lyrica, neurontin, suboxone, truvada, descovy, biktarvy,
synthroid, eliquis, xarelto, lantus, novorapid, humalog, jardiance, januvia, concerta, vyvanse, strattera,
tenofovir, emtricitabine, efavirenz, dolutegravir, lamivudine, zidovudine, abacavir,
sofosbuvir, isoniazid, rifampicin, amoxicillin, penicillin, azithromycin, doxycycline, ciprofloxacin,
salbutamol, albuterol, budesonide, fluticasone, montelukast, omeprazole, pantoprazole, ondansetron,
epinephrine, epipen, semaglutide, ozempic, prozac, zoloft, xanax, adderall, ritalin, humira,
mesalazine, mesalamine, sulfasalazine, ustekinumab, vedolizumab, natalizumab, ocrelizumab, fingolimod, glatiramer,
teriflunomide, interferon beta, tofacitinib, baricitinib, upadacitinib, secukinumab, ixekizumab, dupilumab,
omalizumab, mepolizumab, denosumab, alendronate, colchicine, allopurinol, febuxostat, sumatriptan, topiramate,
zonisamide, lacosamide, oxcarbazepine, clobazam, ethosuximide, pramipexole, ropinirole, rasagiline, carbidopa,
modafinil, dexamfetamine, lisdexamfetamine, guanfacine, buspirone, trazodone, vortioxetine, agomelatine,
lurasidone, ziprasidone, paliperidone, cariprazine, brexpiprazole, nortriptyline, clomipramine, imipramine,
dabigatran, edoxaban, ticagrelor, prasugrel, ivabradine, sacubitril, candesartan, irbesartan, telmisartan,
valsartan, nebivolol, carvedilol, verapamil, diltiazem, nifedipine, indapamide, bumetanide, eplerenone, ezetimibe,
fenofibrate, liraglutide, dulaglutide, tirzepatide, dapagliflozin, canagliflozin, pioglitazone, glimepiride,
insulin aspart, insulin lispro, insulin detemir, insulin degludec, raltegravir, darunavir, ritonavir, rilpivirine,
bictegravir, cabotegravir, ledipasvir, velpatasvir, glecaprevir, capecitabine, oxaliplatin, gemcitabine,
docetaxel, pembrolizumab, nivolumab, bevacizumab, olaparib, palbociclib, enzalutamide, abiraterone, bicalutamide,
leuprorelin, goserelin, tiotropium, formoterol, salmeterol, beclometasone, carbimazole, methimazole,
propylthiouracil, liothyronine, isotretinoin, misoprostol, mifepristone, disulfiram, acamprosate, varenicline`

const healthPhrases = `
diagnosed with, diagnosed as, been diagnosed, suffers from, suffering from, treated for,
allergic to, sick leave, on medication, prescribed, chemotherapy, radiotherapy, dialysis,
antidepressants, antidepressant, antiretroviral, antiretrovirals, hiv-positive, hiv positive,
hiv status, dx'd, dxd, diagnosed w/, on meds, leidet an, erkrankt an, diagnostiziert, souffre de, atteint de, diagnostiqué, diagnostiquée,
padece, diagnosticado, diagnosticada, diagnosticaron, diagnosticato, diagnosticata, zdiagnozowano, gediagnosticeerd, soffre di, affetto da, affetta da, tested positive,
pre-authorisation for, pre-authorization for, lab results, diagnose für, diagnose fur`

// vocabBloom holds the first three bytes (case-folded) of every first word of the vocabulary.
var vocabBloom = func() (b bloom) {
	for w := range healthVocab {
		if len(w) >= 2 {
			b.add(w)
		}
	}
	return b
}()

// vocabBloom4 holds the first four bytes (case-folded as fold4 folds them) of every first word
// of the vocabulary that has four: a word of the text that starts with four ASCII letters is
// looked up only when it begins as one of them, which "the", "with" and "from" do not.
var vocabBloom4 = func() (b bloom) {
	for w := range healthVocab {
		if len(w) >= 4 {
			b.set(fold4(w, 0))
		}
	}
	return b
}()

// healthVocabScan reports health vocabulary in x.s at word starts, adding a finding for each
// (emit) or returning at the first (emit false, for a test of a value). It returns whether it
// found any.
func (x *scanCtx) healthVocabScan(emit bool) bool {
	s := x.s
	n := len(s)
	b := unsafe.Slice(unsafe.StringData(s), n)
	found := false
	prevAlnum := false
	for base := 0; base < n; base += 64 {
		alpha, alnum := alphaMasks(b[base:])
		starts := alpha &^ (alnum<<1 | b2u(prevAlnum))
		prevAlnum = alnum>>63&1 != 0
		for starts != 0 {
			i := base + bits.TrailingZeros64(starts)
			starts &= starts - 1
			if i+1 >= n || !vocabBloom.has(fold3(s, i)) {
				continue
			}
			if e := vocabAt(s, i); e > i {
				found = true
				if !emit {
					return true
				}
				x.add(TypeHealth, i, e, 0.8, "health.vocabulary")
			}
		}
	}
	return found
}

// vocabWords holds each first word of the vocabulary by its first three bytes (case-folded) and
// its length, and by the length it has with "'s" after it: a word of the text is looked up in
// the map only when it has a first word's beginning and length, not for every "the" or "and"
// whose three bytes share a bit of vocabBloom.
var vocabWords = func() (b bloom) {
	for w := range healthVocab {
		if len(w) >= 2 {
			k := fold3(w, 0)
			b.set(k | uint32(len(w))<<24)
			b.set(k | uint32(len(w)+2)<<24)
		}
	}
	return b
}()

func (b *bloom) set(k uint32) {
	h := bloomHash(k)
	b[h>>6] |= 1 << (h & 63)
}

// vocabAt returns the end of the vocabulary phrase at i, or i.
func vocabAt(s string, i int) int {
	e := i
	high := false
	for e < len(s) && (isAlpha(s[e]) || s[e] == '\'' || s[e] == '-' && e+1 < len(s) && isAlnum(s[e+1])) {
		high = high || s[e] >= 0x80
		e++
	}
	if e-i < 2 || e-i > 24 {
		return i
	}
	if k := fold3(s, i); !high && !vocabWords.has(k&(1<<(8*min(3, e-i))-1)|uint32(e-i)<<24) {
		return i
	}
	w := s[i:e]
	var buf [32]byte
	lb := lowerInto(buf[:0], w)
	if high {
		lb = append(lb[:0], strings.ToLower(w)...)
	}
	rests, ok := healthVocab[string(lb)]
	if !ok {
		if n := len(lb); n < 3 || lb[n-2] != '\'' || lb[n-1] != 's' {
			return i
		}
		if rests, ok = healthVocab[string(lb[:len(lb)-2])]; !ok {
			return i
		}
	}
	if n := len(lb); n > 2 && lb[n-2] == '\'' && lb[n-1] == 's' && eponymAfter(s, e) {
		return i // "Parkinson's law", "Down's rule": an eponym, no one's condition
	}
	best := i
	for _, r := range rests {
		if r == "" {
			best = max(best, e)
			continue
		}
		if e+1+len(r) <= len(s) && s[e] == ' ' && strings.EqualFold(s[e+1:e+1+len(r)], r) &&
			(e+1+len(r) == len(s) || !isAlnum(s[e+1+len(r)])) {
			best = max(best, e+1+len(r))
		}
	}
	return best
}

// personWords start a sentence about someone: the pronouns of the first and third person and the
// words for a patient, in the languages of the vocabulary.
var personWords = toSet(`i i'm i've i'd i'll my me mine myself she he his her him hers patient patientin
patienten ich mein meine meiner er sie ihr je j'ai mon ma mes il elle yo mi mis él ella paciente io mio mia lui lei
ik mijn hij zij moje můj moji moja mój jag hon jeg hun mana mans minu mina`)

// personLens[c] has bit n set when a word of personWords or personOpeners has n bytes and starts
// with c: a capitalised word of another first letter or length ("The", "Latency", "Please") is
// neither, on one load.
var personLens = func() (t [256]uint32) {
	for _, ws := range []*wordSet{personWords, personOpeners} {
		for w := range ws.m {
			t[w[0]] |= 1 << len(w)
		}
	}
	return t
}()

// personOpeners open a sentence whose next word is a first-person pronoun in an oblique case,
// which personWords cannot hold alone ("mir" and "me" are other words too): "Bei mir wurde
// Asthma diagnostiziert", "On m'a diagnostiqué", "A mí me diagnosticaron", "Mi hanno detto".
var personOpeners = toSet(`bei mit on a à me mi u mir mich moi ik eu`)

// obliquePronouns follow a word of personOpeners.
var obliquePronouns = []string{"mir ", "mich ", "m'", "m’", "me ", "mi ", "mí ", "mnie ", "mij ", "moi ", "hanno "}

// firstPersonOpener reports whether the capitalised word s[i:j] and the next one say the
// sentence is about its writer.
func firstPersonOpener(s string, i, j int) bool {
	// The openers have at most four bytes, and every oblique pronoun starts with 'm' or 'h'.
	if j-i > 4 || j+2 >= len(s) || s[j] != ' ' || s[j+1] != 'm' && s[j+1] != 'h' || !personOpeners.hasFold(s[i:j]) {
		return false
	}
	for _, p := range obliquePronouns {
		if strings.HasPrefix(s[j+1:], p) {
			return true
		}
	}
	return false
}

// personalHealth emits the health vocabulary of a document that identifies no one but speaks of
// someone; each is as in finishDoc.
func (x *scanCtx) personalHealth(each func(fn func(path func() string, s string, key keyKind))) {
	if each == nil {
		x.base = len(x.out)
		x.healthVocabScan(true)
		x.resolveHealth()
		return
	}
	each(func(path func() string, s string, key keyKind) {
		x.s = s
		x.base = len(x.out)
		x.healthVocabScan(true)
		x.resolveHealth()
		if len(x.out) > x.base {
			p := path()
			for i := x.base; i < len(x.out); i++ {
				x.out[i].Path = p
			}
		}
	})
}

// eponymNouns follow a name in the possessive to make a law, a rule or a unit of it.
var eponymNouns = toSet(`law laws principle rule razor paradox theorem constant number equation problem`)

// eponymAfter reports whether an eponym's noun follows e: " law", " principle".
func eponymAfter(s string, e int) bool {
	if e+2 >= len(s) || s[e] != ' ' {
		return false
	}
	w, ok := wordAt(s, e+1, false)
	return ok && w.a == e+1 && w.b-w.a <= 10 && eponymNouns.has(strings.TrimRight(s[w.a:w.b], ".:;"))
}
