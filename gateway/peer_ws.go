package gateway

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// The client half of the WebSocket transport: this gateway's connection to
// a peer gateway, its handshake, and the calls sent on it.

// wsClient is this gateway's WebSocket connection to one peer gateway, with
// the session its handshake made.
type wsClient struct {
	*pooled
	conn *wsconn.Conn
}

// wsTransport carries the handshake over the connection before anything
// else uses it.
type wsTransport struct{ c *websocket.Conn }

func (t wsTransport) Send(ctx context.Context, b []byte) error {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Now().Add(wsconn.WriteTimeout)
	}
	t.c.SetWriteDeadline(d)
	return t.c.WriteMessage(websocket.TextMessage, b)
}

func (t wsTransport) Receive(ctx context.Context) ([]byte, error) {
	if d, ok := ctx.Deadline(); ok {
		t.c.SetReadDeadline(d)
	}
	return wsconn.ReadMessage(t.c, nil)
}

// wsConnFor returns the peer's connection, with a call counted on it,
// dialling it and running the handshake on it if there is none.
func (ps *peerState) wsConnFor(ctx context.Context) (*wsClient, error) {
	return ps.ws.get(ctx, &ps.slots, ps.dialWS)
}

// dialWS opens a WebSocket connection to the peer and runs the handshake
// on it.
func (ps *peerState) dialWS(ctx context.Context) (*wsClient, error) {
	u := strings.TrimRight(ps.p.Endpoint, "/") + "/moltspeak/v0.1/stream"
	u = "ws" + strings.TrimPrefix(u, "http")
	cd := &wsconn.Dialer{TLS: ps.tls, Bufs: &ps.s.corkBufs}
	d := websocket.Dialer{NetDialContext: cd.Dial, NetDialTLSContext: cd.DialTLS, HandshakeTimeout: 5 * time.Second, ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	c, resp, err := d.DialContext(ctx, u, nil)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, errors.Join(errTransport, err)
	}
	c.SetReadLimit(int64(ps.s.pipe.EnvelopeLimit()))
	hctx, cancel := context.WithTimeout(ctx, ps.s.cfg.Security.HandshakeTimeout.D())
	sess, err := handshake.NewInitiator(ps.s.hsCfg, handshake.Peer{Ref: ps.ref, Key: ps.p.OrgKey}).Run(hctx, wsTransport{c})
	cancel()
	if err != nil {
		c.Close()
		return nil, err
	}
	if err := ps.adopt(sess); err != nil {
		c.Close()
		return nil, err
	}
	c.SetReadDeadline(time.Time{})
	c.SetWriteDeadline(time.Time{})
	wc := &wsClient{pooled: newPooled(sess, func() { c.Close() }), conn: wsconn.New(c, cd.Cork, &ps.s.wsQueues, ps.s.writeTimeout)}
	go ps.s.readReplies(ps, wc.pooled, func() ([]byte, error) { return wsconn.ReadMessage(c, frames.GetEnvelopeBuf) })
	stop := wsconn.KeepAlive(wc.conn)
	go func() { <-wc.dead; stop(); ps.s.sessions.Remove(sess.ID()) }()
	return wc, nil
}

func (ps *peerState) closeWS() { ps.ws.close() }

// readReplies reads a stream connection's frames, opens each, and hands it
// to the call it answers.
func (s *Server) readReplies(ps *peerState, conn *pooled, read func() ([]byte, error)) {
	defer conn.close()
	for {
		b, err := read()
		if err != nil {
			return
		}
		d, err := s.openFrame(ps, b)
		// Opening decodes from copies, sealed or not, as the stream faces'
		// pipeline does (package frames): nothing keeps b.
		frames.PutEnvelopeBuf(b)
		if err != nil {
			s.log.Warn("dropped a frame from a peer", "peer", ps.p.Org, "err", err.Error())
			continue
		}
		if d.m.Op == wire.OpError && d.m.Re == "" {
			// The peer could not open something sent on this
			// connection, so it cannot say which call it was: end the
			// connection, and every call on it fails at once and may
			// be retried on a new one. If the session is what it no
			// longer knows, none of them was acted on, and every one
			// goes again in a new session.
			c := pipeline.Code(d.m.Payload.(*wire.ErrorPayload).Err())
			if c == wire.ErrSessionExpired {
				conn.expired.Store(true)
			}
			s.log.Warn("peer refused a message on the connection", "peer", ps.p.Org, "code", string(c))
			return
		}
		if !s.pending.deliverTo(d) {
			s.log.Debug("reply for no waiting call", "peer", ps.p.Org, "op", string(d.m.Op))
		}
	}
}

// callWS sends a message on the peer's WebSocket and waits for its replies.
func (ps *peerState) callWS(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	wc, err := ps.wsConnFor(ctx)
	if err != nil {
		return err
	}
	defer wc.release()
	m.Sig = keys.Signature{}
	body, err := wc.sess.AppendSignAndSeal(frames.GetEnvelopeBuf(), m, sk)
	if err != nil {
		return notSent(err)
	}
	pc, done := ps.s.pending.wait(m.ID)
	defer done()
	err = wc.conn.Write(body)
	frames.PutEnvelopeBuf(body) // the writer took a copy
	if err != nil {
		return wc.writeFailed(err)
	}
	return wc.lost(ps.s.awaitStream(ctx, ps, m, pc, wc.dead, onMsg))
}
