package identity

import (
	"fmt"
	"io"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Agent is an agent's identity with its private keys.
type Agent struct {
	Ref        wire.Ref
	Signing    keys.Ed25519Private
	Encryption keys.X25519Private
}

// Public is an agent's public identity, as `moltgate keygen` prints it.
type Public struct {
	Agent  string             `json:"agent"`
	Org    string             `json:"org"`
	Key    keys.Ed25519Public `json:"key"`
	EncKey keys.X25519Public  `json:"enc_key"`
}

// Ref returns the agent's name.
func (p Public) Ref() wire.Ref { return wire.Ref{Agent: p.Agent, Org: p.Org} }

// Generate makes a new identity for ref from rand.
func Generate(rand io.Reader, ref wire.Ref) (*Agent, error) {
	if !wire.ValidName(ref.Agent) || !wire.ValidName(ref.Org) {
		return nil, fmt.Errorf("generate identity: agent and org must match [A-Za-z0-9_-]{1,128}")
	}
	sk, err := keys.GenerateEd25519(rand)
	if err != nil {
		return nil, fmt.Errorf("generate identity: %w", err)
	}
	ek, err := keys.GenerateX25519(rand)
	if err != nil {
		return nil, fmt.Errorf("generate identity: %w", err)
	}
	return &Agent{Ref: ref, Signing: sk, Encryption: ek}, nil
}

// Load reads an identity file; passphrase is needed if it is encrypted.
func Load(path string, passphrase []byte) (*Agent, error) {
	kf, err := keys.ReadFile(path, passphrase)
	if err != nil {
		return nil, fmt.Errorf("load identity: %w", err)
	}
	ref := wire.Ref{Agent: kf.Agent, Org: kf.Org}
	if !wire.ValidName(ref.Agent) || !wire.ValidName(ref.Org) {
		return nil, fmt.Errorf("load identity: read %s: %w", path, &keys.FormatError{Msg: "invalid agent or org name"})
	}
	return &Agent{Ref: ref, Signing: kf.Signing, Encryption: kf.Encryption}, nil
}

// Save writes the identity file (mode 0600).
func (a *Agent) Save(path string, opts keys.WriteOptions) error {
	kf := &keys.KeyFile{Agent: a.Ref.Agent, Org: a.Ref.Org, Signing: a.Signing, Encryption: a.Encryption}
	if err := keys.WriteFile(path, kf, opts); err != nil {
		return fmt.Errorf("save identity: %w", err)
	}
	return nil
}

// Public returns the public identity.
func (a *Agent) Public() Public {
	return Public{Agent: a.Ref.Agent, Org: a.Ref.Org, Key: a.Signing.Public(), EncKey: a.Encryption.Public()}
}

// Sender returns the "from" object for messages this agent sends.
func (a *Agent) Sender() wire.Sender {
	return wire.Sender{Agent: a.Ref.Agent, Org: a.Ref.Org, Key: a.Signing.Public(), EncKey: a.Encryption.Public()}
}
