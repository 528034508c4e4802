package receipt

import (
	"crypto/sha256"
	"errors"
	"fmt"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/wire"
)

// The roles a side signs a batch in.
const (
	RoleCallee = "callee"
	RoleCaller = "caller"
)

const rootDomain = "moltgate receipt root v1\n"

// maxPath bounds a proof's path: a batch of 2^32 receipts is beyond any
// gateway's window.
const maxPath = 32

// Root is a signed root of one side's batch of receipts.
type Root struct {
	// Org is the organisation whose org key signed; Role is the side it
	// signed as, RoleCallee or RoleCaller.
	Org  string `json:"org"`
	Role string `json:"role"`
	// Size is the number of receipts in the batch; Hash the root of the
	// Merkle tree over their leaves.
	Size int64       `json:"size"`
	Hash merkle.Hash `json:"hash"`
	// TS is when the batch was signed, unix milliseconds.
	TS  int64          `json:"ts"`
	Sig keys.Signature `json:"sig"`
}

// Proof places a receipt in a signed batch: its leaf's index and inclusion
// path in the tree whose root is Root.
type Proof struct {
	Index int64         `json:"index"`
	Path  []merkle.Hash `json:"path"`
	Root  Root          `json:"root"`
}

// signed is what the root's signature covers.
func (rt *Root) signed() []byte {
	b := append(make([]byte, 0, 192), rootDomain...)
	return rt.appendJSON(b, false)
}

func (rt *Root) appendJSON(b []byte, sig bool) []byte {
	b = append(b, `{"hash":"`...)
	b, _ = rt.Hash.AppendText(b)
	b = append(b, `","org":`...)
	b = wire.AppendCanonical(b, wire.StringValue(rt.Org))
	b = append(b, `,"role":`...)
	b = wire.AppendCanonical(b, wire.StringValue(rt.Role))
	if sig {
		b = append(b, `,"sig":"`...)
		b, _ = rt.Sig.AppendText(b)
		b = append(b, '"')
	}
	b = append(b, `,"size":`...)
	b = wire.AppendCanonical(b, wire.IntValue(rt.Size))
	b = append(b, `,"ts":`...)
	b = wire.AppendCanonical(b, wire.IntValue(rt.TS))
	return append(b, '}')
}

func (p *Proof) appendJSON(b []byte) []byte {
	b = append(b, `{"index":`...)
	b = wire.AppendCanonical(b, wire.IntValue(p.Index))
	b = append(b, `,"path":[`...)
	for i, h := range p.Path {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b, _ = h.AppendText(b)
		b = append(b, '"')
	}
	b = append(b, `],"root":`...)
	b = p.Root.appendJSON(b, true)
	return append(b, '}')
}

// check validates a parsed proof's members, not its path or signature.
func (p *Proof) check(field string) error {
	switch {
	case p.Root.Role != RoleCallee && p.Root.Role != RoleCaller:
		return bad(field+".root.role", "is %q; want callee or caller", p.Root.Role)
	case p.Root.Org == "":
		return bad(field+".root.org", "names no organisation")
	case p.Root.Size < 1:
		return bad(field+".root.size", "is %d; a batch has at least one receipt", p.Root.Size)
	case p.Index < 0 || p.Index >= p.Root.Size:
		return bad(field+".index", "is %d; want 0 to %d, in the batch", p.Index, p.Root.Size-1)
	case len(p.Path) > maxPath:
		return bad(field+".path", "has %d hashes; at most %d", len(p.Path), maxPath)
	case p.Root.TS <= 0:
		return bad(field+".root.ts", "is not a time")
	}
	return nil
}

// Includes checks that p's path leads from leaf, at p's index, to its
// root.
func (p *Proof) Includes(leaf merkle.Hash) error {
	if p.Index < 0 || p.Root.Size < 1 {
		return errors.New("the index or the size is negative")
	}
	return merkle.VerifyInclusion(leaf, uint64(p.Index), uint64(p.Root.Size), p.Path, p.Root.Hash)
}

// SignBatch is one side's signature over a batch of receipts, given by
// their leaves (Receipt.Leaf) in the order of the batch: it builds the
// tree, signs its root as org in role with key, and returns each
// receipt's proof, in the same order.
func SignBatch(key keys.Ed25519Private, org, role string, ts int64, leaves []merkle.Hash) ([]Proof, error) {
	if role != RoleCallee && role != RoleCaller {
		return nil, fmt.Errorf("receipt: role %q; want callee or caller", role)
	}
	t, err := merkle.New(leaves)
	if err != nil {
		return nil, fmt.Errorf("receipt: %w", err)
	}
	rt := Root{Org: org, Role: role, Size: int64(t.Size()), Hash: t.Root(), TS: ts}
	rt.Sig = key.Sign(rt.signed())
	out := make([]Proof, len(leaves))
	for i := range leaves {
		path, err := t.Path(i)
		if err != nil {
			return nil, fmt.Errorf("receipt: %w", err)
		}
		out[i] = Proof{Index: int64(i), Path: path, Root: rt}
	}
	return out, nil
}

// Roots checks signed roots and keeps those that held, so that the
// receipts of one batch cost one signature check between them. A nil
// *Roots checks every root and keeps none.
type Roots struct {
	v    *keys.Verifier
	seen *lru.Cache[[sha256.Size]byte, struct{}]
}

// NewRoots keeps up to n roots (at least 1) checked with v, which may be
// nil.
func NewRoots(v *keys.Verifier, n int) *Roots {
	c, _ := lru.New[[sha256.Size]byte, struct{}](max(n, 1))
	return &Roots{v: v, seen: c}
}

// Verify checks rt's signature under k, or finds it checked before.
func (c *Roots) Verify(rt *Root, k keys.Ed25519Public) error {
	msg := rt.signed()
	var id [sha256.Size]byte
	if c != nil {
		h := sha256.New()
		h.Write(k[:])
		h.Write(rt.Sig[:])
		h.Write(msg)
		h.Sum(id[:0])
		if _, ok := c.seen.Get(id); ok {
			return nil
		}
	}
	var v *keys.Verifier
	if c != nil {
		v = c.v
	}
	if !v.Verify(k, msg, rt.Sig) {
		return fmt.Errorf("does not verify under %s's org key", rt.Org)
	}
	if c != nil {
		c.seen.Add(id, struct{}{})
	}
	return nil
}
