package classify

import (
	"slices"
	"strings"
	"sync"

	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// masker applies the Redactor's rules with its scanner, and remembers the
// party names the scanner found nothing in.
type masker struct {
	sc *pii.Scanner

	mu    sync.RWMutex
	clean map[string]struct{} // at most maxCleanNames
}

// maxCleanNames bounds the names a masker remembers: far more parties than
// a gateway talks to, and a bound on what a stream of made-up names costs.
// Past it, new names are scanned each time, as every string once was.
const maxCleanNames = 4096

func newMasker(sc *pii.Scanner) *masker {
	return &masker{sc: sc, clean: make(map[string]struct{})}
}

// str is s, logged under key, as the log may show it: masked by the
// scanner, except where the key and the form of s say that s is one of
// the values the gateway logs on every call once it has checked them.
//
//   - Under "op", "cls" and "code", a known op, class or error code, and
//     under "face" up to 16 lower-case letters and '_': no digits, so
//     nothing a detector looks for. Written as it is.
//   - Under "message_id", a message id (8-4-4-4-12 lower-case hex, as
//     wire.ValidID): written as it is. The scanner finds nothing in that
//     form (200,000 random ids, half of them all digits, were tried).
//   - Under "peer", an organisation's name, and under "from" and "to" an
//     agent@org, of the wire's grammar ([A-Za-z0-9_-]): such a name can
//     still read as a phone number or a key ("415-555-0123"), so it is
//     scanned the first time, and remembered if nothing was found in it;
//     the same party on the next call is not scanned again. A name in which
//     something was found is masked, and scanned, every time.
//
// Any other value under these keys (a sentence under "to", an address under
// "peer"), and every value under any other key, is scanned.
func (m *masker) str(key, s string) string {
	switch key {
	case "op":
		if slices.Contains(wire.Ops(), wire.Op(s)) { // Op.Known makes a payload to tell
			return s
		}
	case "cls":
		if _, ok := wire.ParseClass(s); ok {
			return s
		}
	case "code":
		if wire.Code(s).Known() {
			return s
		}
	case "face":
		if faceName(s) {
			return s
		}
	case "message_id":
		if wire.ValidID(s) {
			return s
		}
	case "peer":
		if wire.ValidName(s) {
			return m.name(s)
		}
	case "from", "to":
		if a, o, ok := strings.Cut(s, "@"); ok && wire.ValidName(a) && wire.ValidName(o) {
			return m.name(s)
		}
	}
	return m.sc.MaskString(s)
}

// name is a party's name masked, from what the masker remembers if it can.
func (m *masker) name(s string) string {
	m.mu.RLock()
	_, ok := m.clean[s]
	m.mu.RUnlock()
	if ok {
		return s
	}
	t := m.sc.MaskString(s)
	if t == s {
		m.mu.Lock()
		if len(m.clean) < maxCleanNames {
			// A copy: s may share the memory of the frame it was read from.
			m.clean[strings.Clone(s)] = struct{}{}
		}
		m.mu.Unlock()
	}
	return t
}

// faceName reports whether s has the form of the gateway's face names
// ("http", "grpc_stream"): up to 16 lower-case letters and underscores.
func faceName(s string) bool {
	if len(s) == 0 || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}
