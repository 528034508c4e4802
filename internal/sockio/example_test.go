package sockio_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/moltgate/moltgate/internal/sockio"
)

func Example() {
	dir, _ := os.MkdirTemp("", "sockio")
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Connections accepted through the Listener, and dialled through the
	// Dialer, read and write with direct system calls.
	ln := sockio.Listener{Listener: l}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	var d sockio.Dialer
	c, err := d.DialContext(context.Background(), "unix", l.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	c.Write([]byte("hello"))
	buf := make([]byte, 5)
	io.ReadFull(c, buf)
	fmt.Println(string(buf))
	// Output: hello
}
