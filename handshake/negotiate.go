package handshake

import (
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/moltgate/moltgate/wire"
)

// params is what two hellos agree on.
type params struct {
	version    string
	caps       []string
	classes    classSet
	extensions []string
	maxMessage int64
}

// negotiate intersects this side's offer with the peer's signed hello.
// Both sides run it on the same two lists and so reach the same result.
func (c *Config) negotiate(peer *wire.HelloPayload) (params, error) {
	var p params
	var ok bool
	if p.version, ok = highestCommon(c.versions(), peer.ProtocolVersions); !ok {
		return p, wire.Errorf(wire.ErrVersion, "p.protocol_versions", "no protocol version in common (this side speaks %s)",
			strings.Join(c.versions(), ", ")).WithSuggestion(wire.Suggestion{Action: wire.ActionUpgrade})
	}
	p.caps = intersect(c.Capabilities, peer.Capabilities)
	p.extensions = intersect(c.Extensions, peer.Extensions)
	for _, cl := range peer.SupportedCls {
		if slices.Contains(c.classes(), cl) {
			p.classes = p.classes.with(cl)
		}
	}
	if p.classes == 0 {
		return p, wire.Errorf(wire.ErrClassification, "p.supported_cls", "no classification in common")
	}
	p.maxMessage = min(c.maxMessageSize(), peer.MaxMessageSize)
	return p, nil
}

// highestCommon returns the highest version on both lists. Entries that are
// not "major.minor" are ignored, as unknown values are.
func highestCommon(ours, theirs []string) (string, bool) {
	best, bestV := "", [2]int{-1, -1}
	for _, s := range theirs {
		v, ok := parseVersion(s)
		if !ok || !slices.Contains(ours, s) {
			continue
		}
		if v[0] > bestV[0] || v[0] == bestV[0] && v[1] > bestV[1] {
			best, bestV = s, v
		}
	}
	return best, best != ""
}

// parseVersion reads "major.minor", each a decimal without leading zeros.
func parseVersion(s string) ([2]int, bool) {
	a, b, ok := strings.Cut(s, ".")
	if !ok {
		return [2]int{}, false
	}
	x, ok1 := number(a)
	y, ok2 := number(b)
	return [2]int{x, y}, ok1 && ok2
}

func number(s string) (int, bool) {
	if s == "" || len(s) > 6 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && s[0] != '+' && s[0] != '-'
}

// intersect keeps the entries of ours that theirs also lists, in our order,
// once each. The result does not share memory with theirs, which points
// into a received message.
func intersect(ours, theirs []string) []string {
	var out []string
	for _, s := range ours {
		if slices.Contains(theirs, s) && !slices.Contains(out, s) {
			out = append(out, strings.Clone(s))
		}
	}
	return out
}

// classSet is a set of classifications, one bit per level.
type classSet uint8

func (s classSet) with(c wire.Class) classSet { return s | 1<<c }
func (s classSet) has(c wire.Class) bool      { return c.Valid() && s&(1<<c) != 0 }

func (s classSet) list() []wire.Class {
	var out []wire.Class
	for _, c := range wire.Classes() {
		if s.has(c) {
			out = append(out, c)
		}
	}
	return out
}

// greasePrefix starts the name of the random extension each hello carries
// so that peers must ignore extensions they do not know. No real extension
// will ever be named so.
const greasePrefix = "grease-"

// withGrease returns exts with one random unknown extension inserted at a
// random position.
func withGrease(exts []string, rnd io.Reader) ([]string, error) {
	var b [5]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return nil, fmt.Errorf("read random: %w", err)
	}
	out := make([]string, 0, len(exts)+1)
	out = append(out, exts...)
	pos := int(b[4]) % (len(exts) + 1)
	return slices.Insert(out, pos, greasePrefix+hex.EncodeToString(b[:4])), nil
}
