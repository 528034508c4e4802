package filestamp

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStamp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if !Of(path).Same(Of(path)) {
		t.Fatal("two absent files differ")
	}
	if err := os.WriteFile(path, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := Of(path)
	if a.Same(Of(path + ".x")) {
		t.Fatal("a file is the same as none")
	}
	if !a.Same(Of(path)) {
		t.Fatal("a file unchanged is not the same")
	}
	if err := os.WriteFile(path, []byte("ab"), 0o600); err != nil {
		t.Fatal(err)
	}
	if a.Same(Of(path)) {
		t.Fatal("a file written again is the same")
	}
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	empty := Dir(dir)
	if Dir(filepath.Join(dir, "absent")) != "" {
		t.Fatal("an absent directory has a stamp")
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	one := Dir(dir)
	if one == empty {
		t.Fatal("a file added leaves the stamp as it was")
	}
	if Dir(dir) != one {
		t.Fatal("an unchanged directory's stamp changed")
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("12"), 0o600); err != nil {
		t.Fatal(err)
	}
	if Dir(dir) == one {
		t.Fatal("a file written in place leaves the stamp as it was")
	}
	if err := os.Remove(filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	if Dir(dir) != empty {
		t.Fatal("removing the only file does not give the empty directory's stamp")
	}
}
