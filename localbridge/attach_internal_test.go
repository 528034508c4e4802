package localbridge

import (
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// Of two connections of one agent, the one admitted later stays live, whichever reaches
// attach first: a connection that dropped just after its welcome, and whose handshake
// finished after the agent had connected again, does not replace the new one.
func TestAttachKeepsTheLaterAdmitted(t *testing.T) {
	c := NewCore(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer c.Close()
	if err := c.AddAgent(AgentSpec{ID: "remote"}); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	e := c.agents["remote"]
	c.mu.Unlock()
	open := func() (*session, net.Conn) {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		go io.Copy(io.Discard, b) // the agent's side reads what the Core says
		return newSession(c, a, osp.NewReader(a, 0), e, nil, osp.Hello{}, 0, 0), b
	}
	first, _ := open()
	second, _ := open()
	if got := c.attach(e, second); got != attached {
		t.Fatalf("the later session: attach %d", got)
	}
	if got := c.attach(e, first); got != attachStale {
		t.Fatalf("the earlier session, attached after the later: attach %d, want attachStale", got)
	}
	c.mu.Lock()
	live := c.agents["remote"].sess
	c.mu.Unlock()
	if live != second || second.closed() {
		t.Fatal("the later session is not the live one")
	}
	// In order, the later replaces the earlier, as always.
	third, _ := open()
	if got := c.attach(e, third); got != attached || !second.closed() {
		t.Fatalf("a session admitted later still: attach %d, the one it replaced closed: %v", got, second.closed())
	}
}
