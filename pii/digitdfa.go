package pii

import (
	"regexp/syntax"
)

// A numbering plan's patterns are regular expressions over digits alone ("[2-9]\d{9}",
// "7(?:[1-57-9]\d|624)\d{6}"). Matched with package regexp, one phone number costs its region
// about 15,000 instructions: the engine walks its program for every digit and every pattern.
// A pattern is compiled here once into a deterministic automaton over the ten digits, so that
// matching is one table load a digit. The automaton is built from the same program regexp
// compiles (regexp/syntax), so it accepts exactly the digit strings the expression matches.

// digitDFA is a deterministic automaton over the bytes '0'-'9'. State 0 is dead; start is
// where matching begins; final[s] says whether state s accepts.
type digitDFA struct {
	next  [][10]uint16
	final []bool
	start uint16
}

// maxDigitStates bounds an automaton; a pattern that needs more is matched by regexp (none of
// the plans' patterns comes near it).
const maxDigitStates = 1 << 14

// newDigitDFA compiles expr, matched whole, into an automaton over digits. ok is false when
// the expression cannot be compiled so (a syntax error, an assertion such as ^ or \b, or too
// many states); the caller then keeps regexp.
func newDigitDFA(expr string) (d *digitDFA, ok bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, false
	}
	// closure adds to set the instructions reachable from pc without reading a digit: the
	// rune instructions that read the next one, and InstMatch.
	seen := make([]uint32, len(prog.Inst))
	gen := uint32(0)
	var closure func(set []uint32, pc uint32) ([]uint32, bool)
	closure = func(set []uint32, pc uint32) ([]uint32, bool) {
		if seen[pc] == gen {
			return set, true
		}
		seen[pc] = gen
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			set, ok := closure(set, in.Out)
			if !ok {
				return nil, false
			}
			return closure(set, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			return closure(set, in.Out)
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL, syntax.InstMatch:
			return append(set, pc), true
		case syntax.InstFail:
			return set, true
		default: // InstEmptyWidth: an assertion, which an automaton over digits alone cannot hold
			return nil, false
		}
	}
	key := func(set []uint32) string {
		b := make([]byte, 0, 4*len(set))
		for _, pc := range set {
			b = append(b, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
		}
		return string(b)
	}
	d = &digitDFA{next: make([][10]uint16, 1, 64), final: make([]bool, 1, 64)}
	ids := map[string]uint16{}
	var sets [][]uint32
	add := func(set []uint32) (uint16, bool) {
		if len(set) == 0 {
			return 0, true
		}
		k := key(set)
		if id, ok := ids[k]; ok {
			return id, true
		}
		if len(d.next) >= maxDigitStates {
			return 0, false
		}
		id := uint16(len(d.next))
		ids[k] = id
		d.next = append(d.next, [10]uint16{})
		final := false
		for _, pc := range set {
			final = final || prog.Inst[pc].Op == syntax.InstMatch
		}
		d.final = append(d.final, final)
		sets = append(sets, set)
		return id, true
	}
	gen++
	start, ok := closure(nil, uint32(prog.Start))
	if !ok {
		return nil, false
	}
	if d.start, ok = add(sortPCs(start)); !ok {
		return nil, false
	}
	for q := 0; q < len(sets); q++ {
		set := sets[q]
		id := q + 1
		for c := rune('0'); c <= '9'; c++ {
			gen++
			var to []uint32
			for _, pc := range set {
				in := &prog.Inst[pc]
				if in.Op == syntax.InstMatch || !in.MatchRune(c) {
					continue
				}
				if to, ok = closure(to, in.Out); !ok {
					return nil, false
				}
			}
			t, ok := add(sortPCs(to))
			if !ok {
				return nil, false
			}
			d.next[id][c-'0'] = t
		}
	}
	return d, true
}

// sortPCs sorts a set of program counters in place (they are few), so that equal sets have
// one key.
func sortPCs(s []uint32) []uint32 {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// match reports whether the automaton accepts s whole; ok is false when s holds a byte that is
// not a digit, which the automaton cannot read.
func (d *digitDFA) match(s string) (matched, ok bool) {
	st := d.start
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return false, false
		}
		st = d.next[st][c]
		if st == 0 {
			return false, true
		}
	}
	return d.final[st], true
}
