package pii

import "github.com/moltgate/moltgate/wire"

// JSON inside strings. An agent passes a tool's result on as the JSON text it received, in a
// string member of its own payload, and sometimes that payload again as text in another: read as
// prose, {"diagnosis":"HIV","patient":"…"} loses what its member names say, and a value split
// across members is never read whole. A string that holds a JSON object or array, whole, is
// scanned as the tree it is, with every rule a payload has (member names as context, the joined
// view of siblings, the health pass), rather than as text; what is found is placed on the whole
// string, since masking the text of a document whose members hold personal data is masking the
// document. A string that does not parse (text around the JSON, an integer wider than 2^53,
// a key twice) is read as text, as before. Nesting is followed maxJSONNest deep.

// maxJSONNest bounds JSON texts read inside JSON texts.
const maxJSONNest = 4

// jsonText scans x.s as the JSON object or array it holds, when it holds one whole, and reports
// whether it did. Strings that do not open with '{' or '[' cost two compares.
func (x *scanCtx) jsonText() bool {
	s := x.s
	i, j := 0, len(s)
	for i < j && isSpaceByte(s[i]) {
		i++
	}
	if i == j || s[i] != '{' && s[i] != '[' {
		return false
	}
	for j > i && isSpaceByte(s[j-1]) {
		j--
	}
	if c := s[j-1]; c != '}' && c != ']' || j-i < 7 || x.jsonNest >= maxJSONNest {
		return false
	}
	v, err := wire.Parse([]byte(s[i:j]), maxDepth)
	if err != nil || v.Len() == 0 {
		return false
	}
	fs := x.sc.nestedTree(v, x.key, x.jsonNest+1)
	via := x.via.then(StageJSON)
	for _, f := range fs {
		for _, st := range f.Via.Stages() {
			via = via.then(st)
		}
		f.Start, f.End, f.Path, f.InKey, f.Via = i, j, "", false, via
		via = x.via.then(StageJSON)
		if !covered(x.out[x.base:], f) {
			x.out = append(x.out, f)
		}
	}
	return true
}

// nestedTree scans v, a tree read from a string nest JSON texts deep, as AppendTree does.
func (s *Scanner) nestedTree(v wire.Value, key keyKind, nest int) []Finding {
	x := s.getCtx()
	x.jsonNest = nest
	x.walkTree("", v, key, 0, nil)
	x.finishDoc(0, func(fn func(path func() string, str string, key keyKind)) {
		y := x.walker()
		y.eachTree("", v, key, 0, nil, fn)
	})
	out := x.out
	s.putCtx(x)
	return out
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
