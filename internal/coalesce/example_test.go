package coalesce_test

import (
	"fmt"
	"os"

	"github.com/moltgate/moltgate/internal/coalesce"
)

// A Writer over a connection: each message is a line. Written from one goroutine, each
// message is a batch of its own; from many, the messages queued behind a write in
// progress share the next one.
func ExampleWriter() {
	w := coalesce.NewWriter(func(buf []byte, ends []int) error {
		fmt.Printf("batch of %d: ", len(ends))
		_, err := os.Stdout.Write(buf)
		return err
	}, coalesce.Options{})
	w.Write([]byte("hello\n"))
	w.Append(func(dst []byte) ([]byte, error) { return fmt.Appendf(dst, "%d\n", 42), nil }, nil)
	if err := w.Sync(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// batch of 1: hello
	// batch of 1: 42
}
