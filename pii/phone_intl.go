package pii

// International numbers as people write them in chats, tickets and contact forms, beyond the
// groupings the number reader takes by default: groups joined by " - " after a country code
// ("+32 - 477 - 804 - 725"), a country code spelt out digit by digit ("+ 3 2 477 80 47 25"), the
// subscriber number in one run after "00" and the country code ("0040 722357653"), a number of
// dotted groups that no IPv4 address can be ("072.605.26.23": 605 is no octet), and a number
// written straight after Chinese or Japanese characters ("聯絡電話8461 2055"). Each still has to
// pass the region's numbering plan (phone.go); these only let the reader see it whole.

// dashGroupAt returns the bytes to skip when " - " and a digit follow at k in a number that
// began with a country code (n.plus or "00"), or 0.
func dashGroupAt(s string, k int, n *numSpan) int {
	if k+3 < len(s) && s[k] == ' ' && s[k+1] == '-' && s[k+2] == ' ' && isDigit(s[k+3]) && intlPrefixed(n) {
		return 3
	}
	return 0
}

// intlPrefixed reports whether the number read so far starts with '+' or "00".
func intlPrefixed(n *numSpan) bool {
	return n.plus || n.nd >= 2 && n.d[0] == '0' && n.d[1] == '0'
}

// spacedPlusAt reports a '+' a space before the digit at i ("+ 3 2 477…"), with no word before
// it; the caller takes the '+' as the number's.
func spacedPlusAt(s string, i int) bool {
	return i >= 2 && s[i-1] == ' ' && s[i-2] == '+' && (i < 3 || !isAlnum(s[i-3])) && i+1 < len(s) && s[i+1] == ' '
}

// spacedCountryCode reports whether the number's one-digit groups are its leading ones after
// a '+', one to three of them: a country code spelt digit by digit ("+ 2 3 4 814 212 2661").
func spacedCountryCode(n *numSpan) bool {
	if !n.plus || n.ng < 3 {
		return false
	}
	lead := 0
	for lead < n.ng && n.glen[lead] == 1 {
		lead++
	}
	if lead < 1 || lead > 3 {
		return false
	}
	for g := lead; g < n.ng; g++ {
		if n.glen[g] == 1 {
			return false
		}
	}
	return true
}

// longSubscriber reports a number in two groups after "00" or '+', the second a subscriber
// number in one run ("0040 722357653", "+971 501234567", "+49 15194322326"), the whole no
// longer than E.164 allows. A run of more than ten digits must then be valid in the country's
// plan (runPlanValid), not merely of a possible length.
func longSubscriber(n *numSpan) bool {
	return n.ng == 2 && intlPrefixed(n) && n.glen[0] <= 5 && n.glen[0]+n.glen[1] <= 15
}

// needsValidPlan reports an international number whose writing says little of a phone, so
// that only a number valid in its country's plan is taken: a subscriber run of more than ten
// digits after the country code, or one unbroken run opening with "00" and no '+' — order,
// batch and shipment numbers padded with zeros ("0013438708") read as "00" and a country code,
// and a plan's possible lengths take a seven-digit local number of North America for one.
func needsValidPlan(n *numSpan) bool {
	return (n.ng == 2 && n.glen[1] > 10) || (n.ng == 1 && !n.plus && !n.paren)
}

// notOctets reports whether a dotted number of four groups of at most three digits is written
// as a national phone number rather than an IPv4 address: groups of 3, 3, 2 and 2 digits, a trunk
// zero and two more digits first ("072.605.26.23"), and a group above 255 or a word for a call
// before it ("ring mig på 070.239.65.30"). An address written backwards ("02.151.671.01") or
// padded with zeros ("010.001.002.003") is neither.
func (x *scanCtx) notOctets(n *numSpan) bool {
	d := n.digits()
	if !n.groups(3, 3, 2, 2) || d[0] != '0' || d[1] == '0' {
		return false
	}
	off := 0
	for g := range n.ng {
		l := int(n.glen[g])
		if atoi(d[off:off+l]) > 255 {
			return true
		}
		off += l
	}
	return x.cueBefore(n.start, 40, strongPhoneCues)
}

// cjkDigits returns the start of the ASCII digits that end a word of CJK characters at s[i:j]
// ("電話8461"), or i: the characters are the label, the digits the number.
func cjkDigits(s string, i, j int) int {
	k := i
	for k+2 < j && s[k] >= 0xE3 && s[k] <= 0xEF {
		k += 3
	}
	if k == i || k >= j || !isDigit(s[k]) {
		return i
	}
	for e := k; e < j; e++ {
		if !isDigit(s[e]) {
			return i
		}
	}
	return k
}
