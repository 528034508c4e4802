package peers

import (
	"context"
	"errors"
	"net"
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

// wsConnFor returns the peer's connection, with a call counted on it,
// dialling it and running the handshake on it if there is none.
func (ps *Remote) wsConnFor(ctx context.Context) (*wsClient, error) {
	return ps.ws.get(ctx, &ps.slots, ps.dialWS)
}

// dialWS opens a WebSocket connection to the peer and runs the handshake
// on it.
func (ps *Remote) dialWS(ctx context.Context) (*wsClient, error) {
	u := strings.TrimRight(ps.p.Endpoint, "/") + "/moltspeak/v0.1/stream"
	u = "ws" + strings.TrimPrefix(u, "http")
	cd := &wsconn.Dialer{TLS: ps.tls, Bufs: &ps.t.corkBufs}
	d := websocket.Dialer{NetDialContext: cd.Dial, NetDialTLSContext: cd.DialTLS, HandshakeTimeout: 5 * time.Second, ReadBufferSize: 64 << 10, WriteBufferSize: 64 << 10}
	c, resp, err := d.DialContext(ctx, u, nil)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, errors.Join(errTransport, err)
	}
	c.SetReadLimit(int64(ps.t.cfg.EnvelopeLimit()))
	hctx, cancel := context.WithTimeout(ctx, ps.t.cfg.HandshakeTimeout())
	sess, err := handshake.NewInitiator(ps.t.cfg.Handshake, handshake.Peer{Ref: ps.ref, Key: ps.p.OrgKey}).Run(hctx, wsconn.Transport{C: c})
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
	wc := &wsClient{pooled: newPooled(sess, func() { c.Close() }), conn: wsconn.New(c, cd.Cork, &ps.t.wsQueues, ps.t.cfg.WriteTimeout())}
	go ps.t.readReplies(ps, wc.pooled, func() ([]byte, error) { return wsconn.ReadMessage(c, frames.GetEnvelopeBuf) })
	stop := wsconn.KeepAlive(wc.conn)
	go func() { <-wc.dead; stop(); ps.t.cfg.Sessions.Remove(sess.ID()) }()
	return wc, nil
}

func (ps *Remote) closeWS() { ps.ws.close() }

// readReplies reads a stream connection's frames, opens each, and hands it
// to the call it answers.
func (t *Table) readReplies(ps *Remote, conn *pooled, read func() ([]byte, error)) {
	defer conn.close()
	for {
		b, err := read()
		if err != nil {
			if endedNoSession(err) {
				// The peer's end of the handshake did not finish in its
				// time (a loaded machine), though this end's did: it read
				// nothing sent in the session, so every call on the
				// connection goes again on a new one.
				conn.expired.Store(true)
			}
			return
		}
		d, err := t.openFrame(ps, b)
		// Opening decodes from copies, sealed or not, as the stream faces'
		// pipeline does (package frames): nothing keeps b.
		frames.PutEnvelopeBuf(b)
		if err != nil {
			t.log.Warn("dropped a frame from a peer", "peer", ps.p.Org, "err", err.Error())
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
			t.log.Warn("peer refused a message on the connection", "peer", ps.p.Org, "code", string(c))
			return
		}
		if !t.pending.deliverTo(d) {
			t.log.Debug("reply for no waiting call", "peer", ps.p.Org, "op", string(d.m.Op))
		}
	}
}

// endedNoSession reports whether err, a stream connection's read's, says
// that the peer ended the connection for making no session in time.
func endedNoSession(err error) bool {
	if ce := (*websocket.CloseError)(nil); errors.As(err, &ce) {
		return ce.Code == wsconn.CloseNoSession
	}
	return errors.Is(err, errNoSession)
}

// callWS sends a message on the peer's WebSocket and waits for its replies.
func (ps *Remote) callWS(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
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
	deadline, _ := ctx.Deadline()
	pc, done := ps.t.pending.wait(m.ID, deadline)
	defer done()
	err = wc.conn.Write(body)
	frames.PutEnvelopeBuf(body) // the writer took a copy
	if err != nil {
		return wc.writeFailed(err)
	}
	return ps.spent(wc.lost(ps.t.awaitStream(ctx, ps, m, pc, wc.dead, onMsg)), wc.sess, wc.pooled)
}

// WebSocketConn is the socket under the peer's WebSocket connection, below
// TLS, or nil if there is none.
func (ps *Remote) WebSocketConn() net.Conn {
	ps.ws.mu.Lock()
	defer ps.ws.mu.Unlock()
	if !ps.ws.has {
		return nil
	}
	return ps.ws.cur.conn.NetConn()
}
