package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Endpoint is a registry reached over HTTP(S): this gateway's own or a
// peer's, through the client it is given (pinned to the registry's TLS
// certificate, as the caller sees fit).
type Endpoint struct {
	// Org is the organisation whose registry it is.
	Org string
	// Key is the org key its answers and attestations must be signed
	// with.
	Key keys.Ed25519Public
	// URL is the gateway's base URL, such as https://gw.example:8443.
	URL string
	// Client sends the requests. Default http.DefaultClient.
	Client *http.Client
}

// Registered is a registry's answer to a registration, checked: the
// registry's signature on its reply, and its attestation of the record.
type Registered struct {
	Registry  string
	Action    string
	Agent     string    // agent@org
	ExpiresAt time.Time // zero for a delete
	// Record is the attested record, as discovery would return it; nil
	// for a delete.
	Record json.RawMessage
}

// Register signs m, a register message, with sk, sends it to the registry
// and checks the answer: the registry's signature, and for anything but a
// delete its attestation of the agent m registers for org, valid at now. A
// refusal is returned as the registry's *wire.Error.
func (e *Endpoint) Register(ctx context.Context, codec *wire.Codec, m *wire.Message, sk keys.Ed25519Private, org string, now time.Time) (*Registered, error) {
	p, ok := m.Payload.(*wire.RegisterPayload)
	if !ok {
		return nil, wire.Errorf(wire.ErrInvalidParam, "op", "want a register message, not %s", m.Op)
	}
	agent := m.From.Agent
	if p.Profile != nil && p.Profile.AgentID != "" {
		agent = p.Profile.AgentID
	}
	body, err := crypto.Sign(codec, m, sk)
	if err != nil {
		// The same checks as the registry's, made before sending.
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, directory.ProfileError(we)
		}
		return nil, err
	}
	data, err := e.post(ctx, codec, body)
	if err != nil {
		return nil, err
	}
	out := &Registered{Registry: e.Org, Action: p.Action, Agent: agent + "@" + org}
	if p.Action == "delete" {
		return out, nil
	}
	rec := data.Get("registry_attestation")
	a, err := directory.VerifyAttestation(rec, e.Org, e.Key, now)
	if err != nil {
		return nil, fmt.Errorf("check the registry's attestation: %w", err)
	}
	if a.AgentID != agent || a.Org != org {
		return nil, wire.Errorf(wire.ErrSignature, "registry_attestation", "the registry attested another agent")
	}
	out.ExpiresAt = time.UnixMilli(a.ExpiresAt)
	out.Record = wire.AppendCanonical(nil, rec)
	return out, nil
}

// post sends a signed register message and returns the data of the
// registry's signed answer, or its refusal as an error.
func (e *Endpoint) post(ctx context.Context, codec *wire.Codec, body []byte) (wire.Value, error) {
	c := e.Client
	if c == nil {
		c = http.DefaultClient
	}
	defer c.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL+"/registry/v1/register", bytes.NewReader(body))
	if err != nil {
		return wire.Value{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return wire.Value{}, wire.Errorf(wire.ErrRegistryUnavailable, "", "cannot reach the registry of %s at %s (is the gateway running?)", e.Org, e.URL)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(codec.Limits().MaxMessage)+1))
	if err != nil {
		return wire.Value{}, wire.Errorf(wire.ErrRegistryUnavailable, "", "reading the registry's answer: %v", err)
	}
	m, err := codec.Decode(bytes.TrimSpace(b))
	if err != nil {
		return wire.Value{}, fmt.Errorf("read the registry's answer: %w", err)
	}
	if m.From.Org != e.Org || !m.From.Key.Equal(e.Key) {
		return wire.Value{}, wire.Errorf(wire.ErrSignature, "from", "the answer is not signed by the registry of %s", e.Org)
	}
	if err := crypto.VerifyWith(m, e.Key); err != nil {
		return wire.Value{}, err
	}
	switch p := m.Payload.(type) {
	case *wire.ErrorPayload:
		return wire.Value{}, p.Err()
	case *wire.RespondPayload:
		return p.Data, nil
	}
	return wire.Value{}, wire.Errorf(wire.ErrSchema, "op", "unexpected %s from the registry", m.Op)
}
