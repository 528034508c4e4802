package main

import (
	"context"
	"testing"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// A gateway that ends the connection while a call waits (it crashed, or
// was killed) is unavailable, not an internal error of the command line.
func TestCallGatewayGone(t *testing.T) {
	d := fakeGateway(t, func(c *fakeConn, r *jsonrpc.Request) {
		if r.Method == localbridge.MethodQuery {
			c.answer(r, `{"query_id":"q-1","status":"processing"}`)
			c.notify(localbridge.NotifyToken, `{"query_id":"q-1","token":"par","index":0}`)
			c.nc.Close()
		}
	})
	code, stdout, stderr := runCLI(t, context.Background(), "", "call", "--dir", string(d), "--to", "echo@globex", "--tool", "echo", "--input", `{"text":"hi"}`)
	if want := "moltgate call: E_PEER_UNAVAILABLE: the gateway ended the connection during the call\n"; code != 1 || stdout != "" || stderr != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
	}
}
