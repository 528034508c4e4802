package retired_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/gateway/retired"
	"github.com/moltgate/moltgate/keys"
)

// A key replaced is kept until its overlap ends; loaded after, it is
// gone, and so is its file.
func Example() {
	dir, _ := os.MkdirTemp("", "retired")
	defer os.RemoveAll(dir)
	k, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	until := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	if err := retired.Save(filepath.Join(dir, "retired"), retired.Key{Org: "globex", Key: k, Until: until}, keys.WriteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	during, _ := retired.Load(filepath.Join(dir, "retired"), "globex", nil, until.Add(-time.Minute))
	after, _ := retired.Load(filepath.Join(dir, "retired"), "globex", nil, until)
	left, _ := os.ReadDir(filepath.Join(dir, "retired"))
	fmt.Println(len(during), len(after), len(left))
	// Output: 1 0 0
}
