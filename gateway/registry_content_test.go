package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// What the tests try to publish. None of it may come back in an answer, a
// refusal or a log line.
const (
	leakEmail = "jane.doe@example.com"
	leakPhone = "+1 415 555 0132"
	leakKey   = "AKIAZ3MSJV4WWNKWW5V2"
)

var leaks = []string{"jane.doe", "example.com", "555 0132", "AKIAZ3"}

func noLeak(t *testing.T, what, text string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(text, l) {
			t.Errorf("%s echoes %q: %s", what, l, text)
		}
	}
}

// refusalOf decodes a signed error answer of g's.
func (g *testGateway) refusalOf(b []byte) *wire.ErrorPayload {
	g.t.Helper()
	m, err := g.s.codec.Decode(bytes.TrimSpace(b))
	if err != nil {
		g.t.Fatalf("answer %q: %v", b, err)
	}
	p, ok := m.Payload.(*wire.ErrorPayload)
	if !ok {
		g.t.Fatalf("answer %s, want an error", m.Op)
	}
	return p
}

func contactMetadata(k string, v wire.Value) wire.Value {
	return wire.ObjectValue(wire.Member{Key: "region", Value: wire.StringValue("eu")}, wire.Member{Key: k, Value: v})
}

// A registration that reaches the registry over the network, on its HTTP
// route or as a message, is refused naming the member that holds personal
// data or a secret, and nothing of it is stored.
func TestDirectoryRegisterRefusesPersonalData(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	acme.waitListed("client@acme")
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		edit   func(*wire.Profile)
		status int
		code   wire.Code
		field  string
	}{
		{"email in description", func(p *wire.Profile) { p.Description = "Mail " + leakEmail + " for access." },
			400, wire.ErrInvalidProfile, "p.profile.description"},
		{"phone in tags", func(p *wire.Profile) { p.Tags = []string{"support", leakPhone} },
			400, wire.ErrInvalidProfile, "p.profile.tags[1]"},
		{"cloud key in tags", func(p *wire.Profile) { p.Tags = []string{leakKey} },
			403, wire.ErrClassification, "p.profile.tags[0]"},
		{"email in metadata", func(p *wire.Profile) { p.Metadata = contactMetadata("contact", wire.StringValue(leakEmail)) },
			400, wire.ErrInvalidProfile, "p.profile.metadata.contact"},
		{"phone in metadata", func(p *wire.Profile) {
			p.Metadata = contactMetadata("owner", wire.ObjectValue(wire.Member{Key: "phone", Value: wire.StringValue(leakPhone)}))
		}, 400, wire.ErrInvalidProfile, "p.profile.metadata.owner.phone"},
		{"cloud key in description", func(p *wire.Profile) { p.Description = "Deployed with " + leakKey },
			403, wire.ErrClassification, "p.profile.description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// globex's gateway registers an agent of globex at acme; an
			// agent of acme's, running elsewhere, registers itself.
			ext, cert := globex.orgAgent("ext")
			pr := testProfile("ext", "ext.work")
			pr.PublicKey = ext.Signing.Public()
			tc.edit(pr)
			remote, rcert := acme.orgAgent("remote")
			own := testProfile("", "remote.work")
			tc.edit(own)
			for _, path := range []string{"/registry/v1/register", "/moltspeak/v0.1/message"} {
				for _, b := range [][]byte{
					acme.signed(globex.s.self(), wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: cert}, false),
					acme.signed(remote, wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: own, IdentityCert: rcert}, false),
				} {
					st, _, body := acme.do("POST", path, b)
					e := acme.refusalOf(body)
					if st != tc.status || e.Code != tc.code || e.Field != tc.field {
						t.Fatalf("%s: %d %s on %q (%s), want %d %s on %q", path, st, e.Code, e.Field, e.Message, tc.status, tc.code, tc.field)
					}
					if e.Suggestion == nil || !strings.Contains(e.Suggestion.Fix, "remove") {
						t.Errorf("%s: suggestion %+v", path, e.Suggestion)
					}
					noLeak(t, "refusal", string(body))
				}
			}
			for _, id := range []directory.ID{{Agent: "ext", Org: "globex"}, {Agent: "remote", Org: "acme"}} {
				if _, err := acme.s.Registry().Lookup(ctx, id, directory.Viewer{Local: true}); pipeline.Code(err) != wire.ErrAgentNotFound {
					t.Fatalf("%s stored: %v", id, err)
				}
			}
		})
	}
}

// A local agent whose capabilities hold a secret is not published; the
// operator is told which agent and which member, and the others are
// published as usual.
func TestDirectoryLocalAgentWithSecretNotPublished(t *testing.T) {
	d, l := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"},
		AddAgentOptions{ID: "leaky", Capabilities: []string{leakKey}, MaxCls: "pii"})
	g := start(t, d, l, TransportWebSocket)
	g.waitListed("client@acme")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(g.logs(), "cannot publish agent"); {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal logged:\n%s", g.logs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var line string
	for _, l := range strings.Split(g.logs(), "\n") {
		if strings.Contains(l, "cannot publish agent") {
			line = l
		}
	}
	if !strings.Contains(line, `"agent":"leaky"`) || !strings.Contains(line, "E_CLASSIFICATION") || !strings.Contains(line, "p.profile.capabilities[") {
		t.Errorf("refusal logged as %s", line)
	}
	noLeak(t, "log", g.logs())
	ctx := context.Background()
	if _, err := g.s.Registry().Lookup(ctx, directory.ID{Agent: "leaky", Org: "acme"}, directory.Viewer{Local: true}); pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("leaky published: %v", err)
	}
}

// An entry that holds personal data all the same (stored before
// registrations were scanned, or by another replica of a shared store)
// reaches no peer: not in a discovery answer, not in a sync page, not on
// the anonymous routes. The peer's discovery and sync of the rest go on.
func TestDirectoryWithholdsStoredPersonalData(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	globex.waitListed("echo@globex")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	leaky, cert := globex.orgAgent("leaky")
	pr := testProfile("", "echo.text")
	pr.Description = "Mail " + leakEmail + " for access."
	now := time.Now()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: now.UnixMilli(), Op: wire.OpRegister,
		From: leaky.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: "globex"}, Cls: wire.Pub,
		Payload: &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: cert}}
	b, err := crypto.Sign(globex.s.codec, m, leaky.Signing)
	if err != nil {
		t.Fatal(err)
	}
	e := &directory.Entry{AgentID: "leaky", Org: "globex", Description: pr.Description, PublicKey: leaky.Signing.Public().String(),
		EncryptionKey: leaky.Encryption.Public().String(), Endpoint: directory.Endpoint{URL: pr.Endpoint.URL},
		Capabilities: pr.Capabilities, Visibility: directory.Public, Verified: true,
		ExpiresAt: now.Add(time.Hour), SignedAt: now, Registration: b}
	if _, err := globex.s.store.Put(ctx, e, directory.PutOptions{}); err != nil {
		t.Fatal(err)
	}

	out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "echo.text", Org: "globex"})
	if err != nil {
		t.Fatalf("acme discovers at globex: %v", err)
	}
	if got := strings.Join(resultIDs(t, out), ","); got != "echo@globex" {
		t.Fatalf("acme finds %s at globex", got)
	}
	_, err = acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Query: json.RawMessage(`{"agent_id":"leaky"}`)})
	if pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("acme looks leaky up: %v", err)
	}
	stats, err := acme.s.registry.Sync(ctx, "globex")
	if err != nil || len(stats) != 1 || stats[0].Applied != 1 || stats[0].Refused != 0 {
		t.Fatalf("sync: %+v, %v", stats, err)
	}
	if _, err := acme.s.Registry().Lookup(ctx, directory.ID{Agent: "leaky", Org: "globex"}, directory.Viewer{Local: true}); pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("leaky synced to acme: %v", err)
	}
	// Anonymous callers, on the HTTP routes.
	st, _, body := globex.do("POST", "/registry/v1/discover", []byte(`{"capability":"echo.text"}`))
	if st != 200 || strings.Join(resultIDs(t, body), ",") != "echo@globex" {
		t.Fatalf("anonymous discovery: %d %s", st, body)
	}
	noLeak(t, "anonymous discovery", string(body))
	if st, _, body := globex.do("GET", "/registry/v1/agents/leaky", nil); st != 404 {
		t.Fatalf("anonymous lookup: %d %s", st, body)
	}
	// globex's own callers still see it, to fix it; its operator is told.
	out, err = globex.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "echo.text"})
	if err != nil || strings.Join(resultIDs(t, out), ",") != "echo@globex,leaky@globex" {
		t.Fatalf("globex's local discovery: %s, %v", out, err)
	}
	logs := globex.logs()
	if !strings.Contains(logs, "directory entry withheld") || !strings.Contains(logs, "leaky@globex") {
		t.Errorf("withholding not logged:\n%s", logs)
	}
	noLeak(t, "globex's log", logs)
}
