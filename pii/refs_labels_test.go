package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// refLabelsForeign are labels of business references in languages that write them with
// diacritics, each with the abbreviation of "number" its language puts after it.
var refLabelsForeign = []string{
	"Zásilka č.", "Objednávka č.", "Faktura č.", "Faktúra č.", "Zásielka č.", "Číslo objednávky:", "Rēķina nr.",
	"Rēķins Nr.", "Pasūtījuma nr.", "Sūtījuma nr.", "Līguma nr.", "Sąskaitos nr.", "Užsakymo nr.", "Siuntos Nr.",
	"Arve nr", "Tellimuse number", "Saadetis", "Számla sz.", "Rendelésszám:", "Csomagszám", "Zamówienie nr",
	"Przesyłka nr", "Faktura nr", "Factura nr.", "Comanda nr.", "Sipariş no:", "Fatura no", "Račun br.",
	"Narudžba br.", "Pošiljka", "Ordernummer", "Försändelse", "Kolli", "Encomenda n.º", "Lasku nro",
	"Tilaus nro", "Voucher", "Coupon", "Invoice n°", "Order №", "Protocollo", "Numero pratica", "Nota Fiscal nº",
	"Nota fiscal n.",
}

// phoneLabelsForeign name a phone in the same languages: a number after one is still read.
var phoneLabelsForeign = []string{"Telefonní č.", "Tālr. nr.", "Telefona nr.", "Tel. nr.", "Telefon:", "Mob.", "Tel. č.",
	"Telefonszám:", "Telefono nr.", "Puhelin", "Nota: call"}

// phoneShapedRefs returns n reference numbers written as phone numbers are, each of which the
// scan reads as a phone number in "ring me on X" (so that the label is what the test turns).
func phoneShapedRefs(t *testing.T, sc *Scanner, r *rand.Rand, n int) []string {
	digits := func(k int) string {
		var b strings.Builder
		for b.Len() < k {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	var out []string
	for tries := 0; len(out) < n && tries < 20000; tries++ {
		var v string
		switch r.IntN(6) {
		case 0:
			v = "0" + digits(3) + " " + digits(3) + " " + digits(3)
		case 1:
			v = digits(3) + " " + digits(3) + " " + digits(4)
		case 2:
			v = digits(4) + "-" + digits(6)
		case 3:
			v = "0" + digits(2) + " " + digits(3) + " " + digits(2) + " " + digits(2)
		case 4:
			v = digits(3) + " " + digits(3) + " " + digits(3)
		default:
			v = "0" + digits(9)
		}
		if v[0] == '0' && v[1] == '0' {
			continue
		}
		if hasType(sc.ScanText("ring me on "+v+" tomorrow"), TypePhone) {
			out = append(out, v)
		}
	}
	if len(out) < n {
		t.Fatalf("only %d phone-shaped numbers", len(out))
	}
	return out
}

// TestForeignReferenceLabels: a number that reads as a phone number is a reference after a
// label of an invoice, an order or a consignment in a language written with diacritics
// ("Zásilka č.", "Rēķina nr.", "Számla sz."), with or without its abbreviation of "number";
// after a word for a phone in the same languages it is still a phone number.
func TestForeignReferenceLabels(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(20, 27))
	nums := phoneShapedRefs(t, sc, r, 60)
	tails := []string{"", " paid in full", " — out for delivery", ", 2 items", " approved"}
	refs, phones := 0, 0
	for i, v := range nums {
		label := refLabelsForeign[i%len(refLabelsForeign)]
		text := label + " " + v + tails[r.IntN(len(tails))]
		if fs := sc.ScanText(text); hasType(fs, TypePhone) {
			t.Errorf("%q: read as a phone number: %v", text, fs)
		}
		refs++
		pl := phoneLabelsForeign[i%len(phoneLabelsForeign)]
		text = pl + " " + v
		if fs := sc.ScanText(text); !hasType(fs, TypePhone) {
			t.Errorf("%q: phone number not found: %v", text, fs)
		}
		phones++
	}
	if refs < 20 || phones < 20 {
		t.Fatalf("only %d references and %d phones", refs, phones)
	}
}

// TestBarcodeUnderCodeKey: a product's barcode with its GS1 check digit under a generic code
// key ("code", "item_code", "productCode"), alone or beside the item's other members, is no
// phone number, also when it starts "00" as an international call does; a phone number under a
// phone key, and one written with "+" under a code key, are still found.
func TestBarcodeUnderCodeKey(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(5, 40))
	keys := []string{"code", "item_code", "productCode", "ArticleCode", "sku_code", "stock-code", "codigo", "kood"}
	variants := 0
	for k := 0; k < 120; k++ {
		code := randomGTIN(r, []int{8, 12, 13, 13, 14}[r.IntN(5)])
		if k%3 == 0 && len(code) >= 12 {
			code = "00" + code[2:len(code)-1]
			code += string(gs1Digit(code))
		}
		key := keys[k%len(keys)]
		var p wire.Value
		if k%2 == 0 {
			p = wire.ObjectValue(wire.Member{Key: key, Value: wire.StringValue(code)})
		} else {
			p = wire.ObjectValue(wire.Member{Key: "item", Value: wire.ObjectValue(
				wire.Member{Key: "name", Value: wire.StringValue(fmt.Sprintf("Mug %d", r.IntN(90)+10))},
				wire.Member{Key: key, Value: wire.StringValue(code)},
				wire.Member{Key: "qty", Value: wire.IntValue(int64(r.IntN(9) + 1))})})
		}
		if block, fs := gateDecision(sc, p); block {
			t.Errorf("%s: blocked: %v", p, fs)
		}
		variants++
	}
	for _, v := range phoneShapedRefs(t, sc, r, 20) {
		p := wire.ObjectValue(wire.Member{Key: "phone", Value: wire.StringValue(v)})
		if block, _ := gateDecision(sc, p); !block {
			t.Errorf("%s: passed", p)
		}
	}
	for _, v := range []string{"+44 7911 123456", "+49 1512 3456789", "+33 6 12 34 56 78", "+420 601 123 456"} {
		p := wire.ObjectValue(wire.Member{Key: "code", Value: wire.StringValue(v)})
		if block, _ := gateDecision(sc, p); !block {
			t.Errorf("%s: passed", p)
		}
	}
	if variants < 20 {
		t.Fatalf("only %d variants", variants)
	}
}
