package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// post sends body to path on the rig's gateway with the given headers and
// returns the status and the answer's error code ("" if it is not a
// signed error from globex).
func (r *faceRig) post(ctx context.Context, t *testing.T, path string, body io.Reader, n int64, hdr map[string]string) (int, wire.Code, []byte) {
	t.Helper()
	st, c, b, _ := r.request(ctx, t, http.MethodPost, path, body, n, hdr)
	return st, c, b
}

// request is post with any method, and the answer's header.
func (r *faceRig) request(ctx context.Context, t *testing.T, method, path string, body io.Reader, n int64, hdr map[string]string) (int, wire.Code, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, r.peer.Endpoint+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = n
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	client := r.http
	if hdr["Expect"] == "100-continue" {
		// A client that does wait to be told to continue.
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: r.tls.Clone(), ForceAttemptHTTP2: true, ExpectContinueTimeout: time.Minute}}
		defer client.CloseIdleConnections()
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	env, err := r.codec.DecodeEnvelope(bytes.TrimSpace(b))
	if err != nil || env.Message == nil || env.Message.Op != wire.OpError {
		return resp.StatusCode, "", b, resp.Header
	}
	if err := crypto.VerifyWith(env.Message, r.peer.OrgKey); err != nil {
		t.Fatalf("error answer not signed by globex: %v", err)
	}
	return resp.StatusCode, env.Message.Payload.(*wire.ErrorPayload).Code, b, resp.Header
}

// TestHTTPNonRoutes: what is not a route, or not a WebSocket upgrade, is
// refused with a signed error like everything else, under the status the
// route gives it.
func TestHTTPNonRoutes(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/nowhere", 404, ""},
		{"GET", "/moltspeak/v0.1/message", 405, "POST"},
		{"PUT", "/registry/v1/agents/x", 405, "DELETE, GET, HEAD"},
		{"GET", "/moltspeak/v0.1/stream", 400, ""},
	} {
		st, code, b, h := r.request(ctx, t, c.method, c.path, nil, 0, nil)
		if st != c.status || code != wire.ErrInvalidParam || h.Get("Allow") != c.allow || h.Get("X-Request-Id") == "" {
			t.Errorf("%s %s: %d %s, Allow %q: %s", c.method, c.path, st, code, h.Get("Allow"), b)
		}
	}
	// The 101 of an upgrade names its request too.
	d := websocket.Dialer{TLSClientConfig: r.tls.Clone()}
	c, resp, err := d.DialContext(ctx, strings.Replace(r.peer.Endpoint, "https://", "wss://", 1)+"/moltspeak/v0.1/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("101 without X-Request-Id: %v", resp.Header)
	}
}

// TestHTTPAcceptsOnlyWhatItTook: a 202 promises a reply later, so it is
// only for a message the pipeline took in. Junk is refused as junk however
// short its deadline, and a deadline already past is E_TIMEOUT.
func TestHTTPAcceptsOnlyWhatItTook(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	junk := []byte("MARKER junk")
	for i := range 20 {
		soon := strconv.FormatInt(time.Now().Add(time.Millisecond).UnixMilli(), 10)
		// Refused as junk, or for its deadline if that passed first.
		st, c, b := r.post(ctx, t, "/moltspeak/v0.1/message", bytes.NewReader(junk), int64(len(junk)), map[string]string{frames.HeaderDeadline: soon})
		if !(st == 400 && c == wire.ErrParse || st == 504 && c == wire.ErrTimeout) {
			t.Fatalf("junk %d with a deadline 1 ms ahead: %d %s %s", i, st, c, b)
		}
	}
	if st, c, b := r.post(ctx, t, "/moltspeak/v0.1/message", bytes.NewReader(junk), int64(len(junk)), map[string]string{frames.HeaderDeadline: "1"}); st != 504 || c != wire.ErrTimeout {
		t.Fatalf("a deadline in the past: %d %s %s", st, c, b)
	}
}

// unsent is a request body that is never sent: a read of it is noted, and
// fails once ctx ends.
type unsent struct {
	ctx  context.Context
	read *atomic.Bool
}

func (b unsent) Read([]byte) (int, error) { b.read.Store(true); <-b.ctx.Done(); return 0, b.ctx.Err() }

// TestHTTPBodyRefusals: a body announced larger than the limit is refused
// before it is read, so a client that asked to continue is never told to
// send it; and refusals of bodies are counted.
func TestHTTPBodyRefusals(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := testCounter(t, r.g.s.metrics.messages.WithLabelValues("none", pipeline.FaceHTTP, string(wire.ErrTooLarge)))
	for _, path := range []string{"/moltspeak/v0.1/message", "/moltspeak/v0.1/batch", "/registry/v1/register"} {
		var read atomic.Bool
		body, stop := context.WithTimeout(ctx, 2*time.Second)
		st, c, b := r.post(ctx, t, path, unsent{body, &read}, 100<<20, map[string]string{"Expect": "100-continue"})
		stop()
		if st != 413 || c != wire.ErrTooLarge || read.Load() {
			t.Fatalf("%s: 100 MiB announced: %d %s (body asked for: %v) %s", path, st, c, read.Load(), b)
		}
	}
	if got := testCounter(t, r.g.s.metrics.messages.WithLabelValues("none", pipeline.FaceHTTP, string(wire.ErrTooLarge))); got != before+2 {
		t.Fatalf("bodies refused on the HTTP face counted %v, want %v", got-before, 2)
	}
}

// TestErrorsEchoNoMemberNames: the field of a refusal is cut before a
// member name that the sender chose and that could be content: quoted ones,
// long ones, and ones that read as personal data or a secret. An answer
// goes back whatever the field was.
func TestErrorsEchoNoMemberNames(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	long := strings.Repeat("k", 2000)
	for _, body := range []string{
		`{"v":"0.1","` + long + `":1,"` + long + `":2}`,
		`{"v":"0.1","p":{"MARKER":{"jane.doe@example.com":"x","jane.doe@example.com":"y"}}}`,
		`{"v":"0.1","p":{"AKIAZ3MDQLRW5QXBZX7K":1,"AKIAZ3MDQLRW5QXBZX7K":2}}`,
	} {
		st, c, b := r.post(ctx, t, "/moltspeak/v0.1/message", strings.NewReader(body), int64(len(body)), nil)
		if st != 400 || c == "" {
			t.Fatalf("%.60s: %d %q %s", body, st, c, b)
		}
		for _, leak := range []string{"kkkk", "jane", "AKIA"} {
			if bytes.Contains(b, []byte(leak)) {
				t.Fatalf("%.60s: the refusal repeats %q: %s", body, leak, b)
			}
		}
	}
}

// testCounter reads a counter.
func testCounter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestBatchOfJunkSignsLittle: each refusal is signed, so a batch of a
// thousand unreadable items would cost a thousand signatures for a few
// kilobytes. The first few get refusals of their own; the rest share one
// per code.
func TestBatchOfJunkSignsLittle(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	items := make([]string, 1000)
	for i := range items {
		switch i % 3 {
		case 0:
			items[i] = `{"x":` + strconv.Itoa(i) + `}`
		case 1:
			items[i] = `{"moltspeak":"9.9","envelope":{}}`
		default:
			items[i] = `[` + strconv.Itoa(i) + `]`
		}
	}
	body := "[" + strings.Join(items, ",") + "]"
	st, _, b := r.post(ctx, t, "/moltspeak/v0.1/batch", strings.NewReader(body), int64(len(body)), nil)
	var results []struct {
		Status int             `json:"status"`
		Reply  json.RawMessage `json:"reply"`
	}
	if err := json.Unmarshal(b, &results); st != 200 || err != nil || len(results) != len(items) {
		t.Fatalf("%d %v: %.300s", st, err, b)
	}
	distinct := map[string]bool{}
	for i, res := range results {
		env, err := r.codec.DecodeEnvelope(res.Reply)
		if res.Status < 400 || err != nil || env.Message == nil || env.Message.Op != wire.OpError || crypto.VerifyWith(env.Message, r.peer.OrgKey) != nil {
			t.Fatalf("item %d: %d %v %s", i, res.Status, err, res.Reply)
		}
		distinct[string(res.Reply)] = true
	}
	if len(distinct) > pipeline.UnreadDetailed+3 {
		t.Fatalf("%d signed refusals for %d junk items", len(distinct), len(items))
	}
}
