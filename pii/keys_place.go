package pii

import "strings"

// schemeNumberKey reports whether a normalised key is a national scheme's short name and "number"
// or "no" ("sinnumber", "bsnno", "cpfnumber"): the scheme's number.
func schemeNumberKey(n string) bool {
	stem, ok := strings.CutSuffix(n, "number")
	if !ok {
		if stem, ok = strings.CutSuffix(n, "no"); !ok {
			return false
		}
	}
	return inList(stem, "bsn", "nir", "cpr", "dni", "nie", "nif", "tin", "hetu", "egn", "cnp", "emso", "amka", "pps", "oib",
		"cpf", "cnpj", "sin", "nas", "tfn", "ric", "pan", "ssn", "sofi", "ahv", "avs", "rut", "curp", "nric", "ird")
}

// placeKey reports whether a normalised key names a place or a firm: its value is named for a
// person as often as not ("Ciudad Juan Bosch", "Matthews, Davison and Evans", "Tim Hortons"), and
// is not a person's name. An address key is not one: an address holds a street and a number.
func placeKey(n string) bool {
	return inList(n, "city", "town", "village", "region", "state", "province", "county", "district", "country",
		"municipality", "locality", "venue", "site", "branch", "company", "companyname", "vendor", "vendorname",
		"supplier", "suppliername", "organization", "organisation", "organizationname", "organisationname", "org",
		"orgname", "employer", "employername", "firm", "brand", "manufacturer", "merchant", "merchantname",
		"store", "storename", "shop", "hotel", "hotelname", "airline", "carrier", "product", "productname")
}
