// Package merkle builds the Merkle trees of RFC 9162 (section 2.1, as RFC
// 6962 defined them) over small batches of leaves, and checks the
// inclusion proofs they give.
//
// A leaf's hash is SHA-256(0x00 || data) and a node's SHA-256(0x01 ||
// left || right): the prefixes keep a leaf from being passed off as a
// node. A tree of n leaves splits at the largest power of two below n, so
// that a leaf's inclusion proof is at most ceil(log2 n) hashes, and
// anyone holding a leaf, its index, the tree's size, the proof and the
// root recomputes the root without the other leaves. A signer signs one
// root for a whole batch, and each member of the batch carries its leaf's
// proof.
//
// Only the tree is written here; the hash is crypto/sha256. The package is
// held to the reference vectors of RFC 6962's reference implementation and
// to vectors computed with golang.org/x/mod/sumdb/tlog (testdata/).
package merkle
