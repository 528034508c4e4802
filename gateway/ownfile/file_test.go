package ownfile

import (
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A File serves the file as written now: a change on disk is read again,
// one that does not check keeps what was held (and is reported once), a
// lower version is not taken, and a new basis reads the file again.
func TestFileFollowsTheDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "list.json")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		// A new modification time for each write, however fast.
		future := time.Now().Add(time.Duration(len(s)) * time.Second)
		os.Chtimes(path, future, future)
	}
	basis := "k1"
	var failed []error
	reads := 0
	f := New(Config[int]{
		Path: path,
		Read: func(p string) (int, error) {
			reads++
			b, err := os.ReadFile(p)
			if err != nil {
				return 0, err
			}
			s := strings.TrimSpace(string(b))
			if !strings.HasPrefix(s, basis+":") {
				return 0, errors.New("not signed under " + basis)
			}
			return strconv.Atoi(strings.TrimPrefix(s, basis+":"))
		},
		Take:    func(held, next int) bool { return next > held },
		Basis:   func() string { return basis },
		Marshal: func(n int) ([]byte, error) { return []byte(strconv.Itoa(n)), nil },
		Failed:  func(err error) { failed = append(failed, err) },
	}, 1)
	if f.Get() != 1 || reads != 0 {
		t.Fatalf("unchanged: %d after %d reads", f.Get(), reads)
	}
	write("k1:2")
	if f.Get() != 2 || f.Get() != 2 || reads != 1 {
		t.Fatalf("changed once: %d after %d reads", f.Get(), reads)
	}
	write("k1:1  ")
	if f.Get() != 2 {
		t.Fatal("a lower serial was taken")
	}
	write("k2:5")
	if f.Get() != 2 || f.Get() != 2 || len(failed) != 1 {
		t.Fatalf("a file that does not check: %d, %d failures", f.Get(), len(failed))
	}
	basis = "k2" // the key it verifies under changed
	if f.Get() != 5 {
		t.Fatalf("after the basis changed: %d", f.Get())
	}
	rec := httptest.NewRecorder()
	f.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	body, _ := io.ReadAll(rec.Body)
	if string(body) != "5\n" || rec.Header().Get("Cache-Control") != "no-cache" || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("served %q %v", body, rec.Header())
	}
}
