package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// waitListed waits until agent@org is in g's directory, and for a local
// agent, until it is listed alive (commits can be slow on a busy disk).
func (g *testGateway) waitListed(id string) {
	g.t.Helper()
	pid, err := directory.ParseID(id)
	if err != nil {
		g.t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec, err := g.s.Registry().Lookup(context.Background(), pid, directory.Viewer{Local: true})
		if err == nil && (pid.Org != g.s.Org() || g.s.roster.Agent(pid.Agent) == nil || rec.Status == directory.StatusAlive) {
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("%s never listed at %s", id, g.s.Org())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// httpClient talks to g's HTTPS face, pinned to its certificate.
func (g *testGateway) httpClient() *http.Client {
	g.t.Helper()
	_, pin, err := loadTLSCert(g.dir)
	if err != nil {
		g.t.Fatal(err)
	}
	cfg, err := pinnedClientTLS(pin, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 20 * time.Second}
}

// do sends a request to g's HTTP face and returns the status and body.
func (g *testGateway) do(method, path string, body []byte) (int, http.Header, []byte) {
	g.t.Helper()
	req, err := http.NewRequest(method, g.s.cfg.Listen.Advertise+path, bytes.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	c := g.httpClient()
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// answerOf decodes a signed answer of g's: its error code, or its respond
// data.
func (g *testGateway) answerOf(b []byte) (wire.Code, wire.Value) {
	g.t.Helper()
	m, err := g.s.codec.Decode(bytes.TrimSpace(b))
	if err != nil {
		g.t.Fatalf("answer %q: %v", b, err)
	}
	if err := crypto.VerifyWith(m, g.s.self().Signing.Public()); err != nil {
		g.t.Fatalf("answer not signed by %s: %v", g.s.Org(), err)
	}
	switch p := m.Payload.(type) {
	case *wire.ErrorPayload:
		return p.Code, wire.Value{}
	case *wire.RespondPayload:
		return "", p.Data
	}
	g.t.Fatalf("answer %s", m.Op)
	return "", wire.Value{}
}

// signed signs a register message from signer to g's registry.
func (g *testGateway) signed(signer *identity.Agent, op wire.Op, p any, enc bool) []byte {
	g.t.Helper()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: op,
		From: signer.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: g.s.Org()}, Cls: wire.Pub, Payload: p}
	if !enc {
		m.From.EncKey = [32]byte{}
	}
	b, err := crypto.Sign(g.s.codec, m, signer.Signing)
	if err != nil {
		g.t.Fatal(err)
	}
	return b
}

// orgAgent makes an identity for a new agent of g's org and its identity
// certificate.
func (g *testGateway) orgAgent(id string) (*identity.Agent, wire.Value) {
	g.t.Helper()
	a, err := identity.Generate(rand.Reader, wire.Ref{Agent: id, Org: g.s.Org()})
	if err != nil {
		g.t.Fatal(err)
	}
	c, err := roster.Issuer(g.s.self()).IssueIdentity(a.Public(), time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		g.t.Fatal(err)
	}
	return a, c.Value()
}

func testProfile(agent string, caps ...string) *wire.Profile {
	return &wire.Profile{AgentID: agent, Endpoint: &wire.Endpoint{URL: "https://agents.example/moltspeak/v0.1/message"}, Capabilities: caps, Visibility: "public"}
}

func resultIDs(t *testing.T, raw []byte) []string {
	t.Helper()
	var ans struct {
		Results []struct {
			AgentID string `json:"agent_id"`
			Org     string `json:"org"`
		} `json:"results"`
		Total   int  `json:"total"`
		HasMore bool `json:"has_more"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatalf("answer %s: %v", raw, err)
	}
	var out []string
	for _, r := range ans.Results {
		out = append(out, r.AgentID+"@"+r.Org)
	}
	slices.Sort(out)
	return out
}
