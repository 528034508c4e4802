package conformance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The gateway's routes and its gRPC service (docs/protocol.md, "Faces").
const (
	messagePath   = "/moltspeak/v0.1/message"
	batchPath     = "/moltspeak/v0.1/batch"
	streamPath    = "/moltspeak/v0.1/stream"
	grpcSend      = "/moltgate.v1.Gateway/Send"
	grpcStream    = "/moltgate.v1.Gateway/Stream"
	grpcErrorKey  = "moltgate-error-bin"
	pinPrefix     = "sha256:"
	maxAnswerRead = 64 << 20
)

// errPinMismatch: the gateway's TLS certificate is not the one its peer
// document pins.
var errPinMismatch = errors.New("the gateway's TLS certificate does not match the tls_pin of its peer document")

// network reaches one gateway's faces the way its peer document says: TLS
// accepted only for the pinned certificate, whatever its name or issuer.
type network struct {
	doc   *peerDoc
	tls   *tls.Config // nil for a plain-http endpoint
	http  *http.Client
	ws    *websocket.Dialer
	wsURL string

	mu   sync.Mutex
	grpc *grpc.ClientConn
}

func newNetwork(doc *peerDoc) (*network, error) {
	u, err := url.Parse(doc.Endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("peer document: endpoint %q is not an http(s) URL", doc.Endpoint)
	}
	n := &network{doc: doc}
	if u.Scheme == "https" {
		if n.tls, err = pinnedTLS(doc.TLSPin); err != nil {
			return nil, err
		}
	}
	tr := &http.Transport{TLSClientConfig: n.tls, ForceAttemptHTTP2: false, MaxIdleConnsPerHost: 4,
		ResponseHeaderTimeout: 30 * time.Second}
	n.http = &http.Client{Transport: tr}
	ws := *u
	ws.Scheme = map[string]string{"https": "wss", "http": "ws"}[u.Scheme]
	ws.Path = strings.TrimSuffix(ws.Path, "/") + streamPath
	n.wsURL = ws.String()
	n.ws = &websocket.Dialer{TLSClientConfig: n.tls, HandshakeTimeout: 10 * time.Second}
	return n, nil
}

func pinnedTLS(pin string) (*tls.Config, error) {
	b64, ok := strings.CutPrefix(pin, pinPrefix)
	want, err := base64.StdEncoding.Strict().DecodeString(b64)
	if !ok || err != nil || len(want) != sha256.Size {
		return nil, fmt.Errorf("peer document: tls_pin must be %s and the base64 of 32 bytes", pinPrefix)
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS13,
		// The pin, from the signed peer document, replaces chain and name
		// checks, as between gateways.
		InsecureSkipVerify: true,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errPinMismatch
			}
			c, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return errPinMismatch
			}
			sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
			if subtle.ConstantTimeCompare(sum[:], want) != 1 {
				return errPinMismatch
			}
			return nil
		},
	}, nil
}

// httpAnswer is what an HTTP route answered.
type httpAnswer struct {
	status     int
	retryAfter string
	body       []byte
}

// post sends body to path and reads the whole answer.
func (n *network) post(ctx context.Context, path string, body []byte) (httpAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(n.doc.Endpoint, "/")+path, bytes.NewReader(body))
	if err != nil {
		return httpAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.http.Do(req)
	if err != nil {
		return httpAnswer{}, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerRead))
	if err != nil {
		return httpAnswer{}, fmt.Errorf("POST %s: reading the answer: %w", path, err)
	}
	return httpAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: bytes.TrimSpace(b)}, nil
}

// rawCodec carries envelope bytes unchanged, as the gateway's gRPC face
// does (codec "moltgate-raw").
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, errors.New("moltgate gRPC messages are raw bytes")
	}
	return mem.BufferSlice{mem.SliceBuffer(*b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return errors.New("moltgate gRPC messages are raw bytes")
	}
	*b = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "moltgate-raw" }

func (n *network) grpcConn() (*grpc.ClientConn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.grpc != nil {
		return n.grpc, nil
	}
	if n.doc.GRPC == "" {
		return nil, errors.New("peer document: no grpc address")
	}
	creds := insecure.NewCredentials()
	if n.tls != nil {
		c := n.tls.Clone()
		c.NextProtos = []string{"h2"}
		creds = credentials.NewTLS(c)
	}
	conn, err := grpc.NewClient("passthrough:///"+n.doc.GRPC, grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallRecvMsgSize(maxAnswerRead)))
	if err != nil {
		return nil, fmt.Errorf("grpc %s: %w", n.doc.GRPC, err)
	}
	n.grpc = conn
	return conn, nil
}

// grpcAnswer is what a unary Send answered: the reply, or a status with
// the signed error envelope from the trailer.
type grpcAnswer struct {
	code  codes.Code
	msg   string
	reply []byte // the reply envelope, or the trailer's error envelope
}

func (n *network) send(ctx context.Context, body []byte) (grpcAnswer, error) {
	conn, err := n.grpcConn()
	if err != nil {
		return grpcAnswer{}, err
	}
	var reply []byte
	var trailer metadata.MD
	err = conn.Invoke(ctx, grpcSend, &body, &reply, grpc.Trailer(&trailer))
	if err == nil {
		return grpcAnswer{code: codes.OK, reply: reply}, nil
	}
	st, _ := status.FromError(err)
	a := grpcAnswer{code: st.Code(), msg: st.Message()}
	if v := trailer.Get(grpcErrorKey); len(v) > 0 {
		a.reply = []byte(v[0])
	}
	switch st.Code() {
	case codes.Unavailable, codes.Canceled:
		if a.reply == nil {
			return a, fmt.Errorf("grpc Send: %w", err)
		}
	}
	return a, nil
}

// streamConn is a stream face, WebSocket or gRPC: whole envelopes each way.
type streamConn interface {
	Send(ctx context.Context, b []byte) error
	Receive(ctx context.Context) ([]byte, error)
	Close() error
}

type wsConn struct{ c *websocket.Conn }

func (n *network) dialWS(ctx context.Context) (streamConn, error) {
	c, resp, err := n.ws.DialContext(ctx, n.wsURL, nil)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("websocket %s: %w (HTTP %d)", n.wsURL, err, resp.StatusCode)
		}
		return nil, fmt.Errorf("websocket %s: %w", n.wsURL, err)
	}
	c.SetReadLimit(maxAnswerRead)
	return &wsConn{c}, nil
}

func (w *wsConn) Send(ctx context.Context, b []byte) error {
	if d, ok := ctx.Deadline(); ok {
		w.c.SetWriteDeadline(d)
	}
	return w.c.WriteMessage(websocket.TextMessage, b)
}

func (w *wsConn) Receive(ctx context.Context) ([]byte, error) {
	if d, ok := ctx.Deadline(); ok {
		w.c.SetReadDeadline(d)
	}
	_, b, err := w.c.ReadMessage()
	return b, err
}

func (w *wsConn) Close() error { return w.c.Close() }

type grpcStreamConn struct {
	s      grpc.ClientStream
	cancel context.CancelFunc
}

func (n *network) dialStream(ctx context.Context) (streamConn, error) {
	conn, err := n.grpcConn()
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s, err := conn.NewStream(sctx, &grpc.StreamDesc{StreamName: "Stream", ServerStreams: true, ClientStreams: true}, grpcStream)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("grpc Stream: %w", err)
	}
	return &grpcStreamConn{s: s, cancel: cancel}, nil
}

func (g *grpcStreamConn) Send(ctx context.Context, b []byte) error { return g.s.SendMsg(&b) }

func (g *grpcStreamConn) Receive(ctx context.Context) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		var b []byte
		err := g.s.RecvMsg(&b)
		ch <- res{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		g.cancel()
		return nil, ctx.Err()
	}
}

func (g *grpcStreamConn) Close() error {
	g.s.CloseSend()
	g.cancel()
	return nil
}

func (n *network) close() {
	n.http.CloseIdleConnections()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.grpc != nil {
		n.grpc.Close()
	}
}
