package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge"
)

// demoGateway is one organisation's gateway in the demo: a real gateway
// directory under the demo's temporary directory, served in this process
// on loopback, with its local agents launched as child processes.
type demoGateway struct {
	org  string
	dir  gateway.Dir
	made *gateway.InitResult
	ls   *gateway.Listeners
	s    *gateway.Server
	log  *logBook
	done chan error
}

// newDemoGateway makes a gateway directory for org, as `moltgate init`
// does, on two loopback ports chosen by the system. The listeners stay open
// so that nothing else takes the ports before the gateway serves.
func newDemoGateway(root, org string) (*demoGateway, error) {
	lh, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	lg, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		lh.Close()
		return nil, err
	}
	g := &demoGateway{org: org, dir: gateway.Dir(filepath.Join(root, org)), ls: &gateway.Listeners{HTTP: lh, GRPC: lg}, log: newLogBook()}
	if g.made, err = gateway.Init(g.dir, gateway.InitOptions{Org: org, Listen: lh.Addr().String(), GRPC: lg.Addr().String()}); err != nil {
		g.closeListeners()
		return nil, err
	}
	return g, nil
}

func (g *demoGateway) closeListeners() {
	for _, l := range []net.Listener{g.ls.HTTP, g.ls.GRPC, g.ls.Core, g.ls.RPC} {
		if l != nil {
			l.Close()
		}
	}
}

// setConfig replaces settings in the gateway's moltgate.toml (see
// editConfig).
func (g *demoGateway) setConfig(lines ...[2]string) error { return editConfig(g.dir, lines...) }

// editConfig replaces settings in a gateway's moltgate.toml, each given as
// the whole line the file has and the line to put instead.
func editConfig(d gateway.Dir, lines ...[2]string) error {
	path := d.ConfigPath()
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(b)
	for _, l := range lines {
		if !strings.Contains(text, l[0]+"\n") {
			return fmt.Errorf("%s has no line %q", path, l[0])
		}
		text = strings.Replace(text, l[0]+"\n", l[1]+"\n", 1)
	}
	return os.WriteFile(path, []byte(text), 0o600)
}

// trust imports other's signed peer document, as `moltgate peer export` and
// `moltgate peer import --max-cls` do.
func (g *demoGateway) trust(other *demoGateway, maxCls string) (*gateway.Peer, error) {
	doc, err := gateway.ExportPeer(other.dir, nil, time.Now())
	if err != nil {
		return nil, err
	}
	return gateway.ImportPeer(g.dir, doc, gateway.ImportOptions{MaxCls: maxCls})
}

// start opens the gateway and serves it. The gateway launches its agents.
func (g *demoGateway) start() error {
	s, err := gateway.Open(gateway.Options{Dir: g.dir, Logger: slog.New(g.log.handler())})
	if err != nil {
		return err
	}
	if g.ls.Core, err = localbridge.ListenUnix(g.dir.CoreSocket()); err != nil {
		return err
	}
	if g.ls.RPC, err = localbridge.ListenUnix(g.dir.RPCSocket()); err != nil {
		return err
	}
	g.s = s
	g.done = make(chan error, 1)
	go func() { g.done <- s.Serve(g.ls) }()
	return nil
}

// stop shuts the gateway down gracefully; its agents are stopped with it.
func (g *demoGateway) stop() error {
	if g.s == nil {
		g.closeListeners()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := g.s.Shutdown(ctx)
	if serr := <-g.done; !errors.Is(serr, gateway.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	g.s = nil
	return err
}

// pong is what a ping answers.
type pong struct {
	Status       string   `json:"status"`
	Capabilities []string `json:"capabilities_active"`
}

// awaitAgent waits until the local agent id has connected and registered
// its tools, and returns them.
func (g *demoGateway) awaitAgent(ctx context.Context, id string) ([]string, error) {
	for {
		raw, err := g.s.Local().Ping(ctx, localbridge.PingRequest{Agent: id})
		if err != nil {
			return nil, err
		}
		var p pong
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		if p.Status == "alive" && len(p.Capabilities) > 0 {
			return p.Capabilities, nil
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return nil, fmt.Errorf("agent %s@%s did not come up: %w", id, g.org, ctx.Err())
		}
	}
}

// agentCommand is the command line that runs a demo agent: this very
// program, with the hidden subcommand `demo agent NAME`.
func agentCommand(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this program to launch the demo's agents: %w", err)
	}
	return shellQuote(exe) + " demo agent " + name, nil
}

// shellQuote quotes s for gateway.SplitCommand.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
