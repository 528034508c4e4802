package peers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/internal/grpcconn"
	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
)

// The client half of the gRPC transport: this gateway's stream to a peer
// gateway, its handshake, and the calls sent on it.

// grpcClient is this gateway's gRPC connection and stream to one peer.
type grpcClient struct {
	*pooled
	w *grpcconn.Writer
}

// send writes b to the peer, waiting for its turn until ctx ends. A peer
// that stops reading has the connection closed once a write has waited the
// write timeout for it, which fails that write and every call on it.
func (c *grpcClient) send(ctx context.Context, b []byte) error { return c.w.Send(ctx, b) }

// grpcFor returns the peer's gRPC stream, with a call counted on it,
// opening it and running the handshake on it if there is none.
func (ps *Remote) grpcFor(ctx context.Context) (*grpcClient, error) {
	return ps.gc.get(ctx, &ps.slots, ps.dialGRPC)
}

// dialGRPC opens a gRPC stream to the peer and runs the handshake on it.
func (ps *Remote) dialGRPC(ctx context.Context) (*grpcClient, error) {
	creds := insecure.NewCredentials()
	if ps.tls != nil {
		creds = credentials.NewTLS(ps.tls)
	}
	target := ps.p.GRPC
	target = strings.TrimPrefix(strings.TrimPrefix(target, "https://"), "http://")
	var nd sockio.Dialer
	cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds), grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := nd.DialContext(ctx, "tcp", addr)
		if err == nil {
			grpcconn.SetUserTimeout(c, grpcconn.PingTimeout)
		}
		return c, err
	}),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(grpcconn.Codec{}), grpc.MaxCallRecvMsgSize(ps.t.cfg.EnvelopeLimit()), grpc.MaxCallSendMsgSize(ps.t.cfg.EnvelopeLimit())),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: wsconn.PingEvery, Timeout: grpcconn.PingTimeout, PermitWithoutStream: true}),
		grpc.WithInitialWindowSize(grpcconn.Window), grpc.WithInitialConnWindowSize(grpcconn.Window))
	if err != nil {
		return nil, errors.Join(errTransport, err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	st, err := cc.NewStream(sctx, &grpc.StreamDesc{StreamName: "Stream", ServerStreams: true, ClientStreams: true}, grpcconn.MethodStream)
	if err != nil {
		cancel()
		cc.Close()
		return nil, errors.Join(errTransport, err)
	}
	hctx, hcancel := context.WithTimeout(ctx, ps.t.cfg.HandshakeTimeout())
	sess, err := handshake.NewInitiator(ps.t.cfg.Handshake, handshake.Peer{Ref: ps.ref, Key: ps.p.OrgKey}).Run(hctx, grpcconn.Transport{Stream: st})
	hcancel()
	if err != nil {
		cancel()
		cc.Close()
		if pipeline.Code(err) == "" {
			err = errors.Join(errTransport, err)
		}
		return nil, err
	}
	if err := ps.adopt(sess); err != nil {
		cancel()
		cc.Close()
		return nil, err
	}
	gc := &grpcClient{pooled: newPooled(sess, func() { cancel(); cc.Close() })}
	gc.w = grpcconn.NewWriter(st.SendMsg, ps.t.cfg.WriteTimeout(), func() {
		ps.t.log.Warn("peer stopped reading the calls sent to it: the connection is closed", "peer", ps.p.Org, "transport", TransportGRPC)
		gc.close()
	})
	go ps.t.readReplies(ps, gc.pooled, grpcReader(st))
	go func() { <-gc.dead; ps.t.cfg.Sessions.Remove(sess.ID()) }()
	return gc, nil
}

// errNoSession is what a stream connection's read fails with, wrapped,
// when the answering gateway ended it for making no session in time: on a
// gRPC stream, the trailer grpcconn.EndNoSession (on a WebSocket, close
// code wsconn.CloseNoSession, which readReplies reads itself).
var errNoSession = errors.New("the peer made no session on the connection in time")

// grpcReader reads the replies on a gRPC stream, each into a recycled
// envelope buffer (given back by readReplies once opened).
func grpcReader(st grpc.ClientStream) func() ([]byte, error) {
	return func() ([]byte, error) {
		var b grpcconn.Frame
		err := st.RecvMsg(&b)
		if err != nil && grpcconn.NoSession(st.Trailer()) {
			err = fmt.Errorf("%w: %w", errNoSession, err)
		}
		return b, err
	}
}

func (ps *Remote) closeGRPC() { ps.gc.close() }

// callGRPC sends a message on the peer's gRPC stream and waits for its
// replies.
func (ps *Remote) callGRPC(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	gc, err := ps.grpcFor(ctx)
	if err != nil {
		return err
	}
	defer gc.release()
	m.Sig = keys.Signature{}
	body, err := gc.sess.SignAndSeal(m, sk)
	if err != nil {
		return notSent(err)
	}
	deadline, _ := ctx.Deadline()
	pc, done := ps.t.pending.wait(m.ID, deadline)
	defer done()
	if err := gc.send(ctx, body); err != nil {
		if errors.Is(err, grpcconn.ErrNoTurn) {
			return wire.Errorf(wire.ErrTimeout, "", "the call to %s could not be sent on its stream before the deadline", ps.p.Org)
		}
		return gc.writeFailed(err)
	}
	return ps.spent(gc.lost(ps.t.awaitStream(ctx, ps, m, pc, gc.dead, onMsg)), gc.sess, gc.pooled)
}
