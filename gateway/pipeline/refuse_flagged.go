package pipeline

import (
	"strings"

	"github.com/moltgate/moltgate/wire"
)

// cutFlagged cuts the field f of a refusal of req before the first segment that is, holds or is
// part of a value the scanner flags anywhere in req. ErrorField alone judges a member name by
// itself, and a name may be harmless on its own and a password, a date of birth or a diagnosis
// in the message it came from ("my password is Tr0ub4dor&3" beside a member named
// "Tr0ub4dor&3"). The message is scanned only when a refusal names a field, which is rare.
func (p *Pipeline) cutFlagged(req *wire.Message, f string) string {
	if req == nil || f == "" || p.Scanner == nil {
		return f
	}
	tree, err := req.Tree()
	if err != nil {
		return f
	}
	var spans []string
	p.flaggedSpans(tree, 0, &spans)
	if len(spans) == 0 {
		return f
	}
	for i := 0; i < len(f); {
		next := p.fieldSegment(f, i, len(f))
		if next < 0 {
			return f[:i]
		}
		seg := strings.Trim(strings.TrimLeft(f[i:next], "."), `[]"`)
		for _, v := range spans {
			// The value in this segment or in those from it on ("p.x.06.12.41.00.42" holds a
			// phone number across five), or the segment a part of the value.
			if k := strings.Index(f[i:], v); k >= 0 && (k < next-i || !strings.Contains(f[next:], v)) ||
				len(seg) >= 4 && strings.Contains(v, seg) {
				return f[:i]
			}
		}
		i = next
	}
	return f
}

// flaggedSpans appends what the scanner flags in each string and member name of v, four bytes
// or longer.
func (p *Pipeline) flaggedSpans(v wire.Value, depth int, spans *[]string) {
	if depth > 64 {
		return
	}
	add := func(s string) {
		for _, fd := range p.Scanner.ScanText(s) {
			if fd.End-fd.Start >= 4 {
				*spans = append(*spans, s[fd.Start:fd.End])
			}
		}
	}
	switch v.Kind() {
	case wire.String:
		s, _ := v.Str()
		add(s)
	case wire.Array:
		for _, e := range v.Elems() {
			p.flaggedSpans(e.Value, depth+1, spans)
		}
	case wire.Object:
		for _, m := range v.Members() {
			add(m.Key)
			p.flaggedSpans(m.Value, depth+1, spans)
		}
	}
}
