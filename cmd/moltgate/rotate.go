package main

import (
	"context"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
)

func runKey(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "key", args, false,
		subcommand{"rotate", func(args []string) error { return runRotate(e, "key", args) }},
	)
}

func runTLS(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "tls", args, false,
		subcommand{"rotate", func(args []string) error { return runRotate(e, "tls", args) }},
	)
}

// runRotate is key rotate and tls rotate: the same handover, of the org
// key or of the TLS certificate.
func runRotate(e *env, what string, args []string) error {
	fs := newFlags(e, what+" rotate")
	dir := fs.String("dir", "", "gateway directory")
	overlap := fs.Duration("overlap", gateway.DefaultOverlap, "how long the old "+map[string]string{"key": "key", "tls": "certificate"}[what]+" stays good beside the new one (at most 720h)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	if *overlap <= 0 {
		return usagef("--overlap must be a positive duration such as 24h")
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	o := gateway.RotateOptions{Overlap: *overlap, Passphrase: pass, Now: e.now()}
	until := func(r *gateway.Rotated) string { return r.Until.UTC().Format(time.RFC3339) }
	if what == "key" {
		r, err := gateway.RotateOrgKey(d, o)
		if err != nil {
			return err
		}
		oldFP, newFP := fingerprintOf(r.Old), fingerprintOf(r.New)
		fmt.Fprintf(e.stdout, "Org key of %s rotated: %s -> %s\n", r.Org, oldFP, newFP)
		fmt.Fprintf(e.stdout, "The old key signed the handover (%s); peers take the new key from it, with no operator acting on their side.\n", d.HandoversPath())
		fmt.Fprintf(e.stdout, "Both keys verify until %s; after that the old one is refused everywhere.\n", until(r))
		fmt.Fprintf(e.stdout, "A serving gateway pushes the handover to its peers within seconds and serves it on its registry and in its peer document. It signs with the new key, and certifies its agents under it, from its next start: restart it before %s.\n", until(r))
		return nil
	}
	r, err := gateway.RotateTLS(d, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "TLS certificate of %s rotated: pin %s -> %s\n", r.Org, r.Old, r.New)
	fmt.Fprintf(e.stdout, "The org key signed the new pin (%s); peers accept both pins until %s, and only the new one after.\n", d.HandoversPath(), until(r))
	fmt.Fprintf(e.stdout, "A serving gateway pushes the announcement to its peers within seconds, and presents the new certificate from its next start: restart it before %s.\n", until(r))
	return nil
}

// fingerprintOf is the fingerprint of an "ed25519:…" key, or the text
// itself if it is not one.
func fingerprintOf(key string) string {
	k, err := keys.ParseEd25519Public(key)
	if err != nil {
		return key
	}
	return k.Fingerprint()
}
