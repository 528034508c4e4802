package pii

import "strings"

// Stage is one way a finding was reached other than reading the text as given: a decoding
// applied to the text, or a view joining the values of sibling fields.
type Stage uint8

// The stages, in the order Via names them.
const (
	StagePercent    Stage = iota + 1 // percent-encoding, with '+' as a space in a query
	StageHTML                        // HTML entities decoded and markup stripped (attribute values kept, "mailto:" dropped)
	StageBase64                      // a base64 blob, standard or URL alphabet, padded or not
	StageBase32                      // a base32 blob
	StageHex                         // a hex blob
	StageSeparators                  // "jane dot doe at example dot com", "j a n e", "4111/1111/1111/1111"
	StageJoined                      // the values of sibling fields or array items read together
	StageCase                        // prose written all in lower case, in capitals or in alternating case, read in lower case with its names capitalised ("my name is olga krylova")
	StageJSON                        // a string holding a JSON object or array, read as the tree it is
	StageEscape                      // backslash escapes: \u0040, \U00000040, \u{40}, \x40, \n
	StageQP                          // quoted-printable: =40, and "=" at a line's end
	StageBidi                        // text after a right-to-left override, read in the order it shows
	StageMarkdown                    // Markdown emphasis and code markers dropped
	StageLines                       // line breaks (and the indent after them) inside a value taken out
	StageAnnounced                   // a value reversed, in ROT13 or shifted, turned back as the text around it says

	numStages = iota
)

var stageNames = [numStages + 1]string{"", "percent", "html", "base64", "base32", "hex", "separators", "joined", "case", "json", "escapes", "quoted-printable", "bidi", "markdown", "lines", "announced"}

// String returns the stage's stable lower-case name, e.g. "base64".
func (s Stage) String() string {
	if s == 0 || int(s) > numStages {
		return "stage(" + itoa(int(s)) + ")"
	}
	return stageNames[s]
}

// Via is the sequence of stages through which a finding was reached, outermost first: a
// finding in base64 whose text was percent-encoded has the stages base64, percent. The zero Via
// means the finding was in the text as given. It records how the finding was found, never what.
type Via uint32

// maxVia is how many stages a Via holds; decoding nests no deeper.
const maxVia = 8

// then returns v followed by s; a Via already holding maxVia stages is returned unchanged.
func (v Via) then(s Stage) Via {
	if v>>((maxVia-1)*4) != 0 {
		return v
	}
	return v<<4 | Via(s)
}

// Stages returns the stages of v, outermost first.
func (v Via) Stages() []Stage {
	var out []Stage
	for sh := (maxVia - 1) * 4; sh >= 0; sh -= 4 {
		if s := Stage(v >> sh & 0xf); s != 0 || len(out) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// String returns the stages joined by " → ", e.g. "percent → html"; "" for the zero Via.
func (v Via) String() string {
	var b strings.Builder
	for i, s := range v.Stages() {
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(s.String())
	}
	return b.String()
}
