// Package filestamp tells whether a file or a directory was written again
// since it was last read, by what the file system records of it rather
// than by its content, so that a gateway can watch its own files every
// few seconds for the price of a stat.
package filestamp

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Stamp is what changes on disk when a file is written again: its
// modification time and size, or its absence. The zero Stamp is an absent
// file's.
type Stamp struct {
	mod  time.Time
	size int64
	ok   bool
}

// Of is path's Stamp now.
func Of(path string) Stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}
	}
	return Stamp{mod: fi.ModTime(), size: fi.Size(), ok: true}
}

// Same reports whether a and b are the same file as written.
func (a Stamp) Same(b Stamp) bool {
	return a.ok == b.ok && a.mod.Equal(b.mod) && a.size == b.size
}

// Dir is the name, modification time and size of each file in dir, as
// one comparable string: it changes when a file is added, removed,
// replaced or written in place. An unreadable or absent dir gives "".
func Dir(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", e.Name(), fi.ModTime().UnixNano(), fi.Size())
		}
	}
	return b.String()
}
