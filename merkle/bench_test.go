package merkle

import (
	"fmt"
	"testing"
)

// The tree a gateway builds over a batch of receipts, and the check of one
// receipt's proof, by batch size.
func BenchmarkTree(b *testing.B) {
	for _, n := range []int{1, 16, 64, 256} {
		leaves := make([]Hash, n)
		for i := range leaves {
			leaves[i] = LeafHash([]byte(fmt.Sprint(i)))
		}
		b.Run(fmt.Sprintf("build+paths/%d", n), func(b *testing.B) {
			for b.Loop() {
				t, _ := New(leaves)
				for i := range n {
					t.Path(i)
				}
			}
		})
		t, _ := New(leaves)
		path, _ := t.Path(n - 1)
		b.Run(fmt.Sprintf("verify/%d", n), func(b *testing.B) {
			for b.Loop() {
				VerifyInclusion(leaves[n-1], uint64(n-1), uint64(n), path, t.Root())
			}
		})
	}
}
