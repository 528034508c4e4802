package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// rawPeer speaks to a gateway's HTTPS face directly, as one of the agents
// of an organisation it trusts: it signs its own messages and seals them to
// the gateway's key, outside any session, with the identity certificate its
// organisation gave it (which shows, outside a session, whose agent it is).
type rawPeer struct {
	t      *testing.T
	to     *org
	agent  *identity.Agent
	ext    wire.Value // ext["moltgate.identity"].cert
	codec  *wire.Codec
	client *http.Client
}

func newRawPeer(t *testing.T, from, to *org, agent string) *rawPeer {
	t.Helper()
	a, err := identity.Generate(rand.Reader, wire.Ref{Agent: agent, Org: from.name})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.LoadOrg(gateway.Dir(from.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	cert, err := (&identity.Org{Name: from.name, Signing: gw.Signing}).IssueIdentity(a.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ext := wire.ObjectValue(wire.Member{Key: "moltgate.identity", Value: wire.ObjectValue(wire.Member{Key: "cert", Value: cert.Value()})})
	return &rawPeer{t: t, to: to, agent: a, ext: ext, codec: wire.NewCodec(wire.Limits{}), client: to.https()}
}

// ping is a sealed ping of the target's echo agent.
func (p *rawPeer) ping() []byte {
	p.t.Helper()
	m := &wire.Message{V: wire.Version, ID: newID(p.t), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: p.agent.Sender(), To: wire.Ref{Agent: "echo", Org: p.to.name}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "e2e"}, Ext: p.ext}
	b, err := crypto.SealMessage(p.codec, m, p.agent.Signing, crypto.NewBox(p.agent.Encryption, 0), p.to.doc.EncKey)
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

func newID(t *testing.T) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString
	return h(b[0:4]) + "-" + h(b[4:6]) + "-" + h(b[6:8]) + "-" + h(b[8:10]) + "-" + h(b[10:])
}

// answer is a gateway's HTTP answer to one posted envelope.
type answer struct {
	status     int
	retryAfter string
	reply      *wire.Message
}

func (a answer) code() wire.Code {
	if a.reply != nil && a.reply.Op == wire.OpError {
		return a.reply.Payload.(*wire.ErrorPayload).Code
	}
	return ""
}

// post sends body to the message endpoint and opens the answer: sealed to
// this agent, or a bare error that the gateway's org key signed.
func (p *rawPeer) post(body []byte) answer {
	p.t.Helper()
	resp, err := p.client.Post(p.to.doc.Endpoint+"/moltspeak/v0.1/message", "application/json", bytes.NewReader(body))
	if err != nil {
		p.t.Fatalf("post: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	env, err := p.codec.DecodeEnvelope(bytes.TrimSpace(b))
	if err != nil {
		p.t.Fatalf("answer %d is not an envelope: %v: %.300s", resp.StatusCode, err, b)
	}
	if env.Encrypted {
		op := &crypto.Opener{Codec: p.codec, Box: crypto.NewBox(p.agent.Encryption, 0), Accept: crypto.AcceptRef(p.agent.Ref)}
		if a.reply, err = op.OpenEnvelope(env); err != nil {
			p.t.Fatalf("open answer: %v", err)
		}
		return a
	}
	a.reply = env.Message
	if err := crypto.VerifyWith(a.reply, p.to.doc.OrgKey); err != nil {
		p.t.Fatalf("answer not signed by %s: %v", p.to.name, err)
	}
	return a
}

// wantRefusal checks a refusal's code and its HTTP status.
func wantRefusal(t *testing.T, what string, a answer, c wire.Code) {
	t.Helper()
	if a.code() != c || a.status != c.HTTPStatus() {
		t.Fatalf("%s: answered %d %q, want %d %s", what, a.status, a.code(), c.HTTPStatus(), c)
	}
}

// stillServing checks that acme's agent still reaches globex's through both
// gateways.
func stillServing(t *testing.T, acme *org) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, _, err := call(ctx, acme.client(), "client", "echo@globex", "echo", `{"text":"still serving"}`); err != nil {
		t.Fatalf("the gateway stopped serving: %v", err)
	}
}

// TestAttacksRefused: a replayed request, a tampered envelope and an
// oversize body sent to a running gateway are refused with their codes and
// statuses, and the gateway keeps serving.
func TestAttacksRefused(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	p := newRawPeer(t, acme, globex, "raw")

	ping := p.ping()
	if a := p.post(ping); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("first ping: %d %v", a.status, a.reply)
	}
	wantRefusal(t, "replayed ping", p.post(ping), wire.ErrReplay)
	stillServing(t, acme)

	wantRefusal(t, "tampered envelope", p.post(tamper(t, p.ping())), wire.ErrAuthFailed)
	stillServing(t, acme)

	big := append(append([]byte(`{"moltspeak":"0.1","pad":"`), bytes.Repeat([]byte("x"), 3<<20)...), `"}`...)
	wantRefusal(t, "oversize body", p.post(big), wire.ErrTooLarge)
	stillServing(t, acme)
}

// tamper flips one bit in the middle of a sealed envelope's ciphertext.
func tamper(t *testing.T, env []byte) []byte {
	t.Helper()
	var e map[string]json.RawMessage
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	var ct string
	json.Unmarshal(e["ciphertext"], &ct)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(ct, "base64:"))
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x01
	e["ciphertext"], _ = json.Marshal("base64:" + base64.StdEncoding.EncodeToString(raw))
	b, _ := json.Marshal(e)
	return b
}

// TestSlowlorisCutOff: clients that open connections and trickle their
// request headers a byte at a time, or never finish the TLS handshake, are
// cut off by listen.read_header_timeout, on the HTTPS and the gRPC port,
// while the gateway keeps serving its peer.
func TestSlowlorisCutOff(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", func(_, g *org) {
		g.set(`read_header_timeout = "5s"`, `read_header_timeout = "1s"`)
	})
	// Long enough that a connection the gateway did not cut would still be
	// trickling when the test gives up on it.
	const trickle = 100
	const every = 200 * time.Millisecond

	type result struct {
		kind string
		cut  bool
	}
	results := make(chan result, 32)
	var wg sync.WaitGroup
	// slow dials, sends prefix, then sends drip one byte per tick and then
	// nothing, until the gateway closes the connection or the budget runs
	// out.
	slow := func(kind string, dial func() (net.Conn, error), prefix, drip string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// On a loaded machine the client's own TLS handshake can outlast
			// read_header_timeout, and the gateway rightly closes it before
			// the trickle begins: dial again, so that the trickle is what is
			// tested, and count a connection cut every time as cut.
			var c net.Conn
			var err error
			for range 5 {
				if c, err = dial(); !closedByPeer(err) {
					break
				}
			}
			if closedByPeer(err) {
				t.Logf("%s: closed during the TLS handshake each time: %v", kind, err)
				results <- result{kind, true}
				return
			}
			if err != nil {
				t.Errorf("%s: dial: %v", kind, err)
				results <- result{kind, false}
				return
			}
			defer c.Close()
			closed := make(chan struct{})
			go func() { io.Copy(io.Discard, c); close(closed) }()
			c.Write([]byte(prefix))
			for i := range trickle {
				select {
				case <-closed:
					results <- result{kind, true}
					return
				case <-time.After(every):
				}
				if i < len(drip) {
					c.Write([]byte{drip[i]})
				}
			}
			results <- result{kind, false}
		}()
	}
	tlsDial := func(port int, alpn ...string) func() (net.Conn, error) {
		return func() (net.Conn, error) {
			return tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13, NextProtos: alpn})
		}
	}
	tcpDial := func(port int) func() (net.Conn, error) {
		return func() (net.Conn, error) { return net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)) }
	}
	for range 8 {
		// Request headers that never end, after a complete TLS handshake.
		slow("headers", tlsDial(globex.port, "http/1.1"), "POST /moltspeak/v0.1/message HTTP/1.1\r\nHost: globex\r\n", strings.Repeat("X-Slow: a\r\n", 10))
		// A TLS handshake that never starts.
		slow("tls", tcpDial(globex.port), "", "")
		// The gRPC port: after TLS, an HTTP/2 preface trickled a byte at a
		// time, and a connection that says nothing at all.
		slow("grpc preface", tlsDial(globex.port+1, "h2"), "", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r")
		slow("grpc silence", tcpDial(globex.port+1), "", "")
	}
	// Meanwhile the gateway serves its peer.
	stillServing(t, acme)
	wg.Wait()
	close(results)
	for r := range results {
		if !r.cut {
			t.Errorf("a slow %s client was not cut off", r.kind)
		}
	}
	stillServing(t, acme)
}

// closedByPeer reports whether err is the other end closing or resetting
// the connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// TestFloodRateLimited: one agent of a trusted organisation sends far more
// than its rate allows. The excess is refused with E_RATE_LIMIT, status 429
// and Retry-After, with the suggestion to retry after a delay; the same
// organisation's other agents, and the gateway's other work, go on.
func TestFloodRateLimited(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", func(_, g *org) {
		g.set("agent_per_second = 50.0", "agent_per_second = 0.1")
		g.set("agent_burst = 100", "agent_burst = 10")
	})
	flooder := newRawPeer(t, acme, globex, "flooder")
	var mu sync.Mutex
	statuses := map[int]int{}
	var limited []answer
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 15 {
				a := flooder.post(flooder.ping())
				mu.Lock()
				statuses[a.status]++
				if a.status == http.StatusTooManyRequests {
					limited = append(limited, a)
				}
				mu.Unlock()
			}
		}()
	}
	// Others are served while the flood goes on.
	calm := newRawPeer(t, acme, globex, "calm")
	if a := calm.post(calm.ping()); a.status != http.StatusOK || a.reply.Op != wire.OpPong {
		t.Fatalf("another agent during the flood: %d %v", a.status, a.reply)
	}
	stillServing(t, acme)
	wg.Wait()

	// 90 pings against a burst of 10 and one more every 10s: most are
	// refused, and none is answered otherwise.
	if statuses[http.StatusOK]+statuses[http.StatusTooManyRequests] != 90 || statuses[http.StatusTooManyRequests] < 60 {
		t.Fatalf("answers by status: %v", statuses)
	}
	for _, a := range limited {
		if a.code() != wire.ErrRateLimit {
			t.Fatalf("429 with %s", a.code())
		}
		if s, err := strconv.Atoi(a.retryAfter); err != nil || s < 1 {
			t.Fatalf("Retry-After %q", a.retryAfter)
		}
		sg := a.reply.Payload.(*wire.ErrorPayload).Suggestion
		if sg == nil || sg.Action != wire.ActionRetryAfter || sg.DelayMS <= 0 {
			t.Fatalf("suggestion %+v", sg)
		}
	}
	// The metrics say so.
	if _, m := globex.get(globex.https(), "/metrics"); !strings.Contains(m, `moltgate_rate_limited_total{scope="agent"}`) {
		t.Fatalf("no agent rate limit in the metrics")
	}
	stillServing(t, acme)
}
