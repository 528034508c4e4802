package merkle

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hashOf(t *testing.T, s string) Hash {
	t.Helper()
	var h Hash
	if copy(h[:], unhex(t, s)) != Size {
		t.Fatalf("%q is not a hash", s)
	}
	return h
}

// The reference implementation's vectors: the root of every prefix of its
// eight leaves, and two inclusion proofs in the tree of eight.
func TestRFC6962Vectors(t *testing.T) {
	b, err := os.ReadFile("testdata/rfc6962.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Leaves    []string `json:"leaves"`
		Roots     []string `json:"roots"`
		Inclusion []struct {
			Index int      `json:"leaf_index"`
			Size  int      `json:"tree_size"`
			Path  []string `json:"inclusion_path"`
		} `json:"inclusion"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var leaves []Hash
	for _, l := range v.Leaves {
		leaves = append(leaves, LeafHash(unhex(t, l)))
	}
	if _, err := New(nil); err == nil {
		t.Fatal("a tree of no leaves was built")
	}
	for n := 1; n <= len(leaves); n++ {
		tr, err := New(leaves[:n])
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tr.Root(), hashOf(t, v.Roots[n]); got != want {
			t.Fatalf("root of %d leaves: %x, want %x", n, got, want)
		}
	}
	tr, _ := New(leaves)
	for _, in := range v.Inclusion {
		got, err := tr.Path(in.Index)
		if err != nil {
			t.Fatal(err)
		}
		var want []Hash
		for _, p := range in.Path {
			want = append(want, hashOf(t, p))
		}
		if len(got) != len(want) {
			t.Fatalf("path of leaf %d: %d hashes, want %d", in.Index, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("path of leaf %d, hash %d: %x, want %x", in.Index, i, got[i], want[i])
			}
		}
		if err := VerifyInclusion(leaves[in.Index], uint64(in.Index), uint64(in.Size), want, hashOf(t, v.Roots[in.Size])); err != nil {
			t.Fatal(err)
		}
	}
}

type tlogCase struct {
	Data  string   `json:"leaf_data"`
	Leaf  string   `json:"leaf_hash"`
	Index int      `json:"leaf_index"`
	Size  int      `json:"tree_size"`
	Root  string   `json:"root_hash"`
	Path  []string `json:"inclusion_path"`
}

func tlogCases(t *testing.T) []tlogCase {
	t.Helper()
	f, err := os.Open("testdata/tlog-inclusion.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tlogCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c tlogCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != 24*25/2 {
		t.Fatalf("%d cases", len(out))
	}
	return out
}

// Every leaf of every tree of 1 to 24 leaves, against
// golang.org/x/mod/sumdb/tlog (testdata/tlog): the leaf's hash, the root,
// the proof built and the proof checked.
func TestAgainstTlog(t *testing.T) {
	cases := tlogCases(t)
	var leaves []Hash
	for _, c := range cases {
		if c.Index == len(leaves) {
			leaves = append(leaves, LeafHash(unhex(t, c.Data)))
		}
	}
	for _, c := range cases {
		if got := LeafHash(unhex(t, c.Data)); got != hashOf(t, c.Leaf) {
			t.Fatalf("leaf hash of %s: %x, want %s", c.Data, got, c.Leaf)
		}
		tr, err := New(leaves[:c.Size])
		if err != nil {
			t.Fatal(err)
		}
		root := hashOf(t, c.Root)
		if tr.Root() != root {
			t.Fatalf("root of %d: %x, want %s", c.Size, tr.Root(), c.Root)
		}
		path, err := tr.Path(c.Index)
		if err != nil {
			t.Fatal(err)
		}
		if len(path) != len(c.Path) {
			t.Fatalf("leaf %d of %d: path of %d, want %d", c.Index, c.Size, len(path), len(c.Path))
		}
		for i := range path {
			if path[i] != hashOf(t, c.Path[i]) {
				t.Fatalf("leaf %d of %d: path hash %d differs", c.Index, c.Size, i)
			}
		}
		leaf := hashOf(t, c.Leaf)
		if err := VerifyInclusion(leaf, uint64(c.Index), uint64(c.Size), path, root); err != nil {
			t.Fatalf("leaf %d of %d: %v", c.Index, c.Size, err)
		}
	}
}

// A proof that does not hold is refused, whatever is wrong in it: another
// leaf or index, an index past the end, a hash of the path changed, a path
// cut short or made longer, or another root. (The size is not the proof's
// to prove: leaf 0's path in a tree of 3 also leads to that tree's root
// when read as a path in a tree of 4. The signature over the root and its
// size binds the size.)
func TestWrongProofsRefused(t *testing.T) {
	var pe *ProofError
	refused := func(what string, err error) {
		t.Helper()
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v, want a *ProofError", what, err)
		}
	}
	for _, c := range tlogCases(t) {
		leaf, root := hashOf(t, c.Leaf), hashOf(t, c.Root)
		var path []Hash
		for _, p := range c.Path {
			path = append(path, hashOf(t, p))
		}
		idx, size := uint64(c.Index), uint64(c.Size)
		other := leaf
		other[0] ^= 1
		refused("another leaf", VerifyInclusion(other, idx, size, path, root))
		otherRoot := root
		otherRoot[31] ^= 0x80
		refused("another root", VerifyInclusion(leaf, idx, size, path, otherRoot))
		refused("index past the end", VerifyInclusion(leaf, size, size, path, root))
		for i := uint64(0); i < size; i++ {
			if i != idx {
				if err := VerifyInclusion(leaf, i, size, path, root); err == nil {
					t.Fatalf("leaf %d of %d verified at index %d", idx, size, i)
				}
			}
		}
		for i := range path {
			changed := append([]Hash(nil), path...)
			changed[i][i%Size] ^= 4
			refused("a path hash changed", VerifyInclusion(leaf, idx, size, changed, root))
		}
		if len(path) > 0 {
			refused("a path cut short", VerifyInclusion(leaf, idx, size, path[:len(path)-1], root))
		}
		refused("a path made longer", VerifyInclusion(leaf, idx, size, append(append([]Hash(nil), path...), leaf), root))
	}
}

func TestHashText(t *testing.T) {
	h := LeafHash([]byte("x"))
	b, _ := h.MarshalText()
	var back Hash
	if err := back.UnmarshalText(b); err != nil || back != h || string(b) != h.String() {
		t.Fatalf("%s: %v %x", b, err, back)
	}
	for _, bad := range []string{"", "sha256:", h.String()[:70], "sha512:" + h.String()[7:], "sha256:" + string(b[7:len(b)-1]) + "g",
		"sha256:" + string(b[7:len(b)-2]) + "AB"} {
		if err := back.UnmarshalText([]byte(bad)); err == nil {
			t.Fatalf("%q read as a hash", bad)
		}
	}
}
