package pii

// healthMoreLanguages are conditions and the words for being diagnosed as referrals and claims
// write them in Russian, Slovak, Croatian, Afrikaans, Basque and Galician, and the Spanish of
// psychiatric diagnoses: the words of healthConditions and healthPhrases in more of the
// languages agents exchange records in.
const healthMoreLanguages = `
вич, вич-инфекция, спид, сахарный диабет, диабет, депрессия, рак, рак молочной железы, эпилепсия, шизофрения,
биполярное расстройство, туберкулёз, туберкулез, гепатит, инсульт, инфаркт, диагностирован, диагностирована,
cukrovka, rakovina, rakovina prsníka, depresia, epilepsia, schizofrénia, diagnostikovaná, diagnostikovaný,
šećerna bolest, dijabetes, rak dojke, depresija, epilepsija, shizofrenija, dijagnosticiran, dijagnosticirana,
suikersiekte, borskanker, kanker, depressie, gediagnoseer met, gediagnoseer,
diabetesa, depresioa, minbizia, bularreko minbizia, epilepsia, diagnostikatu,
cancro de mama, depresión maior, diabete tipo 2,
trastorno depresivo, trastorno depresivo mayor`
