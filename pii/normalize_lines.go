package pii

import "strings"

// Line breaks inside values. "41111111111\n111\r\n11", "jane.doe@exam\n  ple.com", "Larry C\nooke":
// a break (and the indent after it) put inside a value cuts it in pieces no detector reads
// across, and the text still shows the value to whoever reads it line by line. Text wrapped at a
// line's width breaks too, between words: a break between two lower-case letters, or after the
// end of a sentence, is left as it is, and costs one look at the bytes around it. A break with a
// byte on either side that only a value puts there (a digit, a capital before it, '@', '-', '/',
// '.' or '_' starting the next line...) opens a window of the text around it, in which every
// break and its indent are taken out; the window is scanned, and what it finds across a break
// taken out is reported on the bytes that hold it. Hostile input costs at most a window per
// break, within the views' budget.

const (
	// lineWindow is how far a window reaches on either side of a break that opens one: far
	// enough for the cue before a value ("my password is", "geb.") and the value's own length.
	lineWindow = 64
	// maxLineWindows bounds the windows of one text.
	maxLineWindows = 64
	// maxRowLen bounds the bytes read on either side of a break to tell a table's rows.
	maxRowLen = 256
)

// lineByte classes for the bytes around a break.
const (
	lbPrev = 1 << iota // before a break, only a value puts it there: digit, capital, '@', '-'...
	lbNext             // after a break (and its indent), only a value starts a line with it
)

var lineByte = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = lbPrev | lbNext
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = lbPrev
	}
	for _, c := range "@-_/+=#$%&*'~^\\|" {
		t[c] |= lbPrev
	}
	for _, c := range "@._/+=#$%&~)]" {
		t[c] |= lbNext
	}
	return t
}()

// lineFast is lineByte with the bytes that call for a closer look ('\r' before a break, an indent
// after it) in the class of either side.
var lineFast = func() (t [256]uint8) {
	t = lineByte
	t['\r'] |= lbPrev
	t[' '] |= lbNext
	t['\t'] |= lbNext
	return t
}()

// lineBreakAt returns, for the break at s[i] ('\n'), the start of the break ('\r' before it
// included) and the end of the indent after it; ok is false when the break is not one a value
// put there: a blank line, a break after a space or before one, after the end of a sentence, or
// between two lower-case letters.
func lineBreakAt(s string, i int) (a, e int, ok bool) {
	a = i
	if a > 0 && s[a-1] == '\r' {
		a--
	}
	e = i + 1
	for e < len(s) && (s[e] == ' ' || s[e] == '\t') {
		e++
	}
	if a == 0 || e >= len(s) || isSpaceByte(s[a-1]) || isSpaceByte(s[e]) {
		return a, e, false
	}
	p, n := s[a-1], s[e]
	if lineByte[p]&lbPrev == 0 && lineByte[n]&lbNext == 0 {
		return a, e, false
	}
	if isDigit(n) && e+2 < len(s) && (s[e+1] == '.' || s[e+1] == ')') && s[e+2] == ' ' {
		return a, e, false // an item of a numbered list
	}
	return a, e, !structLine(s, a, e)
}

// linesView returns the windows of s around the breaks that open one, each with every break
// and indent in it taken out, put one after the other with a blank line between them; the map
// of its bytes; and the offsets in the view where a break was taken out. The map is nil when no
// break opens a window.
func linesView(s string) (string, []int32, []int32) {
	var wins [][2]int
	for i := strings.IndexByte(s, '\n'); i >= 0 && len(wins) < maxLineWindows; {
		// Most breaks wrap prose between two words: told apart on the two bytes around them.
		if i == 0 || i+1 >= len(s) || lineFast[s[i-1]]&lbPrev == 0 && lineFast[s[i+1]]&lbNext == 0 {
		} else if _, e, ok := lineBreakAt(s, i); ok {
			lo, hi := wordEdge(s, i-lineWindow, -1), wordEdge(s, e+lineWindow, 1)
			if n := len(wins); n > 0 && lo <= wins[n-1][1] {
				wins[n-1][1] = hi
			} else {
				wins = append(wins, [2]int{lo, hi})
			}
		}
		k := strings.IndexByte(s[i+1:], '\n')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	if wins == nil {
		return "", nil, nil
	}
	b := make([]byte, 0, len(s)/2)
	at := make([]int32, 0, len(s)/2)
	var joins []int32
	for w, win := range wins {
		if w > 0 {
			b = append(b, "\n\n"...)
			at = append(at, int32(wins[w-1][1]), int32(wins[w-1][1]))
		}
		for k := win[0]; k < win[1]; {
			if s[k] == '\n' || s[k] == '\r' && k+1 < win[1] && s[k+1] == '\n' {
				nl := strings.IndexByte(s[k:], '\n') + k
				a, e, ok := lineBreakAt(s, nl)
				if a > win[0] && e < win[1] && (ok || midLine(s, a, e)) {
					if (e-nl-1)&1 != 0 && s[e-1] == ' ' {
						// Indents come in pairs of spaces: one more is the text's own, a
						// space before the word on the next line. What is found across
						// it is not a value the break cut.
						b = append(b, ' ')
						at = append(at, int32(e-1))
					} else if !isSpaceByte(s[a-1]) {
						joins = append(joins, int32(len(b)))
					}
					k = e
					continue
				}
			}
			b = append(b, s[k])
			at = append(at, int32(k))
			k++
		}
	}
	if joins == nil {
		return "", nil, nil
	}
	return string(b), append(at, int32(wins[len(wins)-1][1])), joins
}

// wordEdge moves i (clamped to s) in direction dir to the nearest space, at most lineWindow/2
// bytes on, so that a window does not cut a word.
func wordEdge(s string, i, dir int) int {
	i = max(0, min(len(s), i))
	for k := 0; k < lineWindow/2 && i > 0 && i < len(s) && !isSpaceByte(s[i]); k++ {
		i += dir
	}
	return max(0, min(len(s), i))
}

// noteBreak is told of the end e of a word or a number the scan read: a digit or a capital
// before a line break marks the text for linesView.
func (x *scanCtx) noteBreak(e int) {
	if e < len(x.s) && ctab[x.s[e]]&cBreak != 0 && lineByte[x.s[e-1]]&lbPrev != 0 {
		x.lineBreak = true
	}
}

// acceptCut returns a filter keeping what a view finds across one of joins, the offsets in
// the view where a break was taken out, unless the text as given (its findings fs) already found
// a value on the line after that break, or ending the line before it: a line that holds a whole
// value is a line of a record ("APO AA 61487\n416 60 039 office"), and the break after it is not
// one a value was cut by. Where it was ("s.nakamura4\n9@example.de"), the value on the line is
// found and refused all the same.
func acceptCut(fs []Finding, s string, at []int32, joins []int32) func(string, Finding) bool {
	return func(_ string, f Finding) bool {
		for _, j := range joins {
			if f.Start >= int(j) || int(j) >= f.End {
				continue
			}
			e := int(at[j]) // the first byte after the break and its indent
			a := e
			for a > 0 && isSpaceByte(s[a-1]) {
				a--
			}
			whole := false
			for _, g := range fs {
				if g.Start == e || g.End == a {
					whole = true
					break
				}
			}
			if !whole {
				return true
			}
		}
		return false
	}
}

// midLine reports whether the break s[a:e] stands in the middle of a line of prose: a word on
// either side, not after the end of a sentence, and no structure on the next line. In a window
// such breaks are taken out too ("pfur\r\nga\nla@\n  cmiel-pleban\r\n.net" has three kinds).
func midLine(s string, a, e int) bool {
	if a == 0 || e >= len(s) || isSpaceByte(s[e]) || s[a-1] == '\n' || structLine(s, a, e) {
		return false
	}
	return !oneOf(s[a-1], ".:;!?")
}

// structLine reports whether the break s[a:e] ends a line of structure rather than one of a
// value: the next line opens with a member name ("key:", "key =", "- item", "# comment", "[section",
// "<tag"), or the lines on both sides hold as many commas, tabs or '|' (rows of a table).
func structLine(s string, a, e int) bool {
	switch s[e] {
	case '#', '[', '<', '{', '}', ']':
		return true
	case '-', '*':
		if e+1 < len(s) && s[e+1] == ' ' {
			return true
		}
	}
	k := e
	for k < len(s) && (isAlnum(s[k]) || s[k] == '_' || s[k] == '-' || s[k] == '.' || s[k] == '"') {
		k++
	}
	if k > e {
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') && k-e < 64 {
			k++
		}
		if k < len(s) && (s[k] == '=' || s[k] == ':' && (k+1 >= len(s) || s[k+1] == ' ' || s[k+1] == '\n' || s[k+1] == '\r')) {
			return true
		}
	}
	// Rows of a table: the cells of the line before and of the line after.
	prev := s[max(0, a-maxRowLen):a]
	prev = prev[strings.LastIndexByte(prev, '\n')+1:]
	next := s[e:min(len(s), e+maxRowLen)]
	if i := strings.IndexByte(next, '\n'); i >= 0 {
		next = next[:i]
	}
	for _, sep := range ",\t|;" {
		if c := strings.Count(prev, string(sep)); c > 0 && c == strings.Count(next, string(sep)) {
			return true
		}
	}
	return false
}
