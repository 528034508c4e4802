package pii

import "strings"

// Dates written the Japanese and Chinese way, "1962年8月11日": a year, 年, a month, 月, a day and
// 日; the Korean way, "1945년 10월 4일", with 년, 월 and 일. The digits stand between characters, not separators, so the numeric reading sees the year
// alone. After a birth cue ("生年月日", "出生日期") or under a birth-date key the date is a date of
// birth; otherwise it is a date, and nothing.

// cjkDate reads the date that starts with the year n, and returns its end, or 0.
func (x *scanCtx) cjkDate(n *numSpan) int {
	s := x.s
	if n.ng != 1 || n.nd != 4 {
		return 0
	}
	units := [3]string{"年", "月", "日"}
	if strings.HasPrefix(s[n.end:], "년") {
		units = [3]string{"년", "월", "일"} // Korean: "1945년 10월 4일"
	} else if !strings.HasPrefix(s[n.end:], "年") {
		return 0
	}
	y := atoi(n.d[:4])
	k := n.end + len(units[0])
	m, k := cjkPart(s, k, units[1])
	if y < 1900 || y > 2100 || m < 1 || m > 12 {
		return 0
	}
	d, e := cjkPart(s, k, units[2])
	if d < 1 || d > 31 {
		return 0
	}
	if x.key == keyDOB || x.cueBefore(n.start, 48, dobCues) || cjkBirthCue(s[max(0, n.start-24):n.start]) {
		x.add(TypeDOB, n.start, e, 0.9, "dob.context")
	}
	return e
}

// cjkBirthCue reports whether w, the text just before a date, says a birth in Japanese or Chinese,
// where words are not set off by spaces, which the cue lists expect. (A number written straight
// after a character, "出生于1945年", is not read as a number at all yet.)
func cjkBirthCue(w string) bool {
	return strings.Contains(w, "生年月日") || strings.Contains(w, "出生") || strings.Contains(w, "誕生日") ||
		strings.Contains(w, "生まれ") || strings.Contains(w, "생년월일") || strings.Contains(w, "출생")
}

// cjkPart reads one or two digits at k, spaces allowed around them, and the unit after them; it
// returns the number and the end of the unit, or 0 and k.
func cjkPart(s string, k int, unit string) (int, int) {
	i := k
	for i < len(s) && s[i] == ' ' {
		i++
	}
	v, j := 0, i
	for j < len(s) && j-i < 2 && isDigit(s[j]) {
		v = v*10 + int(s[j]-'0')
		j++
	}
	if j == i {
		return 0, k
	}
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if !strings.HasPrefix(s[j:], unit) {
		return 0, k
	}
	return v, j + len(unit)
}
