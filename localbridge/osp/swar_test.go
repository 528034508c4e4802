package osp

import "testing"

func FuzzPlain(f *testing.F) {
	f.Add([]byte("abcdefghijklmnop\"q"))
	f.Add([]byte("0123456789abcdef\\\x01\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := 0
		for want < len(b) && strPlain[b[want]] {
			want++
		}
		if got := plainBytes(b); got != want {
			t.Fatalf("plainBytes(%q) = %d, want %d", b, got, want)
		}
	})
}
