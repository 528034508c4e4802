package pii

import "strings"

// Product barcodes. An EAN-13, UPC-A, EAN-8 or GTIN-14 is a product's number: 8, 12, 13 or 14
// digits whose last is the GS1 check digit (weights 3 and 1 from the right). Printed under the
// bars, or listed in product data, one that starts "00" reads as an international call
// ("0051523155036"), and others as national numbers or identifiers. A number with a valid
// check digit that something names as a barcode is no personal data: a word for one in the
// 40 bytes before it ("EAN-13:", "Barcode (EAN)", "UPC-A", "código de barras"), or the header of
// its column in a CSV, TSV or Markdown table ("sku,ean,lot,qty"). The check digit keeps a phone
// number that merely stands beside such a word (one in ten passes it by chance) from passing
// unless it is also written as barcodes are: in one group, or in the groups printed under the
// bars (1-5-5-1, 1-6-6, 4-4).

// gs1Cues are words that name a barcode.
var gs1Cues = newCues("ean", "gtin", "upc", "barcode", "bar code", "barcodes", "strichcode", "código de barras",
	"codigo de barras", "code-barres", "code barre", "codice a barre", "streepjescode", "kod kreskowy",
	"čárový kód", "vonalkód", "viivakoodi", "streckkod", "strekkode", "stregkode", "jan code", "jan-code")

// gs1Column holds the header names of a column of barcodes.
var gs1Column = toSet(`ean ean13 ean-13 ean8 ean-8 ean_13 ean_8 gtin gtin13 gtin14 gtin-13 gtin-14 gtin_13 gtin_14
upc upca upc-a upc_a upce upc-e barcode barcodes bar_code ean/upc upc/ean gtin/ean ean/gtin jan strichcode`)

// gs1Check reports whether d, 8, 12, 13 or 14 digits, ends in its GS1 check digit.
func gs1Check(d []byte) bool {
	switch len(d) {
	case 8, 12, 13, 14:
	default:
		return false
	}
	sum := 0
	for k := len(d) - 2; k >= 0; k-- {
		v := int(d[k] - '0')
		if (len(d)-2-k)%2 == 0 {
			v *= 3
		}
		sum += v
	}
	return (10-sum%10)%10 == int(d[len(d)-1]-'0')
}

// gs1Grouping reports whether n is written as barcodes are: one group, or the groups printed
// under the bars.
func gs1Grouping(n *numSpan) bool {
	if n.plus || n.paren {
		return false
	}
	g := n.glen[:n.ng]
	switch n.ng {
	case 1:
		return true
	case 2:
		return g[0] == 4 && g[1] == 4
	case 3:
		return g[0] == 1 && g[1] == 6 && g[2] == 6
	case 4:
		return g[0] == 1 && g[1] == 5 && g[2] == 5 && g[3] == 1
	}
	return false
}

// gs1Number reports whether n is a product's barcode, as the comment at the top says.
func (x *scanCtx) gs1Number(n *numSpan) bool {
	if !gs1Check(n.digits()) || !gs1Grouping(n) {
		return false
	}
	return x.key == keyCode || x.cueBefore(n.start, 40, gs1Cues) || gs1Column.has(strings.ToLower(columnName(x.s, n.start, n.end)))
}

// columnName returns the header of the column that the cell s[a:b] stands in, in a block of
// lines of comma-, semicolon-, tab- or bar-separated cells ("sku,ean,lot,qty" above
// "IXI-31082,0051523155036,LOT64061529,348"), or "".
func columnName(s string, a, b int) string {
	ls := strings.LastIndexByte(s[:a], '\n') + 1
	var sep byte
	switch {
	case a > ls && strings.IndexByte(",;\t|", s[a-1]) >= 0:
		sep = s[a-1]
	case b < len(s) && strings.IndexByte(",;\t|", s[b]) >= 0:
		sep = s[b]
	case a > ls+1 && s[a-1] == ' ' && s[a-2] == '|':
		sep = '|' // "| X1 | 0051523155036 |"
	default:
		return ""
	}
	col := strings.Count(s[ls:a], string(sep))
	// The header is the first line of the block of lines that hold the separator (at most 64
	// lines up); a Markdown table's rule ("|---|---|") is passed over.
	head := ls
	for up := 0; head > 0 && up < 64; up++ {
		ps := strings.LastIndexByte(s[:head-1], '\n') + 1
		if strings.IndexByte(s[ps:head-1], sep) < 0 {
			break
		}
		head = ps
	}
	he := strings.IndexByte(s[head:], '\n')
	if he < 0 || head+he >= ls {
		return "" // no line above: the cell is in the header itself
	}
	cells := strings.Split(s[head:head+he], string(sep))
	if col >= len(cells) {
		return ""
	}
	return strings.Trim(cells[col], " \"'`*\r")
}
