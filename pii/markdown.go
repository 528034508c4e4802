package pii

import "strings"

// Markdown. A value is wrapped in emphasis or code ("**jane@example.com**", "`4111…`", a fenced
// block) or broken by emphasis inside it ("jane**@**example.com", "41~~11~~…"), which a reader
// of the rendered text never sees. The markdown view drops runs of '*', '`' and '~', and of two
// or more '_', so that what they wrapped or broke reads whole. It runs only when the text holds
// "**", "~~", "__" or a backtick.

// markdownCandidate reports whether s holds "**", "~~", "__" or '`'.
func markdownCandidate(s string) bool {
	return strings.IndexByte(s, '`') >= 0 || strings.Contains(s, "**") || strings.Contains(s, "~~") || strings.Contains(s, "__")
}

// markdownView returns s without its emphasis and code markers, or a nil map when it has none.
func markdownView(s string) (string, []int32) {
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	changed := false
	for i := 0; i < len(s); {
		c := s[i]
		if c == '*' || c == '`' || c == '~' || c == '_' && i+1 < len(s) && s[i+1] == '_' {
			e := i + 1
			for e < len(s) && s[e] == c {
				e++
			}
			i, changed = e, true
			continue
		}
		b = append(b, c)
		at = append(at, int32(i))
		i++
	}
	if !changed {
		return "", nil
	}
	return string(b), append(at, int32(len(s)))
}
