package pii

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
