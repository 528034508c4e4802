package pii

import "strings"

// Names written family name first. Hungarian, Vietnamese, Chinese, Korean and Japanese set the
// family name before the given name ("Kovács Zsófia", "Nguyễn Thị Lan", "Zhang Haoran", "Park
// Seo-yeon", "Tanaka Kenji"), and they keep that order in notes, minutes and messages written in
// other languages. The gazetteer opens a pair only at a given name, so such a pair opened at a
// word it does not know and waited for a cue. A small set of family names covers most bearers of
// each of these languages: the most frequent family names as the national statistics of Hungary,
// Vietnam, China, Korea and Japan publish them (facts, in their usual Latin spelling). Such a
// family name followed by a word that is known as a name (any of the lists), by a Korean given
// name of two hyphenated syllables ("Seo-yeon", "Ji-hoon"), or, after a Vietnamese family name,
// by one or two short capitalised syllables, opens a pair as a given name does; the pair must
// still be no firm, place or street (namePair). Family names that are short English words or
// interjections ("Oh", "He", "Ma", "Do", "Le", "Ho", "Son", "Pan", "Major", "Mate") are left out.

// familyFirstNames are the frequent family names of the languages that set them first, in lower
// case and without diacritics (the lookup folds them).
var familyFirstNames = toSet(`
nagy kovacs toth szabo horvath varga kiss molnar nemeth farkas balogh papp takacs juhasz lakatos meszaros olah
racz fekete szilagyi torok feher balazs gal kis szucs kocsis orsos pinter fodor szalai sipos lukacs
gulyas biro kiraly katona laszlo jakab bogdan balog sandor boros fazekas kelemen antal orosz somogyi fulop veres
budai vass hegedus deak pap balint illes vincze szoke fabian voros lengyel bognar bodnar hajdu halasz jonas
szekely gaspar kozma pasztor bakos dudas virag hegyi orban barta soos borbely
nguyen tran pham hoang huynh phan dang bui duong trinh dinh truong
wang zhang liu chen yang huang zhao zhou xu sun zhu guo luo liang song zheng xie tang feng deng cao peng
zeng xiao tian dong yuan cai jiang cheng wei ding shen ren yao jin zhong
kim lee park choi jung jeong kang cho yoon yun jang lim han shin seo kwon hwang ahn song yoo hong jeon ko moon
bae baek heo noh
sato suzuki takahashi tanaka watanabe ito yamamoto nakamura kobayashi kato yoshida yamada sasaki yamaguchi
matsumoto inoue kimura hayashi shimizu yamazaki mori abe ikeda hashimoto yamashita ishikawa nakajima maeda
fujita ogawa goto okada hasegawa murakami kondo ishii saito sakamoto endo aoki fujii nishimura fukuda ota miura
fujiwara okamoto matsuda nakagawa nakano harada ono tamura takeuchi kaneko wada nakayama ishida ueda morita
hara shibata sakai kudo yokoyama miyazaki miyamoto uchida takagi ando taniguchi ohno maruyama imai takada
fujimoto murata takeda ueno sugiyama masuda sugawara hirano otsuka chiba kubo matsui iwasaki sakurai kinoshita
noguchi matsuo nomura kikuchi sano onishi sugimoto arai`)

// vietFamilies are the frequent Vietnamese family names written with their diacritics: a given
// name after them is one or two syllables that no list holds ("Quốc Dũng", "Thị Hạnh"). Written
// without them ("Mai", "Lam", "Pham"), the family name needs a given name of the lists, as the
// others do: "Mai Tai" is a drink.
var vietFamilies = toSet(`nguyễn trần phạm hoàng huỳnh vũ võ đặng bùi dương ngô trịnh đinh lâm trương lê hồ đỗ lý`)

// familyFirstAt reports whether the capitalised word s[a:e] is a family name of familyFirstNames
// or vietFamilies with a given name after it.
func familyFirstAt(s string, a, e int) bool {
	if e-a < 2 || e-a > 12 || e+2 >= len(s) || s[e] != ' ' {
		return false
	}
	q := e + 1
	we := titleWord(s, q)
	if we-q < 2 || we < len(s) && isAlnum(s[we]) {
		return false
	}
	given := s[q:we]
	if titleWords.hasFold(given) || namePairStop.hasFold(given) {
		return false // "Sun King", "Song Street"
	}
	var buf [48]byte
	if !isASCII([]byte(s[a:e])) && vietFamilies.has(strings.ToLower(s[a:e])) {
		return len(given) <= 8 // a syllable, with its diacritics
	}
	if !familyFirstNames.has(string(latinLower(buf[:0], s[a:e]))) {
		return false
	}
	return koreanGiven(given) || isNameWord(given)
}

// koreanGiven reports a Korean given name of two syllables joined by a hyphen, as Korean names
// are romanised: "Seo-yeon", "Ji-hoon", "Min-jun".
func koreanGiven(w string) bool {
	h := strings.IndexByte(w, '-')
	if h < 2 || h > 5 || len(w)-h-1 < 2 || len(w)-h-1 > 5 {
		return false
	}
	for i := 1; i < len(w); i++ {
		if i != h && (w[i] < 'a' || w[i] > 'z') {
			return false
		}
	}
	return w[0] >= 'A' && w[0] <= 'Z'
}
