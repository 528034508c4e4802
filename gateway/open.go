package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/feed"
	"github.com/moltgate/moltgate/gateway/keyswitch"
	"github.com/moltgate/moltgate/gateway/limit"
	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/gateway/revoke"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/gateway/trail"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/filestamp"
	"github.com/moltgate/moltgate/internal/outage"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/peerstatus"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// Open reads a gateway directory and builds the gateway: configuration,
// keys, peers, local agents, storage, handshake and session state, the data
// protection gate and the local bridge. It checks everything it reads and
// refuses to build a half-configured gateway.
func Open(opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	d := opts.Dir
	cfgText, err := d.configText()
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(cfgText)
	if err != nil {
		return nil, err
	}
	org, err := LoadOrg(d, opts.Passphrase)
	if err != nil {
		return nil, openErr(err)
	}
	switch {
	case org.Ref.Agent != GatewayAgent:
		return nil, &ConfigError{Key: "keys/org.json", Msg: fmt.Sprintf("is the key of agent %s, not of a gateway", org.Ref)}
	case org.Ref.Org != cfg.Org:
		return nil, &ConfigError{Key: "org", Msg: fmt.Sprintf("%q, but keys/org.json is the key of %s (set org = %q, or give --dir the directory of %s)",
			cfg.Org, org.Ref, org.Ref.Org, cfg.Org)}
	}
	s := &Server{
		cfg: cfg, cfgSeen: cfgText, dir: d, now: opts.Now, rand: opts.Rand,
		codec: wire.NewCodec(cfg.WireLimits()),
	}
	s.bgCtx, s.stopBG = context.WithCancel(context.Background())
	s.quitting, s.quit = context.WithCancel(context.Background())
	s.skipDrain = make(chan struct{})
	if s.scanner, err = pii.New(nil); err != nil {
		return nil, openErr(err)
	}
	s.log = newLogger(opts.Logger, cfg.Log.Level, s.scanner, &s.held)
	if s.tracing, err = openTracing(d, cfg); err != nil {
		return nil, openErr(err)
	}
	s.spans = trail.NewSpans(trail.SpansConfig{Tracing: s.tracing, Now: s.now, Done: func(org, op, outcome string, took time.Duration) {
		s.metrics.outbound.WithLabelValues(org, op, outcome).Inc()
		s.metrics.outboundLatency.WithLabelValues(org, op).Observe(took.Seconds())
	}})
	// Read here, not when serving, so that a missing or unreadable
	// certificate or key stops the gateway before it claims any address.
	set := orgkey.Set{Self: org}
	if cfg.TLSEnabled() {
		tc, pin, err := loadTLSCert(d)
		if err != nil {
			return nil, err
		}
		set.TLS, set.TLSPin = &tc, pin
	}
	now := s.now()
	// Certificates carry their expiry in the protocol's timestamps, which
	// end in 2286.
	if end := time.UnixMilli(wire.MaxTimestamp); !now.Add(cfg.Security.CertTTL.D()).Before(end) {
		return nil, &ConfigError{Key: "security.cert_ttl", Msg: fmt.Sprintf("%s is too long: certificates issued now would expire after %s, the last time the protocol can express",
			cfg.Security.CertTTL.D(), end.UTC().Format(time.DateOnly))}
	}
	if set.Cert, err = certifySelf(s, org, now); err != nil {
		return nil, openErr(err)
	}
	if set.Keys, err = openKeyring(d, org, opts.Passphrase, now); err != nil {
		return nil, openErr(err)
	}
	if s.keys, err = orgkey.New(set); err != nil {
		return nil, openErr(err)
	}
	keysSeen, orgPassphrase := keyswitch.See(d.OrgKeyPath(), d.TLSCertPath()), bytes.Clone(opts.Passphrase)
	if s.pins, err = openPins(d); err != nil {
		return nil, openErr(err)
	}
	imported, err := LoadPeers(d, cfg.Org)
	if err != nil {
		return nil, openErr(err)
	}
	s.trust = TrustStore(org, imported)
	// Stamped before reading, so that a record written meanwhile is read
	// again once serving.
	s.agentsSeen = filestamp.Dir(d.AgentsDir())
	agents, err := LoadAgents(d)
	if err != nil {
		return nil, openErr(err)
	}

	s.metrics = newMetrics()
	s.blocks = &classify.Counts{}
	s.metrics.reg.MustRegister(blockCollector{s.blocks})

	// Storage: SQLite in the data directory, or PostgreSQL shared with the
	// other replicas of this gateway (directory, replay window, consent
	// revocations and rate limits).
	if err := s.openStorage(); err != nil {
		return nil, openErr(err)
	}
	s.outages = newOutages(s.metrics.reg, s.log, s.now)
	if s.replayJournal != nil { // SQLite: the stores' files are in the data directory
		s.outages.Files(outage.Directory, d.DataDir())
		s.outages.Files(outage.Replay, d.DataDir())
		s.outages.Files(outage.Consents, d.DataDir())
		s.outages.Files(outage.Audit, d.DataDir())
	}
	s.store = outage.WatchStore(s.store, s.outages)
	if s.audit, err = openAudit(d, cfg, s.db, s.log, audit.Config{Source: "moltgate://" + cfg.Org, Rand: s.rand, Now: s.now}, outage.WatchAudit(s.outages)); err != nil {
		s.closeStorage()
		return nil, openErr(err)
	}
	s.verifier = keys.NewVerifier(0)
	if cfg.Audit.Receipts {
		// The org key this gateway trusts for an organisation: its own,
		// or an imported peer's.
		keyOf := func(o string) (keys.Ed25519Public, bool) {
			if o == cfg.Org {
				return s.self().Signing.Public(), true
			}
			if ps := s.peers.Get(o); ps != nil {
				return ps.Peer().OrgKey, true
			}
			return keys.Ed25519Public{}, false
		}
		s.receipts = trail.NewReceipts(context.Background(), trail.ReceiptsConfig{
			Self: s.keys, KeyOf: keyOf, Peer: trail.Remotes(func(o string) *peers.Remote { return s.peers.Get(o) }, s.keys), Trail: s.audit, Verifier: s.verifier, Go: s.bg.Go, Base: s.bgCtx, Log: s.log, Now: s.now, Rand: s.rand,
			Window: time.Duration(cfg.Audit.ReceiptWindow), Batch: cfg.Audit.ReceiptBatch,
		})
	}

	// Policy: ceilings per peer and per local agent.
	peerDef, _ := wire.ParseClass(cfg.Security.PeerMaxCls)
	agentDef, _ := wire.ParseClass(cfg.Security.AgentMaxCls)
	pc := classify.Config{PeerDefault: peerDef, AgentDefault: agentDef, Peers: map[string]wire.Class{}, Agents: map[string]wire.Class{}}
	for _, p := range imported {
		pc.Peers[p.Org] = p.MaxCls
	}
	for _, a := range agents {
		pc.Agents[a.ID] = a.MaxCls
	}
	pc.Agents[GatewayAgent] = wire.Int
	if s.policy, err = classify.NewPolicy(pc); err != nil {
		return nil, openErr(err)
	}
	var revoked consent.Revocations
	if s.shared != nil {
		revoked = s.shared
	} else {
		if s.revocations, err = consent.OpenFile(filepath.Join(d.DataDir(), consent.FileName), nil); err != nil {
			return nil, openErr(err)
		}
		revoked = s.revocations
	}
	s.consents = &consent.Verifier{Trust: s.trust, Revocations: revoked, Now: s.now, Skew: cfg.Security.ReplayWindow.D()}
	s.holds = &consentHolds{org: cfg.Org, log: s.log}
	s.holds.holds.Now = s.now
	if s.shared != nil {
		s.consents.Spender = s.shared
	} else {
		s.consents.Spender = consent.OpenSpent(filepath.Join(d.DataDir(), consent.SpentFileName), s.now)
	}
	s.consents.Revocations, s.consents.Spender = outage.WatchConsents(s.consents.Revocations, s.consents.Spender, s.outages)
	s.grants = classify.NewGrants(100000)
	// The receipts' marks and signed batches ride on calls and replies;
	// the receiving gateway takes them, checking every member, and never
	// hands them to its agents.
	if s.gate, err = classify.NewGate(classify.GateConfig{Scanner: s.scanner, Policy: s.policy, Consents: s.consents, Grants: s.grants, Counter: s.blocks, Now: s.now,
		Unscanned: []string{trail.ExtReceipt, trail.ExtReceipts}}); err != nil {
		return nil, openErr(err)
	}

	// Handshakes, sessions and the replay window shared by every face.
	rc := replay.Config{Skew: cfg.Security.ReplayWindow.D(), Rand: s.rand, Now: s.now}
	if s.shared != nil {
		rc.Storage = s.shared.Replay()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		rc.Storage, err = replay.NewDurable(ctx, replay.NewMemory(replay.MemoryConfig{Now: s.now}), s.replayJournal)
		cancel()
		if err != nil {
			s.closeStorage()
			return nil, openErr(err)
		}
	}
	rc.Storage = outage.WatchReplay(rc.Storage, s.outages)
	s.replay = replay.New(rc)
	s.events = events.New(events.Config{Now: s.now, Rand: s.rand})
	s.feed = feed.New(feed.Config{Stream: s.events, Org: cfg.Org, Now: s.now})
	s.sessions = handshake.NewStore(handshake.StoreConfig{MaxSessions: cfg.Limits.MaxSessions, Now: s.now, Observe: s.feed.Session})
	s.hsCfg = &handshake.Config{
		GetSelf: s.keys.Identity, Trust: s.trust, Pins: orgPins{s.pins, func(org string) {
			if r := s.rotation; r != nil {
				r.PullSoon(org)
			}
		}}, Codec: s.codec,
		Capabilities: []string{"query", "task", "stream", "tool.invoke", "consent", "registry"},
		Timeout:      cfg.Security.HandshakeTimeout.D(), SessionLifetime: cfg.Security.SessionTTL.D(),
		MaxSessionBytes: cfg.Limits.SessionBytes, Replay: s.replay, Verifier: s.verifier, Rand: s.rand, Now: s.now,
	}
	s.acceptor = handshake.NewAcceptor(s.hsCfg, s.sessions)

	// Protection.
	discoverRate, discoverBurst := float64(cfg.Rate.DiscoveryPerMinute)/60, max(cfg.Rate.DiscoveryPerMinute/6, 1)
	var orgLimit, agentLimit rateLimiter
	if s.shared != nil {
		shared := func(name string, perSecond float64, burst, size int) *limit.Shared {
			return limit.NewShared(s.shared.Buckets(perSecond, burst), limit.SharedConfig{Size: size, Now: s.now,
				OnDown: func(err error, replicas int) {
					s.log.Error("shared rate limit unavailable: limiting at this replica's share", "limit", name,
						"replicas", replicas, "err", err.Error())
				},
				OnUp: func() { s.log.Info("shared rate limit available again", "limit", name) },
			})
		}
		orgLimit = shared("peer_org", cfg.Rate.PeerOrgPerSecond, cfg.Rate.PeerOrgBurst, 4096)
		agentLimit = shared("agent", cfg.Rate.AgentPerSecond, cfg.Rate.AgentBurst, 65536)
		s.discoverLimit = shared("discovery", discoverRate, discoverBurst, 65536)
	} else {
		orgLimit = limit.NewBuckets(cfg.Rate.PeerOrgPerSecond, cfg.Rate.PeerOrgBurst, 4096, s.now)
		agentLimit = limit.NewBuckets(cfg.Rate.AgentPerSecond, cfg.Rate.AgentBurst, 65536, s.now)
		s.discoverLimit = limit.NewBuckets(discoverRate, discoverBurst, 65536, s.now)
	}
	s.flight = limit.NewCeiling(cfg.Limits.MaxInFlight)
	s.writeTimeout = wsconn.WriteTimeout
	s.async = newAsyncReplies()
	s.peers = peers.New(peers.Config{
		Handshake: s.hsCfg, Sessions: s.sessions, Codec: s.codec, Verifier: s.verifier, Gate: peerGate{s}, Self: s.keys,
		// During a peer's handover both keys are good for its error
		// replies, and sessions move to the newest within seconds.
		PeerKeys:         s.pins.Keys,
		Transport:        func() string { return s.cfg.Peers.Transport },
		EnvelopeLimit:    func() int { return s.pipe.EnvelopeLimit() },
		HandshakeTimeout: func() time.Duration { return s.cfg.Security.HandshakeTimeout.D() },
		RequestTimeout:   func() time.Duration { return s.cfg.Listen.RequestTimeout.D() },
		WriteTimeout:     func() time.Duration { return s.writeTimeout },
		Policy:           cfg.Peers.PeerPolicy,
		Base:             s.quitting, Metrics: s.metrics.peers(), Trace: trail.PeerCalls(s.spans, s.receipts), Replied: s.receipts.Countersign,
		Log: s.log, Now: s.now, Rand: s.rand,
	})
	s.revoked, err = revoke.New(revoke.Config{
		Self: s.keys, OwnPath: d.RevocationsPath(), BookDir: filepath.Join(d.DataDir(), "revocations"),
		StatusPath: filepath.Join(d.DataDir(), peerstatus.FileName), MessageBytes: cfg.Limits.MessageBytes,
		Peers: s.peers, Sessions: s.sessions, Store: s.store,
		SessionsChanged: func(n int) { s.metrics.sessions.Set(float64(n)) },
		Go:              s.bg.Go,
		Base:            s.bgCtx, Log: s.log, Now: s.now, Rand: s.rand,
	})
	var le *revoke.ListError
	if errors.As(err, &le) {
		err = &ConfigError{Key: "revocations.json", Msg: le.Err.Error(), Err: le.Err}
	}
	if err != nil {
		s.closeStorage()
		return nil, openErr(err)
	}
	if s.rotation, err = openRotation(s); err != nil {
		s.closeStorage()
		return nil, openErr(err)
	}
	if s.registry, err = registry.New(s.registryConfig()); err != nil {
		s.closeStorage()
		return nil, openErr(err)
	}
	s.pipe = pipeline.New(pipeline.Config{
		Org: cfg.Org, MessageBytes: cfg.Limits.MessageBytes, MaxHops: cfg.Limits.MaxHops, Self: s.keys,
		Codec: s.codec, Keys: s.keys.Keyring, Verifier: s.verifier, Trust: s.trust, Replay: s.replay,
		Sessions: s.sessions, Acceptor: s.acceptor, Gate: s.gate, Scanner: s.scanner, Log: s.log, Now: s.now, Rand: s.rand,
		Metrics: pipeline.Metrics{Messages: s.metrics.messages, Latency: s.metrics.latency, Sessions: s.metrics.sessions,
			InFlight: s.metrics.inflight, RateLimit: s.metrics.rateLimit},
		// Each hello costs a signature verification, a key pair and a
		// signature before anything is known of its sender.
		HandshakeLimit: limit.NewBuckets(10, 40, 65536, s.now), OrgLimit: orgLimit, AgentLimit: agentLimit,
		PeerGates: limit.NewGates(cfg.Rate.PeerConcurrency), Flight: s.flight,
		Closing:           s.closing.Load,
		IsPeer:            func(org string) bool { return s.peers.Get(org) != nil },
		PeerUp:            s.peerUp,
		HasAgent:          func(id string) bool { return s.roster.Agent(id) != nil },
		CheckRegistration: func(m *wire.Message) error { return s.registry.CheckContent(m) },
		CheckPeer:         s.revoked.CheckPeer,
		Replies:           trail.Replies{Receipts: s.receipts, Next: s.peers}, Route: routes{s},
		Tracing:       s.tracing,
		Audit:         trail.Boundary{Trail: s.audit, Receipts: s.receipts},
		SuccessSample: cfg.Log.SuccessSample,
	})
	s.frames = frames.New(frames.Config{Handler: s.pipe, Sessions: s.sessions, Log: s.log,
		HandshakeTimeout: func() time.Duration { return s.cfg.Security.HandshakeTimeout.D() }})
	s.pipe.Owners = s.frames
	s.faces = &faces{cfg: cfg, pipe: s.pipe, frames: s.frames, registry: func() *registry.Service { return s.registry }, revoked: s.revoked, rotation: s.rotation, feed: s.feed,
		peers: s.peers, metrics: s.metrics, ready: s.ready, base: s.bgCtx, log: s.log, now: s.now, rand: s.rand,
		writeTimeout: func() time.Duration { return s.writeTimeout },
		gauges: func() {
			s.metrics.sessions.Set(float64(s.sessions.Len()))
			s.metrics.inflight.Set(float64(s.flight.Count()))
		}}

	for _, p := range imported {
		if err := s.peers.Add(p); err != nil {
			s.closeStorage()
			return nil, err
		}
	}

	// The local agents, each certified, before the local bridge hears of
	// any: its reports read them from another goroutine.
	passphrase := bytes.Clone(opts.Passphrase) // unlocks the keys of agents added while serving
	s.roster, err = roster.New(roster.Config{
		Self:     s.keys.Current,
		Records:  func() ([]*LocalAgent, error) { return LoadAgents(d) },
		Identity: func(id string) (*identity.Agent, error) { return LoadAgentIdentity(d, id, passphrase) },
		KeyPath:  d.AgentKeyPath,
		Named: func(err error) bool {
			var ce *ConfigError
			return errors.As(err, &ce)
		},
		CertTTL: cfg.Security.CertTTL.D(), WithdrawAfter: cfg.Local.WithdrawAfter.D(),
		Directory: rosterDirectory{s}, Ceilings: s.policy,
		Reported: s.feed.Agent, Withdrawn: s.feed.Withdrawn, Closing: s.closing.Load,
		Log: s.log, Now: s.now,
	}, agents)
	if err != nil {
		s.closeStorage()
		return nil, openErr(err)
	}

	s.keySwitch = newKeySwitch(s, d, orgPassphrase, keysSeen)

	// The local bridge.
	s.approvals = &localbridge.Approvals{}
	s.core = localbridge.NewCore(localbridge.Config{
		Logger: s.log.With("component", "localbridge"), Approver: s.approvals,
		OnAgentChange: s.roster.Changed, Environ: opts.Environ, Rand: s.rand, Now: s.now,
		Credentials: agentCredentials(d, s.rand, s.now),
		PeerUIDs:    cfg.agentUIDs(os.Getuid()),
		// An agent's tools are its capabilities in the directory and in its pong, which
		// list no more than this.
		MaxTools: directory.MaxCapabilities,
		// Each call to an agent holds one of the gateway's places for calls in flight
		// (limits.max_in_flight) while it runs or waits for the agent. One agent's calls take
		// at most half of them, so that an agent that stops answering leaves room for the
		// others' calls.
		MaxInFlight: max(1, min(256, cfg.Limits.MaxInFlight/4)),
		MaxQueued:   max(1, cfg.Limits.MaxInFlight/4),
	})
	if err := s.roster.Launch(s.core); err != nil {
		s.closeStorage()
		return nil, fmt.Errorf("open gateway: %w", err)
	}
	s.local = local.New(local.Config{
		Org: cfg.Org, Signer: s.keys, Core: s.core, Agents: localAgents{s}, Pipe: s.pipe, Seal: routes{s},
		Gate: s.gate, Grants: s.grants, Scanner: s.scanner, Approvals: s.approvals, CallContext: s.holds.context, Inbound: s.feed.Inbound, ExtContext: extContext,
		Observe: localObserver{s},
		Peers:   localPeers{s}, Directory: s.registry, Policy: s.policy, Consents: s.consents, Codec: s.codec,
		Background: s.background, QueryDone: s.feed.Query, WithContext: withContext,
		RequestTimeout: cfg.Listen.RequestTimeout.D(), SessionTTL: cfg.Security.SessionTTL.D(),
		ChunkBytes: cfg.Limits.ChunkBytes, MaxHops: cfg.Limits.MaxHops, Log: s.log, Now: s.now, Rand: s.rand,
	})
	s.rpc = localbridge.NewRPCServer(localbridge.RPCConfig{
		Query: s.local, Directory: s.local, Sync: s.registry, Ping: s.local, Consent: s.local, Asker: s.local, Approvals: s.approvals,
		ErrorOutcome: local.OutcomeOf, Logger: s.log.With("component", "rpc"), ServerVersion: "moltgate " + Version,
		MaxConns: cfg.Listen.MaxConnections, Rand: s.rand, Now: s.now,
		MaxQueries: cfg.Rate.LocalQueries, RequestsPerSecond: cfg.Rate.LocalRequestsPerSecond,
		SessionDir: filepath.Join(d.DataDir(), "sessions"), Events: s.events,
	})
	s.approvals.Subscribe(s.feed.Approval)
	return s, nil
}

// openErr says that err stopped Open, unless it is a mistake in the
// gateway directory, which says where already.
func openErr(err error) error {
	if _, ok := err.(*ConfigError); ok {
		return err
	}
	return fmt.Errorf("open gateway: %w", err)
}
