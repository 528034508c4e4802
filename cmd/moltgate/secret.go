package main

import (
	"bytes"
	"fmt"
	"os"

	"golang.org/x/term"
)

// terminalSecret returns a reader of secrets from the terminal on standard
// input, or nil when standard input is not a terminal (a script, a pipe,
// CI), where nobody can be asked.
func terminalSecret() func(prompt string) ([]byte, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return nil
	}
	return func(prompt string) ([]byte, error) {
		fmt.Fprint(os.Stderr, prompt)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(os.Stderr)
		return b, err
	}
}

// minPassphrase is the shortest passphrase init accepts from a person.
const minPassphrase = 8

// askPassphrase asks for the org key's passphrase twice. An empty answer
// chooses plaintext, said so in the summary; a short or mismatched one is
// asked again, three times at most.
func askPassphrase(e *env) ([]byte, error) {
	for range 3 {
		p, err := e.readSecret("Passphrase to encrypt the org key (empty: store it in plaintext): ")
		if err != nil {
			return nil, fmt.Errorf("read passphrase: %w", err)
		}
		if len(p) == 0 {
			return nil, nil
		}
		if len(p) < minPassphrase {
			fmt.Fprintf(e.stderr, "moltgate init: a passphrase needs at least %d characters\n", minPassphrase)
			continue
		}
		again, err := e.readSecret("The same passphrase again: ")
		if err != nil {
			return nil, fmt.Errorf("read passphrase: %w", err)
		}
		if !bytes.Equal(p, again) {
			fmt.Fprintln(e.stderr, "moltgate init: the two passphrases differ")
			continue
		}
		return p, nil
	}
	return nil, usagef("no passphrase after three tries: run init again, or give %s, or --plaintext-keys", "MOLTGATE_PASSPHRASE")
}
