package gateway

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/wire"
)

// TestTooLargeAnsweredToClientsThatSendFirst: a client that sends its
// whole body before it reads (Python's http.client, for one) reads the
// 413 E_TOO_LARGE of a body over the limit, announced or chunked, rather
// than a reset; and the connection is closed after it.
func TestTooLargeAnsweredToClientsThatSendFirst(t *testing.T) {
	// The drain's own bound is tested in httpface; here each MiB may take
	// a minute, as on a machine with ten busy loops and the race detector.
	r := newFaceRig(t, func(s *Server) { s.cfg.Listen.DrainTime = Duration(time.Minute) })
	limit := r.g.s.pipe.EnvelopeLimit()
	body := bytes.Repeat([]byte("x"), 8*limit)
	addr := strings.TrimPrefix(r.peer.Endpoint, "https://")
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			var req bytes.Buffer
			fmt.Fprintf(&req, "POST /moltspeak/v0.1/message HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", addr)
			if chunked {
				req.WriteString("Transfer-Encoding: chunked\r\n\r\n")
				for rest := body; len(rest) > 0; {
					n := min(len(rest), 64<<10)
					fmt.Fprintf(&req, "%x\r\n%s\r\n", n, rest[:n])
					rest = rest[n:]
				}
				req.WriteString("0\r\n\r\n")
			} else {
				fmt.Fprintf(&req, "Content-Length: %d\r\n\r\n", len(body))
				req.Write(body)
			}
			// The request is made before the connection, since the headers
			// must arrive within read_header_timeout of it: on a loaded
			// machine, building 11 MB of chunks under the race detector
			// took longer than that, and the gateway rightly closed the
			// connection of a client that sent no headers.
			cfg := r.tls.Clone()
			cfg.NextProtos = []string{"http/1.1"}
			c, err := tls.Dial("tcp", addr, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			// All of it, before reading anything.
			if _, err := c.Write(req.Bytes()); err != nil {
				t.Fatalf("sending the %d-byte body: %v", len(body), err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer to a body of %d bytes over a limit of %d: %v", len(body), limit, err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			env, err := r.codec.DecodeEnvelope(bytes.TrimSpace(b))
			if resp.StatusCode != http.StatusRequestEntityTooLarge || err != nil || env.Message == nil || env.Message.Op != wire.OpError {
				t.Fatalf("answer %d %s (%v)", resp.StatusCode, b, err)
			}
			if code := env.Message.Payload.(*wire.ErrorPayload).Code; code != wire.ErrTooLarge {
				t.Fatalf("code %s, want %s", code, wire.ErrTooLarge)
			}
			if err := crypto.VerifyWith(env.Message, r.peer.OrgKey); err != nil {
				t.Fatalf("refusal not signed by globex: %v", err)
			}
			if !resp.Close {
				t.Error("the connection is not closed after the refusal")
			}
		})
	}
}
