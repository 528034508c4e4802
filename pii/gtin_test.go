package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// gs1Digit returns the GS1 check digit of the digits d.
func gs1Digit(d string) byte {
	sum := 0
	for k := len(d) - 1; k >= 0; k-- {
		v := int(d[k] - '0')
		if (len(d)-1-k)%2 == 0 {
			v *= 3
		}
		sum += v
	}
	return byte('0' + (10-sum%10)%10)
}

// randomGTIN returns a code of n digits (8, 12, 13 or 14) with its check digit; one in three
// starts "00", as the GS1 prefixes of US and Canadian products under a 13-digit code do.
func randomGTIN(r *rand.Rand, n int) string {
	var b strings.Builder
	if n >= 12 && r.IntN(3) == 0 {
		b.WriteString("00")
	}
	for b.Len() < n-1 {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String() + string(gs1Digit(b.String()))
}

var gs1Texts = []string{
	"EAN-13: %s", "Barcode (EAN): %s", "UPC-A %s", "GTIN %s", "scanned barcode %s at till 4", "EAN/UPC: %s",
	"Código de barras: %s", "Strichcode %s, Menge 12", "code-barres : %s", "product %s (GTIN-14)",
}

// TestBarcodesAreNoPhones: product barcodes with a valid check digit, named as barcodes by a
// word before them, a key or their column's header, are neither phone numbers nor identifiers;
// the same digits with a wrong check digit under a word alone, and phone numbers beside
// barcodes, are still read as they were.
func TestBarcodesAreNoPhones(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(13, 8))
	variants := 0
	for k := 0; k < 200; k++ {
		code := randomGTIN(r, []int{8, 12, 13, 13, 14}[r.IntN(5)])
		var cases []wire.Value
		text := func(s string) {
			cases = append(cases, wire.ObjectValue(wire.Member{Key: "text", Value: wire.StringValue(s)}))
		}
		text(fmt.Sprintf(gs1Texts[r.IntN(len(gs1Texts))], code))
		sku := fmt.Sprintf("%c%c%c-%05d", 'A'+r.IntN(26), 'A'+r.IntN(26), 'A'+r.IntN(26), r.IntN(100000))
		// Tables get the 13- and 14-digit codes: a shorter one between the digits of other
		// cells makes 13 to 19 digits in three groups, which the separators view still reads as a
		// card number when the Luhn check passes (a limit of that view, not of this rule).
		if len(code) < 13 {
			code = randomGTIN(r, 13)
		}
		text(fmt.Sprintf("sku,ean,lot,qty\n%s,%s,LOT%08d,%d", sku, code, r.IntN(1e8), r.IntN(500)))
		text(fmt.Sprintf("sku;qty;gtin\n%s;%d;%s\n", sku, r.IntN(500), code))
		text(fmt.Sprintf("sku\tbarcode\tprice\n%s\t%s\t%d.%02d", sku, code, r.IntN(100), r.IntN(100)))
		text(fmt.Sprintf("| SKU | EAN | Qty |\n|---|---|---|\n| %s | %s | %d |", sku, code, r.IntN(500)))
		key := []string{"ean", "gtin", "barcode", "upc", "ean13", "gtin14"}[r.IntN(6)]
		cases = append(cases, wire.ObjectValue(wire.Member{Key: "product", Value: wire.ObjectValue(
			wire.Member{Key: "sku", Value: wire.StringValue(sku)}, wire.Member{Key: key, Value: wire.StringValue(code)})}))
		for _, c := range cases {
			if block, fs := gateDecision(sc, c); block {
				t.Errorf("%s: blocked: %v", c, fs)
			}
			variants++
		}
	}
	if variants < 20 {
		t.Fatalf("only %d variants", variants)
	}
	// Phone numbers stay phone numbers: written after a call cue, in a phone column beside a
	// barcode column, and with a check digit that fails beside a barcode word.
	for k := 0; k < 40; k++ {
		var num string
		for {
			num = fmt.Sprintf("0049%d%07d", []int{30, 40, 89, 221}[r.IntN(4)], r.IntN(1e7))
			if !gs1Check([]byte(num)) {
				break
			}
		}
		for _, s := range []string{
			"call me on " + num,
			fmt.Sprintf("name,phone,ean\nJonas,%s,%s", num, randomGTIN(r, 13)),
			"EAN-13 label printed; for questions call " + num,
		} {
			if !hasType(sc.ScanText(s), TypePhone) {
				t.Errorf("%q: no phone", s)
			}
		}
	}
}

func TestGS1Check(t *testing.T) {
	for _, c := range []struct {
		d    string
		want bool
	}{
		{"4006381333931", true}, {"5901234123457", true}, {"036000291452", true}, {"96385074", true},
		{"00012345678905", true}, {"4006381333932", false}, {"036000291453", false}, {"1234567", false},
	} {
		if got := gs1Check([]byte(c.d)); got != c.want {
			t.Errorf("gs1Check(%s) = %v, want %v", c.d, got, c.want)
		}
	}
}
