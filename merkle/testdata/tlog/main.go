// Command tlog writes ../tlog-inclusion.jsonl: for trees of 1 to 24 leaves,
// every leaf's hash, root and inclusion proof as golang.org/x/mod/sumdb/tlog,
// an independent implementation of RFC 6962's trees, computes them. Run it
// from this directory: go run . > ../tlog-inclusion.jsonl
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"golang.org/x/mod/sumdb/tlog"
)

type inclusion struct {
	LeafData string   `json:"leaf_data"`
	LeafHash string   `json:"leaf_hash"`
	Index    int64    `json:"leaf_index"`
	Size     int64    `json:"tree_size"`
	Root     string   `json:"root_hash"`
	Path     []string `json:"inclusion_path"`
}

func main() {
	var stored []tlog.Hash
	r := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			out[i] = stored[x]
		}
		return out, nil
	})
	var datas [][]byte
	var out []inclusion
	const max = 24
	for n := int64(0); n < max; n++ {
		data := []byte(fmt.Sprintf("moltgate receipt %d", n))
		datas = append(datas, data)
		hs, err := tlog.StoredHashes(n, data, r)
		if err != nil {
			panic(err)
		}
		stored = append(stored, hs...)
		size := n + 1
		root, err := tlog.TreeHash(size, r)
		if err != nil {
			panic(err)
		}
		for i := int64(0); i < size; i++ {
			p, err := tlog.ProveRecord(size, i, r)
			if err != nil {
				panic(err)
			}
			lh := tlog.RecordHash(datas[i])
			if err := tlog.CheckRecord(p, size, root, i, lh); err != nil {
				panic(err)
			}
			in := inclusion{LeafData: hex.EncodeToString(datas[i]), LeafHash: hex.EncodeToString(lh[:]), Index: i, Size: size, Root: hex.EncodeToString(root[:]), Path: []string{}}
			for _, h := range p {
				in.Path = append(in.Path, hex.EncodeToString(h[:]))
			}
			out = append(out, in)
		}
	}
	e := json.NewEncoder(os.Stdout)
	for _, in := range out {
		e.Encode(in)
	}
}
