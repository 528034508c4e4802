package handover

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Keep is how many statements an organisation keeps serving, newest
// last: enough that a peer away through several rotations can still
// follow them, one from the next, to the key of today.
const Keep = 16

// Set is an organisation's own handover statements as it serves them:
//
//	{"handovers":[{…statement…},…]}
type Set struct {
	Handovers []*Statement `json:"handovers"`
}

// Marshal returns the set's RFC 8785 JSON form.
func (s *Set) Marshal() ([]byte, error) {
	v, err := wire.ValueOf(s)
	if err != nil {
		return nil, fmt.Errorf("handover: %w", err)
	}
	return wire.AppendCanonical(nil, v), nil
}

// ParseSet reads a set strictly, each statement as Parse does; it checks
// no signature.
func ParseSet(b []byte) (*Set, error) {
	v, err := wire.Parse(b, 6)
	if err != nil {
		return nil, fmt.Errorf("handover: %w", err)
	}
	hs := v.Get("handovers")
	if v.Kind() != wire.Object || hs.Kind() != wire.Array || v.Len() != 1 {
		return nil, bad("handovers", "a set is {\"handovers\":[…]} and nothing else")
	}
	set := &Set{Handovers: []*Statement{}}
	for i := range hs.Len() {
		s, err := Parse(wire.AppendCanonical(nil, hs.Index(i)))
		if err != nil {
			var he *Error
			if errors.As(err, &he) {
				return nil, bad(fmt.Sprintf("handovers[%d].%s", i, he.Field), "%s", he.Reason)
			}
			return nil, err
		}
		set.Handovers = append(set.Handovers, s)
	}
	return set, nil
}

// LoadFile reads the set kept at path; a missing file is the empty set.
func LoadFile(path string) (*Set, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Set{Handovers: []*Statement{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("handover: %w", err)
	}
	s, err := ParseSet(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Add appends st, keeping the newest Keep statements.
func (s *Set) Add(st *Statement) {
	s.Handovers = append(s.Handovers, st)
	if n := len(s.Handovers); n > Keep {
		s.Handovers = slices.Clone(s.Handovers[n-Keep:])
	}
}

// Find returns the statement of kind handing from old to new, or nil.
func (s *Set) Find(kind, old, new string) *Statement {
	for _, st := range s.Handovers {
		if st.Kind == kind && st.Old == old && st.New == new {
			return st
		}
	}
	return nil
}

// WriteFile writes the set to path atomically, mode 0600.
func (s *Set) WriteFile(path string) error {
	b, err := s.Marshal()
	if err != nil {
		return err
	}
	if err := keys.WritePrivateFile(path, append(b, '\n'), true); err != nil {
		return fmt.Errorf("handover: %w", err)
	}
	return nil
}
