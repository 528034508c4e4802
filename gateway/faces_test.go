package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/face/grpcface"
	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// scenarios are the suite's table; faces_rig_test.go holds the gateway and
// the clients it runs on.
func scenarios() []scenario {
	return []scenario{
		{name: "valid call", run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			return send(ctx, c, s, s.tool("echo", `{"text":"across","repeat":2}`, wire.Conf))
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			p, ok := a.final.Payload.(*wire.RespondPayload)
			if a.final.Op != wire.OpRespond || !ok || p.Status != "success" {
				t.Fatalf("final %s %+v", a.final.Op, a.final.Payload)
			}
			if txt, _ := p.Data.Get("text").Str(); txt != "across" {
				t.Fatalf("data %s", wire.AppendCanonical(nil, p.Data))
			}
			// Faces that stream deliver the stream before the reply:
			// start, the chunks in order, end; the chunks give the text
			// streamed, whole.
			if face != pipeline.FaceHTTP && face != pipeline.FaceWS && face != pipeline.FaceStream {
				if a.chunks != 0 {
					t.Fatalf("%d stream chunks on a face that does not stream", a.chunks)
				}
				return
			}
			var got []string
			var text strings.Builder
			for _, sp := range a.stream {
				got = append(got, fmt.Sprintf("%s/%d/%s", sp.Action, sp.Seq, sp.Status))
				if sp.StreamID != a.final.Re {
					t.Fatalf("stream id %s, the request was %s", sp.StreamID, a.final.Re)
				}
				if sp.Action == "chunk" {
					str, _ := sp.Data.Str()
					text.WriteString(str)
				}
			}
			n := len(got)
			if n < 3 || got[0] != "start/0/" || got[n-1] != fmt.Sprintf("end/%d/success", n-1) || text.String() != "acrossacross" {
				t.Fatalf("stream %v giving %q", got, text.String())
			}
			if a.stream[0].ChunkSize != 65536 {
				t.Fatalf("start says chunk_size %d", a.stream[0].ChunkSize)
			}
		}},
		{name: "long text streamed in chunks of the limit", run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			long := strings.Repeat("Ünïcödé text, ", 4000) // 72,000 bytes, more than one chunk
			return send(ctx, c, s, s.tool("echo", `{"text":"`+long+`","repeat":1}`, wire.Conf))
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			if face != pipeline.FaceHTTP && face != pipeline.FaceWS && face != pipeline.FaceStream {
				return // faces that do not stream get the answer alone
			}
			var text strings.Builder
			var sizes []int
			for _, sp := range a.stream {
				if sp.Action == "chunk" {
					str, _ := sp.Data.Str()
					text.WriteString(str)
					sizes = append(sizes, len(str))
				}
			}
			if len(sizes) < 2 || text.String() != strings.Repeat("Ünïcödé text, ", 4000) {
				t.Fatalf("chunks of %v bytes", sizes)
			}
			for _, n := range sizes {
				if n > 65536 {
					t.Fatalf("chunks of %v bytes: over limits.chunk_bytes", sizes)
				}
			}
			if last := a.stream[len(a.stream)-1]; last.Action != "end" || last.Seq != int64(len(sizes)+1) {
				t.Fatalf("stream ends with %+v", last)
			}
		}},
		{name: "bad signature", code: wire.ErrSignature, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"signed text"}`, wire.Conf)
			b, err := crypto.Sign(r.codec, m, s.id.Signing)
			if err != nil {
				t.Fatal(err)
			}
			forged, err := r.codec.Decode(bytes.Replace(b, []byte("signed text"), []byte("forged text"), 1))
			if err != nil {
				t.Fatal(err)
			}
			env, err := c.sess.Seal(forged)
			if err != nil {
				t.Fatal(err)
			}
			return c.send(ctx, env, m.ID)
		}},
		{name: "tampered envelope", code: wire.ErrAuthFailed, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"x"}`, wire.Conf)
			return c.send(ctx, tamper(t, sealed(t, c, s, m)), m.ID)
		}},
		{name: "replayed envelope", code: wire.ErrReplay, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"once"}`, wire.Conf)
			env := sealed(t, c, s, m)
			if a := c.send(ctx, env, m.ID); a.code() != "" {
				t.Fatalf("first copy refused: %s", a.code())
			}
			return c.send(ctx, env, m.ID)
		}},
		{name: "replayed message outside a session", code: wire.ErrReplay, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			// Outside a session, an identity certificate shows s is acme's.
			s = certified(t, r.acme, s)
			m := s.ping()
			m.Ext = s.ext
			env := boxed(t, r, s, m)
			if a := c.send(ctx, env, m.ID); a.code() != "" || a.final.Op != wire.OpPong {
				t.Fatalf("first copy: %s %v", a.code(), a.final)
			}
			return c.send(ctx, env, m.ID)
		}},
		{name: "stale timestamp", code: wire.ErrReplay, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"old"}`, wire.Conf)
			m.TS = time.Now().Add(-10 * time.Minute).UnixMilli()
			return send(ctx, c, s, m)
		}},
		{name: "expired", code: wire.ErrExpired, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"late"}`, wire.Conf)
			m.TS = time.Now().Add(-2 * time.Second).UnixMilli()
			m.Exp = time.Now().Add(-time.Second).UnixMilli()
			return send(ctx, c, s, m)
		}},
		{name: "untrusted organisation", code: wire.ErrAuthFailed, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, _ *sender) faceAnswer {
			s := newSender(t, r.other, "intruder")
			c.as = s
			m := s.ping()
			return c.send(ctx, boxed(t, r, s, m), m.ID)
		}},
		{name: "oversize", code: wire.ErrTooLarge, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			pad := strings.Repeat("x", r.g.s.pipe.EnvelopeLimit())
			return c.send(ctx, []byte(`{"moltspeak":"0.1","pad":"`+pad+`"}`), "")
		}},
		{name: "malformed JSON", code: wire.ErrParse, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			return c.send(ctx, []byte(`{"moltspeak":"0.1","envelope":{"encrypted":tru`), "")
		}},
		{name: "missing field", code: wire.ErrMissingField, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.ping()
			b, err := crypto.Sign(r.codec, m, s.id.Signing)
			if err != nil {
				t.Fatal(err)
			}
			v, err := wire.Parse(b, 0)
			if err != nil {
				t.Fatal(err)
			}
			return c.send(ctx, wire.AppendCanonical(nil, v.Without("op")), m.ID)
		}},
		{name: "class above the peer's ceiling", code: wire.ErrClassification, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			return send(ctx, c, s, s.tool("echo", `{"text":"top"}`, wire.Sec))
		}},
		{name: "personal data without consent", code: wire.ErrConsent, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			return send(ctx, c, s, s.tool("echo", `{"text":"write to jane.doe@example.com"}`, wire.Conf))
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			if bytes.Contains(a.raw, []byte("jane.doe")) {
				t.Fatal("the refusal echoes the content it refused")
			}
			// The log names what was found and where, never the value.
			if l := r.g.logs(); !strings.Contains(l, "email at p.input.text") || strings.Contains(l, "jane.doe") {
				t.Fatalf("log of the block:\n%s", l)
			}
		}},
		{name: "personal data with a consent", run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"write to jane.doe@example.com"}`, wire.PII)
			now := time.Now()
			id, _ := consent.NewID(rand.Reader)
			tok, err := consent.Issue(r.acme.Signing, consent.Claims{ID: id, GrantedBy: "jane@acme", Grantee: "echo@globex",
				Purpose: "support", DataTypes: []string{"email"}, IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli()})
			if err != nil {
				t.Fatal(err)
			}
			m.PIIMeta = &wire.PIIMeta{Types: []string{"email"}, Consent: &wire.Consent{GrantedBy: "jane@acme", Purpose: "support", Proof: tok, Expires: now.Add(time.Hour).UnixMilli()}}
			return send(ctx, c, s, m)
		}},
		{name: "confidential in the clear", code: wire.ErrClassification, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"x"}`, wire.Conf)
			b, err := crypto.Sign(r.codec, m, s.id.Signing)
			if err != nil {
				t.Fatal(err)
			}
			return c.send(ctx, b, m.ID)
		}},
		{name: "no capability certificate", code: wire.ErrCapability, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"x"}`, wire.Conf)
			m.Ext = wire.Value{}
			return send(ctx, c, s, m)
		}},
		{name: "unknown agent", code: wire.ErrAgentNotFound, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"x"}`, wire.Conf)
			m.To.Agent = "nobody"
			return send(ctx, c, s, m)
		}},
		{name: "input against the tool's schema", code: wire.ErrInvalidParam, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			return send(ctx, c, s, s.tool("echo", `{"text":5}`, wire.Conf))
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			if f := a.final.Payload.(*wire.ErrorPayload).Field; f != "p.input.text" {
				t.Fatalf("field %q", f)
			}
		}},
		{name: "tool list", run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("", `{}`, wire.Conf)
			m.Payload = &wire.ToolPayload{Action: "list"}
			return send(ctx, c, s, m)
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			p := a.final.Payload.(*wire.RespondPayload)
			var names []string
			tools := p.Data.Get("tools")
			for i := range tools.Len() {
				tl := tools.Index(i)
				name, _ := tl.Get("name").Str()
				names = append(names, name)
				if name == "echo" && tl.Get("input_schema").Get("properties").Get("text").IsAbsent() {
					t.Errorf("echo's input schema: %s", wire.AppendCanonical(nil, tl))
				}
				if se, _ := tl.Get("side_effects").Bool(); se != (name == "count") {
					t.Errorf("%s side_effects %v", name, se)
				}
			}
			if strings.Join(names, ",") != "count,echo,fail,sleep" {
				t.Fatalf("tools %v", names)
			}
		}},
		{name: "unknown extension ignored", run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"with extras"}`, wire.Conf)
			m.Ext = m.Ext.With("example.reasoning", wire.ObjectValue(wire.Member{Key: "show_thinking", Value: wire.StringValue("yes")}))
			return send(ctx, c, s, m)
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			if txt, _ := a.final.Payload.(*wire.RespondPayload).Data.Get("text").Str(); txt != "with extras" {
				t.Fatalf("answer %+v", a.final.Payload)
			}
		}},
		{name: "too many hops", code: wire.ErrInvalidParam, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			m := s.tool("echo", `{"text":"round and round"}`, wire.Conf)
			m.Ext = local.WithHops(m.Ext, 5)
			return send(ctx, c, s, m)
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			if f := a.final.Payload.(*wire.ErrorPayload).Field; f != "ext" {
				t.Fatalf("field %q", f)
			}
		}},
		{name: "unknown tool", code: wire.ErrInvalidParam, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			return send(ctx, c, s, s.tool("nope", `{"text":"x"}`, wire.Conf))
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			p := a.final.Payload.(*wire.ErrorPayload)
			if p.Field != "p.tool" || p.Suggestion == nil || !strings.Contains(p.Suggestion.Fix, `"list"`) {
				t.Fatalf("field %q, suggestion %+v", p.Field, p.Suggestion)
			}
		}},
		{name: "tool failure", code: wire.ErrTaskFailed, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			return send(ctx, c, s, s.tool("fail", `{"code":"tool.broken","message":"asked to"}`, wire.Conf))
		}},
		{name: "rate limit", code: wire.ErrRateLimit, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			for i := range 3 { // the sender's burst
				if a := send(ctx, c, s, s.tool("echo", `{"text":"x"}`, wire.Conf)); a.code() != "" {
					t.Fatalf("call %d within the burst: %s", i, a.code())
				}
			}
			return send(ctx, c, s, s.tool("echo", `{"text":"x"}`, wire.Conf))
		}, check: func(t *testing.T, r *faceRig, face string, a faceAnswer) {
			p := a.final.Payload.(*wire.ErrorPayload)
			if p.Suggestion == nil || p.Suggestion.Action != wire.ActionRetryAfter || p.Suggestion.DelayMS <= 0 {
				t.Fatalf("suggestion %+v", p.Suggestion)
			}
			if face == pipeline.FaceHTTP && a.retryAfter == "" {
				t.Fatal("no Retry-After header")
			}
		}},
		{name: "session gone", code: wire.ErrSessionExpired, fresh: true, run: func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer {
			// The face adds the session when session_established arrives,
			// which a stream face reads after the handshake returned here.
			for _, err := r.g.s.sessions.Get(c.sess.ID()); err != nil; _, err = r.g.s.sessions.Get(c.sess.ID()) {
				time.Sleep(time.Millisecond)
			}
			r.g.s.sessions.Remove(c.sess.ID())
			return send(ctx, c, s, s.tool("echo", `{"text":"x"}`, wire.Conf))
		}},
	}
}

// tamper flips one byte in the middle of a sealed envelope's ciphertext.
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

func TestFacesAgree(t *testing.T) {
	r := newFaceRig(t)
	// One connection and session per face, pipelining the scenarios as a
	// peer would (the gateway also limits handshakes per host).
	shared := map[string]*faceClient{}
	defer func() {
		for _, c := range shared {
			c.close()
		}
	}()
	for i, sc := range scenarios() {
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			for _, face := range faceNames {
				// Against a hang only: a scenario's answer (a long stream
				// among them) comes when it comes on a loaded machine, and
				// a deadline missed breaks the connection the face's later
				// scenarios share.
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				c := shared[face]
				switch {
				case sc.fresh:
					c = r.dial(ctx, t, face)
					defer c.close()
				case c == nil:
					c = r.dial(ctx, t, face)
					shared[face] = c
				}
				c.t = t
				s := newSender(t, r.acme, fmt.Sprintf("s%d-%s", i, face))
				c.as = s
				a := sc.run(ctx, t, r, c, s)
				cancel()
				if a.final == nil {
					t.Fatalf("%s: no answer", face)
				}
				if got := a.code(); got != sc.code {
					t.Fatalf("%s answered %q, want %q (%+v)", face, got, sc.code, a.final.Payload)
				}
				// The status the code maps to, where the face has one.
				want := http.StatusOK
				if sc.code != "" {
					want = sc.code.HTTPStatus()
				}
				if (face == pipeline.FaceHTTP || face == pipeline.FaceBatch) && a.status != want {
					t.Fatalf("%s: HTTP status %d, want %d for %s", face, a.status, want, sc.code)
				}
				if face == pipeline.FaceGRPC {
					wantGRPC := codes.OK
					if sc.code != "" {
						wantGRPC = grpcface.Code(want)
					}
					if a.grpc == nil || *a.grpc != wantGRPC {
						t.Fatalf("gRPC status %v, want %v", a.grpc, wantGRPC)
					}
				}
				if sc.check != nil {
					t.Run(face, func(t *testing.T) { sc.check(t, r, face, a) })
				}
			}
		})
	}
}

// TestFacesRefuseUntrustedHandshake runs the handshake of an organisation
// the gateway has not imported, on every face: the gateway must refuse its
// hello, so that it gets no session and holds no slot.
func TestFacesRefuseUntrustedHandshake(t *testing.T) {
	r := newFaceRig(t)
	gw, err := identity.Generate(rand.Reader, wire.Ref{Agent: GatewayAgent, Org: "initech"})
	if err != nil {
		t.Fatal(err)
	}
	gw.Signing = r.other.Signing
	now := time.Now()
	cert, err := r.other.IssueIdentity(gw.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add("globex", r.peer.OrgKey)
	r.hs = &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Codec: r.codec, Capabilities: []string{"tool.invoke"}}
	for _, face := range faceNames {
		t.Run(face, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			before, pending := r.g.s.sessions.Len(), r.g.s.acceptor.Pending()
			c, err := r.tryDial(ctx, t, face)
			if err == nil {
				c.close()
				t.Fatal("an organisation that is not a peer completed a handshake")
			}
			if pipeline.Code(err) != wire.ErrAuthFailed {
				t.Fatalf("handshake refused with %v, want E_AUTH_FAILED", err)
			}
			if n, p := r.g.s.sessions.Len(), r.g.s.acceptor.Pending(); n != before || p != pending {
				t.Fatalf("sessions went from %d to %d, handshakes in progress from %d to %d", before, n, pending, p)
			}
		})
	}
}
