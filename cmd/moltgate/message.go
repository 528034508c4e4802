package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// readInput reads standard input up to the message size limit.
func readInput(e *env, limit int) ([]byte, error) {
	return readLimited(e.stdin, "standard input", limit)
}

// readLimited reads all of r, what names it, and refuses more than limit
// bytes.
func readLimited(r io.Reader, what string, limit int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if len(b) > limit {
		return nil, wire.Errorf(wire.ErrTooLarge, "", "%s exceeds %d bytes", what, limit)
	}
	return b, nil
}

// fill completes a message object for id: v, id and ts if absent, and from
// with id's name and keys. A from that names someone else is refused.
func fill(e *env, t wire.Value, id *identity.Agent) (wire.Value, error) {
	if t.Kind() != wire.Object {
		return t, wire.Errorf(wire.ErrSchema, "", "message must be a JSON object")
	}
	if t.Get("v").IsAbsent() {
		t = t.With("v", wire.StringValue(wire.Version))
	}
	if t.Get("id").IsAbsent() {
		t = t.With("id", wire.StringValue(newID()))
	}
	if t.Get("ts").IsAbsent() {
		t = t.With("ts", wire.IntValue(e.now().UnixMilli()))
	}
	from := t.Get("from")
	switch from.Kind() {
	case wire.Absent:
		from = wire.ObjectValue()
	case wire.Object:
	default:
		return t, wire.Errorf(wire.ErrSchema, "from", "expected object")
	}
	want := map[string]string{
		"agent": id.Ref.Agent, "org": id.Ref.Org,
		"key": id.Signing.Public().String(), "enc_key": id.Encryption.Public().String(),
	}
	for _, k := range []string{"agent", "org", "key", "enc_key"} {
		v := from.Get(k)
		if v.IsAbsent() {
			from = from.With(k, wire.StringValue(want[k]))
			continue
		}
		if s, _ := v.Str(); s != want[k] {
			return t, wire.Errorf(wire.ErrInvalidParam, "from."+k, "does not match the identity file (%s)", id.Ref)
		}
	}
	return t.With("from", from), nil
}

// newID makes a random UUID v4.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func runSign(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "sign")
	idPath := fs.String("identity", "", "identity file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	id, err := loadIdentity(e, *idPath)
	if err != nil {
		return err
	}
	codec := wire.NewCodec(wire.Limits{})
	out, _, err := signInput(e, codec, id)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(out))
	return nil
}

func signInput(e *env, codec *wire.Codec, id *identity.Agent) ([]byte, *wire.Message, error) {
	in, err := readInput(e, codec.Limits().MaxMessage)
	if err != nil {
		return nil, nil, err
	}
	t, err := wire.Parse(in, codec.Limits().MaxDepth)
	if err != nil {
		return nil, nil, err
	}
	t, err = fill(e, t, id)
	if err != nil {
		return nil, nil, err
	}
	return crypto.SignTree(codec, t, id.Signing)
}

func runVerify(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "verify")
	keyText := fs.String("key", "", "the ed25519 key the message must be signed with")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	codec := wire.NewCodec(wire.Limits{})
	in, err := readInput(e, codec.Limits().MaxMessage)
	if err != nil {
		return err
	}
	env, err := codec.DecodeEnvelope(in)
	if err != nil {
		return err
	}
	if env.Encrypted {
		return wire.Errorf(wire.ErrInvalidParam, "envelope", "sealed envelope: use moltgate open")
	}
	m := env.Message
	if *keyText == "" {
		if err := crypto.Verify(m); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "valid: signed by %s with %s (the key the message names; pass --key to require a known key)\n", m.From.Ref(), m.From.Key)
		return nil
	}
	key, err := keys.ParseEd25519Public(*keyText)
	if err != nil {
		return usagef("--key: %v", err)
	}
	if err := crypto.VerifyWith(m, key); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "valid: signed by %s with %s\n", m.From.Ref(), key)
	return nil
}

func runSeal(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "seal")
	idPath := fs.String("identity", "", "identity file")
	toText := fs.String("to", "", "the recipient's x25519 key")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *toText == "" {
		return usagef("--to is required")
	}
	to, err := keys.ParseX25519Public(*toText)
	if err != nil {
		return usagef("--to: %v", err)
	}
	id, err := loadIdentity(e, *idPath)
	if err != nil {
		return err
	}
	codec := wire.NewCodec(wire.Limits{})
	in, err := readInput(e, codec.Limits().MaxMessage)
	if err != nil {
		return err
	}
	t, err := wire.Parse(in, codec.Limits().MaxDepth)
	if err != nil {
		return err
	}
	var signed []byte
	if sig := t.Get("sig"); !sig.IsAbsent() {
		// Already signed: seal as is, if it is this identity's and verifies.
		m, err := codec.DecodeTree(t)
		if err != nil {
			return err
		}
		if m.From.Ref() != id.Ref || !m.From.EncKey.Equal(id.Encryption.Public()) {
			return wire.Errorf(wire.ErrInvalidParam, "from", "signed by another identity than %s", id.Ref)
		}
		if err := crypto.Verify(m); err != nil {
			return err
		}
		signed, _ = m.AppendWire(nil)
	} else {
		t, err = fill(e, t, id)
		if err != nil {
			return err
		}
		if signed, _, err = crypto.SignTree(codec, t, id.Signing); err != nil {
			return err
		}
	}
	env, err := crypto.NewBox(id.Encryption, 1).Seal(signed, to, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(env))
	return nil
}

func runOpen(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "open")
	idPath := fs.String("identity", "", "identity file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	id, err := loadIdentity(e, *idPath)
	if err != nil {
		return err
	}
	codec := wire.NewCodec(wire.Limits{})
	in, err := readInput(e, codec.Limits().MaxMessage/3*4+4096)
	if err != nil {
		return err
	}
	op := &crypto.Opener{Codec: codec, Box: crypto.NewBox(id.Encryption, 1), Accept: crypto.AcceptRef(id.Ref)}
	m, err := op.Open(in)
	if err != nil {
		return err
	}
	out, _ := m.AppendWire(nil)
	fmt.Fprintln(e.stdout, string(out))
	return nil
}
