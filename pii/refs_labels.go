package pii

import (
	"unicode"
	"unicode/utf8"
)

// Reference labels of the languages whose words leave ASCII. An invoice, order or parcel is
// numbered in Czech, Latvian, Polish or Hungarian as in English ("Zásilka č. 967 283 2891",
// "Rēķina nr. 9151-168231", "Számla sz. 06 30 123 4567"), and its number reads as a national
// phone number as often. The label and the abbreviations of "number" between it and the number
// are read with their diacritics spelt in ASCII (latinFold), so "Rēķina" is "rekina" and "č."
// is "c"; labelledNumber then treats them as it treats "Invoice no.". A word of a phone
// ("Telefonní č.", "Tālr. nr.") is none of these, so a phone number after one is still read.

// refLabelsIntl are the labels of business references beyond numberLabels, in lower case and
// ASCII: Czech and Slovak, Polish, Baltic, Finnic, Hungarian, Romanian, Turkish, South Slavic,
// Nordic and Portuguese words for an invoice, an order, a consignment, a contract, a receipt
// and a voucher, in the cases a label takes.
var refLabelsIntl = toSet(`zasilka zasilky zasielka zasielky objednavka objednavky faktura faktury fakturu fakturou
doklad dokladu smlouva smlouvy zmluva zmluvy uctenka uctenky dobropis dodaci dodaciho
zamowienie zamowienia przesylka przesylki paragon paragonu umowa umowy zlecenie zlecenia
rekins rekina rekinu pasutijums pasutijuma sutijums sutijuma ligums liguma pavadzime pavadzimes ceks ceka
saskaita saskaitos uzsakymas uzsakymo siunta siuntos sutartis sutarties kvitas kvito
arve arved tellimus tellimuse saadetis saadetise pakk paki leping lepingu viitenumber viide kviitung
lasku laskun tilaus tilauksen lahetys lahetyksen seurantanumero sopimus sopimuksen kuitti
szamla szamlaszam szamlat rendeles rendelesszam csomag csomagszam szerzodes nyugta utalvany
factura facturii facturi comanda comenzii colet coletului aviz chitanta
fatura faturasi siparis siparisi kargo gonderi irsaliye fis
racun racuna narudzba narudzbe narudzbenica posiljka posiljke ugovor ugovora narocilo narocila
fakturanummer ordernummer ordre ordrenummer forsandelse kolli sandning sandningsnummer forsendelse pakke
sporingsnummer kvittering kvitto
encomenda remessa rastreio recibo protocolo pratica pratiche protocollo
voucher coupon docket manifest cheque`)

// refFillersIntl are the words for "number" and their abbreviations that stand between such a
// label and its number, spelt in ASCII: "č."/"č" (číslo), "nr", "sz." (szám), "br." (broj),
// "numurs", "numer", "nro", "no", "n".
var refFillersIntl = toSet(`c cislo cisla cislem sz szam szama szamu br broj broja numurs numuru numeris numerio numer
numeru nro numero nummer nummern number nr no n nb fiscal fiscale`)

// refLabelsAfterFiller are labels that count only with a filler between them and the number:
// "Nota Fiscal nº 543.754.721" is an invoice's number, "Nota: 0612 345 678" a note about a phone.
var refLabelsAfterFiller = toSet(`nota note`)

// labelledBack reports whether the number starting at a is labelled as a reference: the word
// before it, past marks, quotes, "°" and "№", is a label, or a filler with a label before it (at
// most four words back). Quotes count among the marks, since an attribute or an assignment
// quotes what it labels: <Invoice number="804050839"/>, order_no='0013438708'.
func labelledBack(s string, a int) bool {
	k := a
	for w := 0; w < 4; w++ {
		for k > 0 && k > a-24 {
			switch {
			case oneOf(s[k-1], " :#.-(=_/\t\"'"):
				k--
				continue
			case k >= 2 && (s[k-2:k] == "°" || s[k-2:k] == "º"):
				k -= 2
				continue
			case k >= 3 && s[k-3:k] == "№":
				k -= 3
				continue
			}
			break
		}
		e := k
		k = labelWordBack(s, e, 24)
		if k == e || e-k > 24 {
			return false
		}
		label, filler := refLabelWord(s[k:e])
		switch {
		case label || w > 0 && refLabelsAfterFiller.hasFold(s[k:e]):
			return true
		case !filler:
			return false
		}
	}
	return false
}

// labelWordBack returns the start of the word that ends at e, letters of any alphabet, or e
// when none does; no word is read back further than max bytes.
func labelWordBack(s string, e, max int) int {
	k := e
	for k > 0 && e-k <= max {
		c := s[k-1]
		if c < 0x80 {
			if !isAlpha(c) {
				break
			}
			k--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s[:k])
		if !unicode.IsLetter(r) {
			break
		}
		k -= n
	}
	return k
}

// refLabelWord says what the word w, before a number, makes of it: a label of a reference
// (label), a word that may stand between a label and its number (filler), or neither.
func refLabelWord(w string) (label, filler bool) {
	var buf [48]byte
	if len(w) > 24 {
		return false, false
	}
	lw := latinLower(buf[:0], w)
	// The lookups take the bytes as a string without copying them.
	if numberLabels.has(string(lw)) || refLabelsIntl.has(string(lw)) {
		return true, false
	}
	return false, numberFillers.has(string(lw)) || refFillersIntl.has(string(lw))
}

// productCodeKey reports whether a normalised key names a generic code of an item ("code",
// "item_code", "productCode"): a number under it that passes the GS1 check, in one group or
// in the groups printed under the bars, is a barcode (gs1Number), where "0012345678905" would
// otherwise read as an international call. A phone number written with "+" or grouped as phone
// numbers are fails gs1Grouping and is still read.
func productCodeKey(n string) bool {
	return inList(n, "code", "codes", "itemcode", "productcode", "articlecode", "artcode", "skucode", "stockcode",
		"goodscode", "prodcode", "partcode", "materialcode", "variantcode", "codigo", "codice", "kod", "kood", "kods")
}
