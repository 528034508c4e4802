package pii

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// Numbering plans. The phonenumbers package validates a number by parsing its text again
// (extension and punctuation regular expressions) and by matching number-type patterns whose
// expressions it rebuilds on every call; that costs tens of microseconds per number, more than
// scanning a kilobyte of text. The scanner already holds the digits, so it validates them here
// against the same metadata: the national significant number must have a possible length and
// match the region's general pattern and the pattern of one number type (fixed line, mobile,
// toll free...), as phonenumbers.IsValidNumberForRegion decides. A pattern is compiled the
// first time a number of one of its lengths needs it.

type numberDesc struct {
	pattern string
	lengths uint64 // bit n: n digits is a possible length

	once sync.Once
	dfa  *digitDFA      // the pattern as an automaton over digits (digitdfa.go)
	re   *regexp.Regexp // where dfa is nil, or for text that is not all digits
}

// match compiles the pattern the first time a number of a possible length needs it.
func (d *numberDesc) match(nsn string) bool {
	if d.lengths>>uint(len(nsn))&1 == 0 {
		return false
	}
	d.once.Do(func() {
		d.dfa, _ = newDigitDFA(d.pattern)
		d.re, _ = regexp.Compile("^(?:" + d.pattern + ")$")
	})
	if d.dfa != nil {
		if m, ok := d.dfa.match(nsn); ok {
			return m
		}
	}
	return d.re != nil && d.re.MatchString(nsn)
}

type regionPlan struct {
	natPrefix string
	general   *numberDesc
	types     []*numberDesc
}

func newPlan(m *phonenumbers.PhoneMetadata) *regionPlan {
	p := &regionPlan{natPrefix: m.GetNationalPrefix()}
	if !isDigits([]byte(p.natPrefix)) {
		p.natPrefix = ""
	}
	p.general = newDesc(m.GetGeneralDesc(), 0)
	// Validity needs any one type to match, so the common ones go first.
	for _, d := range []*phonenumbers.PhoneNumberDesc{m.GetFixedLine(), m.GetMobile(), m.GetTollFree(),
		m.GetPremiumRate(), m.GetSharedCost(), m.GetVoip(), m.GetPersonalNumber(), m.GetPager(),
		m.GetUan(), m.GetVoicemail()} {
		if nd := newDesc(d, p.general.lengths); nd.lengths != 0 {
			p.types = append(p.types, nd)
		}
	}
	return p
}

func newDesc(d *phonenumbers.PhoneNumberDesc, inherit uint64) *numberDesc {
	nd := &numberDesc{pattern: d.GetNationalNumberPattern()}
	if nd.pattern == "" || nd.pattern == "NA" {
		return nd
	}
	for _, l := range d.PossibleLength {
		if l > 0 && l < 64 {
			nd.lengths |= 1 << uint(l)
		}
	}
	if len(d.PossibleLength) == 0 {
		nd.lengths = inherit
	}
	return nd
}

// valid reports whether nsn is a valid national significant number of the region.
func (p *regionPlan) valid(nsn string) bool {
	if !p.general.match(nsn) {
		return false
	}
	for _, t := range p.types {
		if t.match(nsn) {
			return true
		}
	}
	return false
}

// possible reports whether nsn has a length the region's numbers can have.
func (p *regionPlan) possible(nsn string) bool {
	return p.general.lengths>>uint(len(nsn))&1 != 0
}

type plans struct {
	byRegion map[string]*regionPlan
	byCC     map[int][]*regionPlan
}

var numberingPlans = sync.OnceValue(func() *plans {
	ps := &plans{byRegion: map[string]*regionPlan{}, byCC: map[int][]*regionPlan{}}
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return ps
	}
	for _, m := range coll.GetMetadata() {
		p := newPlan(m)
		ps.byRegion[m.GetId()] = p
		cc := int(m.GetCountryCode())
		if m.GetMainCountryForCode() {
			ps.byCC[cc] = append([]*regionPlan{p}, ps.byCC[cc]...)
		} else {
			ps.byCC[cc] = append(ps.byCC[cc], p)
		}
	}
	return ps
})

// phoneIntl validates the digits of a number written with its country calling code (after +,
// 00 or 011). It returns whether the number is valid and whether it is at least possible.
func phoneIntl(d string) (valid, possible bool) {
	ps := numberingPlans()
	for l := 1; l <= 3 && l < len(d); l++ {
		cc, _ := strconv.Atoi(d[:l])
		regions := ps.byCC[cc]
		if len(regions) == 0 {
			continue
		}
		nsn := d[l:]
		for _, p := range regions {
			if p.valid(nsn) || p.natPrefix != "" && strings.HasPrefix(nsn, p.natPrefix) && p.valid(nsn[len(p.natPrefix):]) {
				return true, true
			}
			possible = possible || p.possible(nsn) ||
				p.natPrefix != "" && strings.HasPrefix(nsn, p.natPrefix) && p.possible(nsn[len(p.natPrefix):])
		}
		return false, possible
	}
	return false, false
}

// phoneNational validates digits written in the national format of region.
func phoneNational(d, region string) bool {
	p := numberingPlans().byRegion[region]
	if p == nil {
		return false
	}
	if p.natPrefix != "" && strings.HasPrefix(d, p.natPrefix) && p.valid(d[len(p.natPrefix):]) {
		return true
	}
	return p.valid(d)
}
