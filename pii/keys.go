package pii

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// keyKind is what an object key (or an assigned identifier in text) says about its value.
type keyKind uint8

const (
	keyNone keyKind = iota
	keyEmail
	keyPhone
	keyName       // bare "name": a person's only if the value looks like one
	keyPersonName // first_name, surname, patient_name...
	keyAddress
	keyDOB
	keySSN
	keyNationalID
	keyPassport
	keyDL
	keyNHS
	keyNINO
	keyCard
	keyIBAN
	keyAccount
	keyRouting
	keyHealth
	keyPassword
	keyToken   // token, api key, client secret, credentials...
	keyPrivate // private key, seed, secret key
	keyPublic  // key, public_key, enc_key: public key material, never a secret
	keySumoID  // Sumo Logic access id
	keyLabel   // order_id, invoice_number, tracking_number, sku: a business reference, not a person's number
	keyLogin   // login, creds, userpass: a user and a password written as one value ("admin/s3cret")
	keyPlace   // city, venue, company, vendor, brand: a place or a firm, though it may be named for a person
	keyCode    // code, item_code, product_code: a generic code, a product's barcode when it passes the GS1 check
)

// normKey lower-cases the letters of k and drops everything else ("Customer_Email2" -> "customeremail").
func normKey(buf []byte, k string) []byte {
	buf = buf[:0]
	for i := 0; i < len(k) && len(buf) < 64; i++ {
		c := k[i]
		if c >= 0x80 {
			// A key in full-width or mathematical letters names what
			// its ASCII spelling names.
			r, n := utf8.DecodeRuneInString(k[i:])
			i += n - 1
			if f := foldRune(r); f >= 0 {
				c = byte(f)
			}
		}
		if isUpper(c) {
			buf = append(buf, c+32)
		} else if isLower(c) {
			buf = append(buf, c)
		}
	}
	return buf
}

func hasSuffixAny(n string, list ...string) bool {
	for _, s := range list {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

func containsAny(n string, list ...string) bool {
	for _, s := range list {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func inList(n string, list ...string) bool {
	for _, s := range list {
		if n == s {
			return true
		}
	}
	return false
}

// keyOf is classifyKey through a per-context memo: the same few keys ("text", "params",
// "email") come back in message after message, and classifyKey tests dozens of patterns. The
// memo holds copies of the keys (ScanJSON's keys alias its input) and is cleared when full.
func (x *scanCtx) keyOf(k string) keyKind {
	if len(k) < 2 || len(k) > 80 {
		return keyNone
	}
	if kind, ok := x.keyMemo[k]; ok {
		return kind
	}
	kind := classifyKey(k)
	if x.keyMemo == nil || len(x.keyMemo) >= 4096 {
		x.keyMemo = make(map[string]keyKind, 64)
	}
	x.keyMemo[strings.Clone(k)] = kind
	return kind
}

// classifyKey maps a key name to a keyKind. The order matters: exclusions first, so that
// "token_url", "credentials_id" or "ip_address" say nothing about a secret or an address.
func classifyKey(k string) keyKind {
	if len(k) < 2 || len(k) > 80 {
		return keyNone
	}
	var b [64]byte
	nb := normKey(b[:0], k)
	if len(nb) < 2 {
		return keyNone
	}
	// n aliases the stack buffer and never outlives this call.
	n := unsafe.String(&nb[0], len(nb))
	switch {
	case inList(n, "key", "publickey", "pubkey", "enckey", "verifykey", "verificationkey", "senderpublic",
		"signingpublickey", "publickeys", "encpublickey", "idkey", "fingerprint") ||
		strings.HasPrefix(n, "public") || strings.HasPrefix(n, "pub"):
		return keyPublic
	case containsAny(n, "csrf", "xsrf", "authenticity"):
		return keyNone
	}
	if labelKey(n) {
		return keyLabel
	}
	if productCodeKey(n) {
		return keyCode
	}
	if inList(n, "session", "sessionid", "sid", "jsessionid", "phpsessid", "sessid", "sessiontoken", "cookie",
		"sessioncookie", "connectsid") {
		return keyToken // a session id is the bearer's credential
	}
	meta := hasSuffixAny(n, "id", "ids", "name", "names", "url", "uri", "file", "path", "type", "size",
		"length", "len", "count", "format", "expiry", "expires", "expiresin", "expiresat", "endpoint",
		"header", "field", "prefix", "ttl", "version", "mode", "policy", "hint", "label", "required",
		"enabled", "provider", "location", "dir", "ref", "env", "var", "algorithm", "alg", "scope",
		"scopes", "kind", "status", "method", "store", "index", "idx", "hash", "checksum", "digest", "vault")
	if strings.Contains(n, "sumo") && hasSuffixAny(n, "accessid") {
		return keySumoID
	}
	if !meta {
		switch {
		case hasSuffixAny(n, "privatekey", "privkey", "secretkey", "signingkey", "masterkey", "privatekeys") ||
			hasSuffixAny(n, "seed", "private"):
			return keyPrivate
		case containsAny(n, "password", "passwd", "passphrase", "passwort", "kennwort", "motdepasse", "contrasea",
			"contrasena", "wachtwoord", "senha") || hasSuffixAny(n, "pwd") || len(n) > 3 && hasSuffixAny(n, "pw") || inList(n, "passe", "mdp", "pw") ||
			inList(n, "pin", "passcode", "accesscode", "doorcode", "gatecode", "entrycode", "alarmcode", "unlockcode",
				"otp", "pinnumber", "devicepin", "simpin", "cardpin") ||
			(strings.HasSuffix(n, "pass") && !hasSuffixAny(n, "bypass", "compass", "overpass", "class")):
			return keyPassword
		case hasSuffixAny(n, "token", "secret", "apikey", "accesskey", "authkey", "credentials",
			"credential", "auth", "authorization", "sessionkey", "encryptionkey", "sharedkey",
			"licensekey", "clientkey", "appkey", "accountkey", "bearer") ||
			(strings.Contains(n, "sonar") && hasSuffixAny(n, "login")):
			return keyToken
		case inList(n, "login", "logon", "signin", "creds", "userpass", "userpassword", "usernamepassword",
			"basicauth", "logininfo", "logindetails", "loginpair", "account", "accountlogin"):
			return keyLogin
		case strings.HasSuffix(n, "key") && !hasSuffixAny(n, "monkey", "turkey", "hotkey", "sortkey",
			"primarykey", "foreignkey", "partitionkey", "cachekey", "bucketkey", "sequencekey",
			"schemakey", "idempotencykey", "lookupkey", "mapkey", "hashkey", "rangekey", "routingkey",
			"keykey", "donkey", "jockey", "hockey", "whiskey", "shortcutkey", "objectkey", "sortingkey",
			"groupkey", "uniquekey", "indexkey", "messagekey", "translationkey", "i18nkey", "localekey"):
			return keyToken
		}
	}
	switch {
	case strings.Contains(n, "email") || n == "mail" || n == "email":
		return keyEmail
	case containsAny(n, "phone", "mobile") || inList(n, "tel", "telephone", "cell", "fax", "msisdn", "whatsapp", "cellular"):
		return keyPhone
	case inList(n, "ssn", "socialsecuritynumber", "socialsecurity", "socsec", "ssnumber", "itin") ||
		strings.HasPrefix(n, "ssn") || strings.Contains(n, "socialsecurity"):
		return keySSN
	case strings.Contains(n, "nhs"):
		return keyNHS
	case n == "nino" || strings.Contains(n, "nationalinsurance"):
		return keyNINO
	case strings.Contains(n, "passport"):
		return keyPassport
	case containsAny(n, "nationalid", "personalid", "idnumber", "steuer", "burgerservice", "aadhaar", "aadhar",
		"pannumber", "permanentaccount", "mynumber", "kojinbango", "taxfile", "insee", "identitynumber", "idcard", "pesel",
		"personnummer", "fodselsnummer", "codicefiscale", "fiscalcode", "taxid", "steuerid",
		"kennitala", "rodnecislo", "citizenid", "socialinsurance", "personalnumber", "personalcode",
		"identificationnumber", "nationalnumber", "documentnumber", "docnumber", "documentno") ||
		inList(n, "bsn", "nir", "cpr", "dni", "nie", "nif", "tin", "hetu", "egn", "cnp", "emso", "amka", "pps", "oib", "ird",
			"aadhaar", "aadhar", "mynumber", "kojinbango", "cpf", "cnpj", "sin", "nas", "tfn", "taxfilenumber", "medicare",
			"medicarenumber", "ric", "residentid", "uidai") || schemeNumberKey(n) || idKeyWord(n):
		return keyNationalID
	case containsAny(n, "driverslicen", "driverlicen", "drivinglicen", "dlnumber"):
		return keyDL
	case containsAny(n, "cardnumber", "creditcard", "ccnumber", "debitcard", "paymentcard") || inList(n, "card", "pan", "cc"):
		return keyCard
	case strings.Contains(n, "iban"):
		return keyIBAN
	case containsAny(n, "routingnumber", "abanumber", "routingtransit") || inList(n, "aba", "routing", "rtn"):
		return keyRouting
	case containsAny(n, "accountnumber", "bankaccount", "acctnumber", "accountno", "acctno"):
		return keyAccount
	case containsAny(n, "dateofbirth", "birthdate", "birthday", "birthdt", "nacimiento", "naissance", "geburt",
		"geboorte", "nascita", "urodzenia", "nascimento", "fodselsdato", "fodelsedatum", "syntymaaika") ||
		inList(n, "dob", "bday", "born", "birth", "fechanac", "fnac") || dobKeyWord(n):
		return keyDOB
	case containsAny(n, "diagnos", "medication", "medicalhistory", "medicalcondition", "allerg",
		"symptom", "prescription", "disease", "illness", "healthcondition", "bloodtype", "icdcode", "icdtext", "icd10") ||
		inList(n, "icd", "condition", "treatment", "conditions", "treatments", "rx"):
		return keyHealth
	case meta && !hasSuffixAny(n, "name"):
		return keyNone
	case containsAny(n, "address", "street", "residence") && !containsAny(n, "emailaddress", "ipaddress",
		"macaddress", "walletaddress", "ethaddress", "btcaddress", "remoteaddress", "serveraddress",
		"hostaddress", "listenaddress", "bindaddress", "localaddress", "peeraddress", "webaddress",
		"contractaddress", "netaddress", "addressfamily", "addressbook", "addresses"):
		return keyAddress
	case placeKey(n):
		return keyPlace
	case inList(n, "firstname", "lastname", "fullname", "surname", "givenname", "familyname", "middlename",
		"maidenname", "patientname", "customername", "contactname", "personname", "legalname",
		"cardholdername", "cardholder", "accountholder", "accountholdername", "recipientname",
		"sendername", "employeename", "forename", "forenames", "givennames", "nameofpatient",
		"beneficiaryname", "guardianname", "mothersmaidenname", "fathersname", "mothersname"):
		return keyPersonName
	case n == "name" || n == "displayname" || n == "contact" || n == "patient" || n == "customer" ||
		inList(n, "assignee", "signedby", "employee", "author", "reporter", "requester", "candidate", "applicant",
			"passenger", "beneficiary", "guardian", "attendee", "attendees", "physician", "doctor", "emergencycontact",
			"contactperson", "guest", "guests", "owner", "landlord", "tenant", "traveler", "traveller", "holder", "patientname",
			"approvedby", "approver", "reviewer", "reviewedby", "requestedby", "submittedby", "createdby", "assignedto",
			"organizer", "organiser", "supervisor", "caseworker", "handledby", "preparedby", "verifiedby",
			"approvers", "reviewers", "assignees", "manager", "interviewer", "interviewee", "caregiver", "clinician",
			"therapist", "nurse", "recipient", "speaker", "speakers", "participant", "participants", "teacher", "student",
			"driver", "member", "insured", "policyholder", "subscriber", "claimant", "enrollee") ||
		personByKey(n):
		return keyName
	}
	return keyNone
}

// personByKey reports a key that names who did something: approved_by, created_by, reviewedBy.
func personByKey(n string) bool {
	return len(n) > 4 && strings.HasSuffix(n, "by") && !hasSuffixAny(n, "orderby", "groupby", "sortby",
		"partitionby", "standby", "nearby", "lobby", "hobby", "baby", "ruby", "derby", "rugby", "clusterby",
		"distributeby", "filterby", "searchby", "indexby", "keyby", "splitby", "pivotby")
}
