package pii

import "strings"

// A chat transcript names its speakers at the start of their lines: "Georgia Takyi: hi, is the
// order shipped?\nPannawich Turongkinanon: checking now\nGeorgia Takyi: ok thx". A pair of
// capitalised words that opens a line before a colon, and opens another line of the same text
// so, while another such pair does the same (two speakers in turn), is a speaker: a person,
// once one word of the two labels is known as a name or has a family ending. Labels of roles
// and systems ("Support Agent:") are words the name rules already rule out, and a label
// repeated alone ("Order Status: open\nOrder Status: closed") is a heading, not a speaker.

// speakerLabel reports whether the pair s[a:end] is a speaker's label of a transcript.
func speakerLabel(s string, a, end int) bool {
	if end >= len(s) || s[end] != ':' || a > 0 && s[a-1] != '\n' || !labelWords(s, a, end) {
		return false
	}
	label := s[a : end+1]
	if strings.Count("\n"+s, "\n"+label) < 2 {
		return false
	}
	// Another speaker: a line that opens with a different pair and a colon, twice.
	known := labelKnown(s, a, end)
	for k := 0; k < len(s); {
		nl := strings.IndexByte(s[k:], '\n')
		line := s[k:]
		if nl >= 0 {
			line = s[k : k+nl]
		}
		if c := strings.IndexByte(line, ':'); c > 3 && c <= 40 && line[:c+1] != label && strings.Count(line[:c], " ") == 1 &&
			labelWords(line, 0, c) && strings.Count("\n"+s, "\n"+line[:c+1]) >= 2 {
			return known || labelKnown(line, 0, c)
		}
		if nl < 0 {
			break
		}
		k += nl + 1
	}
	return false
}

// labelWords reports whether the words of s[a:end] are two title-case words that no name rule
// rules out.
func labelWords(s string, a, end int) bool {
	n := 0
	for k := a; k < end; {
		w, ok := wordAt(s, k, false)
		if !ok || w.a >= end {
			break
		}
		lw := s[w.a:min(w.b, end)]
		if titleWord(s, w.a) != min(w.b, end) || notNames.hasFold(lw) || orgWords.hasFold(lw) || orgNouns.hasFold(lw) ||
			roleWords.hasFold(lw) || titleWords.hasFold(lw) || namePairStop.hasFold(lw) {
			return false
		}
		n++
		k = w.b
	}
	return n == 2
}

// labelKnown reports whether a word of s[a:end] is known as a name or has a family ending.
func labelKnown(s string, a, end int) bool {
	for k := a; k < end; {
		w, ok := wordAt(s, k, false)
		if !ok || w.a >= end {
			return false
		}
		lw := s[w.a:min(w.b, end)]
		if isGivenName(lw) || knownOrShaped(lw) || inNameList(ambiguousGiven(), lw) {
			return true
		}
		k = w.b
	}
	return false
}
