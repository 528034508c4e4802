package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

func runKey(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "key", args, false,
		subcommand{"rotate", func(args []string) error { return runRotate(e, "key", args) }},
	)
}

func runTLS(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "tls", args, false,
		subcommand{"rotate", func(args []string) error { return runRotate(e, "tls", args) }},
		subcommand{"revoke", func(args []string) error { return runMaterialRevoke(e, "tls", args) }},
	)
}

func runCert(ctx context.Context, e *env, args []string) error {
	return runSubcommand(e, "cert", args, false,
		subcommand{"revoke", func(args []string) error { return runMaterialRevoke(e, "cert", args) }},
	)
}

// runMaterialRevoke is cert revoke and tls revoke: a certificate the
// organisation issued, or a TLS pin it used, goes on its revocation list.
func runMaterialRevoke(e *env, what string, args []string) error {
	fs := newFlags(e, what+" revoke")
	dir := fs.String("dir", "", "gateway directory")
	reason := fs.String("reason", "revoked", "why, for the peers' operators (kept in the signed list)")
	var value, certFile *string
	capability := new(bool)
	if what == "tls" {
		value = fs.String("pin", "", "the TLS pin to revoke (sha256:…, as peer documents spell it)")
	} else {
		value = fs.String("digest", "", "the certificate's digest (sha256: and 64 hex digits), as the gateway's log line \"certificates issued\" names it")
		capability = fs.Bool("capability", false, "the digest is of a capability certificate (default: an identity certificate)")
		certFile = fs.String("cert", "", "a certificate, as JSON, whose digest to revoke (- for standard input)")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	kind := revocation.KindTLSPin
	if what == "cert" {
		kind = revocation.KindIdentityCert
		if *capability {
			kind = revocation.KindCapabilityCert
		}
		switch {
		case *certFile != "" && *value != "":
			return usagef("give --digest or --cert, not both")
		case *certFile != "":
			if kind, *value, err = certDigest(e, *certFile); err != nil {
				return err
			}
		case *value == "":
			return usagef("--digest or --cert is required")
		}
	} else if *value == "" {
		return usagef("--pin is required")
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	serial, err := gateway.RevokeMaterial(d, gateway.MaterialOptions{Kind: kind, Value: *value, Reason: strings.TrimSpace(*reason), Passphrase: pass, Now: e.now()})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Revoked %s %s (revocation list serial %d)\n", kind, *value, serial)
	fmt.Fprintln(e.stdout, "A running gateway pushes the list to every peer in a security_alert within seconds and serves it on its registry; peers refuse what it revokes from then on.")
	return nil
}

// certDigest reads a certificate from path (- for standard input) and
// returns its kind and digest.
func certDigest(e *env, path string) (revocation.Kind, string, error) {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(io.LimitReader(e.stdin, 1<<20))
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return "", "", fmt.Errorf("--cert: %w", err)
	}
	v, err := wire.Parse(raw, 8)
	if err != nil {
		return "", "", usagef("--cert: not JSON: %v", err)
	}
	if v.Get("type").IsAbsent() {
		c, err := identity.ParseCapabilityCert(v)
		if err != nil {
			return "", "", usagef("--cert: neither an identity nor a capability certificate: %v", err)
		}
		return revocation.KindCapabilityCert, c.Digest(), nil
	}
	c, err := identity.ParseCert(v)
	if err != nil {
		return "", "", usagef("--cert: not an identity certificate: %v", err)
	}
	return revocation.KindIdentityCert, c.Digest(), nil
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
		if r.OldEncKey != r.NewEncKey {
			fmt.Fprintf(e.stdout, "X25519 encryption key rotated with it: %s -> %s\n", r.OldEncKey, r.NewEncKey)
			fmt.Fprintf(e.stdout, "The old X25519 key is kept in %s until the overlap ends, so that the gateway opens what is still sealed to it if it starts again meanwhile; it removes the file then.\n", d.RetiredKeysDir())
		}
		fmt.Fprintf(e.stdout, "The old key signed the handover (%s), which names both new keys; peers take them from it, with no operator acting on their side.\n", d.HandoversPath())
		fmt.Fprintf(e.stdout, "Both org keys verify, and envelopes sealed to either X25519 key open, until %s; after that the old ones are refused everywhere.\n", until(r))
		fmt.Fprintln(e.stdout, "A serving gateway pushes the handover to its peers within seconds and serves it on its registry and in its peer document. Once its peers have it (within a minute), it signs with the new key, opens with the new X25519 key (and the old one until the overlap ends), and certifies its agents under both while it serves (it logs \"org key switched\"); sessions made before go on under the old key until the overlap ends. A gateway that is not serving takes the new keys when it starts. Clients that seal to this organisation outside a session take the new X25519 key from its peer document (moltgate peer export) or its agents' directory entries.")
		return nil
	}
	r, err := gateway.RotateTLS(d, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "TLS certificate of %s rotated: pin %s -> %s\n", r.Org, r.Old, r.New)
	fmt.Fprintf(e.stdout, "The org key signed the new pin (%s); peers accept both pins until %s, and only the new one after.\n", d.HandoversPath(), until(r))
	fmt.Fprintln(e.stdout, "A serving gateway pushes the announcement to its peers within seconds, and once they have it (within a minute) presents the new certificate to new connections while it serves (it logs \"TLS certificate switched\"). A gateway that is not serving presents it when it starts.")
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
