package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// openAPI is what the test reads of docs/openapi.json.
type openAPI struct {
	OpenAPI    string                          `json:"openapi"`
	Paths      map[string]map[string]operation `json:"paths"`
	Components struct {
		Responses map[string]response `json:"responses"`
		Schemas   map[string]struct {
			Required []string `json:"required"`
		} `json:"schemas"`
	} `json:"components"`
}

type operation struct {
	OperationID string              `json:"operationId"`
	RequestBody json.RawMessage     `json:"requestBody"`
	Responses   map[string]response `json:"responses"`
}

type response struct {
	Ref     string                     `json:"$ref"`
	Headers map[string]json.RawMessage `json:"headers"`
	Content map[string]json.RawMessage `json:"content"`
}

func readOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	b, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := new(openAPI)
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(doc); err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("docs/openapi.json: openapi %q, want 3.1.x", doc.OpenAPI)
	}
	if len(doc.Paths) == 0 {
		t.Fatal("docs/openapi.json documents no paths")
	}
	return doc
}

// resolve follows a response's $ref into components.responses.
func (d *openAPI) resolve(t *testing.T, r response) response {
	t.Helper()
	if r.Ref == "" {
		return r
	}
	name, ok := strings.CutPrefix(r.Ref, "#/components/responses/")
	res, found := d.Components.Responses[name]
	if !ok || !found {
		t.Fatalf("docs/openapi.json: unresolved response %s", r.Ref)
	}
	return res
}

// documented returns the response documented for status, falling back on
// default for an error status.
func (d *openAPI) documented(t *testing.T, op operation, status int) (response, bool) {
	if r, ok := op.Responses[strconv.Itoa(status)]; ok {
		return d.resolve(t, r), true
	}
	if r, ok := op.Responses["default"]; ok && status >= 400 {
		return d.resolve(t, r), true
	}
	return response{}, false
}

// probe is one request the test sends and what came back.
type probe struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
}

// code is the error code of a clear refusal, "" for anything else.
func (p probe) code() string {
	var m struct {
		Op string `json:"op"`
		P  struct {
			Code string `json:"code"`
		} `json:"p"`
	}
	if json.Unmarshal(bytes.TrimSpace(p.body), &m) != nil || m.Op != "error" {
		return ""
	}
	return m.P.Code
}

func (p probe) String() string {
	return fmt.Sprintf("%s %s: %d %s %.300s", p.method, p.path, p.status, p.code(), p.body)
}

func send(t *testing.T, c *http.Client, o *org, method, path string, body []byte, header map[string]string) probe {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, o.doc.Endpoint+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return probe{method: method, path: path, status: resp.StatusCode, header: resp.Header, body: b}
}

// eventsSSE is the Server-Sent Events route, whose answer never ends.
const eventsSSE = "GET /events"

// sendOpen is send for a route whose answer is a stream that stays open:
// it reads the status, the headers and the first bytes of the body, then
// closes the stream.
func sendOpen(t *testing.T, c *http.Client, o *org, method, path string) probe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, o.doc.Endpoint+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b := make([]byte, 64)
	n, err := resp.Body.Read(b)
	if n == 0 && err != nil {
		t.Fatalf("%s %s: nothing of the stream came: %v", method, path, err)
	}
	return probe{method: method, path: path, status: resp.StatusCode, header: resp.Header, body: b[:n]}
}

// fromMux reports whether p is the answer of the router to a request that
// matches none of its routes.
func fromMux(p probe) bool {
	return p.status == http.StatusMethodNotAllowed || p.status == http.StatusNotFound && p.code() == string(wire.ErrInvalidParam)
}

// holds checks an answer against what the document says of op: the status
// is documented, the content type is one the response lists, the headers it
// lists are there, and what it documents as a refusal is a clear error
// message with the members the error payload requires.
func (d *openAPI) holds(t *testing.T, op operation, p probe) {
	t.Helper()
	res, ok := d.documented(t, op, p.status)
	if !ok {
		t.Errorf("%s: status %d is not documented for %s", p, p.status, op.OperationID)
		return
	}
	for h := range res.Headers {
		if p.header.Get(h) == "" && !(h == "Retry-After" && p.status != http.StatusTooManyRequests) {
			t.Errorf("%s: no %s header, which the document promises", p, h)
		}
	}
	if len(bytes.TrimSpace(p.body)) == 0 {
		return // a 202 for a delivered reply, session_established's 200
	}
	mt, _, err := mime.ParseMediaType(p.header.Get("Content-Type"))
	if err != nil {
		t.Errorf("%s: Content-Type %q: %v", p, p.header.Get("Content-Type"), err)
	} else if _, ok := res.Content[mt]; !ok {
		t.Errorf("%s: Content-Type %s is not documented for %d (documented: %v)", p, mt, p.status, keysOf(res.Content))
	}
	if schema := string(res.Content["application/json"]); strings.Contains(schema, "/schemas/Refusal\"") || strings.Contains(schema, "/schemas/ErrorMessage\"") {
		var m struct {
			Op string                     `json:"op"`
			P  map[string]json.RawMessage `json:"p"`
		}
		if err := json.Unmarshal(p.body, &m); err != nil || m.Op != "error" {
			t.Errorf("%s: a refusal that is not a clear error message", p)
			return
		}
		for _, f := range d.Components.Schemas["ErrorPayload"].Required {
			if _, ok := m.P[f]; !ok {
				t.Errorf("%s: the error payload has no %s, which the document requires", p, f)
			}
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// TestOpenAPIHeldToServer holds docs/openapi.json to a running gateway:
// every documented method and path is a route of the server (not the
// router's 404 or 405), each answer's status, content type and headers are
// documented for its route, and every error status the document gives is
// reached on at least one route.
func TestOpenAPIHeldToServer(t *testing.T) {
	needProcesses(t)
	doc := readOpenAPI(t)
	acme := newOrg(t, "acme")
	acme.start()
	c := acme.https()

	// The router's refusals, which the checks below tell apart from a
	// route's own 404.
	if p := send(t, c, acme, http.MethodGet, "/moltspeak/v0.1/nothing", nil, nil); !fromMux(p) {
		t.Fatalf("an unknown path: %s", p)
	}
	if p := send(t, c, acme, http.MethodPut, "/healthz", []byte("{}"), nil); !fromMux(p) || p.header.Get("Allow") == "" {
		t.Fatalf("a wrong method: %s", p)
	}

	ops := map[string]operation{} // "GET /healthz"
	reached := map[int]string{}   // error status → the probe that reached it
	check := func(key string, p probe) {
		t.Helper()
		op, ok := ops[key]
		if !ok {
			t.Fatalf("%s is not documented", key)
		}
		doc.holds(t, op, p)
		if p.status >= 400 {
			if _, ok := reached[p.status]; !ok {
				reached[p.status] = p.String()
			}
		}
	}
	for path, item := range doc.Paths {
		for method, op := range item {
			method = strings.ToUpper(method)
			key := method + " " + path
			ops[key] = op
			concrete := pathParam.ReplaceAllString(path, "nobody")
			var body []byte
			if op.RequestBody != nil {
				body = []byte("{}")
			}
			var p probe
			if key == eventsSSE {
				p = sendOpen(t, c, acme, method, concrete)
			} else {
				p = send(t, c, acme, method, concrete, body, nil)
			}
			if fromMux(p) {
				t.Errorf("%s is documented but the server has no such route: %s", key, p)
				continue
			}
			if p.header.Get("X-Request-Id") == "" {
				t.Errorf("%s: no X-Request-Id", p)
			}
			check(key, p)
		}
	}

	// The WebSocket routes upgrade.
	for _, path := range []string{"/moltspeak/v0.1/stream", "/events/ws"} {
		wsURL := "wss" + strings.TrimPrefix(acme.doc.Endpoint, "https") + path
		if _, ok := ops["GET "+path]; !ok {
			t.Fatalf("the WebSocket route %s is not documented", path)
		}
		d := websocket.Dialer{TLSClientConfig: c.Transport.(*http.Transport).TLSClientConfig, HandshakeTimeout: 30 * time.Second}
		conn, resp, err := d.Dial(wsURL, nil)
		if err != nil {
			t.Fatalf("WebSocket %s: %v", path, err)
		}
		conn.Close()
		res, ok := ops["GET "+path].Responses[strconv.Itoa(resp.StatusCode)]
		if _, promised := res.Headers["X-Request-Id"]; !ok || promised && resp.Header.Get("X-Request-Id") == "" {
			t.Errorf("WebSocket upgrade of %s: status %d, X-Request-Id %q", path, resp.StatusCode, resp.Header.Get("X-Request-Id"))
		}
	}

	// Each error status, reached on purpose, with the code that stands for
	// it.
	stranger, err := identity.Generate(rand.Reader, wire.Ref{Agent: "mallory", Org: "zeta"})
	if err != nil {
		t.Fatal(err)
	}
	codec := wire.NewCodec(wire.Limits{})
	signed := func(op wire.Op, cls wire.Class, to string, payload any) []byte {
		m := &wire.Message{V: wire.Version, ID: newID(t), TS: time.Now().UnixMilli(), Op: op, From: stranger.Sender(),
			To: wire.Ref{Agent: to, Org: acme.name}, Cls: cls, Payload: payload}
		b, err := crypto.Sign(codec, m, stranger.Signing)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := func(key string, p probe, status int, code wire.Code) {
		t.Helper()
		if p.status != status || p.code() != string(code) {
			t.Errorf("%s: want %d %s", p, status, code)
		}
		check(key, p)
	}
	const message = "POST /moltspeak/v0.1/message"
	want(message, send(t, c, acme, http.MethodPost, "/moltspeak/v0.1/message", []byte(`{"v":"0.1"`), nil), 400, wire.ErrParse)
	want(message, send(t, c, acme, http.MethodPost, "/moltspeak/v0.1/message",
		signed(wire.OpPing, wire.Pub, "echo", &wire.PingPayload{Nonce: "n"}), nil), 401, wire.ErrAuthFailed)
	want(message, send(t, c, acme, http.MethodPost, "/moltspeak/v0.1/message",
		signed(wire.OpQuery, wire.Conf, "echo", &wire.QueryPayload{Domain: "general"}), nil), 403, wire.ErrClassification)
	want(message, send(t, c, acme, http.MethodPost, "/moltspeak/v0.1/message",
		signed(wire.OpPing, wire.Pub, "registry", &wire.PingPayload{Nonce: "n"}), map[string]string{"X-Moltgate-Deadline": "1"}), 504, wire.ErrTimeout)
	want("GET /registry/v1/agents/{id}", send(t, c, acme, http.MethodGet, "/registry/v1/agents/nobody", nil, nil), 404, wire.ErrAgentNotFound)
	want("POST /registry/v1/ping/{id}", send(t, c, acme, http.MethodPost, "/registry/v1/ping/nobody",
		[]byte(`{"nonce":"`+strings.Repeat("n", 5000)+`"}`), nil), 413, wire.ErrTooLarge)
	want("GET /moltspeak/v0.1/stream", send(t, c, acme, http.MethodGet, "/moltspeak/v0.1/stream", nil, nil), 400, wire.ErrInvalidParam)
	// The event stream's refusal of a malformed resume point is plain text.
	want(eventsSSE, send(t, c, acme, http.MethodGet, "/events?after=x", nil, nil), 400, "")

	// Anonymous discovery is limited per address: asked until it says no.
	flood := floodUntil429(t, c, acme, "/registry/v1/capabilities", 5000)
	want("GET /registry/v1/capabilities", flood, 429, wire.ErrRateLimitDiscovery)
	if s, err := strconv.Atoi(flood.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("429 with Retry-After %q", flood.header.Get("Retry-After"))
	}

	// Readiness goes 503 once a shutdown begins (the drain delay is taken:
	// /readyz was asked above). The signal may take a while to be handled
	// on a busy machine; the drain then lasts 5 s, polled far more often.
	acme.signal(syscall.SIGTERM)
	var ready probe
	for deadline := time.Now().Add(30 * time.Second); ; {
		ready = send(t, c, acme, http.MethodGet, "/readyz", nil, nil)
		if ready.status != http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ready.status != http.StatusServiceUnavailable || !bytes.Contains(ready.body, []byte(`"shutting_down"`)) {
		t.Errorf("readiness while shutting down: %s", ready)
	}
	check("GET /readyz", ready)
	if err := acme.wait(60 * time.Second); err != nil {
		t.Errorf("gateway exit: %v", err)
	}

	// Every error status the document gives was seen.
	for key, op := range ops {
		for s := range op.Responses {
			n, err := strconv.Atoi(s)
			if err != nil || n < 400 {
				continue
			}
			if _, ok := reached[n]; !ok {
				t.Errorf("%s documents %d, which no request reached", key, n)
			}
		}
	}
	if t.Failed() {
		for n, p := range reached {
			t.Logf("reached %d: %s", n, p)
		}
	}
}

// floodUntil429 asks path from several connections until one answer is a
// 429, at most limit times in all, and returns that answer.
func floodUntil429(t *testing.T, c *http.Client, o *org, path string, limit int) probe {
	t.Helper()
	var (
		mu   sync.Mutex
		n    int
		got  *probe
		errs []string
		wg   sync.WaitGroup
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if got != nil || n >= limit || len(errs) > 0 {
					mu.Unlock()
					return
				}
				n++
				mu.Unlock()
				resp, err := c.Get(o.doc.Endpoint + path)
				if err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					mu.Lock()
					if got == nil {
						got = &probe{method: http.MethodGet, path: path, status: resp.StatusCode, header: resp.Header, body: b}
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("GET %s: %s", path, errs[0])
	}
	if got == nil {
		t.Fatalf("GET %s: no 429 in %d requests", path, limit)
	}
	return *got
}

// TestRepliesSealedBySenderKey holds "The pipeline" of docs/protocol.md to
// a running gateway: outside a session, a request whose from names an
// enc_key is answered sealed to it, even when it came in the clear, and one
// that names none is answered in the clear; refusals go in the clear.
func TestRepliesSealedBySenderKey(t *testing.T) {
	needProcesses(t)
	acme := newOrg(t, "acme")
	acme.start()
	c := acme.https()
	stranger, err := identity.Generate(rand.Reader, wire.Ref{Agent: "mallory", Org: "zeta"})
	if err != nil {
		t.Fatal(err)
	}
	codec := wire.NewCodec(wire.Limits{})
	ping := func(withEncKey bool, to string) (id string, p probe) {
		from := stranger.Sender()
		if !withEncKey {
			from.EncKey = keys.X25519Public{}
		}
		m := &wire.Message{V: wire.Version, ID: newID(t), TS: time.Now().UnixMilli(), Op: wire.OpPing, From: from,
			To: wire.Ref{Agent: to, Org: acme.name}, Cls: wire.Pub, Payload: &wire.PingPayload{Nonce: "n1"}}
		b, err := crypto.Sign(codec, m, stranger.Signing)
		if err != nil {
			t.Fatal(err)
		}
		return m.ID, send(t, c, acme, http.MethodPost, "/moltspeak/v0.1/message", b, nil)
	}
	open := func(p probe) (*wire.Message, bool) {
		t.Helper()
		if p.status != http.StatusOK {
			t.Fatalf("ping: %s", p)
		}
		env, err := codec.DecodeEnvelope(bytes.TrimSpace(p.body))
		if err != nil {
			t.Fatalf("answer is not an envelope: %v: %s", err, p)
		}
		m := env.Message
		if env.Encrypted {
			op := &crypto.Opener{Codec: codec, Box: crypto.NewBox(stranger.Encryption, 0), Accept: crypto.AcceptRef(stranger.Ref)}
			if m, err = op.OpenEnvelope(env); err != nil {
				t.Fatalf("open the sealed answer: %v", err)
			}
		}
		if err := crypto.VerifyWith(m, acme.doc.OrgKey); err != nil {
			t.Fatalf("answer not signed with the org key: %v", err)
		}
		return m, env.Encrypted
	}

	id, p := ping(true, "registry")
	m, sealed := open(p)
	if !sealed || m.Op != wire.OpPong || m.Re != id || m.From.Ref() != (wire.Ref{Agent: "registry", Org: acme.name}) {
		t.Errorf("a clear ping that names its enc_key: sealed %v, %s from %s re %s; want a sealed pong from registry@acme", sealed, m.Op, m.From.Ref(), m.Re)
	}
	id, p = ping(false, "registry")
	m, sealed = open(p)
	if sealed || m.Op != wire.OpPong || m.Re != id {
		t.Errorf("a clear ping without enc_key: sealed %v, %s re %s; want a clear pong", sealed, m.Op, m.Re)
	}
	// A refusal goes in the clear although the request named its enc_key.
	id, p = ping(true, "echo")
	if p.status != http.StatusUnauthorized {
		t.Fatalf("a stranger's ping of an agent: %s", p)
	}
	if m, sealed = open(probe{status: http.StatusOK, body: p.body}); sealed || m.Op != wire.OpError || m.Re != id {
		t.Errorf("a refusal: sealed %v, %s re %s; want a clear error", sealed, m.Op, m.Re)
	}
}
