package pii

import "unicode/utf8"

// Addresses written in Chinese or Japanese: a province or prefecture (省, 都, 道, 府, 県), then a
// city, ward, county, town or village (市, 区, 县, 郡, 町, 村), then a street, block or number
// (路, 街, 丁目, 番, 号, 座, 条) with digits: "河南省郑州市金水路12号", "東京都福生市三ノ輪18丁目6番14号".
// Each level must come in that order within one run of CJK text, so that a "都" meaning "all"
// in a sentence makes no address.

// cjkAddressAt reads an address starting at p; it returns its end, or p. The province or
// prefecture comes within the first five characters, the city within six after it; a number
// marker (号, 番, 丁目, 条) needs a digit just before it, and a block (座) a street (路, 街) just before.
func (x *scanCtx) cjkAddressAt(p int) int {
	s := x.s
	level, l1, l2, lastDigit, road := 0, -1, -1, -9, -9
	end := p
	k := p
	for idx := 0; k < len(s) && idx < 48; idx++ {
		r, n := utf8.DecodeRuneInString(s[k:])
		switch {
		case r >= '0' && r <= '9' || r >= '０' && r <= '９':
			lastDigit = idx
			if level == 3 {
				end = k + n
			}
		case r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '-' || r == 'ー' || r == '－':
		case r >= 0x3040 && r <= 0x30FF || r >= 0x4E00 && r <= 0x9FFF:
			switch {
			case level == 0 && idx >= 1 && idx <= 4 && (r == '省' || r == '都' || r == '道' || r == '府' || r == '県'):
				level, l1 = 1, idx
			case level == 1 && idx-l1 <= 6 && (r == '市' || r == '区' || r == '县' || r == '郡' || r == '町' || r == '村'):
				level, l2 = 2, idx
			case level >= 2 && idx-l2 <= 16 && (r == '路' || r == '街'):
				road = idx
			case level >= 2 && (r == '号' || r == '番' || r == '目' || r == '条') && idx-lastDigit <= 2,
				level >= 2 && r == '座' && idx-road <= 3:
				level, end = 3, k+n
			}
		default:
			idx = 48
			continue
		}
		k += n
	}
	if level < 3 {
		return p
	}
	if lastDigit < 0 && end+1 < len(s) && s[end] == ' ' && isDigit(s[end+1]) {
		// A postcode after the street: "白云西宁路c座 973014".
		e := end + 1
		for e < len(s) && isDigit(s[e]) {
			e++
		}
		if e-end-1 == 6 {
			end = e
		}
	}
	x.add(TypeAddress, p, end, 0.8, "address.cjk")
	return end
}
