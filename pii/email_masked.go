package pii

import "strings"

// Masked e-mail addresses. Logs, receipts and support tools show an address with most of its
// local part starred out ("k***@fastmail.fm", "j****e@example.com", "jo**@gmail.com"): what is
// left identifies no one, and such a redacted value must pass. The text as given holds no
// address there ('*' is no character of a local part), but the Markdown view drops the stars as
// emphasis and reads "k@fastmail.fm"; maskedEmail tells the two apart on the bytes before the
// view. Emphasis wraps a value, or a hostile writer puts it inside one ("jane.do**e@…"), and the
// local part keeps its characters; a mask takes their place: more stars than characters left,
// or a run of three stars or more.

// maskedEmail reports whether addr, an address as written before the Markdown view dropped its
// stars, is shown masked.
func maskedEmail(addr string) bool {
	addr = strings.Trim(addr, "*")
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 {
		return false
	}
	local := addr[:at]
	stars := strings.Count(local, "*")
	if stars < 2 {
		return false
	}
	// More hidden than shown ("k***", "j****e", "jo**", "j***n.d**e"), or a run of three stars
	// or more ("jane.d***", "jan***ne"), which emphasis never writes inside a word.
	return stars >= len(local)-stars || strings.Contains(local, "***")
}

// maskedLocal reports whether the local part s[a:i] read before an '@' at i is the end of one
// that stars mask ("j****e@"): stars stand before it, inside the word ("**jane@" is emphasis).
func maskedLocal(s string, a, i int) bool {
	r := a - 1
	for r > 0 && s[r-1] == '*' {
		r--
	}
	w := r
	for w > 0 && (isAlnum(s[w-1]) || s[w-1] == '.' || s[w-1] == '_' || s[w-1] == '-' || s[w-1] == '*') {
		w--
	}
	return w < r && maskedEmail(s[w:i+1])
}
