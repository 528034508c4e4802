package merkle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Size is the length of a hash.
const Size = sha256.Size

// Hash is a leaf's or a node's hash.
type Hash [Size]byte

// The domain prefixes of RFC 9162, section 2.1.1.
const (
	leafPrefix = 0x00
	nodePrefix = 0x01
)

// LeafHash is the hash of a leaf whose data is data: SHA-256(0x00 || data).
func LeafHash(data []byte) Hash {
	h := sha256.New()
	h.Write([]byte{leafPrefix})
	h.Write(data)
	var out Hash
	h.Sum(out[:0])
	return out
}

// NodeHash is the hash of an inner node: SHA-256(0x01 || left || right).
func NodeHash(left, right Hash) Hash {
	var b [1 + 2*Size]byte
	b[0] = nodePrefix
	copy(b[1:], left[:])
	copy(b[1+Size:], right[:])
	return sha256.Sum256(b[:])
}

// String is the hash as "sha256:" and 64 lower-case hex digits.
func (h Hash) String() string { return "sha256:" + hex.EncodeToString(h[:]) }

// AppendText appends the hash's String form.
func (h Hash) AppendText(b []byte) ([]byte, error) {
	b = append(b, "sha256:"...)
	return hex.AppendEncode(b, h[:]), nil
}

// MarshalText is the hash's String form.
func (h Hash) MarshalText() ([]byte, error) { return h.AppendText(nil) }

// UnmarshalText reads the String form.
func (h *Hash) UnmarshalText(b []byte) error {
	x, ok := strings.CutPrefix(string(b), "sha256:")
	if !ok || len(x) != 2*Size {
		return errors.New("want sha256: and 64 hex digits")
	}
	if _, err := hex.Decode(h[:], []byte(x)); err != nil {
		return errors.New("want sha256: and 64 hex digits")
	}
	if strings.ToLower(x) != x {
		return errors.New("want lower-case hex digits")
	}
	return nil
}

// Tree is the Merkle tree over a list of leaf hashes. Its levels are kept,
// so that every leaf's proof is read off without hashing again.
type Tree struct {
	// levels[0] are the leaves; each next level pairs the one below,
	// and a level of odd length carries its last node up unchanged,
	// which is how RFC 9162's split at the largest power of two below n
	// builds the tree bottom up. The last level is the root alone.
	levels [][]Hash
}

// New builds the tree over leaves, which must not be empty. It keeps
// leaves, which the caller must not change afterwards.
func New(leaves []Hash) (*Tree, error) {
	if len(leaves) == 0 {
		return nil, errors.New("merkle: a tree needs at least one leaf")
	}
	t := &Tree{levels: [][]Hash{leaves}}
	for level := leaves; len(level) > 1; {
		up := make([]Hash, (len(level)+1)/2)
		for i := 0; i+1 < len(level); i += 2 {
			up[i/2] = NodeHash(level[i], level[i+1])
		}
		if len(level)%2 == 1 {
			up[len(up)-1] = level[len(level)-1]
		}
		t.levels = append(t.levels, up)
		level = up
	}
	return t, nil
}

// Size is the number of leaves.
func (t *Tree) Size() int { return len(t.levels[0]) }

// Root is the tree's root hash, RFC 9162's MTH of the leaves.
func (t *Tree) Root() Hash { return t.levels[len(t.levels)-1][0] }

// Path is the inclusion proof of leaf i (RFC 9162's PATH(i, D[n])): the
// hashes of the siblings on the way from the leaf to the root, lowest
// first. A level where the node is carried up has no sibling, and adds
// nothing.
func (t *Tree) Path(i int) ([]Hash, error) {
	if i < 0 || i >= t.Size() {
		return nil, fmt.Errorf("merkle: leaf %d of a tree of %d", i, t.Size())
	}
	var path []Hash
	for _, level := range t.levels[:len(t.levels)-1] {
		if s := i ^ 1; s < len(level) {
			path = append(path, level[s])
		}
		i /= 2
	}
	return path, nil
}

// ProofError is an inclusion proof that does not hold.
type ProofError struct {
	// Reason says what does not hold, in words.
	Reason string
}

func (e *ProofError) Error() string { return "merkle: inclusion proof: " + e.Reason }

// RootFromPath is the root that leaf, at index in a tree of size leaves,
// and its inclusion proof path lead to, as RFC 9162 section 2.1.3.2 checks
// a proof. It fails when the index is outside the tree or the path is not
// as long as such a leaf's path is.
func RootFromPath(leaf Hash, index, size uint64, path []Hash) (Hash, error) {
	if index >= size {
		return Hash{}, &ProofError{Reason: fmt.Sprintf("leaf index %d is outside a tree of %d", index, size)}
	}
	fn, sn, r := index, size-1, leaf
	for _, p := range path {
		if sn == 0 {
			return Hash{}, &ProofError{Reason: fmt.Sprintf("the path is longer than the %d-leaf tree is deep", size)}
		}
		if fn&1 == 1 || fn == sn {
			r = NodeHash(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = NodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return Hash{}, &ProofError{Reason: fmt.Sprintf("the path is shorter than leaf %d's in a tree of %d", index, size)}
	}
	return r, nil
}

// VerifyInclusion checks that leaf is at index in the tree of size leaves
// whose root is root, by its inclusion proof path.
func VerifyInclusion(leaf Hash, index, size uint64, path []Hash, root Hash) error {
	r, err := RootFromPath(leaf, index, size, path)
	if err != nil {
		return err
	}
	if r != root {
		return &ProofError{Reason: "the path does not lead to the root"}
	}
	return nil
}
