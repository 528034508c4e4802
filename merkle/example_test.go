package merkle_test

import (
	"fmt"

	"github.com/moltgate/moltgate/merkle"
)

// A signer builds the tree over a batch and signs its root once; each
// member of the batch carries its index, the tree's size and its path, and
// anyone checks it against the signed root.
func Example() {
	var leaves []merkle.Hash
	for _, r := range []string{"receipt a", "receipt b", "receipt c"} {
		leaves = append(leaves, merkle.LeafHash([]byte(r)))
	}
	tree, err := merkle.New(leaves)
	if err != nil {
		panic(err)
	}
	path, _ := tree.Path(2)
	err = merkle.VerifyInclusion(merkle.LeafHash([]byte("receipt c")), 2, uint64(tree.Size()), path, tree.Root())
	fmt.Println(len(path), err)
	err = merkle.VerifyInclusion(merkle.LeafHash([]byte("receipt d")), 2, uint64(tree.Size()), path, tree.Root())
	fmt.Println(err)
	// Output:
	// 1 <nil>
	// merkle: inclusion proof: the path does not lead to the root
}
