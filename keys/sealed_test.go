package keys

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealedOpens(t *testing.T) {
	opts := WriteOptions{Passphrase: []byte("correct horse"), ScryptLogN: minScryptLogN}
	s, err := Seal([]byte("secret"), []byte("header"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := s.Open(opts.Passphrase, []byte("header")); err != nil || !bytes.Equal(plain, []byte("secret")) {
		t.Fatalf("open: %q, %v", plain, err)
	}
	for _, tc := range []struct {
		name       string
		passphrase string
		ad         string
	}{
		{"wrong passphrase", "wrong horse", "header"},
		{"header edited", "correct horse", "headers"},
		{"no passphrase", "", "header"},
	} {
		if _, err := s.Open([]byte(tc.passphrase), []byte(tc.ad)); !errors.Is(err, ErrPassphrase) {
			t.Errorf("%s: %v, want ErrPassphrase", tc.name, err)
		}
	}
	bad := *s
	bad.LogN = maxScryptLogN + 1
	var fe *FormatError
	if _, err := bad.Open(opts.Passphrase, []byte("header")); !errors.As(err, &fe) {
		t.Errorf("a work factor out of bounds: %v, want a *FormatError", err)
	}
	if _, err := Seal([]byte("secret"), nil, WriteOptions{}); err == nil {
		t.Error("sealed without a passphrase")
	}
}
