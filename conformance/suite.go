package conformance

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func randReader() io.Reader { return rand.Reader }

// The extension members that carry certificates outside a session
// (docs/protocol.md, "The pipeline").
const (
	extIdentity     = "moltgate.identity"
	extCapabilities = "moltgate.capabilities"
	capToolInvoke   = "tool.invoke"
)

// suite is one run's state: the gateway under test, the test
// organisation, and the agents it speaks as.
type suite struct {
	cfg    Config
	target *peerDoc
	gw     wire.Ref // gateway@target: whom handshakes are addressed to
	net    *network
	codec  *wire.Codec

	org     *identity.Agent // gateway@conformance: the imported org key
	orgCert wire.Value      // its identity certificate, for hellos
	// prober is an agent of the test organisation with an identity
	// certificate and a tool.invoke capability certificate from it.
	prober      *identity.Agent
	proberExt   wire.Value // ext with both certificates
	proberIDExt wire.Value // ext with the identity certificate only

	// sess is an HTTP session for calls, made on first use.
	sess *session
}

func newSuite(cfg Config) (*suite, error) {
	org, err := loadOrg(cfg.Dir)
	if err != nil {
		return nil, err
	}
	target, err := parsePeerDoc(cfg.PeerDoc)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	if target.Org == org.Ref.Org {
		return nil, wire.Errorf(wire.ErrInvalidParam, "org", "the peer document is the test organisation's own (%s); give the gateway's", target.Org)
	}
	n, err := newNetwork(target)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	s := &suite{cfg: cfg, target: target, gw: wire.Ref{Agent: "gateway", Org: target.Org}, net: n,
		codec: wire.NewCodec(wire.Limits{}), org: org}
	if s.orgCert, err = s.issueIdentity(org, org.Signing); err != nil {
		return nil, err
	}
	if s.prober, err = identity.Generate(cfg.Rand, wire.Ref{Agent: "prober", Org: org.Ref.Org}); err != nil {
		return nil, err
	}
	if s.proberExt, err = s.certExt(s.prober, org.Signing, true); err != nil {
		return nil, err
	}
	if s.proberIDExt, err = s.certExt(s.prober, org.Signing, false); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *suite) close() { s.net.close() }

// issueIdentity certifies a's keys as a's, by issuer (normally a's org key).
func (s *suite) issueIdentity(a *identity.Agent, issuer keys.Ed25519Private) (wire.Value, error) {
	now := s.cfg.Now()
	o := &identity.Org{Name: a.Ref.Org, Signing: issuer}
	c, err := o.IssueIdentity(a.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		return wire.Value{}, err
	}
	return c.Value(), nil
}

// certExt is the ext member an agent's messages carry outside a session:
// its identity certificate and, with capability, its tool.invoke
// certificate, both from issuer.
func (s *suite) certExt(a *identity.Agent, issuer keys.Ed25519Private, capability bool) (wire.Value, error) {
	idc, err := s.issueIdentity(a, issuer)
	if err != nil {
		return wire.Value{}, err
	}
	ext := wire.ObjectValue(wire.Member{Key: extIdentity, Value: wire.ObjectValue(wire.Member{Key: "cert", Value: idc})})
	if capability {
		now := s.cfg.Now()
		o := &identity.Org{Name: a.Ref.Org, Signing: issuer}
		cc, err := o.IssueCapability(a.Ref, a.Signing.Public(), capToolInvoke, now.Add(-time.Minute), now.Add(time.Hour))
		if err != nil {
			return wire.Value{}, err
		}
		ext = ext.With(extCapabilities, wire.ObjectValue(wire.Member{Key: "certs", Value: wire.ArrayValue(cc.Value())}))
	}
	return ext, nil
}

// newID makes a lower-case UUID v4.
func (s *suite) newID() string {
	var b [16]byte
	if _, err := io.ReadFull(s.cfg.Rand, b[:]); err != nil {
		panic(fmt.Sprintf("conformance: read random: %v", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString
	return h(b[0:4]) + "-" + h(b[4:6]) + "-" + h(b[6:8]) + "-" + h(b[8:10]) + "-" + h(b[10:])
}

func (s *suite) random32() [32]byte {
	var b [32]byte
	if _, err := io.ReadFull(s.cfg.Rand, b[:]); err != nil {
		panic(fmt.Sprintf("conformance: read random: %v", err))
	}
	return b
}

// agentRef is the agent under test.
func (s *suite) agentRef() wire.Ref { return wire.Ref{Agent: s.cfg.Agent, Org: s.target.Org} }

// tree checks m and returns its message object, unsigned.
func (s *suite) tree(m *wire.Message) wire.Value {
	t, err := s.codec.CheckTree(m)
	if err != nil {
		panic(fmt.Sprintf("conformance: building %s: %v", m.Op, err))
	}
	return t.Without("sig")
}

// signTree signs any message object, valid or not, as the protocol signs:
// Ed25519 over the RFC 8785 form without "sig". It returns the canonical
// bytes with the signature.
func signTree(t wire.Value, sk keys.Ed25519Private) []byte {
	t = t.Without("sig")
	sig := sk.Sign(wire.AppendCanonical(nil, t))
	return wire.AppendCanonical(nil, t.With("sig", wire.StringValue(sig.String())))
}

// parseTree parses bytes this suite made.
func parseTree(b []byte) wire.Value {
	t, err := wire.Parse(b, wire.MaxDepth)
	if err != nil {
		panic(fmt.Sprintf("conformance: parse own message: %v", err))
	}
	return t
}

// set returns t with the member at path (dot-separated keys) replaced.
func set(t wire.Value, path string, v wire.Value) wire.Value {
	key, rest, nested := strings.Cut(path, ".")
	if !nested {
		return t.With(key, v)
	}
	return t.With(key, set(t.Get(key), rest, v))
}

// get returns the member at path.
func get(t wire.Value, path string) wire.Value {
	for k := range strings.SplitSeq(path, ".") {
		t = t.Get(k)
	}
	return t
}

func newBox(a *identity.Agent) *crypto.Box { return crypto.NewBox(a.Encryption, 0) }

// seal seals signed message bytes to the gateway's encryption key from
// the sender's.
func (s *suite) seal(from *identity.Agent, signed []byte) []byte {
	b, err := newBox(from).Seal(signed, s.target.EncKey, s.cfg.Rand)
	if err != nil {
		panic(fmt.Sprintf("conformance: seal: %v", err))
	}
	return b
}

// message starts a message from the prober to the agent under test.
func (s *suite) message(op wire.Op, cls wire.Class, p any) *wire.Message {
	return &wire.Message{V: wire.Version, ID: s.newID(), TS: s.cfg.Now().UnixMilli(), Op: op,
		From: s.prober.Sender(), To: s.agentRef(), Cls: cls, Payload: p, Ext: s.proberExt}
}

// ping is a ping of the agent under test, from the prober.
func (s *suite) ping() *wire.Message {
	return s.message(wire.OpPing, wire.Pub, &wire.PingPayload{Nonce: "conformance-" + s.newID()[:8]})
}

// invoke is a tool call of the agent under test, from the prober.
func (s *suite) invoke(cls wire.Class, text string) *wire.Message {
	return s.message(wire.OpTool, cls, &wire.ToolPayload{Action: "invoke", Tool: s.cfg.Tool,
		Input: wire.ObjectValue(wire.Member{Key: "text", Value: wire.StringValue(text)})})
}

// sealedTree signs t as from and seals it to the gateway.
func (s *suite) sealedTree(from *identity.Agent, t wire.Value) []byte {
	return s.seal(from, signTree(t, from.Signing))
}

// reply is a gateway's answer to one envelope, on any face.
type reply struct {
	face       string
	status     int        // HTTP status; 0 on a stream
	grpc       codes.Code // a gRPC Send's status
	isGRPC     bool
	retryAfter string
	msg        *wire.Message // the answer, opened and checked
}

func (r reply) code() wire.Code {
	if r.msg != nil && r.msg.Op == wire.OpError {
		if p, ok := wire.PayloadAs[wire.ErrorPayload](r.msg); ok {
			return p.Code
		}
	}
	return ""
}

func (r reply) String() string {
	var parts []string
	if r.status != 0 {
		parts = append(parts, strconv.Itoa(r.status))
	}
	if r.isGRPC {
		parts = append(parts, r.grpc.String())
	}
	switch {
	case r.msg == nil:
		parts = append(parts, "no message")
	case r.msg.Op == wire.OpError:
		p, _ := wire.PayloadAs[wire.ErrorPayload](r.msg)
		parts = append(parts, string(p.Code))
		if f := p.Field; f != "" {
			if len(f) > 48 {
				f = f[:48] + "…"
			}
			parts = append(parts, "at "+f)
		}
	default:
		parts = append(parts, string(r.msg.Op))
	}
	return strings.Join(parts, " ")
}

// because is the refusal's message, for a report of an unexpected one.
func (r reply) because() string {
	p, ok := wire.PayloadAs[wire.ErrorPayload](r.msg)
	if !ok || p.Message == "" {
		return ""
	}
	msg := p.Message
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	return fmt.Sprintf(" (%q)", msg)
}

// grpcFor is the gRPC status a refusal with HTTP status st carries
// (docs/protocol.md, "Faces").
func grpcFor(st int) codes.Code {
	switch st {
	case 400:
		return codes.InvalidArgument
	case 401:
		return codes.Unauthenticated
	case 403:
		return codes.PermissionDenied
	case 404:
		return codes.NotFound
	case 409:
		return codes.AlreadyExists
	case 410:
		return codes.FailedPrecondition
	case 413, 429:
		return codes.ResourceExhausted
	case 503:
		return codes.Unavailable
	case 504:
		return codes.DeadlineExceeded
	}
	return codes.Internal
}

// refused checks that r is a refusal with one of the codes, with the status
// that goes with the code on its face.
func refused(r reply, want ...wire.Code) (string, error) {
	c := r.code()
	if !slices.Contains(want, c) {
		return "", fmt.Errorf("answered %s, want %s%s", r, codeList(want), r.because())
	}
	if r.status != 0 && r.status != c.HTTPStatus() {
		return "", fmt.Errorf("answered %s with HTTP %d, want %d for %s", c, r.status, c.HTTPStatus(), c)
	}
	if r.isGRPC && r.grpc != grpcFor(c.HTTPStatus()) {
		return "", fmt.Errorf("answered %s with gRPC %s, want %s", c, r.grpc, grpcFor(c.HTTPStatus()))
	}
	p, _ := wire.PayloadAs[wire.ErrorPayload](r.msg)
	if p.Category != c.Category() {
		return "", fmt.Errorf("answered %s in category %q, want %q", c, p.Category, c.Category())
	}
	return "refused " + r.String(), nil
}

// refusedAt is refused, and the refusal names field (docs/protocol.md:
// every refusal names the JSON path of the offending field).
func refusedAt(r reply, field string, want ...wire.Code) (string, error) {
	d, err := refused(r, want...)
	if err != nil {
		return "", err
	}
	if p, _ := wire.PayloadAs[wire.ErrorPayload](r.msg); p.Field != field {
		return "", fmt.Errorf("%s, naming field %q, want %q", d, p.Field, field)
	}
	return d, nil
}

func codeList(cs []wire.Code) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("%s (%d)", c, c.HTTPStatus()))
	}
	return strings.Join(s, " or ")
}

// served checks that r answers with op, successfully.
func served(r reply, op wire.Op) error {
	if r.msg == nil || r.msg.Op != op {
		return fmt.Errorf("the genuine message was not served: answered %s, want %s%s", r, op, r.because())
	}
	if r.status != 0 && r.status != 200 {
		return fmt.Errorf("the genuine message was answered %s with HTTP %d, want 200", op, r.status)
	}
	if r.isGRPC && r.grpc != codes.OK {
		return fmt.Errorf("the genuine message was answered with gRPC %s", r.grpc)
	}
	if op == wire.OpRespond {
		if p, ok := wire.PayloadAs[wire.RespondPayload](r.msg); !ok || p.Status != "success" {
			return fmt.Errorf("the genuine call was answered respond without success")
		}
	}
	return nil
}

// opener says how an answer may be opened: sealed to whom, in which
// session.
type opener struct {
	as   *identity.Agent // the sender of the request; nil: none
	sess *session
}

// open decodes, opens and checks an answer: a refusal in the clear must be
// signed by the gateway's org key; a sealed answer must open for the
// request's sender and come from the gateway's organisation.
func (s *suite) open(b []byte, o opener) (*wire.Message, error) {
	if len(b) == 0 {
		return nil, nil
	}
	env, err := s.codec.DecodeEnvelope(b)
	if err != nil {
		return nil, fmt.Errorf("the answer is not an envelope: %v: %.200q", err, b)
	}
	var m *wire.Message
	switch {
	case env.Encrypted && env.Algorithm == wire.AlgSession:
		if o.sess == nil {
			return nil, fmt.Errorf("the answer is sealed in session %s, but the request was not", env.SessionID)
		}
		if m, err = o.sess.open(env); err != nil {
			return nil, err
		}
	case env.Encrypted:
		if o.as == nil {
			return nil, fmt.Errorf("the answer is sealed, but the request named no key to seal to")
		}
		op := &crypto.Opener{Codec: s.codec, Box: crypto.NewBox(o.as.Encryption, 0), Accept: crypto.AcceptRef(o.as.Ref)}
		if m, err = op.OpenEnvelope(env); err != nil {
			return nil, fmt.Errorf("the sealed answer does not open: %w", err)
		}
	default:
		m = env.Message
		if err := crypto.VerifyWith(m, s.target.OrgKey); err != nil {
			return nil, fmt.Errorf("the clear answer %s is not signed by %s's org key: %w", m.Op, s.target.Org, err)
		}
		return m, nil
	}
	if m.From.Org != s.target.Org {
		return nil, fmt.Errorf("the answer comes from %s, not from %s", m.From.Ref(), s.target.Org)
	}
	return m, nil
}
