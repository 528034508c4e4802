package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// RegisterOptions is a registration made from a gateway directory, as
// moltgate register makes it: a register message for one of the
// organisation's agents, signed by the org key (or by the agent's own, with
// Identity), with an identity certificate the org key issues for the
// agent's key, sent to the registry of this gateway or of a peer over
// HTTPS (pinned to its TLS certificate).
type RegisterOptions struct {
	// Action is create (the default), update, renew or delete.
	Action string
	// Agent is the agent's id. Required.
	Agent string
	// Identity, if set, signs as the agent itself; otherwise the org key
	// signs, which may act for any of the organisation's agents.
	Identity *identity.Agent
	// Key and EncKey are the agent's public keys. Default: Identity's, or
	// those of the local agent of that id (DIR/keys/agents/ID.json).
	// Required for create and update when neither exists.
	Key    keys.Ed25519Public
	EncKey keys.X25519Public
	// Endpoint is where the agent's messages go. Default: this gateway's
	// message endpoint, which reaches every one of its agents.
	Endpoint     string
	Name         string
	Description  string
	Capabilities []string
	Visibility   string // public (default), unlisted or private
	AllowedOrgs  []string
	Metadata     json.RawMessage // a JSON object
	Tags         []string
	// TTL is how long the registration lasts; 0 for the registry's
	// maximum.
	TTL time.Duration
	// Registry is the organisation whose registry gets it: this gateway's
	// own (the default) or an imported peer's.
	Registry string
	// Passphrase unlocks the org key.
	Passphrase []byte
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Register sends a registration to a registry and checks its answer. A
// refusal is returned as the registry's *wire.Error.
func Register(ctx context.Context, d Dir, o RegisterOptions) (*registry.Registered, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Action == "" {
		o.Action = "create"
	}
	if !wire.ValidName(o.Agent) {
		return nil, wire.Errorf(wire.ErrInvalidParam, "agent", "want an agent id of [A-Za-z0-9_-]{1,128}")
	}
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	org, err := LoadOrg(d, o.Passphrase)
	if err != nil {
		return nil, err
	}
	reg, err := registryTarget(d, cfg, org, o.Registry)
	if err != nil {
		return nil, err
	}
	signer := org
	if o.Identity != nil {
		if o.Identity.Ref != (wire.Ref{Agent: o.Agent, Org: cfg.Org}) {
			return nil, wire.Errorf(wire.ErrInvalidParam, "identity", "the identity file is for %s, not %s@%s", o.Identity.Ref, o.Agent, cfg.Org)
		}
		signer = o.Identity
	}
	p := &wire.RegisterPayload{Action: o.Action, TTL: o.TTL.Milliseconds()}
	if signer == org {
		p.Profile = &wire.Profile{AgentID: o.Agent}
	}
	if o.Action == "create" || o.Action == "update" {
		if err := o.fillProfile(d, cfg, org, p); err != nil {
			return nil, err
		}
	}
	now := o.Now()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: now.UnixMilli(), Op: wire.OpRegister,
		From: signer.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: reg.Org}, Cls: wire.Pub, Payload: p}
	// No enc_key: the registry answers in the clear, signed.
	m.From.EncKey = keys.X25519Public{}
	return reg.Register(ctx, wire.NewCodec(cfg.WireLimits()), m, signer.Signing, cfg.Org, now)
}

// fillProfile completes a create or update: keys, certificate, endpoint.
func (o *RegisterOptions) fillProfile(d Dir, cfg *Config, org *identity.Agent, p *wire.RegisterPayload) error {
	key, enc := o.Key, o.EncKey
	if o.Identity != nil {
		if key.IsZero() {
			key = o.Identity.Signing.Public()
		}
		if enc.IsZero() {
			enc = o.Identity.Encryption.Public()
		}
	} else if key.IsZero() {
		local, err := LoadAgentIdentity(d, o.Agent, o.Passphrase)
		switch {
		case err == nil:
			// Its enc_key is the gateway's, below: the key file's may be
			// one key rotate turned over since.
			key = local.Signing.Public()
		case errors.Is(err, fs.ErrNotExist):
			return wire.Errorf(wire.ErrInvalidParam, "key", "%s is not a local agent: give its key", o.Agent)
		default:
			return err
		}
	}
	if enc.IsZero() {
		// An agent behind this gateway is reached through it: messages
		// sealed to the gateway's key.
		enc = org.Encryption.Public()
	}
	endpoint := o.Endpoint
	if endpoint == "" {
		endpoint = cfg.Listen.Advertise + "/moltspeak/v0.1/message"
	}
	now := o.Now()
	issuer := &identity.Org{Name: cfg.Org, Signing: org.Signing}
	cert, err := issuer.IssueIdentity(identity.Public{Agent: o.Agent, Org: cfg.Org, Key: key, EncKey: enc},
		now.Add(-time.Minute), now.Add(cfg.Security.CertTTL.D()))
	if err != nil {
		return err
	}
	pr := p.Profile
	if pr == nil {
		pr = &wire.Profile{}
		p.Profile = pr
	}
	pr.Name, pr.Description = o.Name, o.Description
	pr.Endpoint = &wire.Endpoint{URL: endpoint}
	if strings.HasPrefix(endpoint, "https://") {
		pr.Endpoint.Transport = "https"
	}
	pr.PublicKey, pr.EncryptionKey = key, enc
	pr.Capabilities, pr.Visibility, pr.AllowedOrgs, pr.Tags = o.Capabilities, o.Visibility, o.AllowedOrgs, o.Tags
	if len(o.Metadata) > 0 {
		v, err := wire.Parse(o.Metadata, 0)
		if err != nil || v.Kind() != wire.Object {
			return wire.Errorf(wire.ErrInvalidProfile, "p.profile.metadata", "want a JSON object")
		}
		pr.Metadata = v
	}
	p.IdentityCert = cert.Value()
	return nil
}

// registryTarget finds the registry of org (this gateway's when "") and how
// to reach it: this gateway on its listen address, a peer at its exported
// endpoint, either pinned to its TLS certificate.
func registryTarget(d Dir, cfg *Config, own *identity.Agent, org string) (*registry.Endpoint, error) {
	var base, pin string
	var key keys.Ed25519Public
	if org == "" || org == cfg.Org {
		org, key = cfg.Org, own.Signing.Public()
		host, port, _ := net.SplitHostPort(cfg.Listen.Address)
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			host = "127.0.0.1"
		}
		base = "http://" + net.JoinHostPort(host, port)
		if cfg.TLSEnabled() {
			_, p, err := loadTLSCert(d)
			if err != nil {
				return nil, err
			}
			base, pin = "https://"+net.JoinHostPort(host, port), p
		}
	} else {
		peers, err := LoadPeers(d, cfg.Org)
		if err != nil {
			return nil, err
		}
		for _, p := range peers {
			if p.Org == org {
				base, pin, key = strings.TrimRight(p.Endpoint, "/"), p.TLSPin, p.OrgKey
			}
		}
		if base == "" {
			return nil, wire.Errorf(wire.ErrAgentNotFound, "registry", "%s is not a peer of this gateway (import it with moltgate peer import)", org)
		}
	}
	tr := &http.Transport{Proxy: nil, ForceAttemptHTTP2: true}
	if strings.HasPrefix(base, "https://") {
		tcfg, err := pinnedClientTLS(pin, nil)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = tcfg
	}
	return &registry.Endpoint{Org: org, Key: key, URL: base, Client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}, nil
}
