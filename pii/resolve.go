package pii

import (
	"slices"
)

// resolve sorts the current string's findings and drops overlaps: a secret beats personal data,
// then higher confidence, then the longer span.
func (x *scanCtx) resolve() {
	f := x.out[x.base:]
	if len(f) < 2 {
		return
	}
	slices.SortFunc(f, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	keep := f[:1]
	for _, g := range f[1:] {
		last := &keep[len(keep)-1]
		if g.Start >= last.End {
			keep = append(keep, g)
			continue
		}
		if better(g, *last) {
			*last = g
		}
	}
	x.out = x.out[:x.base+len(keep)]
}

func better(a, b Finding) bool {
	ca, cb := a.Type.Class() == ClassSecret, b.Type.Class() == ClassSecret
	if ca != cb {
		return ca
	}
	if a.Confidence != b.Confidence {
		return a.Confidence > b.Confidence
	}
	return a.End-a.Start > b.End-b.Start
}

// finishDoc runs once per document: health information counts only when the document also
// identifies someone, so the deferred health findings are emitted, and the texts re-scanned for
// health terms, only then. each calls fn for every string of the document with a function
// that builds its path (called only for strings with findings).
func (x *scanCtx) finishDoc(_ int, each func(fn func(path func() string, s string, key keyKind))) {
	if each != nil && len(x.runs) > 0 && (x.identity || x.runPersonal) {
		// A text in pieces is read again for health terms when the document identifies
		// someone, or when the text itself speaks of someone (not a piece of it alone).
		strings := each
		each = func(fn func(path func() string, s string, key keyKind)) {
			strings(fn)
			x.eachRun(fn)
		}
	}
	if !x.identity {
		if x.personCue || x.lowerHealth() {
			x.personalHealth(each)
		}
		return
	}
	x.out = append(x.out, x.healthCues...)
	if each == nil {
		// Free text: the one string is x.s.
		x.base = len(x.out)
		x.healthPass()
		x.resolveHealth()
		return
	}
	each(func(path func() string, s string, key keyKind) {
		x.s = s
		x.base = len(x.out)
		x.healthPass()
		x.resolveHealth()
		if len(x.out) > x.base {
			p := path()
			for i := x.base; i < len(x.out); i++ {
				x.out[i].Path = p
			}
		}
	})
}

// resolveHealth keeps only health findings that do not overlap an earlier finding of the string.
func (x *scanCtx) resolveHealth() {
	if len(x.out)-x.base > 1 {
		f := x.out[x.base:]
		slices.SortFunc(f, func(a, b Finding) int { return a.Start - b.Start })
		keep := f[:1]
		for _, g := range f[1:] {
			if g.Start >= keep[len(keep)-1].End {
				keep = append(keep, g)
			}
		}
		x.out = x.out[:x.base+len(keep)]
	}
}
