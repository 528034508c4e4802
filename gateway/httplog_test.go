package gateway

import (
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"
)

// A client that fails its TLS handshake is logged by the gateway's own
// logger, at debug, and counted; before, net/http printed a plain line to
// the process's standard logger for each one.
func TestHTTPErrorsInTheGatewayLog(t *testing.T) {
	d, ls := newTestDir(t, "globex")
	g := start(t, d, ls, TransportWebSocket)
	c, err := net.Dial("tcp", ls.HTTP.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var buf [512]byte
	c.Read(buf[:]) // the answer to plain HTTP on a TLS port, then EOF
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for testCounter(t, g.s.metrics.httpErrs.WithLabelValues("tls_handshake")) < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no TLS handshake error counted; log:\n%s", g.logs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var found bool
	for _, line := range strings.Split(g.logs(), "\n") {
		var r struct{ Level, Msg, Kind string }
		if json.Unmarshal([]byte(line), &r) != nil || !strings.Contains(r.Msg, "TLS handshake error") {
			continue
		}
		found = true
		if r.Level != "DEBUG" || r.Kind != "tls_handshake" || !strings.HasPrefix(r.Msg, "https face: ") {
			t.Errorf("logged as %+v", r)
		}
	}
	if !found {
		t.Errorf("the handshake error is not in the gateway's log:\n%s", g.logs())
	}
}
